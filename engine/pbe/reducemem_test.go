package pbe_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// copyBytes is what the subgraph h holds in memory as made (its arrays, Raw), counted here
// from h itself: a lower bound of what pbe must charge for its reduction.
func copyBytes(h *graph.Graph) uint64 {
	r := h.Raw()
	return 4*uint64(len(r.VertexLabels)) + 8*uint64(len(r.Offsets)+len(r.RunOffsets)+len(r.OriginalIDs)) +
		4*uint64(len(r.Neighbors)+len(r.EdgeLabels)) + 16*uint64(len(r.Runs))
}

// reducedOf is the subgraph pbe's reduction takes for p in convention sem (reduce.go): the
// edges of p's kinds for a non-induced count whose every vertex has an edge, else the subgraph
// induced by p's labels.
func reducedOf(g *graph.Graph, p *pattern.Pattern, sem engine.Semantics) *graph.Graph {
	if kinds := patternKinds(p); kinds != nil && !sem.Induced {
		h, _ := g.SubgraphByEdgeKinds(kinds, 2*g.NumEdges())
		return h
	}
	labels := labelsOf(p)
	slices.Sort(labels)
	return g.InducedByVertexLabels(slices.Compact(labels))
}

// TestReduceWithinMemory checks that pbe charges the reduced subgraph (reduce.go) against the
// host memory limit (Problem.MemoryLimit, --memory) on a labelled R-MAT graph, for a label-induced
// reduction, an edge-kind one and a disconnected pattern's, with --memory the partition budget
// (no Budget, no GPU limit) and not (a Budget): with no limit the count is reduced; with a limit
// a byte below what the subgraph's copy holds (counted here from the copy), the count runs on the
// whole graph (ReduceSkipped says why), its parts within the limit, and lists the same matches;
// with a limit below the whole graph's largest vertex and halo (pbe.MinBudget) but above the
// subgraph's, it fails with engine.ErrMemory. Before the copy was charged, the last two ran on the
// subgraph, its copy beyond the limit. Counts equal the cpu engine's throughout.
func TestReduceWithinMemory(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 12, EdgeFactor: 8, VertexLabels: 20, LabelDistribution: gen.ZipfLabels, EdgeLabels: 3, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	fellBack := 0 // (cases the whole graph counted in, not refused)
	for _, c := range []struct {
		query string
		sem   engine.Semantics
	}{
		{"(a:0)-(b:1)-(c:0)-(a)", engine.Semantics{Induced: true}},
		{"(a:0)-(b:1)-(c:0)-(a)", engine.Semantics{}},
		{"(a:0)-(b:1), (c:2)", engine.Semantics{Unique: true}},
	} {
		p, err := pattern.Parse(c.query)
		if err != nil {
			t.Fatal(err)
		}
		prob := &engine.Problem{Data: g, Pattern: p, Semantics: c.sem, Threads: 2}
		want, err := cpu.Count(ctx, prob)
		if err != nil {
			t.Fatal(err)
		}
		sub := reducedOf(g, p, c.sem)
		held := copyBytes(sub)
		below := held - 1
		if minG, minSub := pbe.MinBudget(g), pbe.MinBudget(sub); below < minG || minSub >= minG {
			t.Fatalf("%s %+v: the copy's %d bytes, the graph's MinBudget %d and the subgraph's %d leave no case", c.query, c.sem, held, minG, minSub)
		}
		count := func(e *pbe.Engine, limit uint64) (*pbe.Stats, error) {
			t.Helper()
			q := *prob
			q.MemoryLimit = limit
			res, st, err := e.CountStats(ctx, &q)
			if err == nil && res.Count != want.Count {
				t.Errorf("%s %+v, --memory %d: count %d, the cpu engine's %d", c.query, c.sem, limit, res.Count, want.Count)
			}
			return st, err
		}
		if st, err := count(&pbe.Engine{}, 0); err != nil || !st.Reduced || st.ReducedBytes < held {
			t.Fatalf("%s %+v, no limit: reduced %v (%d bytes charged, the copy holds %d), err %v", c.query, c.sem, st.Reduced, st.ReducedBytes, held, err)
		}
		// --memory the partition budget, a byte below the copy: the whole graph, in parts, or a
		// refusal for memory where the partitioning, a part's copy and the cpu engine's buffers
		// on it do not fit (hostmem.go).
		st, err := count(&pbe.Engine{}, below)
		fallback := err == nil
		if fallback {
			fellBack++
		}
		if err != nil && !errorsIs(err, engine.ErrMemory) || st.Reduced || st.ReduceSkipped == "" || st.MaxPartBytes > below {
			t.Errorf("%s %+v, --memory %d (the copy holds %d): reduced %v (%q), largest part %d, err %v",
				c.query, c.sem, below, held, st.Reduced, st.ReduceSkipped, st.MaxPartBytes, err)
		}
		// --memory beside a partition budget: the same.
		if st, err := count(&pbe.Engine{Budget: pbe.MinBudget(g)}, below); err != nil || st.Reduced {
			t.Errorf("%s %+v, budget %d, --memory %d (the copy holds %d): reduced %v, err %v",
				c.query, c.sem, pbe.MinBudget(g), below, held, st.Reduced, err)
		}
		// Below the whole graph's largest vertex: a clear refusal.
		tight := pbe.MinBudget(g) - 1
		if st, err := count(&pbe.Engine{}, tight); !errorsIs(err, engine.ErrMemory) {
			t.Errorf("%s %+v, --memory %d (the graph needs %d, the subgraph %d, its copy holds %d): reduced %v, err %v",
				c.query, c.sem, tight, tight+1, pbe.MinBudget(sub), held, st.Reduced, err)
		}
		// Listing under the limit a byte below the copy: the cpu engine's matches.
		if !fallback {
			continue
		}
		q := *prob
		q.MemoryLimit = below
		got := matchSet(t, &pbe.Engine{}, &q, c.query+" listed by pbe")
		if wantList := matchSet(t, cpu, prob, c.query+" listed by cpu"); !slices.EqualFunc(got, wantList, slices.Equal) {
			t.Errorf("%s %+v, --memory %d: %d matches listed, the cpu engine %d", c.query, c.sem, below, len(got), len(wantList))
		}
	}
	if fellBack == 0 {
		t.Errorf("no case counted on the whole graph a byte below its reduction's copy")
	}
}

// TestReducePartsFallBack checks prepare's fallback: with --memory the partition budget, a limit
// that the reduced subgraph's making fits but that leaves its parts too little (a hub of label 0
// joined to 60,000 vertices of label 1, its halo alone more than what is left) runs the count on
// the whole graph (a dense part of label 2 beside), whose parts get the whole limit; the count
// equals the cpu engine's.
func TestReducePartsFallBack(t *testing.T) {
	const leaves, clique = 60000, 400
	b := graph.NewBuilder(graph.BuilderOptions{})
	for i := range int64(leaves) {
		if err := b.SetVertexLabel(i+1, 1); err != nil {
			t.Fatal(err)
		}
		if err := b.AddEdge(0, i+1, 0); err != nil {
			t.Fatal(err)
		}
	}
	for i := range int64(clique) {
		id := leaves + 1 + i
		if err := b.SetVertexLabel(id, 2); err != nil {
			t.Fatal(err)
		}
		for j := range i {
			if err := b.AddEdge(id, leaves+1+j, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	p, err := pattern.Parse("(a:0)-(b:1)")
	if err != nil {
		t.Fatal(err)
	}
	prob := &engine.Problem{Data: g, Pattern: p, Semantics: engine.Semantics{Induced: true}, Threads: 2}
	labels := []uint32{0, 1}
	size := g.InducedSize(labels)
	limit := g.InducedBytes(size)
	sub := g.InducedByVertexLabels(labels)
	if left := limit - size.Bytes(g.HasEdgeLabels()); left >= pbe.MinBudget(sub) || limit < pbe.MinBudget(g) {
		t.Fatalf("--memory %d leaves %d beside the subgraph, which needs %d; the graph needs %d: no case", limit, left, pbe.MinBudget(sub), pbe.MinBudget(g))
	}
	res, st, err := (&pbe.Engine{}).CountStats(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: prob.Semantics, Threads: 2, MemoryLimit: limit})
	if err != nil || res.Count != leaves || st.Reduced || !strings.HasPrefix(st.ReduceSkipped, "the parts do not fit") || st.MaxPartBytes > limit {
		t.Errorf("--memory %d: count %d (want %d), reduced %v (%q), largest part %d, err %v", limit, res.Count, leaves, st.Reduced, st.ReduceSkipped, st.MaxPartBytes, err)
	}
}
