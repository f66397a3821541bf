package cpu

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/testenv"
)

// permuted is g with vertex v renumbered to=perm[v] (graph.FromRaw: a valid graph whose ids need
// not ascend with the degree, as graph.Build's do), labels and edges kept.
func permuted(t *testing.T, g *graph.Graph, perm []uint32) *graph.Graph {
	t.Helper()
	n := g.NumVertices()
	type entry struct{ w, el uint32 }
	lists := make([][]entry, n)
	labels := make([]uint32, n)
	for v := range uint32(n) {
		labels[perm[v]] = g.VertexLabel(v)
		els := g.NeighborEdgeLabels(v)
		for i, w := range g.Neighbors(v) {
			var el uint32
			if els != nil {
				el = els[i]
			}
			lists[perm[v]] = append(lists[perm[v]], entry{perm[w], el})
		}
	}
	r := graph.Raw{VertexLabels: labels, Offsets: make([]uint64, n+1), RunOffsets: make([]uint64, n+1)}
	if g.HasEdgeLabels() {
		r.EdgeLabels = []uint32{}
	}
	for v, list := range lists {
		slices.SortFunc(list, func(a, b entry) int {
			return cmp.Or(cmp.Compare(labels[a.w], labels[b.w]), cmp.Compare(a.el, b.el), cmp.Compare(a.w, b.w))
		})
		for i, e := range list {
			if i == 0 || labels[e.w] != labels[list[i-1].w] || e.el != list[i-1].el {
				r.Runs = append(r.Runs, graph.Run{VertexLabel: labels[e.w], EdgeLabel: e.el, Start: uint64(len(r.Neighbors))})
			}
			r.Neighbors = append(r.Neighbors, e.w)
			if r.EdgeLabels != nil {
				r.EdgeLabels = append(r.EdgeLabels, e.el)
			}
		}
		r.Offsets[v+1], r.RunOffsets[v+1] = uint64(len(r.Neighbors)), uint64(len(r.Runs))
	}
	h, err := graph.FromRaw(r)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestShapesVertexOrderReview (review rev37): the shape and clique counters' counts do not
// depend on the ids' order (graph.Build numbers vertices by ascending degree, which the wedge
// pass's and the clique counter's costs, not their counts, rely on): on random labelled graphs
// (workersReviewGraph) renumbered with the degrees descending and at random through
// graph.FromRaw, every shape, the triangle and the 4-clique, labels exact or wildcards, in every
// convention, count what they count on the graph as built.
func TestShapesVertexOrderReview(t *testing.T) {
	withShapes(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(37, 99))
	triangle := struct {
		name  string
		edges [][2]int
	}{"triangle", [][2]int{{0, 1}, {1, 2}, {2, 0}}}
	patterns := append(reviewPatterns[:len(reviewPatterns)-1:len(reviewPatterns)-1], triangle) // (no 5-clique)
	for trial := range testenv.Sweep(2, 20) {
		g, vls, els := workersReviewGraph(t, rng)
		n := g.NumVertices()
		reversed, shuffled := make([]uint32, n), make([]uint32, n)
		for v := range uint32(n) {
			reversed[v], shuffled[v] = uint32(n-1)-v, v
		}
		rng.Shuffle(n, func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		for _, perm := range [][]uint32{reversed, shuffled} {
			h := permuted(t, g, perm)
			for _, s := range patterns {
				vl, el := -1, -1
				if rng.IntN(2) == 0 {
					vl = rng.IntN(vls)
				}
				if rng.IntN(2) == 0 {
					el = rng.IntN(els)
				}
				p := proptest.EdgesPattern(t, s.edges, vl, el)
				for _, sem := range proptest.AllSemantics {
					what := fmt.Sprintf("trial %d (n=%d, %d vertex labels, %d edge labels): %s (%d, %d) %v", trial, n, vls, els, s.name, vl, el, sem)
					want, err := Engine{}.Count(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 3})
					if err != nil {
						t.Fatal(err)
					}
					prob := &engine.Problem{Data: h, Pattern: p, Semantics: sem, Threads: 3}
					_, shape := shapeFor(prob)
					_, clique := asClique(prob)
					if got, err := (Engine{}).Count(ctx, prob); err != nil || got.Count != want.Count {
						t.Fatalf("%s, renumbered (shape %v, clique %v): %d (%v), as built %d", what, shape, clique, got.Count, err, want.Count)
					}
				}
			}
		}
	}
}
