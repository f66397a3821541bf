package sgsi

import (
	"math/bits"
	"slices"

	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// Which vertices the joins leave to the leaf step (issue 21, branch sgsiorder2). The core
// order ends the 2-core where its greedy choice ends it, and plan.ClosingVertices postpones
// only the vertices whose neighbours all come before them there: at R-MAT 20, q20/q_12_1's
// order [2 11 3 4 5 6 8 9] left 10 alone closing on 9 and 11, and the join of 9 (on 4 and 8,
// label 2 under zipf labels) wrote 6.0e9 rows from 313 M, 20 a row: the count did not finish in
// 45 minutes. Putting an independent set of the 2-core last makes its vertices closing (or a
// tail's), counted per row of a shorter join: chooseLate weighs such orders by the sampled
// estimate of the tables.

// lateMinRows is the estimated work (weigh: rows the joins write, the leaf step's rows priced
// by their work) below which a plan is kept as the core order makes it: a count that small finishes in about
// a second, and each order weighed costs an estimate (a few to tens of ms at R-MAT 20).
var lateMinRows float64 = 1 << 24

// lateMaxSize is the most vertices chooseLate puts last.
const lateMaxSize = 2

// lateGain is how many times less work an order must be estimated to do than the core order's
// to replace it (the estimates of two orders draw different rows; a small gain is noise).
const lateGain = 4

// chooseLate sets e.q.late, the vertices the core order puts last, when that is estimated to
// cost less: for each set of up to lateMaxSize pairwise non-adjacent vertices of the 2-core
// whose other vertices stay connected, the query re-planned (replan) with them last and
// priced as weighTails prices a reach, the least kept if it costs lateGain times less than
// the order without (only where that costs lateMinRows or more). It leaves the query planned
// as chosen; stop as probe's. Only counts with a leaf step gain (closing vertices are
// postponed only then), and only the core order has ranks to change.
func (e *joinEstimator) chooseLate(stop func() error, sizes []uint64, roots [][]uint32, replan func()) error {
	q := e.q
	q.late = 0
	if !q.counted() {
		return nil
	}
	defer e.weighing()()
	cost := func() (float64, error) { return e.weigh(stop, sizes, roots) }
	base, err := cost()
	if err != nil || base < lateMinRows {
		return err
	}
	p := q.p
	core := uint32(0)
	for u, r := range plan.Ranks(p) {
		if r == 0 {
			core |= 1 << u
		}
	}
	seen := [][]int{slices.Clone(q.order[:q.joined])}
	best, keep := base, uint32(0)
	for _, s := range lateSets(p, core, lateMaxSize) {
		q.late = s
		replan()
		if slices.ContainsFunc(seen, func(o []int) bool { return slices.Equal(o, q.order[:q.joined]) }) {
			continue // (the same joins as an order weighed already)
		}
		seen = append(seen, slices.Clone(q.order[:q.joined]))
		x, err := cost()
		if err != nil {
			return err
		}
		if x < best {
			best, keep = x, s
		}
	}
	if best*lateGain > base {
		keep = 0
	}
	q.late = keep
	replan()
	return nil
}

// lateSets lists the sets of one to most vertices of core (a mask of p's vertices), pairwise
// non-adjacent, whose removal leaves core connected, by size and then by mask.
func lateSets(p *pattern.Pattern, core uint32, most int) []uint32 {
	var sets []uint32
	var grow func(s uint32, from, size int)
	grow = func(s uint32, from, size int) {
		for u := from; u < 32; u++ {
			if core>>u&1 == 0 || p.NeighborMask(u)&s != 0 {
				continue
			}
			t := s | 1<<u
			if connected(p, core&^t) {
				sets = append(sets, t)
				if size+1 < most {
					grow(t, u+1, size+1)
				}
			}
		}
	}
	grow(0, 0, 0)
	slices.SortStableFunc(sets, func(a, b uint32) int { return bits.OnesCount32(a) - bits.OnesCount32(b) })
	return sets
}

// connected reports whether the vertices of mask (not none) induce a connected subgraph.
func connected(p *pattern.Pattern, mask uint32) bool {
	if mask == 0 {
		return false
	}
	reach := uint32(1) << bits.TrailingZeros32(mask)
	for {
		next := reach
		for m := reach; m != 0; m &= m - 1 {
			next |= p.NeighborMask(bits.TrailingZeros32(m)) & mask
		}
		if next == reach {
			return reach == mask
		}
		reach = next
	}
}
