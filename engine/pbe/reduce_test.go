package pbe_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
)

// TestReducedToPatternLabels checks the stages on the subgraph that holds the matches
// (reduce.go: the label-induced subgraph, or the edges of the pattern's kinds where the count is
// not induced): on graphs with 6 vertex labels and 2 edge labels and patterns using 2 of each
// (connected ones and ones of two components), in every convention, its size is that subgraph's
// and, under budgets of the subgraph that force from 1 to dozens of parts, pbe's counts equal the
// cpu engine's on the whole graph and, for the smaller ones, its listed matches (in the whole
// graph's ids) the oracle's.
func TestReducedToPatternLabels(t *testing.T) {
	seeds := uint64(24)
	if testing.Short() {
		seeds = 8
	}
	if proptestLong() {
		seeds = 200
	}
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	reduced, inter := 0, 0
	for seed := range seeds {
		g := gen.RandomGraphM(seed, 90+int(seed%5)*30, 700+int(seed%7)*150, 6, 2)
		comps := 1 + int(seed%4)/3 // every fourth pattern has two components
		p := gen.RandomPattern(seed, 3+int(seed%3), gen.PatternOptions{Components: comps, EdgeProb: 0.4, VertexLabels: 2, EdgeLabels: 2})
		var labels []uint32
		for u := range p.NumVertices() {
			labels = append(labels, p.VertexLabel(u).Value)
		}
		slices.Sort(labels)
		induced := g.InducedByVertexLabels(slices.Compact(labels))
		kinds := patternKinds(p)
		c := proptest.Case{Seed: seed, G: g, P: p, Recipe: fmt.Sprintf("gen.RandomGraphM(%d, ...), gen.RandomPattern(%d, ...)", seed, seed)}
		for _, sem := range proptest.AllSemantics {
			// The subgraph reduce takes: the edges of the pattern's kinds for a non-induced
			// count whose pattern has an edge at every vertex, else the label-induced subgraph.
			sub := induced
			if kinds != nil && !sem.Induced {
				sub, _ = g.SubgraphByEdgeKinds(kinds, 2*g.NumEdges())
			}
			prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 2}
			want, err := cpu.Count(ctx, prob)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range budgets(sub) {
				e := &pbe.Engine{Budget: b}
				res, st, err := e.CountStats(ctx, prob)
				how := fmt.Sprintf("seed %d %s budget %d (%d parts, reduced %v to %d vertices)", seed, sem, b, st.Parts, st.Reduced, st.ReducedVertices)
				if err != nil || res.Partial || res.Count != want.Count {
					t.Fatalf("%s: pbe %d (intra %d, inter %d, err %v), cpu %d", how, res.Count, st.IntraMatches, st.InterMatches, err, want.Count)
				}
				if st.Reduced {
					reduced++
					if st.ReducedVertices != uint64(sub.NumVertices()) || st.ReducedEdges != sub.NumEdges() {
						t.Fatalf("%s: %d edges; the subgraph has %d vertices, %d edges", how, st.ReducedEdges, sub.NumVertices(), sub.NumEdges())
					}
					if st.InterMatches > 0 {
						inter++
					}
				}
				if want.Count <= 2_000 && b != 0 {
					if msg := proptest.CompareLists(ctx, e, c, prob); msg != "" {
						t.Fatalf("%s: %s", how, msg)
					}
				}
			}
		}
	}
	if reduced == 0 || inter == 0 {
		t.Errorf("%d reduced runs, %d with inter-partition matches: the test checks nothing of the reduction", reduced, inter)
	}
}

// TestReduceSkipped: a pattern with a wildcard vertex, or whose labels cover most of the graph,
// runs on the whole graph.
func TestReduceSkipped(t *testing.T) {
	g := gen.RandomGraphM(2, 200, 1500, 2, 1)
	ctx := context.Background()
	for _, opts := range []gen.PatternOptions{
		{EdgeProb: 0.3, VertexLabels: 2, Wildcard: 1},
		{EdgeProb: 0.3, VertexLabels: 1},
	} {
		p := gen.RandomPattern(5, 4, opts)
		wild := false
		for u := range p.NumVertices() {
			wild = wild || p.VertexLabel(u).Any
		}
		_, st, err := (&pbe.Engine{Budget: tightBudget(g)}).CountStats(ctx, &engine.Problem{Data: g, Pattern: p})
		if err != nil {
			t.Fatal(err)
		}
		// One label of two keeps about a quarter of the adjacency: reduced unless a wildcard.
		if st.Reduced == wild {
			t.Errorf("pattern %v (wildcard %v): reduced %v", p, wild, st.Reduced)
		}
	}
	p := gen.RandomPattern(5, 4, gen.PatternOptions{EdgeProb: 0.3})
	h := gen.RandomGraphM(2, 200, 1500, 1, 1)
	if _, st, err := (&pbe.Engine{Budget: tightBudget(h)}).CountStats(ctx, &engine.Problem{Data: h, Pattern: p}); err != nil || st.Reduced {
		t.Errorf("one label in the graph and the pattern: reduced %v, err %v", st.Reduced, err)
	}
}

// patternKinds is the edge kinds of p's edges (graph.EdgeKind), or nil when a vertex of p has no
// edge (reduce.go then takes the label-induced subgraph).
func patternKinds(p *pattern.Pattern) []graph.EdgeKind {
	var kinds []graph.EdgeKind
	for u := range p.NumVertices() {
		if p.Degree(u) == 0 {
			return nil
		}
	}
	for _, e := range p.Edges() {
		kinds = append(kinds, graph.EdgeKind{A: p.VertexLabel(e.U).Value, B: p.VertexLabel(e.V).Value, Edge: e.Label.Value, AnyEdge: e.Label.Any})
	}
	return kinds
}

// TestReducedEdgeLabelledWalks counts SGSI's kind of workload (issue 21) in small: dense random
// walk queries of 4 to 8 vertices on R-MAT graphs with zipf vertex labels and edge labels (a hub
// of the commonest label, runs of one pair each), under budgets of the reduced subgraph that cut
// it in parts, in every convention: pbe's counts equal the cpu engine's on the whole graph, and a
// non-induced count runs on the edges of the query's kinds (reduce.go), which the test counts
// itself, neighbour by neighbour; the induced count on the label-induced subgraph.
func TestReducedEdgeLabelledWalks(t *testing.T) {
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	graphs := uint64(4)
	if testing.Short() {
		graphs = 2
	}
	byKinds, inter := 0, 0
	for seed := range graphs {
		g, err := gen.RMAT(gen.RMATOptions{Scale: 9 + int(seed%2), EdgeFactor: 8, VertexLabels: 6,
			LabelDistribution: gen.ZipfLabels, EdgeLabels: 2 + int(seed%3), Seed: seed + 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{4, 6, 8} {
			q, err := gen.RandomWalkQuery(g, size, gen.QuerySeed(seed, size, 0), gen.QueryOptions{Density: gen.Dense})
			if err != nil {
				t.Fatal(err)
			}
			// The edges of q's kinds, by a look at every entry of g.
			kinds := patternKinds(q)
			vs, entries, _ := kindsSubgraphSize(g, q)
			var labels []uint32
			for u := range q.NumVertices() {
				labels = append(labels, q.VertexLabel(u).Value)
			}
			slices.Sort(labels)
			induced := g.InducedByVertexLabels(slices.Compact(labels))
			if float64(induced.NumEdges()) > pbe.ReduceMaxShare*float64(g.NumEdges()) || induced.NumVertices() == g.NumVertices() {
				induced = g // (not reduced)
			}
			for _, sem := range proptest.AllSemantics {
				sub := induced
				if !sem.Induced {
					sub, _ = g.SubgraphByEdgeKinds(kinds, entries)
				}
				prob := &engine.Problem{Data: g, Pattern: q, Semantics: sem, Threads: 2}
				want, err := cpu.Count(ctx, prob)
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range budgets(sub) {
					res, st, err := (&pbe.Engine{Budget: b}).CountStats(ctx, prob)
					how := fmt.Sprintf("seed %d size %d %s budget %d (%d parts, reduced %v to %d vertices, %d edges)",
						seed, size, sem, b, st.Parts, st.Reduced, st.ReducedVertices, st.ReducedEdges)
					if err != nil || res.Partial || res.Count != want.Count {
						t.Fatalf("%s: pbe %d (intra %d, inter %d, err %v), cpu %d", how, res.Count, st.IntraMatches, st.InterMatches, err, want.Count)
					}
					if !sem.Induced {
						if !st.Reduced || st.ReducedVertices != uint64(vs) || 2*st.ReducedEdges != entries {
							t.Fatalf("%s: want the edges of the query's kinds, %d vertices, %d edges", how, vs, entries/2)
						}
						byKinds++
						if st.InterMatches > 0 {
							inter++
						}
					}
				}
			}
		}
	}
	if byKinds == 0 || inter == 0 {
		t.Errorf("%d counts on the edges of their query's kinds, %d with inter-partition matches", byKinds, inter)
	}
}
