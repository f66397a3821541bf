package stmatch

// Hub bitmaps: the kernel's membership tests in the longest lists (the neighbourhoods of
// high-degree data vertices) as one load from a bitmap instead of a binary search. Dense
// patterns on skewed graphs (STMatch's q18 and q19 on wiki-Vote) spend their last levels testing
// every candidate of one list against several lists of hubs of hundreds to a thousand entries.

import (
	"cmp"
	"slices"

	"github.com/submatch/submatch/graph"
)

const (
	// hubMinLen is the shortest list that gets a bitmap: below it a binary search takes a few
	// steps within one or two cache lines.
	hubMinLen = 64
	// hubRowShare bounds a bitmap row (the data graph's vertices, one bit each) at this many
	// times the bytes of the list it stands for: on a graph of many vertices only long lists
	// get one.
	hubRowShare = 16
	// hubMemShare: the bitmaps (and their row index) take at most 1/hubMemShare of the device
	// memory left when they are built, and at most hubMaxBytes.
	hubMemShare = 4
	hubMaxBytes = 1 << 30
	// noRow marks a list without a bitmap (the kernel's NO_ROW).
	noRow = ^uint32(0)
)

// hubBitmaps are the bitmaps of the longest lists of a flat plan: Rows has one entry per list
// (per entry of the offsets the lists are indexed by: the candidate space's Offsets, or the
// sorted CSR's offsets in graph mode), the list's row in Bits or noRow; a row is Words uint32
// words, bit x set when data vertex x is in the list.
type hubBitmaps struct {
	Rows  []uint32
	Bits  []uint32
	Words uint64
	N     int  // rows
	cut   bool // the budget left out lists that qualified
}

// fits reports whether buildHubs would build h again (the same rows) within budget: h holds
// every list that qualified, and budget holds them all.
func (h *hubBitmaps) fits(budget uint64) bool {
	index := 4 * uint64(len(h.Rows))
	return !h.cut && budget > index+4*h.Words && budget >= h.bytes()
}

// bytes is what the bitmaps take on the device.
func (h *hubBitmaps) bytes() uint64 { return 4 * (uint64(len(h.Rows)) + uint64(len(h.Bits))) }

// buildHubs chooses the lists that get a bitmap and builds them: lists k = offs[k]..offs[k+1]
// of the values that list(lo, hi) returns (vertex ids below n), the longest first, each at
// least minLen long (0: hubMinLen) and long enough for its row (hubRowShare), as many as fit in
// budget bytes with the row index. It returns nil when no list qualifies or none fits.
func buildHubs(offs []uint64, list func(lo, hi uint64) []uint32, n int, budget uint64, minLen int) *hubBitmaps {
	if len(offs) < 2 || n <= 0 {
		return nil
	}
	if minLen <= 0 {
		minLen = hubMinLen
	}
	words := (uint64(n) + 31) / 32
	rowBytes := 4 * words
	index := 4 * uint64(len(offs))
	if budget <= index+rowBytes {
		return nil
	}
	maxRows := (budget - index) / rowBytes
	shortest := max(uint64(minLen), (rowBytes+4*hubRowShare-1)/(4*hubRowShare))
	var pick []int
	for k := 0; k+1 < len(offs); k++ {
		if offs[k+1]-offs[k] >= shortest {
			pick = append(pick, k)
		}
	}
	if len(pick) == 0 {
		return nil
	}
	length := func(k int) uint64 { return offs[k+1] - offs[k] }
	slices.SortStableFunc(pick, func(a, b int) int { return cmp.Compare(length(b), length(a)) })
	cut := uint64(len(pick)) > maxRows
	if cut {
		pick = pick[:maxRows]
	}
	h := &hubBitmaps{Rows: make([]uint32, len(offs)), Bits: make([]uint32, uint64(len(pick))*words), Words: words, N: len(pick), cut: cut}
	for k := range h.Rows {
		h.Rows[k] = noRow
	}
	for row, k := range pick {
		h.Rows[k] = uint32(row)
		bits := h.Bits[uint64(row)*words : uint64(row+1)*words]
		for _, x := range list(offs[k], offs[k+1]) {
			bits[x>>5] |= 1 << (x & 31)
		}
	}
	return h
}

// hubsWithin returns the bitmaps of fp's lists within budget bytes (hubs, with the graph's sorted
// CSR in graph mode): those fp.prebuildHubs made when they are the same, else new ones.
func (fp *flatPlan) hubsWithin(g *graph.Graph, budget uint64, minLen int) *hubBitmaps {
	if pre := fp.prebuilt; pre != nil && pre.minLen == minLen && (pre.h == nil && budget <= pre.budget || pre.h != nil && pre.h.fits(budget)) {
		return pre.h
	}
	var offs []uint64
	var adj []uint32
	if fp.Graph {
		offs, adj = fp.sortedCSR(g)
	}
	return fp.hubs(g.NumVertices(), offs, adj, budget, minLen)
}

// prebuildHubs builds fp's bitmaps for the largest budget a count gives them (hubMaxBytes, as
// on any device with 4 GiB free), while the devices start: a device whose budget makes the same
// ones (hubsWithin) uploads them as they are, and the devices of a count share them.
func (fp *flatPlan) prebuildHubs(g *graph.Graph, minLen int) {
	fp.prebuilt = nil
	h := fp.hubsWithin(g, hubMaxBytes, minLen)
	fp.prebuilt = &prebuiltHubs{h: h, budget: hubMaxBytes, minLen: minLen}
}

// prebuiltHubs are the bitmaps prebuildHubs made (h nil: no list qualified within budget).
type prebuiltHubs struct {
	h      *hubBitmaps
	budget uint64
	minLen int
}

// hubs builds the bitmaps of fp's lists for data graph vertices n, within budget bytes: the
// candidate space's lists, or in graph mode the sorted CSR's (offs, adj: fp.sortedCSR).
func (fp *flatPlan) hubs(n int, offs []uint64, adj []uint32, budget uint64, minLen int) *hubBitmaps {
	if fp.Graph {
		return buildHubs(offs, func(lo, hi uint64) []uint32 { return adj[lo:hi] }, n, budget, minLen)
	}
	// The values are fp.ValueParts concatenated; a non-empty list lies inside one part.
	starts := make([]uint64, len(fp.ValueParts)+1)
	for i, p := range fp.ValueParts {
		starts[i+1] = starts[i] + uint64(len(p))
	}
	list := func(lo, hi uint64) []uint32 {
		i, found := slices.BinarySearch(starts, lo)
		if !found {
			i--
		}
		for i+1 < len(starts) && starts[i+1] <= lo { // empty parts start where the next does
			i++
		}
		return fp.ValueParts[i][lo-starts[i] : hi-starts[i]]
	}
	return buildHubs(fp.Offsets, list, n, budget, minLen)
}
