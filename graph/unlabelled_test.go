package graph

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWithoutLabels checks every way of forgetting labels on random graphs with vertex and edge
// labels: the copy is a valid graph, and its runs are exactly g's neighbours of the labels kept,
// sorted by id.
func TestWithoutLabels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for trial := range 20 {
		n := 2 + rng.IntN(40)
		labels := map[int64]uint32{}
		for v := range n {
			labels[int64(v)] = uint32(rng.IntN(1 + trial%4))
		}
		var edges []edge
		for u := range n {
			for v := u + 1; v < n; v++ {
				if rng.IntN(3) == 0 {
					edges = append(edges, edge{int64(u), int64(v), uint32(rng.IntN(1 + trial%3))})
				}
			}
		}
		g := build(t, labels, edges)
		for _, mode := range [][2]bool{{true, false}, {false, true}, {true, true}} {
			dropVertex, dropEdge := mode[0], mode[1]
			h := g.WithoutLabels(dropVertex, dropEdge)
			if err := h.Validate(); err != nil {
				t.Fatalf("trial %d, forget %v: %v", trial, mode, err)
			}
			if (h == g) != (g.WithoutLabelsBytes(dropVertex, dropEdge) == 0) {
				t.Fatalf("trial %d, forget %v: the same graph %v, bytes %d", trial, mode, h == g, g.WithoutLabelsBytes(dropVertex, dropEdge))
			}
			if h != g {
				used := 4*uint64(len(h.neighbors)+len(h.edgeLabels)) + 16*uint64(len(h.runs)) + 8*uint64(len(h.runOffsets))
				if dropVertex && g.hasVertexLabels() {
					used += 4 * uint64(n)
				}
				if bytes := g.WithoutLabelsBytes(dropVertex, dropEdge); used > bytes {
					t.Fatalf("trial %d, forget %v: %d bytes, accounted %d", trial, mode, used, bytes)
				}
			}
			if h.HasEdgeLabels() && dropEdge || h.hasVertexLabels() && dropVertex {
				t.Fatalf("trial %d, forget %v: labels left", trial, mode)
			}
			for v := range uint32(n) {
				if h.Degree(v) != g.Degree(v) || h.OriginalID(v) != g.OriginalID(v) {
					t.Fatalf("trial %d, forget %v: vertex %d changed", trial, mode, v)
				}
				if !dropVertex && h.VertexLabel(v) != g.VertexLabel(v) {
					t.Fatalf("trial %d, forget %v: vertex %d's label changed", trial, mode, v)
				}
				for vl := range uint32(4) {
					for el := range uint32(3) {
						var want []uint32
						for _, w := range g.Neighbors(v) {
							l, _ := g.HasEdge(v, w)
							if (dropVertex || g.VertexLabel(w) == vl) && (dropEdge || l == el) {
								want = append(want, w)
							}
						}
						slices.Sort(want)
						hv, he := vl, el
						if dropVertex {
							hv = 0
						}
						if dropEdge {
							he = 0
						}
						if got := h.NeighborsWith(v, hv, he); !slices.Equal(got, want) {
							t.Fatalf("trial %d, forget %v: vertex %d's run (%d, %d) = %v, want %v", trial, mode, v, vl, el, got, want)
						}
					}
				}
			}
			if h.WithoutLabels(dropVertex, dropEdge) != h {
				t.Fatalf("trial %d, forget %v: forgetting again copied", trial, mode)
			}
		}
	}
}
