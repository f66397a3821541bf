package graph

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/submatch/submatch/internal/par"
)

// FromRawTrusted wraps arrays as a Graph checking only what keeps every accessor in bounds:
// array lengths, monotone offsets and run starts inside each vertex's list, and neighbour ids
// below n. It skips the label, order and symmetry checks of Validate (whose symmetry check is
// O(m log d)), so it is only for arrays whose integrity is already established, for example
// a snapshot whose checksum matched the one written from a valid graph. O(n + m), on all cores.
func FromRawTrusted(r Raw) (*Graph, error) {
	g := wrapRaw(r)
	if err := g.checkBounds(); err != nil {
		return nil, err
	}
	g.boundsChecked = true
	return g, nil
}

// checkBounds checks what keeps every accessor in bounds (see FromRawTrusted), on all cores: the
// offsets, then each range of vertices' run starts and neighbour ids (checkRanges without the
// rules: one fork-join over ranges of about checkEntries entries, so that a graph of few vertices
// and many edges spreads over the cores too, and the error is the one Validate reports).
func (g *Graph) checkBounds() error {
	if err := g.checkOffsets(); err != nil {
		return err
	}
	return g.checkRanges(true, false)
}

// checkOffsets checks the arrays' lengths and that both offset arrays are monotone and span the
// neighbour and run arrays (so that every entry is in range), on all cores: what must hold
// before any offset is used as an index.
func (g *Graph) checkOffsets() error {
	n := len(g.vertexLabels)
	if len(g.offsets) != n+1 || len(g.runOffsets) != n+1 {
		return fmt.Errorf("graph: offset arrays have %d and %d entries, want %d", len(g.offsets), len(g.runOffsets), n+1)
	}
	if g.offsets[0] != 0 || g.offsets[n] != uint64(len(g.neighbors)) ||
		g.runOffsets[0] != 0 || g.runOffsets[n] != uint64(len(g.runs)) {
		return fmt.Errorf("graph: offsets do not span the neighbour and run arrays")
	}
	if g.edgeLabels != nil && len(g.edgeLabels) != len(g.neighbors) {
		return fmt.Errorf("graph: %d edge labels for %d neighbour entries", len(g.edgeLabels), len(g.neighbors))
	}
	if g.originalIDs != nil && len(g.originalIDs) != n {
		return fmt.Errorf("graph: %d original ids for %d vertices", len(g.originalIDs), n)
	}
	return firstError(n, func(lo, hi int) error {
		for v := lo; v < hi; v++ {
			lo, hi := g.offsets[v], g.offsets[v+1]
			rlo, rhi := g.runOffsets[v], g.runOffsets[v+1]
			if lo > hi || rlo > rhi || (hi == lo) != (rhi == rlo) {
				return fmt.Errorf("graph: vertex %d has inconsistent offsets", v)
			}
		}
		return nil
	})
}

// checkRunStarts checks that vertex v's runs start inside its list, the first at its start, in
// increasing order (the offsets are checked).
func (g *Graph) checkRunStarts(v int) error {
	lo, hi := g.offsets[v], g.offsets[v+1]
	rlo, rhi := g.runOffsets[v], g.runOffsets[v+1]
	prev := lo
	for i := rlo; i < rhi; i++ {
		s := g.runs[i].Start
		if s < prev || s >= hi || (i == rlo && s != lo) || (i > rlo && s == prev) {
			return fmt.Errorf("graph: vertex %d run %d covers an invalid range", v, i-rlo)
		}
		prev = s
	}
	return nil
}

// checkRangeBounds checks the runs' starts and the neighbours' ids of vertices [lo, hi).
func (g *Graph) checkRangeBounds(lo, hi int) error {
	for v := lo; v < hi; v++ {
		if err := g.checkRunStarts(v); err != nil {
			return err
		}
	}
	return g.checkNeighbourIDs(int(g.offsets[lo]), int(g.offsets[hi]))
}

// checkNeighbourIDs checks that the neighbour entries [lo, hi) name vertices.
func (g *Graph) checkNeighbourIDs(lo, hi int) error {
	n := uint64(len(g.vertexLabels))
	for _, w := range g.neighbors[lo:hi] {
		if uint64(w) >= n {
			return fmt.Errorf("graph: neighbour %d out of range", w)
		}
	}
	return nil
}

// validate checks what checkBounds checks and the graph's rules (checkRanges), on all cores, in
// two passes rather than five: the offsets, then for each range of vertices their runs' starts,
// their neighbours' ids and the rules, so that the adjacency is read once (each range's bounds,
// then its rules, from the cache) and the cores meet once.
func (g *Graph) validate() error {
	if err := g.checkOffsets(); err != nil {
		return err
	}
	return g.checkRanges(true, true)
}

// ValidateRules completes the checks of a graph that FromRawTrusted returned: it checks the
// rules that Validate checks beyond FromRawTrusted's bounds (labels, order, no self-loops,
// symmetry), on all cores, and returns Validate's error, without checking the bounds again. On
// any other graph it is Validate.
func (g *Graph) ValidateRules() error {
	if !g.boundsChecked {
		return g.Validate()
	}
	return g.checkRanges(false, true)
}

// checkRanges checks, on all cores, the bounds (checkRangeBounds) and the rules of a graph whose
// offsets are checked: runs consistent with the labels of the neighbours they cover and sorted by
// label, neighbours strictly increasing within a run, no self-loops, and every edge listed from
// both ends with the same label. The error is that of the first range (by vertex) with one, a
// broken bound before a broken rule, and names the lowest vertex that breaks a local rule.
//
// Symmetry is checked in one streaming pass rather than by a lookup per entry (which costs a
// cache miss each: seconds on a graph of 10^7 edges): the lists are symmetric exactly when the
// entries (v, w, label) with v < w and the entries (w, v, label) with v > w, reversed, are the
// same multiset, and the check compares a keyed 64-bit hash summed over each (one hash per entry,
// added for v < w and subtracted for v > w: the total is 0). A process-wide random key makes a
// collision a matter of chance (about 2^-64), not of crafted input.
//
// The vertices are checked in ranges of about checkEntries adjacency entries (at most
// checkRange vertices), so that a graph of few vertices and many edges (wiki-Vote: 7,115 and
// 201,524 entries, 25 ranges) spreads over the cores too: a snapshot's check is serial time of
// every count from it.
//
// With bounds false the bounds are taken as checked (FromRawTrusted): each range checks its rules
// only, and the error is the same, since no bound is then broken. With rules false it checks the
// bounds alone (checkBounds).
func (g *Graph) checkRanges(bounds, rules bool) error {
	cuts := g.entryRanges(checkEntries, checkRange)
	ranges := len(cuts) - 1
	errs := make([]error, ranges)
	sums := make([]uint64, ranges)
	par.For(ranges, 0, func(r int) {
		lo, hi := cuts[r], cuts[r+1]
		if bounds {
			errs[r] = g.checkRangeBounds(lo, hi)
		}
		if rules && errs[r] == nil {
			sums[r], errs[r] = g.checkRulesRange(lo, hi)
		}
	})
	var sum uint64
	for r, err := range errs {
		if err != nil {
			return err
		}
		sum += sums[r]
	}
	if sum != 0 {
		return fmt.Errorf("graph: the adjacency lists are not symmetric (some edge is listed from one end only, or with two labels)")
	}
	return nil
}

// entryRanges splits the vertices into consecutive ranges of about entries adjacency entries
// each (a vertex's list is never split) and at most vertices vertices each: range r is
// [bounds[r], bounds[r+1]). The offsets must be monotone (checkOffsets).
func (g *Graph) entryRanges(entries uint64, vertices int) []int {
	n := len(g.vertexLabels)
	bounds := []int{0}
	for lo := 0; lo < n; {
		// The first vertex whose list ends past offsets[lo] + entries, at least lo + 1.
		target := g.offsets[lo] + entries
		hi := lo + 1 + sort.Search(n-lo-1, func(i int) bool { return g.offsets[lo+1+i+1] > target })
		hi = min(hi, lo+vertices, n)
		bounds = append(bounds, hi)
		lo = hi
	}
	return bounds
}

// checkRulesRange checks the local rules of vertices [lo, hi) and returns the sum of the
// entries' signed hashes (see checkRanges). The bounds are checked: each run's entries are a
// slice of the adjacency. A run's rules are checked before its hashes are summed, in a loop of
// their own: one loop doing both ran short of registers (wiki-Vote: 83 instructions an entry,
// now 76, and the label's term taken once a run).
func (g *Graph) checkRulesRange(lo, hi int) (sum uint64, err error) {
	labels := g.vertexLabels
	for v := lo; v < hi; v++ {
		end := g.offsets[v+1]
		runs := g.runs[g.runOffsets[v]:g.runOffsets[v+1]]
		for r, run := range runs {
			stop := end
			if r+1 < len(runs) {
				stop = runs[r+1].Start
			}
			if r > 0 && !runKeyLess(runs[r-1], run) {
				return 0, fmt.Errorf("graph: vertex %d runs are not sorted by label", v)
			}
			list := g.neighbors[run.Start:stop]
			var edgeLabels []uint32
			if g.edgeLabels != nil {
				edgeLabels = g.edgeLabels[run.Start:stop]
			}
			unlabelledWrong := edgeLabels == nil && run.EdgeLabel != 0 // without edge labels, each is 0
			for k, w := range list {
				if w == uint32(v) {
					return 0, fmt.Errorf("graph: vertex %d has a self-loop", v)
				}
				if labels[w] != run.VertexLabel || unlabelledWrong || (edgeLabels != nil && edgeLabels[k] != run.EdgeLabel) {
					return 0, fmt.Errorf("graph: vertex %d neighbour %d does not match its run's labels", v, w)
				}
				if k > 0 && list[k-1] >= w {
					return 0, fmt.Errorf("graph: vertex %d run is not strictly increasing", v)
				}
			}
			sum += signedHashes(uint32(v), list, labelTerm(run.EdgeLabel))
		}
	}
	return sum, nil
}

// signedHashes returns the sum over the entries w of v's list of +mixEntry(v<<32 | w) when
// v < w and -mixEntry(w<<32 | v) when v > w, with the key symmetryKey and term, the term of
// their edge label (labelTerm).
func signedHashes(v uint32, list []uint32, term uint64) (sum uint64) {
	key := symmetryKey
	for _, w := range list {
		// Without a branch (which would be mispredicted half the time).
		var neg uint64
		if w < v {
			neg = 1
		}
		h := mixEntry(uint64(min(v, w))<<32|uint64(max(v, w)), key, term)
		sum += (h ^ -neg) + neg
	}
	return sum
}

// symmetryKey keys the entries' hashes, once per process.
var symmetryKey = rand.Uint64()

// labelTerm is the part of an entry's hash that depends on its edge label alone.
func labelTerm(label uint32) uint64 { return uint64(label)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019 }

// mixEntry hashes the adjacency entry of ids vw (v<<32 | w, v < w) and the label whose term is
// term, with key: splitmix64's finaliser over the key and the fields.
func mixEntry(vw, key, term uint64) uint64 {
	x := (vw ^ key) + term
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// checkRange is how many indexes one goroutine checks at a time in checkOffsets, and the most
// vertices a range of checkRanges holds.
const checkRange = 1 << 16

// checkEntries is about how many adjacency entries one goroutine checks at a time in checkRanges
// (about 0.05 ms of work on the build VM, 0.1 ms on the device host's cores).
const checkEntries = 1 << 13

// firstError runs check over [0, n) in ranges of checkRange indexes on all cores and returns the
// error of the first range (in index order) that reports one, so that the message does not
// depend on scheduling.
func firstError(n int, check func(lo, hi int) error) error {
	ranges := (n + checkRange - 1) / checkRange
	errs := make([]error, ranges)
	par.For(ranges, 0, func(r int) { errs[r] = check(r*checkRange, min((r+1)*checkRange, n)) })
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
