package gen

import (
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/oracle"
)

func TestRandomGraphDeterministic(t *testing.T) {
	a := RandomGraph(7, 30, 0.3, 3, 2)
	b := RandomGraph(7, 30, 0.3, 3, 2)
	c := RandomGraph(8, 30, 0.3, 3, 2)
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	if a.NumVertices() != 30 || a.NumEdges() != b.NumEdges() {
		t.Fatalf("n=%d m=%d/%d", a.NumVertices(), a.NumEdges(), b.NumEdges())
	}
	same := func(x, y []uint32) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	differs := false
	for v := uint32(0); v < 30; v++ {
		if a.VertexLabel(v) != b.VertexLabel(v) || !same(a.Neighbors(v), b.Neighbors(v)) ||
			!same(a.NeighborEdgeLabels(v), b.NeighborEdgeLabels(v)) {
			t.Fatalf("same seed, different graphs at vertex %d", v)
		}
		if !same(a.Neighbors(v), c.Neighbors(v)) {
			differs = true
		}
		if a.VertexLabel(v) > 2 {
			t.Fatalf("vertex label %d out of range", a.VertexLabel(v))
		}
	}
	if !differs {
		t.Error("seeds 7 and 8 give the same graph")
	}
	if e := a.NumEdges(); e < 100 || e > 160 { // expected 0.3*435 = 130.5
		t.Errorf("G(30, 0.3) has %d edges", e)
	}
	if !a.HasEdgeLabels() {
		t.Error("no edge labels drawn")
	}
	if RandomGraph(1, 20, 0.5, 1, 1).HasEdgeLabels() {
		t.Error("edgeLabels 1 gave non-zero edge labels")
	}
	if g := RandomGraph(1, 5, 1, 1, 1); g.NumEdges() != 10 {
		t.Errorf("G(5, 1) has %d edges", g.NumEdges())
	}
}

func TestRandomGraphM(t *testing.T) {
	g := RandomGraphM(3, 40, 100, 2, 3)
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if g.NumEdges() != 100 {
		t.Fatalf("G(40, 100) has %d edges", g.NumEdges())
	}
	if g := RandomGraphM(3, 6, 1000, 1, 1); g.NumEdges() != 15 {
		t.Fatalf("G(6, 1000) has %d edges, want 15", g.NumEdges())
	}
}

func TestRandomPattern(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		n := 1 + int(seed%12)
		k := 1 + int(seed%3)
		p := RandomPattern(seed, n, PatternOptions{Components: k, EdgeProb: 0.3, VertexLabels: 3, EdgeLabels: 2, Wildcard: 0.2})
		if p.NumVertices() != n {
			t.Fatalf("seed %d: %d vertices, want %d", seed, p.NumVertices(), n)
		}
		if got, want := len(p.Components()), min(k, n); got != want {
			t.Fatalf("seed %d: %d components, want %d: %s", seed, got, want, p)
		}
		q := RandomPattern(seed, n, PatternOptions{Components: k, EdgeProb: 0.3, VertexLabels: 3, EdgeLabels: 2, Wildcard: 0.2})
		if p.String() != q.String() {
			t.Fatalf("seed %d: not deterministic: %s vs %s", seed, p, q)
		}
		for u := 0; u < n; u++ {
			if l := p.VertexLabel(u); !l.Any && l.Value > 2 {
				t.Fatalf("seed %d: vertex label %s", seed, l)
			}
		}
	}
	if p := RandomPattern(1, 32, PatternOptions{Components: 1, EdgeProb: 1}); p.NumEdges() != 32*31/2 {
		t.Fatalf("complete 32-vertex pattern has %d edges", p.NumEdges())
	}
}

func TestSamplePatternHasMatches(t *testing.T) {
	g := RandomGraph(11, 30, 0.15, 3, 2)
	found := 0
	for seed := uint64(0); seed < 60; seed++ {
		n := 1 + int(seed%6)
		opts := SampleOptions{Components: 1 + int(seed%2), Induced: seed%3 == 0, KeepEdge: 0.5, Wildcard: 0.2}
		p, ok := SamplePattern(seed, g, n, opts)
		if !ok {
			continue
		}
		found++
		if p.NumVertices() != n || len(p.Components()) != max(1, min(opts.Components, n)) {
			t.Fatalf("seed %d: %d vertices, %d components: %s", seed, p.NumVertices(), len(p.Components()), p)
		}
		sem := engine.Semantics{Induced: opts.Induced && opts.Components <= 1}
		if c := oracle.Count(g, p, sem); c == 0 {
			t.Fatalf("seed %d: sampled pattern %s has no %s match", seed, p, sem)
		}
	}
	if found < 50 {
		t.Errorf("only %d of 60 samples succeeded", found)
	}
	if _, ok := SamplePattern(1, RandomGraph(1, 5, 0, 1, 1), 3, SampleOptions{}); ok {
		t.Error("sampled a connected 3-vertex pattern from an edgeless graph")
	}
}
