package cpu

import (
	"cmp"
	"slices"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// Hub rows: the neighbourhoods of the data graph's highest-degree vertices as bit rows (a bit per
// data vertex), so that intersecting a short set with a hub's neighbourhood tests each of its
// elements with one load instead of merging against hundreds or thousands of neighbours. On
// wiki-Vote the common neighbours of a 4-clique (tens of vertices) are intersected with the
// neighbourhood of a fifth vertex of degree up to 1,065 for every 5-clique (STMatch's q23).

// hubMinDegree is the smallest degree that gets a row: below it a merge or a galloping search
// stays within a few cache lines. A variable so that tests give every vertex a row.
var hubMinDegree = 64

const (
	// hubRowShare bounds a row at this many times the bytes of the list it stands for, so that on
	// a graph of many vertices only long lists get one.
	hubRowShare = 16
	// hubMaxBytes bounds all rows together.
	hubMaxBytes = 64 << 20
)

// hubEdge reports whether adjacency alone decides whether an edge satisfies the label constraint
// el: any label does, or the graph has no edge labels and el asks for label 0.
func hubEdge(g *graph.Graph, el pattern.Label) bool {
	return el.Any || (!g.HasEdgeLabels() && el.Value == 0)
}

// hubRows holds the rows: row[v] is v's row in bits (words uint64 words each), or -1.
type hubRows struct {
	row   []int32
	bits  []uint64
	words int
}

// buildHubRows chooses the vertices that get a row, highest degree first, within budget bytes,
// and fills their rows. It returns nil when none qualifies.
func buildHubRows(g *graph.Graph, budget uint64) *hubRows {
	n := g.NumVertices()
	words := (n + 63) / 64
	rowBytes := uint64(8 * words)
	minDeg := max(hubMinDegree, int(rowBytes/(4*hubRowShare)))
	budget = min(budget, hubMaxBytes)
	var hubs []uint32
	for v := range n {
		if g.Degree(uint32(v)) >= minDeg {
			hubs = append(hubs, uint32(v))
		}
	}
	if len(hubs) == 0 || rowBytes > budget {
		return nil
	}
	slices.SortStableFunc(hubs, func(a, b uint32) int { return cmp.Compare(g.Degree(b), g.Degree(a)) })
	hubs = hubs[:min(uint64(len(hubs)), budget/rowBytes)]
	h := &hubRows{row: make([]int32, n), bits: make([]uint64, len(hubs)*words), words: words}
	for v := range h.row {
		h.row[v] = -1
	}
	for r, v := range hubs {
		h.row[v] = int32(r)
		bits := h.bits[r*words : (r+1)*words]
		for _, x := range g.Neighbors(v) {
			bits[x>>6] |= 1 << (x & 63)
		}
	}
	return h
}

// rowOf returns hub v's row, or nil when v has none.
func (h *hubRows) rowOf(v uint32) []uint64 {
	if h == nil || h.row[v] < 0 {
		return nil
	}
	r := int(h.row[v])
	return h.bits[r*h.words : (r+1)*h.words]
}

// filter writes the elements of s adjacent to hub v into out (reusing its storage) and returns
// it; ok is false (and nothing is written) when v has no row.
//
// It does not call rowOf, so that it stays within the inliner's budget (3% of STMatch's q23).
func (h *hubRows) filter(s []uint32, v uint32, out []uint32) (res []uint32, ok bool) {
	if h == nil {
		return out, false
	}
	r := h.row[v]
	if r < 0 {
		return out, false
	}
	bits := h.bits[int(r)*h.words : (int(r)+1)*h.words]
	out = out[:0]
	for _, x := range s {
		if bits[x>>6]&(1<<(x&63)) != 0 {
			out = append(out, x)
		}
	}
	return out, true
}
