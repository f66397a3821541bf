package cpu

import (
	"context"
	"fmt"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/proptest"
)

// closedFormGraph is the graph of edges over n vertices, every edge given twice (u-v and v-u:
// the builder merges them).
func closedFormGraph(t *testing.T, n int, edge func(u, v int) bool) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(graph.BuilderOptions{})
	for u := range n {
		for v := range n {
			if u != v && edge(min(u, v), max(u, v)) {
				if err := b.AddEdge(int64(u), int64(v), 0); err != nil {
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

// TestShapesClosedFormsReview (review rev37): on dense graphs whose counts are known in closed
// form, far more common neighbours a pair than the random graphs have (several workers, sums of
// C(w, 2) with w near n), every shape and the triangle count exactly in every convention, on 1-3
// threads (where a counter takes them): in K_n every injective map of k vertices is an embedding (n!/(n-k)!, unique ones that
// over |Aut|) and none but a clique's is induced; in K_{a,b}, with s = C(a, 2) C(b, 2), the
// 4-cycles are s (all induced), the 4-paths ab(a-1)(b-1) (none induced), the tailed 4-cycles s
// (2(a-2) + 2(b-2)), and nothing with a triangle.
func TestShapesClosedFormsReview(t *testing.T) {
	withShapes(t)
	ctx := context.Background()
	type shape struct {
		name  string
		edges [][2]int
		aut   uint64
	}
	shapes := []shape{
		{"triangle", [][2]int{{0, 1}, {1, 2}, {2, 0}}, 6},
		{"diamond", reviewPatterns[0].edges, 4},
		{"tailed-triangle", reviewPatterns[1].edges, 2},
		{"4-path", reviewPatterns[2].edges, 2},
		{"4-cycle", reviewPatterns[3].edges, 8},
		{"house", reviewPatterns[4].edges, 2},
		{"tailed-4-cycle", reviewPatterns[5].edges, 2},
	}
	const n, a, b = 70, 40, 50
	complete := closedFormGraph(t, n, func(int, int) bool { return true })
	bipartite := closedFormGraph(t, a+b, func(u, v int) bool { return u < a && v >= a })
	choose2 := func(x uint64) uint64 { return x * (x - 1) / 2 }
	s := choose2(a) * choose2(b)
	for _, sh := range shapes {
		p := proptest.EdgesPattern(t, sh.edges, -1, -1)
		k := p.NumVertices()
		falling := uint64(1)
		for i := range k {
			falling *= uint64(n - i)
		}
		var unique uint64 // in K_{a,b}
		inducedToo := false
		switch sh.name {
		case "4-cycle":
			unique, inducedToo = s, true
		case "4-path":
			unique = a * b * (a - 1) * (b - 1)
		case "tailed-4-cycle":
			unique = s * (2*(a-2) + 2*(b-2))
		}
		for _, sem := range proptest.AllSemantics {
			for threads := 1; threads <= 3; threads++ {
				wantComplete := falling
				if sem.Induced && sh.name != "triangle" {
					wantComplete = 0
				}
				wantBipartite := unique
				if sem.Induced && !inducedToo {
					wantBipartite = 0
				}
				if sem.Unique {
					wantComplete /= sh.aut
				} else {
					wantBipartite *= sh.aut
				}
				for _, c := range []struct {
					name string
					g    *graph.Graph
					want uint64
				}{{fmt.Sprintf("K_%d", n), complete, wantComplete}, {fmt.Sprintf("K_{%d,%d}", a, b), bipartite, wantBipartite}} {
					prob := &engine.Problem{Data: c.g, Pattern: p, Semantics: sem, Threads: threads}
					_, shape := shapeFor(prob)
					if _, clique := asClique(prob); !shape && !clique {
						continue // (the general search's: induced tailed triangles, houses, tailed 4-cycles)
					}
					got, err := Engine{}.Count(ctx, prob)
					if err != nil || got.Count != c.want {
						t.Errorf("%s, %s %v, %d threads: %d (%v), want %d", c.name, sh.name, sem, threads, got.Count, err, c.want)
					}
				}
			}
		}
	}
}
