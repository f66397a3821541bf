package graph

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestInducedByVertexLabels checks the label-induced subgraph against g on random graphs (with
// and without edge labels; small ones and ones spanning several of its goroutines' ranges): the
// kept vertices are exactly those with a label of the set, in g's order, each with exactly its
// g-neighbours of a kept label (by the same edge labels); the result validates, and
// LabelledShare counts the same.
func TestInducedByVertexLabels(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := range 60 {
		n := 2 + r.IntN(60)
		if iter%10 == 0 {
			n = 3*inducedChunk + r.IntN(1000)
		}
		nl := 1 + r.IntN(6)
		labels := map[int64]uint32{}
		for v := range n {
			labels[int64(v)] = uint32(r.IntN(nl))
		}
		edgeLabels := iter%2 == 0
		var edges []edge
		for range r.IntN(5 * n) {
			u, v := int64(r.IntN(n)), int64(r.IntN(n))
			if u == v {
				continue
			}
			var l uint32
			if edgeLabels {
				l = uint32((u + v) % 3) // the same label however often the pair is drawn
			}
			edges = append(edges, edge{u, v, l})
		}
		g := build(t, labels, edges)
		var set []uint32
		for l := range uint32(nl + 1) { // nl itself is no vertex's label
			if r.IntN(2) == 0 {
				set = append(set, l)
			}
		}
		h := g.InducedByVertexLabels(set)
		if err := h.Validate(); err != nil {
			t.Fatalf("iter %d: %v", iter, err)
		}
		var want []int64
		for v := range uint32(g.NumVertices()) {
			if slices.Contains(set, g.VertexLabel(v)) {
				want = append(want, int64(v))
			}
		}
		got := make([]int64, h.NumVertices())
		for v := range got {
			got[v] = h.OriginalID(uint32(v))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("iter %d: kept %v, want %v", iter, got, want)
		}
		zero := true
		for v := range uint32(h.NumVertices()) {
			gv := uint32(got[v])
			if h.VertexLabel(v) != g.VertexLabel(gv) {
				t.Fatalf("iter %d: label of %d", iter, gv)
			}
			type nb struct {
				w     int64
				label uint32
			}
			var hn, gn []nb
			for k, w := range h.Neighbors(v) {
				var l uint32
				if ls := h.NeighborEdgeLabels(v); ls != nil {
					l = ls[k]
				}
				zero = zero && l == 0
				hn = append(hn, nb{h.OriginalID(w), l})
			}
			for k, w := range g.Neighbors(gv) {
				if !slices.Contains(set, g.VertexLabel(w)) {
					continue
				}
				var l uint32
				if ls := g.NeighborEdgeLabels(gv); ls != nil {
					l = ls[k]
				}
				gn = append(gn, nb{int64(w), l})
			}
			cmp := func(a, b nb) int { return int(a.w - b.w) }
			slices.SortFunc(hn, cmp)
			slices.SortFunc(gn, cmp)
			if !slices.Equal(hn, gn) {
				t.Fatalf("iter %d: neighbours of %d: %v, want %v", iter, gv, hn, gn)
			}
		}
		if h.HasEdgeLabels() == zero {
			t.Fatalf("iter %d: edge labels kept %v, all kept edges labelled 0 %v", iter, h.HasEdgeLabels(), zero)
		}
		vs, es := g.LabelledShare(set)
		if vs != h.NumVertices() || es != 2*h.NumEdges() {
			t.Fatalf("iter %d: LabelledShare %d, %d; the subgraph has %d, %d", iter, vs, es, h.NumVertices(), 2*h.NumEdges())
		}
	}
}
