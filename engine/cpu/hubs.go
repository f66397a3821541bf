package cpu

import (
	"cmp"
	"slices"
	"sync/atomic"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/zeroed"
	"github.com/submatch/submatch/pattern"
)

// Hub rows: the neighbourhoods of the data graph's highest-degree vertices as bit rows (a bit per
// data vertex), so that intersecting a short set with a hub's neighbourhood tests each of its
// elements with one load instead of merging against hundreds or thousands of neighbours. On
// wiki-Vote the common neighbours of a 4-clique (tens of vertices) are intersected with the
// neighbourhood of a fifth vertex of degree up to 1,065 for every 5-clique (STMatch's q23).

// hubRowHeld, set by tests only, names rows that are claimed as the rows are chosen and never
// filled, as if another worker were filling them for the whole count.
var hubRowHeld func(r int) bool

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

// hubRows holds the rows: row[v] is r+1 when v has row r, 0 when it has none (set before the
// workers start, then only read). A row is allocated and filled once a worker has met the hub
// hubFillAfter times, so that a count pays only for the rows its search reads often: a small
// search (a labelled pattern on wiki-Vote) neither clears nor fills 1,000 rows first. state[r]
// says whether row r is filled (hubFilled: bits[r] is written, published by that store), claimed
// by the worker filling it (hubFilling: the others merge with the hub's list meanwhile) or
// neither (0). Workers read the rows through a hubView, which remembers the rows it has seen
// filled, so that the common case is two plain loads.
type hubRows struct {
	row   []int32
	hub   []uint32 // the vertex of each row
	bits  [][]uint64
	words int
	g     *graph.Graph
	state []atomic.Uint32
}

const (
	hubFilling = 1
	hubFilled  = 2
)

// hubFillAfter is how many times a worker merges with a hub's list, its row not filled, before it
// fills the row: a row costs about a merge to fill and a page of memory, which a hub met a few
// times does not win back. On STMatch's labelled patterns on wiki-Vote (2 cores, whole process,
// medians of 15) 4 was as fast as filling at the first use on the larger ones (q18, q19, q22:
// 1-2 ms faster than filling every row before the count) and faster on the small ones (q1, q3,
// q6), where 16 and 64 were no better. A variable so that tests fill every row at its first use.
var hubFillAfter uint8 = 4

// buildHubRows chooses the vertices that get a row, highest degree first, within budget bytes.
// It returns nil when none qualifies. The rows are filled on demand (hubView.ready).
func buildHubRows(g *graph.Graph, budget uint64) *hubRows {
	n := g.NumVertices()
	words := (n + 63) / 64
	minDeg, keep := hubRowLimits(n, budget)
	if keep == 0 {
		return nil
	}
	var hubs []uint32
	for v := range n {
		if g.Degree(uint32(v)) >= minDeg {
			hubs = append(hubs, uint32(v))
		}
	}
	if len(hubs) == 0 {
		return nil
	}
	if uint64(len(hubs)) > keep {
		slices.SortStableFunc(hubs, func(a, b uint32) int { return cmp.Compare(g.Degree(b), g.Degree(a)) })
		hubs = hubs[:keep]
	}
	// The states, like the views' counters, are read before they are written (see package zeroed).
	h := &hubRows{row: make([]int32, n), bits: make([][]uint64, len(hubs)), words: words,
		g: g, hub: hubs, state: zeroed.Make[atomic.Uint32](len(hubs))}
	for r, v := range hubs {
		h.row[v] = int32(r + 1)
		if hubRowHeld != nil && hubRowHeld(r) {
			h.state[r].Store(hubFilling)
		}
	}
	return h
}

// hubRowLimits is what buildHubRows and hubRowDegree share for a graph of n vertices: the least
// degree that may get a row (hubMinDegree, or more when a row of n bits is large beside the
// lists it serves) and how many rows fit budget bytes (at most hubMaxBytes; 0: not one).
func hubRowLimits(n int, budget uint64) (minDeg int, keep uint64) {
	rowBytes := uint64(8 * ((n + 63) / 64))
	minDeg = max(hubMinDegree, int(rowBytes/(4*hubRowShare)))
	if rowBytes == 0 {
		return minDeg, 0 // no vertices
	}
	return minDeg, min(budget, hubMaxBytes) / rowBytes
}

// hubRowDegree is the least degree of a vertex that buildHubRows gives a row within budget
// bytes (ties at that degree may be left out), or 0 when none gets one. Counted by degree, in
// time linear in the graph's vertices.
func hubRowDegree(g *graph.Graph, budget uint64) int {
	n := g.NumVertices()
	minDeg, keep := hubRowLimits(n, budget)
	if keep == 0 {
		return 0
	}
	perDegree := map[int]uint64{}
	maxDeg := 0
	for v := range n {
		if d := g.Degree(uint32(v)); d >= minDeg {
			perDegree[d]++
			maxDeg = max(maxDeg, d)
		}
	}
	if len(perDegree) == 0 {
		return 0
	}
	var rows uint64
	d := maxDeg
	for ; d > minDeg; d-- {
		if rows += perDegree[d]; rows >= keep {
			break
		}
	}
	return d
}

// hubView is one worker's access to the hub rows: known[r] is set once the worker has seen row r
// filled (after which it reads bits[r] without synchronising again).
type hubView struct {
	row   []int32 // h.row
	known []bool
	asked []uint8 // how often the worker found row r not filled (up to hubFillAfter)
	h     *hubRows
}

// view returns a worker's view of the rows (nil when h is nil).
func (h *hubRows) view() *hubView {
	if h == nil {
		return nil
	}
	return &hubView{row: h.row, known: zeroed.Make[bool](len(h.bits)), asked: zeroed.Make[uint8](len(h.bits)), h: h}
}

// ready reports whether hub v's row can be read now: v has a row and it is filled, filling it
// first when no worker has claimed it. It is false while another worker fills the row (the
// caller merges with v's list instead: the same set) and the first hubFillAfter times the worker
// finds it not filled.
func (hv *hubView) ready(v uint32) bool {
	r := hv.row[v] - 1
	return r >= 0 && (hv.known[r] || hv.learn(r))
}

// learn reports whether row r is filled, filling it when no worker has claimed it and this one
// has asked for it hubFillAfter times, and records it in known.
func (hv *hubView) learn(r int32) bool {
	h := hv.h
	switch h.state[r].Load() {
	case hubFilled:
	case 0:
		if hv.asked[r] < hubFillAfter {
			hv.asked[r]++
			return false
		}
		if !h.state[r].CompareAndSwap(0, hubFilling) {
			return false
		}
		bits := zeroed.Make[uint64](h.words) // or-ed into: written before it is read
		for _, x := range h.g.Neighbors(h.hub[r]) {
			bits[x>>6] |= 1 << (x & 63)
		}
		h.bits[r] = bits
		h.state[r].Store(hubFilled)
	default:
		return false
	}
	hv.known[r] = true
	return true
}

// bitsOf returns hub v's row, which ready has reported ready.
func (hv *hubView) bitsOf(v uint32) []uint64 { return hv.h.bits[hv.row[v]-1] }

// rowOf returns hub v's row when ready reports it can be read now, else nil (also for a nil
// view): the last-level sum's lookups.
func (hv *hubView) rowOf(v uint32) []uint64 {
	if hv == nil || !hv.ready(v) {
		return nil
	}
	return hv.bitsOf(v)
}

// filter writes the elements of s adjacent to hub v into out (reusing its storage) and returns
// it; ok is false (and nothing is written) when v has no row or the view has not seen it filled
// (callers ask ready first, which fills it).
//
// It does not call ready, so that it stays within the inliner's budget (3% of STMatch's q23).
func (hv *hubView) filter(s []uint32, v uint32, out []uint32) (res []uint32, ok bool) {
	if hv == nil {
		return out, false
	}
	r := hv.row[v] - 1
	if r < 0 || !hv.known[r] {
		return out, false
	}
	return filterRow(s, hv.h.bits[r], out), true
}

// filterRow writes the elements of s whose bit is set in row into out (reusing its storage) and
// returns it. Every element is stored and the length advanced by its bit, without a branch: the
// bits of a hub's row over a set are close to random, and a mispredicted branch cost more than
// the store.
func filterRow(s []uint32, row []uint64, out []uint32) []uint32 {
	if cap(out) < len(s) {
		out = make([]uint32, len(s), max(len(s), 2*cap(out)))
	}
	out = out[:len(s)]
	n := 0
	for _, x := range s {
		out[n] = x
		n += int(row[x>>6] >> (x & 63) & 1)
	}
	return out[:n]
}
