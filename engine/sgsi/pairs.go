package sgsi

import (
	"slices"

	"github.com/submatch/submatch/internal/checked"
)

// Pairs of tails (issue 21, branch leafpath): two pendant tails u - a1 - b1 and u - a2 - b2 on
// one joined vertex whose labels may coincide (a1's and a2's, say: several tails of one label
// at one vertex; findTails takes one tail of such labels alone) are counted together when no
// other counted or joined vertex may share a data vertex with them (nor u with b1 or b2): the
// count then depends on u's vertex v only and is memoised by it. With A_i v's list by the u-a_i
// edge filtered by a_i's candidates, B_i(x) x's list by the a_i-b_i edge filtered by b_i's,
// N_i = Σ_{x∈A_i} |B_i(x)| and c_i(y) = #{x ∈ A_i : y ∈ B_i(x)}, the placements (x1, y1, x2,
// y2) with x1, y1, x2, y2 distinct are N_1·N_2 less those where x1 = x2 (Σ_{x∈A_1∩A_2}
// |B_1(x)|·|B_2(x)|), y1 = y2 (Σ_y c_1(y)·c_2(y)), x1 = y2 (Σ_{z∈A_1} |B_1(z)|·c_2(z)) or
// y1 = x2 (Σ_{z∈A_2} |B_2(z)|·c_1(z)), plus those where two hold at once: x1 = x2 and y1 = y2
// (Σ_{x∈A_1∩A_2} |B_1(x) ∩ B_2(x)|), x1 = y2 and y1 = x2 (the x1 ∈ A_1, x2 ∈ A_2 ∩ B_1(x1)
// with x1 ∈ B_2(x2)); no other two can (a vertex is not its neighbour). Two tails that an
// automorphism swaps are ordered by a restriction, and findTails takes no tail a restriction
// names: they stay joined.

// pairTail is a pair of tails as the leaf step reads it.
type pairTail struct {
	col    int    // u's column
	a, b   [2]int // the tails' inner vertices and ends
	ka, kb [2]lgKey
}

// planPair compiles the pair of pendant tails t1, t2 for the leaf step; order holds the
// joined vertices first.
func (q *query) planPair(t1, t2 pathTail, order []int, edgeLabels bool) pairTail {
	p := q.p
	pt := pairTail{col: slices.Index(order, t1.u)}
	for i, t := range []pathTail{t1, t2} {
		a, b := t.inner[0], t.b
		pt.a[i], pt.b[i] = a, b
		pt.ka[i] = lgKey{edgeKey(p, a, t.u, edgeLabels), q.vlabels[a], bothSides}
		pt.kb[i] = lgKey{edgeKey(p, b, a, edgeLabels), q.vlabels[b], bothSides}
	}
	return pt
}

// keys returns the label graphs the pair reads: ka[0], kb[0], ka[1], kb[1].
func (t *pairTail) keys() []lgKey { return []lgKey{t.ka[0], t.kb[0], t.ka[1], t.kb[1]} }

// pairCache is one goroutine's buffers for a pair: per tail A and |B(x)| for each x of A;
// memo holds the count by v.
type pairCache struct {
	set   [2][]uint32
	sizes [2][]uint64
	memo  sizeMemo
}

// pairCounters is one goroutine's per data vertex counts for the pairs (pairCount): c_1(y) in
// the low 32 bits, |B_1(y)| for y ∈ A_1 in the high 32, zero but at the vertices in touched
// (capacity the vertex count: no placement list, rev22). Its pairBytes are reserved against
// --memory once per goroutine (newLeafScratch) and not let go with the memos: the pairs count
// with them only.
type pairCounters struct {
	cnt     []uint64
	touched []uint32
}

// pairBytes is the host memory of counters over nv data vertices.
func pairBytes(nv int) uint64 { return 12 * uint64(nv) }

// bytes is the counters' host memory.
func (pc *pairCounters) bytes() uint64 { return 8*uint64(cap(pc.cnt)) + 4*uint64(cap(pc.touched)) }

// bump adds d to y's entry, noting y when it was zero (d 0 notes nothing: touched stays within
// the vertex count).
func (pc *pairCounters) bump(y uint32, d uint64) {
	if d == 0 {
		return
	}
	if pc.cnt[y] == 0 {
		pc.touched = append(pc.touched, y)
	}
	pc.cnt[y] += d
}

// reset zeroes the entries touched.
func (pc *pairCounters) reset() {
	for _, y := range pc.touched {
		pc.cnt[y] = 0
	}
	pc.touched = pc.touched[:0]
}

// pairCount returns pair i's placements for the row (lgs: its keys' label graphs); ok is false
// on uint64 overflow. Tail 1's pass fills the counters (c_1 and |B_1|); tail 2's pass sums
// over its placements (x2, y2) the events y1 = y2 (c_1(y2)), x1 = y2 (|B_1(y2)|) and, per x2,
// y1 = x2 (|B_2(x2)|·c_1(x2)).
func (r *runner) pairCount(i int, row []uint32, lgs []*labelGraph, sc *leafScratch) (uint64, bool) {
	t := &r.q.pairs[i]
	c := &sc.pairs[i]
	j, hit := -1, false
	if c.memo.stamp != nil {
		if j, hit = c.memo.lookup(row); hit {
			return uint64(c.memo.at(j)[0]), true
		}
	}
	v := row[t.col]
	pc := &sc.pairCnt
	ok := true
	var less, more uint64 // the placements where a vertex repeats, counted by the events
	add := func(s *uint64, x uint64) {
		var o bool
		if *s, o = checked.Add(*s, x); !o {
			ok = false
		}
	}
	mul := func(x, y uint64) uint64 {
		z, o := checked.Mul(x, y)
		ok = ok && o
		return z
	}
	var n [2]uint64
	for k := range 2 {
		bitsA := r.bitsHost[uint64(t.a[k])*r.bitWords:]
		bitsB := r.bitsHost[uint64(t.b[k])*r.bitWords:]
		c.set[k], c.sizes[k] = c.set[k][:0], c.sizes[k][:0]
		list := lgs[2*k].list(v)
		sc.read += len(list)
		for _, x := range list {
			if !bitIn(bitsA, x) {
				continue
			}
			m := uint64(0)
			bl := lgs[2*k+1].list(x)
			sc.read += len(bl)
			for _, y := range bl {
				if !bitIn(bitsB, y) {
					continue
				}
				m++
				if k == 0 {
					pc.bump(y, 1)
				} else {
					e := pc.cnt[y]
					add(&less, e&0xffffffff+e>>32)
				}
			}
			if k == 0 {
				pc.bump(x, m<<32)
			} else {
				add(&less, mul(m, pc.cnt[x]&0xffffffff))
			}
			c.set[k], c.sizes[k] = append(c.set[k], x), append(c.sizes[k], m)
			n[k] += m
		}
	}
	pc.reset()
	total, o := checked.Mul(n[0], n[1])
	ok = ok && o
	// x1 = x2, and with it y1 = y2.
	bitsB1 := r.bitsHost[uint64(t.b[0])*r.bitWords:]
	bitsB2 := r.bitsHost[uint64(t.b[1])*r.bitWords:]
	for k, x := range c.set[0] {
		if h, in := slices.BinarySearch(c.set[1], x); in {
			add(&less, mul(c.sizes[0][k], c.sizes[1][h]))
			l1, l2 := lgs[1].list(x), lgs[3].list(x)
			sc.read += len(l1)
			for _, y := range l1 {
				if bitIn(bitsB1, y) && bitIn(bitsB2, y) {
					if _, in := slices.BinarySearch(l2, y); in {
						add(&more, 1)
					}
				}
			}
		}
	}
	// x1 = y2 and y1 = x2 at once.
	for _, x1 := range c.set[0] {
		if !bitIn(bitsB2, x1) {
			continue
		}
		l := lgs[1].list(x1)
		sc.read += len(l)
		for _, x2 := range l {
			if !bitIn(bitsB1, x2) {
				continue
			}
			if _, in := slices.BinarySearch(c.set[1], x2); !in {
				continue
			}
			if _, in := slices.BinarySearch(lgs[3].list(x2), x1); in {
				add(&more, 1)
			}
		}
	}
	add(&total, more)
	if !ok {
		return 0, false
	}
	total -= less
	if j >= 0 {
		c.memo.at(j)[0] = int64(total)
		c.memo.done(j)
	}
	return total, true
}
