package pbe_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/proptest"
)

// TestReducedToPatternLabels checks the stages on the label-induced subgraph (reduce.go): on
// graphs with 6 vertex labels and patterns using 2 of them (connected ones and ones of two
// components), in every convention, under budgets of the subgraph that force from 1 to dozens
// of parts, pbe's counts equal the cpu engine's on the whole graph and, for the smaller ones, its
// listed matches (in the whole graph's ids) the oracle's.
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
		sub := g.InducedByVertexLabels(slices.Compact(labels))
		c := proptest.Case{Seed: seed, G: g, P: p, Recipe: fmt.Sprintf("gen.RandomGraphM(%d, ...), gen.RandomPattern(%d, ...)", seed, seed)}
		for _, sem := range proptest.AllSemantics {
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
					if st.ReducedVertices != uint64(sub.NumVertices()) {
						t.Fatalf("%s: the subgraph has %d vertices", how, sub.NumVertices())
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
