package mining

import (
	"context"
	"fmt"
	"math/bits"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/testenv"
)

func TestConnectedShapes(t *testing.T) {
	want := []int{1, 1, 2, 6, 21, 112}
	for k := 1; k <= MaxK; k++ {
		shapes := ConnectedShapes(k)
		if len(shapes) != want[k-1] {
			t.Errorf("k=%d: %d connected shapes, want %d", k, len(shapes), want[k-1])
		}
		seen := map[uint64]bool{}
		for _, s := range shapes {
			if !s.Connected() || s.Canonical() != s || seen[s.Code()] {
				t.Errorf("k=%d: shape %v is not a new canonical connected shape", k, s.Pattern())
			}
			seen[s.Code()] = true
			if s.Pattern().NumEdges() != s.Edges() {
				t.Errorf("k=%d: pattern of %v has %d edges, want %d", k, s.Pattern(), s.Pattern().NumEdges(), s.Edges())
			}
		}
	}
}

func TestNames(t *testing.T) {
	names := map[string]bool{}
	for k := 3; k <= 5; k++ {
		for _, s := range ConnectedShapes(k) {
			n := s.Name()
			if n == "" || names[n] {
				t.Errorf("k=%d: shape %v has name %q (empty or repeated)", k, s.Pattern(), n)
			}
			names[n] = true
		}
	}
	if len(names) != len(shapeNames) {
		t.Errorf("%d names used, %d defined (a definition is not connected or duplicates another)", len(names), len(shapeNames))
	}
}

// bruteCensus counts, over every k-vertex subset, the induced shape (if connected) and every
// connected spanning edge subset of it: the oracle for the census, sharing nothing with it but
// Shape's canonical form.
func bruteCensus(g *graph.Graph, k int) (nonInduced, induced map[uint64]uint64) {
	nonInduced, induced = map[uint64]uint64{}, map[uint64]uint64{}
	spanning := map[uint64]map[uint64]uint64{} // canonical induced shape -> its connected spanning subshapes
	eachSubset(g.NumVertices(), k, func(set []uint32) {
		s, _ := inducedShape(g, set)
		c := s.Canonical()
		if !c.Connected() {
			return
		}
		induced[c.Code()]++
		subs, ok := spanning[c.Code()]
		if !ok {
			subs = spanningSubshapes(c)
			spanning[c.Code()] = subs
		}
		for code, x := range subs {
			nonInduced[code] += x
		}
	})
	return nonInduced, induced
}

// inducedShape returns the shape g induces on set (vertex i of the shape is set[i]) and its
// edges, as pairs of positions.
func inducedShape(g *graph.Graph, set []uint32) (s Shape, edges [][2]int) {
	s.K = len(set)
	for i := range set {
		for j := i + 1; j < len(set); j++ {
			if _, ok := g.HasEdge(set[i], set[j]); ok {
				s.Adj[i] |= 1 << j
				s.Adj[j] |= 1 << i
				edges = append(edges, [2]int{i, j})
			}
		}
	}
	return s, edges
}

// eachSubset calls f with every k-subset of 0..n-1, increasing (f must not keep set).
func eachSubset(n, k int, f func(set []uint32)) {
	set := make([]uint32, k)
	var rec func(start, depth int)
	rec = func(start, depth int) {
		if depth == k {
			f(set)
			return
		}
		for v := start; v < n; v++ {
			set[depth] = uint32(v)
			rec(v+1, depth+1)
		}
	}
	rec(0, 0)
}

func spanningSubshapes(s Shape) map[uint64]uint64 {
	var edges [][2]int
	for i := 0; i < s.K; i++ {
		for j := i + 1; j < s.K; j++ {
			if s.Adj[i]&(1<<j) != 0 {
				edges = append(edges, [2]int{i, j})
			}
		}
	}
	out := map[uint64]uint64{}
	for mask := 0; mask < 1<<len(edges); mask++ {
		t := Shape{K: s.K}
		for m := mask; m != 0; m &= m - 1 {
			e := edges[bits.TrailingZeros(uint(m))]
			t.Adj[e[0]] |= 1 << e[1]
			t.Adj[e[1]] |= 1 << e[0]
		}
		if t.Connected() {
			out[t.Canonical().Code()]++
		}
	}
	return out
}

func checkCensus(t *testing.T, g *graph.Graph, k int, threads int, label string) {
	t.Helper()
	c, err := Count(context.Background(), g, Options{K: k, Threads: threads})
	if err != nil {
		t.Fatalf("%s k=%d: %v", label, k, err)
	}
	ni, in := bruteCensus(g, k)
	for _, m := range c.Motifs {
		code := m.Shape.Code()
		if m.NonInduced != ni[code] || m.Induced != in[code] {
			t.Errorf("%s k=%d %s %q (%s): non-induced %d induced %d, brute force %d %d",
				label, k, m.Name, m.Pattern, m.Method, m.NonInduced, m.Induced, ni[code], in[code])
		}
	}
}

func TestCensusBruteForce(t *testing.T) {
	cases := testenv.Sweep(12, 120)
	for seed := range uint64(cases) {
		n := 9 + int(seed%5)
		p := []float64{0.25, 0.4, 0.6, 0.85}[seed%4]
		g := gen.RandomGraph(seed, n, p, 1+int(seed%3), 1)
		for k := 3; k <= 5; k++ {
			checkCensus(t, g, k, 1+int(seed%2), fmt.Sprintf("seed %d (n=%d p=%.2f)", seed, n, p))
		}
	}
}

// TestCensusSix checks k = 6 (engine counts and the containment matrix) against the oracle
// matcher, pattern by pattern.
func TestCensusSix(t *testing.T) {
	g := gen.RandomGraph(7, 9, 0.6, 1, 1)
	c, err := Count(context.Background(), g, Options{K: 6})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range c.Motifs {
		p := m.Shape.Pattern()
		ni := oracle.Count(g, p, engine.Semantics{Unique: true})
		in := oracle.Count(g, p, engine.Semantics{Unique: true, Induced: true})
		emb := oracle.Count(g, p, engine.Semantics{})
		e, ei, err := m.Embeddings()
		if err != nil || m.NonInduced != ni || m.Induced != in || e != emb || ei != in*m.Automorphisms {
			t.Errorf("%q: %d %d (embeddings %d), oracle %d %d (%d)", m.Pattern, m.NonInduced, m.Induced, e, ni, in, emb)
		}
	}
}

// TestContainmentSmall checks a few entries by hand.
func TestContainmentSmall(t *testing.T) {
	shapes := ConnectedShapes(4)
	c := Containment(shapes)
	get := func(a, b string) uint64 {
		ia, ib := -1, -1
		for i, s := range shapes {
			if s.Name() == a {
				ia = i
			}
			if s.Name() == b {
				ib = i
			}
		}
		return c[ia][ib]
	}
	for _, x := range []struct {
		a, b string
		want uint64
	}{
		{"4-path", "4-clique", 12}, {"4-cycle", "4-clique", 3}, {"3-star", "4-clique", 4},
		{"tailed triangle", "diamond", 4}, {"4-path", "4-cycle", 4}, {"diamond", "diamond", 1}, {"4-cycle", "diamond", 1},
	} {
		if got := get(x.a, x.b); got != x.want {
			t.Errorf("%s in %s: %d, want %d", x.a, x.b, got, x.want)
		}
	}
}

// TestScratchBound: the per-worker dense scratch follows Options.Memory (fewer workers, at least
// one), and the counts do not depend on it.
func TestScratchBound(t *testing.T) {
	for _, c := range []struct {
		threads, n int
		per, bound uint64
		want       int
	}{
		{4, 1000, 84, 0, 4},              // the default bound is far away
		{4, 1000, 84, 84 * 1000 * 2, 2},  // two workers' worth
		{4, 1000, 84, 1, 1},              // never fewer than one
		{8, 3, 84, 1 << 30, 3},           // never more than the items
		{16, 10_000_000, 84, 4 << 30, 5}, // 10M vertices: 840 MB a worker within 4 GiB
		{2, 10_000_000, 84, 40 << 30, 2}, // the threads asked for
	} {
		if got := scratchThreads(c.threads, c.n, c.per, c.bound); got != c.want {
			t.Errorf("scratchThreads(%d, %d, %d, %d) = %d, want %d", c.threads, c.n, c.per, c.bound, got, c.want)
		}
	}
	ctx := context.Background()
	g := gen.RandomGraph(41, 24, 0.35, 1, 1)
	for _, k := range []int{5, 6} {
		want, err := Count(ctx, g, Options{K: k, Threads: 4})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Count(ctx, g, Options{K: k, Threads: 4, Memory: 1})
		if err != nil || fmt.Sprint(got.Motifs) != fmt.Sprint(want.Motifs) {
			t.Errorf("k %d: one worker's scratch: census differs (%v)", k, err)
		}
	}
	want, err := CountPerVertex(ctx, g, Options{K: 5, Threads: 4})
	if err != nil {
		t.Fatal(err)
	}
	got, err := CountPerVertex(ctx, g, Options{K: 5, Threads: 4, Memory: 1})
	if err != nil || fmt.Sprint(got.Induced) != fmt.Sprint(want.Induced) {
		t.Errorf("per-vertex, one worker's scratch: counts differ (%v)", err)
	}
}
