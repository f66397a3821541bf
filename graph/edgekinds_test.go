package graph

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSubgraphByEdgeKinds checks the subgraph of edge kinds against g, neighbour by neighbour, on
// random graphs (with and without edge labels; small ones and ones spanning several of its
// goroutines' ranges) and random kinds (exact and any edge labels, repeated, overlapping): the
// kept vertices are exactly those with an edge of a kind, in g's order, each with exactly its
// g-neighbours across edges of a kind (with their edge labels); the result validates; maxEntries
// below its entries refuses it; the estimate with a sample of every vertex is exact.
func TestSubgraphByEdgeKinds(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for iter := range 80 {
		nl := 1 + r.IntN(5)
		g := randomInducedInput(t, r, iter, nl, 5)
		var kinds []EdgeKind
		for range 1 + r.IntN(5) {
			kinds = append(kinds, EdgeKind{A: uint32(r.IntN(nl + 1)), B: uint32(r.IntN(nl + 1)),
				Edge: uint32(r.IntN(4)), AnyEdge: r.IntN(4) == 0})
		}
		keeps := func(a, b, el uint32) bool {
			return slices.ContainsFunc(kinds, func(k EdgeKind) bool {
				return ((k.A == a && k.B == b) || (k.A == b && k.B == a)) && (k.AnyEdge || k.Edge == el)
			})
		}
		type nb struct {
			w     int64
			label uint32
		}
		want := map[int64][]nb{} // g's kept vertices' kept neighbours
		var entries uint64
		for v := range uint32(g.NumVertices()) {
			ls := g.NeighborEdgeLabels(v)
			for k, w := range g.Neighbors(v) {
				var l uint32
				if ls != nil {
					l = ls[k]
				}
				if keeps(g.VertexLabel(v), g.VertexLabel(w), l) {
					want[int64(v)] = append(want[int64(v)], nb{int64(w), l})
					entries++
				}
			}
		}
		if entries > 0 {
			if _, ok := g.SubgraphByEdgeKinds(kinds, entries-1); ok {
				t.Fatalf("iter %d: built with %d entries above the bound %d", iter, entries, entries-1)
			}
		}
		h, ok := g.SubgraphByEdgeKinds(kinds, entries)
		if !ok {
			t.Fatalf("iter %d: refused at its own %d entries", iter, entries)
		}
		if err := h.Validate(); err != nil {
			t.Fatalf("iter %d: %v", iter, err)
		}
		if h.NumVertices() != len(want) || 2*h.NumEdges() != entries {
			t.Fatalf("iter %d: %d vertices, %d entries; want %d, %d", iter, h.NumVertices(), 2*h.NumEdges(), len(want), entries)
		}
		for v := range uint32(h.NumVertices()) {
			gv := h.OriginalID(v)
			if v > 0 && h.OriginalID(v-1) >= gv {
				t.Fatalf("iter %d: vertices out of g's order at %d", iter, v)
			}
			if h.VertexLabel(v) != g.VertexLabel(uint32(gv)) {
				t.Fatalf("iter %d: label of %d", iter, gv)
			}
			var hn []nb
			ls := h.NeighborEdgeLabels(v)
			for k, w := range h.Neighbors(v) {
				var l uint32
				if ls != nil {
					l = ls[k]
				}
				hn = append(hn, nb{h.OriginalID(w), l})
			}
			byID := func(a, b nb) int { return int(a.w - b.w) }
			slices.SortFunc(hn, byID)
			slices.SortFunc(want[gv], byID)
			if !slices.Equal(hn, want[gv]) {
				t.Fatalf("iter %d: neighbours of %d: %v, want %v", iter, gv, hn, want[gv])
			}
		}
		vs, _, es, exact := g.EdgeKindShareEstimate(kinds, 2*g.NumVertices()+2)
		if !exact || vs != h.NumVertices() || es != entries {
			t.Fatalf("iter %d: estimate %d vertices, %d entries (exact %v); the subgraph has %d, %d", iter, vs, es, exact, h.NumVertices(), entries)
		}
	}
}
