package cpu

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/plan"
)

// workersReviewGraph is a random labelled graph of 33 to 96 vertices (review rev37): more than
// one range of the shape passes' 32 vertices, so that 2-4 threads run several workers (rev35's
// graphs of at most 11 vertices ran one), with up to 3 vertex and 3 edge labels, a density of
// 0.05 to 0.6, a few hubs joined to most vertices, and every edge given 1-3 times in the input
// (the builder merges them). It returns the labels' counts.
func workersReviewGraph(t *testing.T, rng *rand.Rand) (g *graph.Graph, vls, els int) {
	t.Helper()
	n := 33 + rng.IntN(64)
	vls, els = 1+rng.IntN(3), 1+rng.IntN(3)
	density := 0.05 + 0.55*rng.Float64()
	hubs := rng.IntN(4)
	b := graph.NewBuilder(graph.BuilderOptions{})
	for v := range n {
		if err := b.SetVertexLabel(int64(v), uint32(rng.IntN(vls))); err != nil {
			t.Fatal(err)
		}
	}
	labels := map[[2]int]uint32{}
	for u := range n {
		for v := u + 1; v < n; v++ {
			if u < hubs && rng.IntN(10) < 8 || rng.Float64() < density {
				labels[[2]int{u, v}] = uint32(rng.IntN(els))
			}
		}
	}
	for e, l := range labels { // (map order: the edges in no particular order)
		for range 1 + rng.IntN(3) {
			u, v := e[0], e[1]
			if rng.IntN(2) == 0 {
				u, v = v, u
			}
			if err := b.AddEdge(int64(u), int64(v), l); err != nil {
				t.Fatal(err)
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g, vls, els
}

// TestShapesWorkersReview (review rev37 of cpushapes, cputri and wildshape): the CPU engine's
// counts of the shapes, triangles and 4-cliques on random labelled graphs of 33-96 vertices
// (workersReviewGraph: several workers, hubs, duplicated input edges), their labels exact (the
// graph's or absent), wildcards on a labelled graph, a wildcard vertex or edge label beside an
// exact one, in every convention, on 1-4 threads, equal the general search's (shape and clique
// counters off) and, where brute force finishes within its budget, the oracle's.
func TestShapesWorkersReview(t *testing.T) {
	withShapes(t)
	ctx := context.Background()
	trials := testenv.Sweep(3, 60)
	rng := rand.New(rand.NewPCG(37, 1206))
	checked, oracled, shapes := 0, 0, 0
	for trial := range trials {
		g, vls, els := workersReviewGraph(t, rng)
		for _, s := range reviewPatterns {
			for _, sem := range proptest.AllSemantics {
				vl, el := -1, -1
				if rng.IntN(2) == 0 {
					vl = rng.IntN(vls + 1)
				}
				if rng.IntN(2) == 0 {
					el = rng.IntN(els + 1)
				}
				p := proptest.EdgesPattern(t, s.edges, vl, el)
				prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 1 + rng.IntN(4)}
				what := fmt.Sprintf("trial %d (n=%d, m=%d, %d vertex labels, %d edge labels): %s (%d, %d) %v, %d threads",
					trial, g.NumVertices(), g.NumEdges(), vls, els, s.name, vl, el, sem, prob.Threads)
				_, shape := shapeFor(prob)
				_, clique := asClique(prob)
				used := shapeCountsUsed.Load()
				got, err := Engine{}.Count(ctx, prob)
				if err != nil || got.Partial {
					t.Fatalf("%s: Count %+v (%v)", what, got, err)
				}
				if took := shapeCountsUsed.Load() - used; took != 0 != shape {
					t.Fatalf("%s: a shape %v, the counter taken %d times", what, shape, took)
				}
				if !shape && !clique {
					continue // (the general search's own count: its tests check it)
				}
				want := countSearch(t, prob)
				if got.Count != want {
					t.Fatalf("%s (shape %v, clique %v): Count %d, general search %d", what, shape, clique, got.Count, want)
				}
				if shape {
					shapes++
				}
				checked++
				if o, ok := oracle.CountWithin(g, p, sem, testenv.Sweep[uint64](200_000, 2_000_000)); ok {
					oracled++
					if o != want {
						t.Fatalf("%s: general search %d, oracle %d", what, want, o)
					}
				}
			}
		}
	}
	t.Logf("%d counts (%d by a shape counter) against the general search, %d of them against the oracle", checked, shapes, oracled)
}

// TestTriangleAndShapeWildcardsReview (review rev37): on a graph of several vertex labels and
// edge labels, the triangle and every shape with wildcard edges and one exact vertex label (the
// labels-free copy keeps the vertex labels: graph.WithoutLabels(false, true)), wildcard vertices
// and one exact edge label (WithoutLabels(true, false)), and both wildcards, equal the general
// search in every convention, on 3 threads (several workers).
func TestTriangleAndShapeWildcardsReview(t *testing.T) {
	withShapes(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(37, 7))
	triangle := struct {
		name  string
		edges [][2]int
	}{"triangle", [][2]int{{0, 1}, {1, 2}, {2, 0}}}
	patterns := append(reviewPatterns[:len(reviewPatterns):len(reviewPatterns)], triangle)
	for trial := range testenv.Sweep(1, 20) {
		g, vls, els := workersReviewGraph(t, rng)
		for _, s := range patterns {
			for _, labels := range [][2]int{{rng.IntN(vls), -1}, {-1, rng.IntN(els)}, {-1, -1}} {
				p := proptest.EdgesPattern(t, s.edges, labels[0], labels[1])
				for _, sem := range proptest.AllSemantics {
					prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 3}
					if _, shape := shapeFor(prob); !shape {
						if _, clique := asClique(prob); !clique {
							continue // (the general search's own count)
						}
					}
					what := fmt.Sprintf("trial %d (n=%d, %d vertex labels, %d edge labels): %s %v %v", trial, g.NumVertices(), vls, els, s.name, labels, sem)
					got, err := Engine{}.Count(ctx, prob)
					if want := countSearch(t, prob); err != nil || got.Count != want {
						t.Fatalf("%s: Count %d (%v), general search %d", what, got.Count, err, want)
					}
					if c, ok := plan.CliqueOf(g, p, minCliqueSize); ok && c.Labels.AnyEdge != (labels[1] < 0 && els > 1 && g.HasEdgeLabels()) {
						t.Fatalf("%s: the clique's labels %+v", what, c.Labels)
					}
				}
			}
		}
	}
}
