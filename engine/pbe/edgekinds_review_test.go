package pbe_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
)

// kindsLabels are the label values of a TestEdgeKindsReductionReview case: the graph's vertices
// take the first len(vertex)-1 and its edges the first len(edge)-1; the last of each is absent
// from the graph (a pattern with it has an empty kind set).
type kindsLabels struct{ vertex, edge []uint32 }

// newKindsLabels draws 1-4 vertex labels and 1-4 edge labels (1: none, every edge label 0), so
// that several pattern edges share a kind: small values (from 0 or 1) or, a third of the time,
// sparse ones up to 2^32-2 (the label index's map, runs keyed by large labels).
func newKindsLabels(rng *rand.Rand) kindsLabels {
	table := func(k int, none bool) []uint32 {
		ls := make([]uint32, k+1)
		base := uint32(rng.IntN(2))
		if none {
			base = 0
		}
		for i := range ls {
			ls[i] = base + uint32(i)
		}
		if rng.IntN(3) == 0 && !none {
			for i := range ls {
				ls[i] = []uint32{3, 1 << 20, 1<<31 + 5, 1<<32 - 2, 77}[i]
			}
		}
		return ls
	}
	ne := 1 + rng.IntN(4)
	return kindsLabels{vertex: table(1+rng.IntN(4), false), edge: table(ne, ne == 1)}
}

// kindsReviewGraph is a random graph for TestEdgeKindsReductionReview labelled from ls: 6-30
// vertices (some isolated), a density of 0.05-0.55, and half the time input ids that are not the
// dense ones (spaced and shuffled), so that a listing mapped through the wrong ids shows.
func kindsReviewGraph(t *testing.T, rng *rand.Rand, ls kindsLabels) *graph.Graph {
	t.Helper()
	n := 6 + rng.IntN(25)
	density := 0.05 + 0.5*rng.Float64()
	ids := make([]int64, n)
	for v := range ids {
		ids[v] = int64(v)
	}
	if rng.IntN(2) == 0 {
		for v := range ids {
			ids[v] = int64(3*v + 7)
		}
		rng.Shuffle(n, func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	}
	b := graph.NewBuilder(graph.BuilderOptions{})
	for v := range n {
		if err := b.SetVertexLabel(ids[v], ls.vertex[rng.IntN(len(ls.vertex)-1)]); err != nil {
			t.Fatal(err)
		}
	}
	for u := range n {
		for v := u + 1; v < n; v++ {
			if rng.Float64() < density {
				if err := b.AddEdge(ids[u], ids[v], ls.edge[rng.IntN(len(ls.edge)-1)]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// kindsReviewPattern is a random pattern of 1-7 vertices labelled from ls: exact vertex labels
// (few of them, so that pattern edges share kinds; at times the one no vertex has: an empty kind
// set), now and then a wildcard vertex; exact edge labels (rarely the absent one) or, a third of
// the time, wildcards beside exact ones; a random spanning forest plus extra edges, so that some
// patterns are disconnected, and a quarter have a vertex without an edge beside them.
func kindsReviewPattern(t *testing.T, rng *rand.Rand, ls kindsLabels) *pattern.Pattern {
	t.Helper()
	n := 1 + rng.IntN(6)
	labels := make([]pattern.Label, n)
	few := 1 + rng.IntN(len(ls.vertex)-1) // few labels: pattern edges of one kind
	if rng.IntN(8) == 0 {
		few = len(ls.vertex) // (with the label no vertex has)
	}
	vertexLabel := func() pattern.Label { return pattern.Exact(ls.vertex[rng.IntN(few)]) }
	for u := range labels {
		labels[u] = vertexLabel()
		if rng.IntN(12) == 0 {
			labels[u] = pattern.Wildcard
		}
	}
	edgeLabel := func() pattern.Label {
		if rng.IntN(3) == 0 {
			return pattern.Wildcard
		}
		if rng.IntN(16) == 0 {
			return pattern.Exact(ls.edge[len(ls.edge)-1]) // (a label no edge has)
		}
		return pattern.Exact(ls.edge[rng.IntN(len(ls.edge)-1)])
	}
	var edges []pattern.Edge
	for v := 1; v < n; v++ {
		if rng.IntN(6) != 0 { // a tree edge, mostly
			edges = append(edges, pattern.Edge{U: rng.IntN(v), V: v, Label: edgeLabel()})
		}
	}
	for u := range n {
		for v := u + 1; v < n; v++ {
			if rng.IntN(4) == 0 {
				edges = append(edges, pattern.Edge{U: u, V: v, Label: edgeLabel()})
			}
		}
	}
	if rng.IntN(4) == 0 { // a vertex without an edge, beside the others
		labels = append(labels, vertexLabel())
	}
	return proptest.FirstLabels(t, labels, edges)
}

// kindsSubgraphSize is the size of the subgraph reduce takes for a non-induced count of p on g
// (every vertex of p exact and with an edge), counted here entry by entry: the entries of g
// whose ends' labels and edge label are those of some edge of p (either way round), and the
// vertices with one. ok is false where reduce keeps the label-induced subgraph.
func kindsSubgraphSize(g *graph.Graph, p *pattern.Pattern) (vertices int, entries uint64, ok bool) {
	if p.NumEdges() == 0 {
		return 0, 0, false
	}
	for u := range p.NumVertices() {
		if p.VertexLabel(u).Any || p.Degree(u) == 0 {
			return 0, 0, false
		}
	}
	for v := range uint32(g.NumVertices()) {
		ls, kept := g.NeighborEdgeLabels(v), false
		for k, w := range g.Neighbors(v) {
			var l uint32
			if ls != nil {
				l = ls[k]
			}
			a, b := g.VertexLabel(v), g.VertexLabel(w)
			if slices.ContainsFunc(p.Edges(), func(e pattern.Edge) bool {
				x, y := p.VertexLabel(e.U).Value, p.VertexLabel(e.V).Value
				return ((x == a && y == b) || (x == b && y == a)) && e.Label.Matches(l)
			}) {
				entries, kept = entries+1, true
			}
		}
		if kept {
			vertices++
		}
	}
	return vertices, entries, true
}

// TestEdgeKindsReductionReview (review rev38) checks pbe's reduction to the edges of the
// pattern's kinds (reduce.go, graph.SubgraphByEdgeKinds) against the brute-force oracle on
// random edge-labelled graphs whose kinds collide (1-4 edge labels; small or sparse label values
// up to 2^32-2) and patterns that mix wildcard and exact edge labels, have pattern edges of one
// kind, a wildcard vertex (no reduction), a vertex without an edge, two components, or a label
// no vertex or edge has (an empty kind set: 0 matches, no error). In every convention, under no
// budget and budgets of the subgraph that cut it in parts (a partition budget, or the GPU memory
// limit on the host backend), and on one engine a graph (its caches kept from pattern to pattern
// and convention to convention), pbe's count is the oracle's and its listing (in the data graph's
// dense ids, which are not its input ids) the oracle's; a non-induced count that reduce may take
// by kinds runs on exactly the subgraph counted here entry by entry, and an induced one never
// does. It fails when an induced count is reduced by kinds, a pattern vertex without an edge is
// allowed, the listing maps ids through the input ids, or the cache ignores the kinds.
func TestEdgeKindsReductionReview(t *testing.T) {
	seeds, _ := proptest.Seeds(t, 400, 60)
	ctx := context.Background()
	byKinds, empty, inter, listed := 0, 0, 0, 0
	for _, seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, 38))
		ls := newKindsLabels(rng)
		g := kindsReviewGraph(t, rng, ls)
		// One engine for the whole graph too, its reduction and partitioning kept from one
		// count to the next (reduce.go's cache, keyed by the labels and the kinds).
		shared := &pbe.Engine{Budget: tightBudget(g)}
		for pi := range 4 {
			p := kindsReviewPattern(t, rng, ls)
			vs, entries, reducible := kindsSubgraphSize(g, p)
			// reduce takes the subgraph when it leaves an edge out and is small enough.
			reducible = reducible && entries < 2*g.NumEdges() && float64(entries) <= pbe.ReduceMaxShare*float64(2*g.NumEdges())
			c := proptest.Case{Seed: seed, G: g, P: p, Recipe: fmt.Sprintf("pattern %d of rand.NewPCG(%d, 38): %v", pi, seed, p)}
			for _, sem := range proptest.AllSemantics {
				want, ok := oracle.CountWithin(g, p, sem, 2_000_000)
				if !ok {
					continue
				}
				sub := g
				if reducible && !sem.Induced {
					sub, _ = g.SubgraphByEdgeKinds(patternKinds(p), entries)
				}
				gb, tight := partition.GraphBytes(sub), tightBudget(sub)
				for i, b := range []uint64{0, max(gb/3, tight), tight, 0} {
					e := &pbe.Engine{Budget: b}
					if i == 3 {
						e = shared
					}
					prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 1 + i%2}
					if i == 2 && seed%2 == 0 {
						// The partition budget from --gpu-memory on the host backend.
						e.Budget, prob.GPUMemoryLimit = 0, b
					}
					res, st, err := e.CountStats(ctx, prob)
					how := fmt.Sprintf("pbe budget %d gpu-memory %d (%d parts, reduced %v to %d vertices, %d edges)",
						e.Budget, prob.GPUMemoryLimit, st.Parts, st.Reduced, st.ReducedVertices, st.ReducedEdges)
					if err != nil || res.Partial || res.Count != want {
						t.Fatalf("pbe %d (intra %d, inter %d, partial %v, err %v), oracle %d\n%s", res.Count,
							st.IntraMatches, st.InterMatches, res.Partial, err, want, c.Describe(sem, how, "./engine/pbe -run TestEdgeKindsReductionReview"))
					}
					if reducible && !sem.Induced {
						if !st.Reduced || st.ReducedVertices != uint64(vs) || 2*st.ReducedEdges != entries {
							t.Fatalf("want the edges of the pattern's kinds, %d vertices, %d edges\n%s", vs, entries/2,
								c.Describe(sem, how, "./engine/pbe -run TestEdgeKindsReductionReview"))
						}
						byKinds++
						if entries == 0 {
							empty++
						}
					}
					if sem.Induced && st.Reduced && st.ReducedEdges < g.InducedByVertexLabels(labelsOf(p)).NumEdges() {
						t.Fatalf("an induced count ran on fewer edges than its labels induce\n%s", c.Describe(sem, how, "./engine/pbe -run TestEdgeKindsReductionReview"))
					}
					if st.InterMatches > 0 {
						inter++
					}
					if want <= 3_000 && i > 0 {
						if msg := proptest.CompareLists(ctx, e, c, prob); msg != "" {
							t.Fatalf("%s\n%s", msg, c.Describe(sem, how, "./engine/pbe -run TestEdgeKindsReductionReview"))
						}
						listed++
					}
				}
			}
		}
	}
	t.Logf("%d graphs: %d runs on the edges of their kinds (%d of an empty kind set), %d with inter-partition matches, %d listings",
		len(seeds), byKinds, empty, inter, listed)
	if len(seeds) >= 20 && (byKinds == 0 || empty == 0 || inter == 0 || listed == 0) {
		t.Errorf("the cases missed what the test is for")
	}
}

// labelsOf is the sorted set of p's exact vertex labels.
func labelsOf(p *pattern.Pattern) []uint32 {
	var ls []uint32
	for u := range p.NumVertices() {
		if l := p.VertexLabel(u); !l.Any {
			ls = append(ls, l.Value)
		}
	}
	slices.Sort(ls)
	return slices.Compact(ls)
}
