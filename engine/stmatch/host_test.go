package stmatch

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	_ "github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/cudacheck"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

var semantics = []engine.Semantics{{}, {Induced: true}, {Unique: true}, {Induced: true, Unique: true}}

// testPlan is buildPlan without a deadline.
func testPlan(g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, o Options) *plan.Plan {
	pl, err := buildPlan(context.Background(), g, p, sem, o, nil)
	if err != nil {
		panic(err) // no deadline: cannot happen
	}
	return pl
}

func enumPlan(g *graph.Graph, p *pattern.Pattern, sem engine.Semantics) *plan.Plan {
	return plan.Build(g, p, plan.Options{Induced: sem.Induced, Unique: sem.Unique, Enumerate: true})
}

// cpuCount is the CPU engine's count with one thread, no work stealing: the reference stays
// independent of the CPU's scheduler (its stealing once miscounted induced 4-cliques on 16 cores,
// found by this check; see docs/gpu.md).
func cpuCount(t testing.TB, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics) uint64 {
	t.Helper()
	return cpuCountThreads(t, g, p, sem, 1)
}

// cpuCountThreads is the CPU engine's count with the given threads (0: all cores).
func cpuCountThreads(t testing.TB, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, threads int) uint64 {
	t.Helper()
	e, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: threads})
	if err != nil || res.Partial {
		t.Fatalf("cpu count of %s (%s): %v, partial %v", p, sem, err, res.Partial)
	}
	return res.Count
}

// leafPlan returns the plan without Enumerate when the kernel can count its leaf groups (whether
// or not buildPlan would choose it), else buildPlan's plan.
func leafPlan(g *graph.Graph, p *pattern.Pattern, sem engine.Semantics) *plan.Plan {
	pl := plan.Build(g, p, plan.Options{Induced: sem.Induced, Unique: sem.Unique})
	if leafCountable(pl) {
		return pl
	}
	return testPlan(g, p, sem, Options{})
}

// emulate runs the kernel's algorithm on the host over the flat arrays, lane structure aside: it
// checks that the arrays and the metadata say what the kernel needs.
func emulate(fp *flatPlan, goff []uint64, gadj []uint32) uint64 {
	L := fp.L
	meta := func(i, k int) uint64 { return fp.Meta[i*metaStride+k] }
	m := make([]uint32, L)
	mi := make([]uint32, L)
	buf := make([]uint32, fp.Stride)
	has := func(a []uint32, x uint32) bool { _, ok := slices.BinarySearch(a, x); return ok }
	adjacent := func(a, b uint32) bool { return has(gadj[goff[a]:goff[a+1]], b) }
	levelSet := func(i int, last bool) uint64 {
		back := uint32(meta(i, mBack))
		var lists [][]uint32
		var src []uint32
		if back == 0 {
			src = fp.levelCands(i)
		} else {
			for b := back; b != 0; b &= b - 1 {
				j := bits.TrailingZeros32(b)
				lists = append(lists, fp.list(meta(i, mEBase+j), uint64(mi[j])))
			}
			slices.SortStableFunc(lists, func(a, b []uint32) int { return len(a) - len(b) })
			src, lists = lists[0], lists[1:]
		}
		out := buf[meta(i, mBufOff):]
		var n uint64
	next:
		for _, c := range src {
			for b := uint32(meta(i, mLower)); b != 0; b &= b - 1 {
				if c <= m[bits.TrailingZeros32(b)] {
					continue next
				}
			}
			for b := uint32(meta(i, mUpper)); b != 0; b &= b - 1 {
				if c >= m[bits.TrailingZeros32(b)] {
					continue next
				}
			}
			for _, l := range lists {
				if !has(l, c) {
					continue next
				}
			}
			for b := uint32(meta(i, mCollide)); b != 0; b &= b - 1 {
				if m[bits.TrailingZeros32(b)] == c {
					continue next
				}
			}
			for b := uint32(meta(i, mNonAdj)); b != 0; b &= b - 1 {
				if adjacent(m[bits.TrailingZeros32(b)], c) {
					continue next
				}
			}
			if !last {
				out[n] = c
			}
			n++
		}
		return n
	}
	var total uint64
	var rec func(i int)
	rec = func(i int) {
		if i == L-1 {
			total += levelSet(i, true)
			return
		}
		n := levelSet(i, false)
		set := slices.Clone(buf[meta(i, mBufOff) : meta(i, mBufOff)+n])
		if n > fp.Cap[i] {
			panic("level set exceeds its capacity")
		}
		for _, c := range set {
			m[i] = c
			if meta(i, mNeedIdx) != 0 {
				k, _ := slices.BinarySearch(fp.levelCands(i), c)
				mi[i] = uint32(k)
			}
			rec(i + 1)
		}
	}
	roots := fp.levelCands(0)
	for r, c := range roots {
		m[0], mi[0] = c, uint32(r)
		if L == 1 {
			total++
			continue
		}
		rec(1)
	}
	return total
}

// emulateV2 runs the v2 kernel's algorithm (work units, reuse of stored sets, checks deferred to
// the iteration of reused levels) on the host over the flat arrays, step by step as the kernel's
// explicit stack does.
//
// With chaos the emulation also exercises the kernel's work queue: at random steps it spills the
// whole stack as tasks (the end of a time slice) or donates the upper half of the shallowest open
// level (work stealing), and it runs the queued tasks in random order afterwards.
func emulateV2(fp *flatPlan, units []uint64, goff []uint64, gadj []uint32, chaos *rand.Rand) uint64 {
	total, _ := emulate2(fp, units, goff, gadj, chaos, nil)
	return total
}

// emuList is the kernel's listing mode in the emulation: an output buffer of cap rows that the
// emulated host drains after every launch into rows (level order).
type emuList struct {
	cap  int
	out  [][]uint32 // the current launch's rows
	rows [][]uint32 // everything drained
	// launches counts the emulated launches (each ends when the buffer is full or the work is done).
	launches int
}

// emulate2 is emulateV2, listing when list is set (the plan must store its last level: flatten
// with storeLast). It also returns the number of pieces computed after a level's first.
func emulate2(fp *flatPlan, units []uint64, goff []uint64, gadj []uint32, chaos *rand.Rand, list *emuList) (uint64, int) {
	L := fp.L
	meta := func(i, k int) uint64 { return fp.Meta[i*metaStride+k] }
	m := make([]uint32, L)
	mi := make([]uint32, L)
	pos, end, sz := make([]uint64, L), make([]uint64, L), make([]uint64, L)
	buf := make([]uint32, fp.Stride)
	has := func(a []uint32, x uint32) bool { _, ok := slices.BinarySearch(a, x); return ok }
	adjacent := func(a, b uint32) bool { return has(gadj[goff[a]:goff[a+1]], b) }
	lowerBound := func(a []uint32, x uint32) uint64 { k, _ := slices.BinarySearch(a, x); return uint64(k) }
	window := func(i int, a []uint32) (uint64, uint64) {
		b, e := uint64(0), uint64(len(a))
		for k := uint32(meta(i, mLower)); k != 0; k &= k - 1 {
			lo := m[bits.TrailingZeros32(k)]
			if lo == ^uint32(0) {
				return 0, 0
			}
			b = max(b, lowerBound(a, lo+1))
		}
		for k := uint32(meta(i, mUpper)); k != 0; k &= k - 1 {
			e = min(e, lowerBound(a, m[bits.TrailingZeros32(k)]))
		}
		return b, e
	}
	accept := func(i int, c uint32) bool {
		for b := uint32(meta(i, mCollide)); b != 0; b &= b - 1 {
			if m[bits.TrailingZeros32(b)] == c {
				return false
			}
		}
		for b := uint32(meta(i, mNonAdj)); b != 0; b &= b - 1 {
			if adjacent(m[bits.TrailingZeros32(b)], c) {
				return false
			}
		}
		return true
	}
	// pieced: bit i is set while level i's current set is in pieces (the kernel's `pieced`);
	// pbeg and pnext: the source positions where level i's current and next piece start.
	var pieced uint32
	pbeg, pnext := make([]uint64, L), make([]uint64, L)
	const noPiece = ^uint64(0)
	// levelSet computes level i's set, or its piece from source position from, as the kernel's
	// level_set_t: the size, and where the next piece starts (noPiece: none).
	levelSet := func(i int, last bool, from uint64) (uint64, uint64) {
		flags := meta(i, mFlags)
		reuse := int(flags&fReuse) - 1
		back := uint32(meta(i, mBack))
		var lists [][]uint32
		if reuse >= 0 {
			if pieced>>reuse&1 != 0 {
				back = uint32(meta(i, mBackAll))
			} else {
				off := meta(reuse, mBufOff)
				lists = append(lists, buf[off:off+sz[reuse]])
			}
		}
		for b := back; b != 0; b &= b - 1 {
			j := bits.TrailingZeros32(b)
			if flags&fGraph != 0 {
				base := meta(i, mEBase+j) + uint64(m[j])
				lists = append(lists, gadj[goff[base]:goff[base+1]])
			} else {
				lists = append(lists, fp.list(meta(i, mEBase+j), uint64(mi[j])))
			}
		}
		if len(lists) == 0 {
			lists = append(lists, fp.levelCands(i))
		}
		slices.SortStableFunc(lists, func(a, b []uint32) int { return len(a) - len(b) })
		src := slices.Clone(lists[0]) // the reused source may alias the output's buffer? (no: other level)
		lists = lists[1:]
		pieces := flags&fPieces != 0 && !last && uint64(len(src)) > meta(i, mCap)
		pieced &^= 1 << i
		if pieces {
			pieced |= 1 << i
		}
		if len(src) == 0 {
			return 0, noPiece
		}
		store := flags&fReused != 0 && !last && !pieces
		narrow := !store || flags&fNarrow != 0
		b, e := uint64(0), uint64(len(src))
		if narrow {
			b, e = window(i, src)
			if b >= e {
				return 0, noPiece
			}
		}
		b = max(b, from)
		capacity := noPiece - 32
		if pieces {
			capacity = meta(i, mCap)
		}
		out := buf[meta(i, mBufOff):]
		var n uint64
		base := b
		// The kernel's warp passes: 32 source positions at a time, while a whole pass still fits.
		for ; base < e && n+32 <= capacity; base += 32 {
		next:
			for idx := base; idx < min(base+32, e); idx++ {
				c := src[idx]
				for _, l := range lists {
					if !has(l, c) {
						continue next
					}
				}
				if flags&fCheckCand != 0 && !has(fp.levelCands(i), c) {
					continue
				}
				if !store && !accept(i, c) {
					continue
				}
				if !last {
					if n >= fp.Cap[i] {
						panic("level set exceeds its capacity")
					}
					out[n] = c
				}
				n++
			}
		}
		if base < e {
			return n, base
		}
		return n, noPiece
	}
	pieces := 0 // the kernel's C_PIECES: pieces moved on to after the one before
	// stored computes level i's set (or its piece from source position from) into its buffer.
	stored := func(i int, from uint64) uint64 {
		pbeg[i] = from
		sz[i], pnext[i] = levelSet(i, false, from)
		return sz[i]
	}
	// enter: the kernel's enter, level i's set (or piece) with its loop starting at offset k.
	enter := func(i int, from, k uint64) {
		stored(i, from)
		pos[i], end[i] = 0, sz[i]
		if f := meta(i, mFlags); f&fReused != 0 && f&fNarrow == 0 {
			off := meta(i, mBufOff)
			pos[i], end[i] = window(i, buf[off:off+sz[i]])
		}
		pos[i] += k
	}
	// leafProduct: the kernel's leaf_product_t, with the same checked arithmetic.
	overflow := false
	mulChecked := func(a, b uint64) uint64 {
		hi, lo := bits.Mul64(a, b)
		if hi != 0 {
			overflow = true
		}
		return lo
	}
	addChecked := func(a, b uint64) uint64 {
		s, carry := bits.Add64(a, b, 0)
		if carry != 0 {
			overflow = true
		}
		return s
	}
	// binom and fall: the kernel's binomial and falling, with the same checked steps (a binomial
	// step multiplies by (n-i)/(i+1) after cancelling common factors, so it is always exact).
	binom := func(n uint64, k int) uint64 {
		if uint64(k) > n {
			return 0
		}
		k = int(min(uint64(k), n-uint64(k)))
		c := uint64(1)
		for i := uint64(0); i < uint64(k); i++ {
			d := i + 1
			g := c
			for b := d; b != 0; {
				g, b = b, g%b
			}
			if (n-i)%(d/g) != 0 {
				panic("binomial step not exact")
			}
			c = mulChecked(c/g, (n-i)/(d/g))
		}
		return c
	}
	fall := func(n uint64, k int) uint64 {
		if uint64(k) > n {
			return 0
		}
		c := uint64(1)
		for i := uint64(0); i < uint64(k); i++ {
			c = mulChecked(c, n-i)
		}
		return c
	}
	// classCount: the kernel's class_count (several groups of one collision class).
	classCount := func(g0, n int) uint64 {
		type list struct {
			l     []uint32
			owner int
		}
		var lists []list
		size := make([]int, n)
		ordered := make([]bool, n)
		for b := 0; b < n; b++ {
			gm := fp.Meta[(L+g0+b)*metaStride : (L+g0+b+1)*metaStride]
			size[b] = int(gm[mFlags] >> fGroupK & 0xff)
			ordered[b] = gm[mFlags]&fOrdered != 0
			for k := uint32(gm[mBack]); k != 0; k &= k - 1 {
				j := bits.TrailingZeros32(k)
				lists = append(lists, list{fp.list(gm[mEBase+j], uint64(mi[j])), b})
			}
			if gm[mBack] == 0 { // an isolated group: its candidate list
				lists = append(lists, list{fp.Cands[gm[mCandOff] : gm[mCandOff]+gm[mCandLen]], b})
			}
		}
		full := 1<<n - 1
		inter := make([]int64, full+1)
		for mask := 1; mask <= full; mask++ {
			in := func(x uint32) bool {
				for _, l := range lists {
					if mask>>l.owner&1 != 0 && !has(l.l, x) {
						return false
					}
				}
				return true
			}
			var cnt int64
			seen := map[uint32]bool{}
			for _, l := range lists {
				if mask>>l.owner&1 == 0 {
					continue
				}
				for _, x := range l.l {
					if !seen[x] && in(x) {
						seen[x] = true
						cnt++
					}
				}
			}
			for _, x := range m {
				if in(x) {
					cnt--
				}
			}
			inter[mask] = cnt
		}
		region := make([]int64, full+1)
		for mask := 1; mask <= full; mask++ {
			for sup := mask; sup <= full; sup = (sup + 1) | mask {
				if bits.OnesCount(uint(sup^mask))%2 == 0 {
					region[mask] += inter[sup]
				} else {
					region[mask] -= inter[sup]
				}
			}
		}
		radix := make([]int, n)
		states := 1
		for b := range radix {
			radix[b] = size[b] + 1
			states *= radix[b]
		}
		dp := make([]uint64, states)
		dp[states-1] = 1
		rem, pick := make([]int, n), make([]int, n)
		for mask := 1; mask <= full; mask++ {
			r := region[mask]
			if r <= 0 {
				continue
			}
			ndp := make([]uint64, states)
			for st := range dp {
				if dp[st] == 0 {
					continue
				}
				for b, x := 0, st; b < n; b++ {
					rem[b], x, pick[b] = x%radix[b], x/radix[b], 0
				}
				for {
					ways, left := uint64(1), r
					for b := 0; b < n && ways != 0; b++ {
						j := pick[b]
						if j == 0 {
							continue
						}
						var f uint64
						if ordered[b] {
							f = binom(uint64(left), j)
						} else {
							f = mulChecked(binom(uint64(rem[b]), j), fall(uint64(left), j))
						}
						ways = mulChecked(ways, f)
						left -= int64(j)
					}
					if ways != 0 {
						t := 0
						for b := n - 1; b >= 0; b-- {
							t = t*radix[b] + rem[b] - pick[b]
						}
						ndp[t] = addChecked(ndp[t], mulChecked(dp[st], ways))
					}
					b := 0
					for ; b < n; b++ {
						if mask>>b&1 == 0 {
							continue
						}
						if pick[b] < rem[b] {
							pick[b]++
							break
						}
						pick[b] = 0
					}
					if b == n {
						break
					}
				}
			}
			dp = ndp
		}
		return dp[0]
	}
	leafProduct := func() uint64 {
		prod := uint64(1)
		for g := 0; g < fp.G; g++ {
			if cn := int(fp.Meta[(L+g)*metaStride+mFlags] >> fClassN & 7); cn > 1 {
				c := classCount(g, cn)
				if c == 0 {
					return 0
				}
				prod = mulChecked(prod, c)
				g += cn - 1
				continue
			}
			gm := fp.Meta[(L+g)*metaStride : (L+g+1)*metaStride]
			var lists [][]uint32
			for b := uint32(gm[mBack]); b != 0; b &= b - 1 {
				j := bits.TrailingZeros32(b)
				lists = append(lists, fp.list(gm[mEBase+j], uint64(mi[j])))
			}
			if len(lists) == 0 { // an isolated group: its candidate list
				lists = append(lists, fp.Cands[gm[mCandOff]:gm[mCandOff]+gm[mCandLen]])
			}
			slices.SortStableFunc(lists, func(a, b []uint32) int { return len(a) - len(b) })
			in := func(x uint32) bool {
				for _, l := range lists {
					if !has(l, x) {
						return false
					}
				}
				return true
			}
			var size, used uint64
			for _, c := range lists[0] {
				if in(c) {
					size++
				}
			}
			for _, x := range m {
				if in(x) {
					used++
				}
			}
			n, k := size-used, int(gm[mFlags]>>fGroupK&0xff)
			var c uint64
			if gm[mFlags]&fOrdered != 0 {
				c = binom(n, k)
			} else {
				c = fall(n, k)
			}
			if c == 0 {
				return 0
			}
			prod = mulChecked(prod, c)
		}
		return prod
	}
	var total uint64
	// A task as the kernel's queue holds it: prefix m/mi[0..f-1], positions a, a+K, ... < b of
	// level f's piece that starts at source position ps, and with more the level's later pieces.
	type task struct {
		f       int
		K, a, b uint64
		ps      uint64
		more    bool
		m, mi   []uint32
	}
	const toPieceEnd = uint64(0xffffffff)
	var queue []task
	push := func(f int, K, a, b, ps uint64, more bool) {
		queue = append(queue, task{f, K, a, b, ps, more, slices.Clone(m[:f]), slices.Clone(mi[:f])})
	}
	// Listing: listLast writes prefix m[0..L-2] + set[p] for p = a, a+K, ... < b of the last
	// level's piece at ps (and with more its later pieces), each piece's rows all or nothing;
	// when they do not fit it queues the rest as a task of level L-1 and stops the launch.
	stop := false
	listLast := func(t task) {
		set := buf[meta(L-1, mBufOff):]
		for {
			n := stored(L-1, t.ps)
			e := min(t.b, n)
			var rows uint64
			if e > t.a {
				rows = (e - t.a + t.K - 1) / t.K
			}
			if len(list.out)+int(rows) > list.cap {
				push(L-1, t.K, t.a, t.b, t.ps, t.more && pnext[L-1] != noPiece)
				stop = true
				return
			}
			for p := t.a; p < e; p += t.K {
				row := slices.Clone(m[:L])
				row[L-1] = set[p]
				list.out = append(list.out, row)
			}
			if !t.more || pnext[L-1] == noPiece {
				return
			}
			t.ps, t.a, t.b = pnext[L-1], t.a%t.K, toPieceEnd
			pieces++
		}
	}
	// walk runs the explicit stack from level first (stride K and offset kofs there) until it is
	// empty or, with chaos, a simulated end of slice spills it; chaos also donates like the kernel.
	walk := func(first int, K, kofs uint64) {
		koff := func(j int) uint64 {
			if j == first {
				return kofs
			}
			return 0
		}
		for i := first; i >= first; {
			spill := stop
			if chaos != nil && !spill {
				switch chaos.IntN(16) {
				case 0:
					spill = true
				case 1, 2: // an idle warp: donate the upper half of the shallowest open level
					for j := first; j <= i; j++ {
						step := uint64(1)
						if j == first {
							step = K
						}
						var rem uint64
						if end[j] > pos[j] {
							rem = (end[j] - pos[j] + step - 1) / step
						}
						if rem >= 2 {
							mid := pos[j] + (rem+1)/2*step
							push(j, step, mid, end[j], pbeg[j], false)
							end[j] = mid
							break
						}
						if pnext[j] != noPiece { // the piece is nearly done: give the later ones
							push(j, step, koff(j), toPieceEnd, pnext[j], true)
							pnext[j] = noPiece
							break
						}
					}
				}
			}
			if spill { // end of the slice (or a full output buffer): spill every open level
				for j := first; j <= i; j++ {
					step := uint64(1)
					if j == first {
						step = K
					}
					if pos[j] < end[j] {
						push(j, step, pos[j], end[j], pbeg[j], pnext[j] != noPiece)
					} else if pnext[j] != noPiece {
						push(j, step, koff(j), toPieceEnd, pnext[j], true)
					}
				}
				return
			}
			if pos[i] >= end[i] {
				if pnext[i] != noPiece {
					pieces++
					enter(i, pnext[i], koff(i))
				} else {
					i--
				}
				continue
			}
			c := buf[meta(i, mBufOff)+pos[i]]
			if i == first {
				pos[i] += K
			} else {
				pos[i]++
			}
			if meta(i, mFlags)&fReused != 0 && !accept(i, c) {
				continue
			}
			m[i] = c
			if meta(i, mNeedIdx) != 0 {
				mi[i] = uint32(lowerBound(fp.levelCands(i), c))
			}
			if i == L-1 {
				total = addChecked(total, leafProduct())
			} else if fp.G == 0 && i+1 == L-1 {
				if list != nil {
					listLast(task{f: L - 1, K: 1, b: toPieceEnd, more: true})
				} else {
					n, _ := levelSet(i+1, true, 0)
					total = addChecked(total, n)
				}
			} else {
				enter(i+1, 0, 0)
				i++
			}
		}
	}
	roots := fp.levelCands(0)
	runUnit := func(w uint64) {
		r := uint32(w)
		k, K := (w>>32)&0xffff, w>>48
		m[0], mi[0] = roots[r], r
		if L == 1 {
			if fp.G > 0 {
				total = addChecked(total, leafProduct())
			} else {
				total++
			}
			return
		}
		if L == 2 && fp.G == 0 {
			if K != 1 {
				panic("split unit with two levels")
			}
			if list != nil {
				listLast(task{f: 1, K: 1, b: toPieceEnd, more: true})
				return
			}
			n, _ := levelSet(1, true, 0)
			total += n
			return
		}
		enter(1, 0, k)
		walk(1, K, k)
	}
	// runTask recomputes the stored sets of earlier levels that later levels reuse (and their
	// pieced bits) and the task's piece of level f from its prefix, as the kernel does, and runs it.
	runTask := func(t task) {
		copy(m, t.m)
		copy(mi, t.mi)
		for j := 1; j < t.f; j++ {
			if meta(j, mFlags)&fReused != 0 {
				stored(j, 0)
			}
		}
		if list != nil && t.f == L-1 {
			listLast(t)
			return
		}
		enter(t.f, t.ps, 0)
		pos[t.f] = t.a
		end[t.f] = min(end[t.f], t.b)
		if !t.more {
			pnext[t.f] = noPiece
		}
		walk(t.f, t.K, t.a%t.K)
	}
	// Launches: units first, then the queue in random order (with chaos), until the work is done
	// or the output buffer is full; then the host drains the buffer and launches again.
	next := 0
	for next < len(units) || len(queue) > 0 {
		stop = false
		for !stop && (next < len(units) || len(queue) > 0) {
			if next < len(units) {
				runUnit(units[next])
				next++
				continue
			}
			x := len(queue) - 1
			if chaos != nil {
				x = chaos.IntN(len(queue))
			}
			t := queue[x]
			queue[x] = queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			runTask(t)
		}
		if list != nil {
			list.launches++
			list.rows = append(list.rows, list.out...)
			list.out = list.out[:0]
		}
	}
	if overflow {
		return ^uint64(0), pieces
	}
	return total, pieces
}

// TestEmulatedListing runs the kernel's listing mode in the emulation, with an output buffer a
// few rows larger than the longest last-level set (so most launches end full, queueing rows as
// tasks of the last level), random spills and donations, and compares the rows with the CPU
// engine's matches.
func TestEmulatedListing(t *testing.T) {
	cpuEngine, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	var cases, multiLaunch, graphMode int
	for seed := uint64(1); seed <= 40; seed++ {
		g := gen.RandomGraph(seed*7, 20+int(seed%4)*5, 0.3, int(seed%3), 1+int(seed%2))
		goff, gadj := sortedCSR(g)
		p := gen.RandomPattern(seed*13, 1+int(seed%6), gen.PatternOptions{EdgeProb: 0.4, VertexLabels: int(seed % 3), EdgeLabels: 1 + int(seed%2), Wildcard: 0.2})
		for _, sem := range semantics {
			var want []string
			for m, err := range cpuEngine.Matches(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 1}) {
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, fmt.Sprint(m))
			}
			// Graphs without edge labels also list in graph mode (no candidate space).
			nospace := seed%2 == 0 && sem.Induced == sem.Unique
			pl := testPlan(g, p, sem, Options{NoLeaves: true, NoSpace: nospace})
			var got []string
			if !pl.Empty && len(pl.Levels) > 1 {
				fp, err := flattenOn(g, pl, flatOptions{reuse: true, storeLast: true})
				if err != nil {
					t.Fatal(err)
				}
				if fp.Graph {
					graphMode++
				}
				list := &emuList{cap: int(fp.Cap[fp.L-1]) + 3}
				emulate2(fp, fp.makeUnits(4, true), goff, gadj, rand.New(rand.NewPCG(seed, 9)), list)
				for _, row := range list.rows {
					match := make([]uint32, p.NumVertices())
					for level, lv := range pl.Levels {
						match[lv.Vertex] = row[level]
					}
					got = append(got, fmt.Sprint(match))
				}
				if list.launches > 1 {
					multiLaunch++
				}
			} else if !pl.Empty {
				for _, c := range pl.Candidates[pl.Levels[0].Vertex] {
					got = append(got, fmt.Sprint([]uint32{c}))
				}
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("seed %d %s (%s): emulated listing %d matches, cpu %d", seed, p, sem, len(got), len(want))
			}
			cases++
		}
	}
	t.Logf("%d cases, %d needing several launches (full output buffer), %d in graph mode", cases, multiLaunch, graphMode)
	if multiLaunch == 0 || graphMode == 0 {
		t.Errorf("no case filled the output buffer, or none ran in graph mode")
	}
}

// TestFlattenLists rebuilds every candidate-space list and candidate list from the flat arrays.
func TestFlattenLists(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		g := gen.RandomGraph(seed, 40, 0.2, 3, 2)
		p := gen.RandomPattern(seed*7, 2+int(seed%5), gen.PatternOptions{EdgeProb: 0.4, VertexLabels: 3, EdgeLabels: 2, Wildcard: 0.3, Components: 1 + int(seed%3)})
		for _, sem := range semantics {
			pl := enumPlan(g, p, sem)
			if pl.Empty {
				continue
			}
			fp, err := flatten(pl, false, false)
			if err != nil {
				t.Fatal(err)
			}
			if fp.L != len(pl.Levels) || fp.NumRoots != uint64(len(pl.Candidates[pl.Levels[0].Vertex])) {
				t.Fatalf("L %d roots %d", fp.L, fp.NumRoots)
			}
			var off uint64
			for i, lvl := range pl.Levels {
				if !slices.Equal(fp.levelCands(i), pl.Candidates[lvl.Vertex]) {
					t.Fatalf("seed %d level %d: candidate list differs", seed, i)
				}
				meta := fp.Meta[i*metaStride:]
				if meta[mBufOff] != off {
					t.Fatalf("level %d buffer offset %d, want %d", i, meta[mBufOff], off)
				}
				off += fp.Cap[i]
				var back uint64
				for _, be := range lvl.Backward {
					back |= 1 << be.Level
					idx := pl.Space[[2]int{pl.Levels[be.Level].Vertex, lvl.Vertex}]
					for k := range pl.Candidates[pl.Levels[be.Level].Vertex] {
						got := fp.list(meta[mEBase+be.Level], uint64(k))
						if !slices.Equal(got, idx.List(k)) {
							t.Fatalf("seed %d level %d edge from %d list %d: %v, want %v", seed, i, be.Level, k, got, idx.List(k))
						}
					}
					if fp.Meta[be.Level*metaStride+mNeedIdx] != 1 {
						t.Fatalf("level %d should be marked as needing its index", be.Level)
					}
				}
				if meta[mBack] != back {
					t.Fatalf("back mask %b, want %b", meta[mBack], back)
				}
				if (i == 0 || i == fp.L-1) && fp.Cap[i] != 0 {
					t.Fatalf("root/last level has a buffer")
				}
			}
			if max(off, 1) != fp.Stride {
				t.Fatalf("stride %d, want %d", fp.Stride, max(off, 1))
			}
		}
	}
}

// TestEmulatedKernelMatchesCPU runs the kernel's algorithm on the host over the flat arrays.
func TestEmulatedKernelMatchesCPU(t *testing.T) {
	checked := 0
	var reusing, checkCand, wide, split, leafPlans int
	for seed := uint64(1); seed <= uint64(testenv.Sweep(20, 60)); seed++ {
		vl := int(seed % 3)
		g := gen.RandomGraph(seed, 30+int(seed%20), 0.25, vl, int(seed%2)+1)
		p := gen.RandomPattern(seed*13, 1+int(seed%6), gen.PatternOptions{EdgeProb: 0.5, VertexLabels: vl, EdgeLabels: int(seed%2) + 1, Wildcard: 0.3, Components: 1 + int(seed%4)/3})
		goff, gadj := sortedCSR(g)
		for _, sem := range semantics {
			want := cpuCount(t, g, p, sem)
			pl := enumPlan(g, p, sem)
			var got uint64
			if !pl.Empty {
				fp, err := flatten(pl, false, false)
				if err != nil {
					t.Fatal(err)
				}
				got = emulate(fp, goff, gadj)
			}
			if got != want {
				t.Errorf("seed %d %s (%s): emulated %d, cpu %d", seed, p, sem, got, want)
			}
			if lp := leafPlan(g, p, sem); !lp.Empty && len(lp.Groups) > 0 {
				fp, err := flatten(lp, true, false)
				if err != nil {
					t.Fatal(err)
				}
				leafPlans++
				for _, split := range []bool{false, true} {
					if got := emulateV2(fp, fp.makeUnits(1<<20, split), goff, gadj, nil); got != want {
						t.Errorf("seed %d %s (%s) leaf groups %d split %v: emulated v2 %d, cpu %d", seed, p, sem, fp.G, split, got, want)
					}
				}
			}
			if !pl.Empty {
				// v2: reuse on and off, units split finely (as on a small grid) and not at all.
				for _, reuse := range []bool{false, true} {
					fp, err := flatten(pl, reuse, false)
					if err != nil {
						t.Fatal(err)
					}
					for i := 0; reuse && i < fp.L; i++ {
						if f := fp.Meta[i*metaStride+mFlags]; f&fReuse != 0 {
							reusing++
							if f&fCheckCand != 0 {
								checkCand++
							}
							if fp.Meta[int(f&fReuse-1)*metaStride+mFlags]&fNarrow == 0 {
								wide++
							}
						}
					}
					for _, u := range []struct {
						warps int
						split bool
					}{{1, false}, {1, true}, {1 << 20, true}} {
						units := fp.makeUnits(u.warps, u.split)
						if uint64(len(units)) > fp.NumRoots {
							split++
						}
						if got := emulateV2(fp, units, goff, gadj, nil); got != want {
							t.Errorf("seed %d %s (%s) reuse %v units %d split %v: emulated v2 %d, cpu %d",
								seed, p, sem, reuse, len(units), u.split, got, want)
						}
						// The work queue: random spills and donations, tasks run in random order.
						chaos := rand.New(rand.NewPCG(uint64(seed), uint64(len(units))))
						if got := emulateV2(fp, units, goff, gadj, chaos); got != want {
							t.Errorf("seed %d %s (%s) reuse %v units %d split %v: emulated v2 with spills and donations %d, cpu %d",
								seed, p, sem, reuse, len(units), u.split, got, want)
						}
					}
				}
			}
			checked++
		}
	}
	t.Logf("%d cases; v2: %d reusing levels (%d without a list of their own, %d from an unnarrowed set), %d split unit sets, %d plans with counted leaf groups", checked, reusing, checkCand, wide, split, leafPlans)
	if reusing == 0 || split == 0 || leafPlans == 0 {
		t.Errorf("the cases do not exercise reuse and splitting")
	}
}

func TestSortedCSR(t *testing.T) {
	g := gen.RandomGraph(3, 50, 0.3, 4, 3)
	off, adj := sortedCSR(g)
	for u := 0; u < g.NumVertices(); u++ {
		l := adj[off[u]:off[u+1]]
		if !slices.IsSorted(l) {
			t.Fatalf("list of %d not sorted", u)
		}
		want := slices.Sorted(slices.Values(g.Neighbors(uint32(u))))
		if !slices.Equal(l, want) {
			t.Fatalf("list of %d differs", u)
		}
	}
}

func TestChooseBlocks(t *testing.T) {
	cases := []struct {
		want, wpb      int
		perWarp, avail uint64
		blocks         int
	}{
		{100, 4, 1000, 1 << 30, 100},
		{100, 4, 1000, 40_000, 10},
		{100, 4, 1000, 3999, 1}, // not even one block: one, and the allocation reports it
		{100, 4, 0, 0, 100},
		{0, 4, 10, 1 << 20, 1},
	}
	for _, c := range cases {
		if got := chooseBlocks(c.want, c.wpb, c.perWarp, c.avail); got != c.blocks {
			t.Errorf("chooseBlocks(%d, %d, %d, %d) = %d, want %d", c.want, c.wpb, c.perWarp, c.avail, got, c.blocks)
		}
	}
}

func TestNoSpace(t *testing.T) {
	g := gen.RandomGraph(1, 30, 0.3, 0, 0)
	p, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	pl := plan.Build(g, p, plan.Options{Enumerate: true, SpaceLimit: -1})
	if _, err := flatten(pl, true, false); !errors.Is(err, errSpaceTooLarge) {
		t.Fatalf("flatten without a space: %v", err)
	}
}

// TestWithoutGPU: where no GPU is usable, Count fails with an error wrapping gpu.ErrNoGPU.
func TestWithoutGPU(t *testing.T) {
	if _, err := gpu.Open(context.Background()); err == nil {
		t.Skip("a GPU is present")
	}
	g := gen.RandomGraph(1, 30, 0.3, 0, 0)
	p, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	e, err := engine.Lookup("stmatch")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Count(context.Background(), &engine.Problem{Data: g, Pattern: p})
	if !errors.Is(err, gpu.ErrNoGPU) {
		t.Fatalf("Count without a GPU: %v, want an error wrapping gpu.ErrNoGPU", err)
	}
	t.Logf("without a GPU: %v", err)
	for _, err := range e.Matches(context.Background(), &engine.Problem{Data: g, Pattern: p}) {
		if !errors.Is(err, gpu.ErrNoGPU) {
			t.Fatalf("Matches: %v", err)
		}
	}
}

// TestCompileKernel compiles the kernel for sm_90 with NVRTC when it is present (no GPU needed).
func TestCompileKernel(t *testing.T) {
	if _, err := gpu.NVRTCVersion(); err != nil {
		t.Skipf("NVRTC not available: %v", err)
	}
	for _, k := range []struct{ src, file string }{{kernelSource, kernelFile}, {kernelSourceV1, kernelFileV1}} {
		img, err := gpu.CompileSource(k.src, k.file, "sm_90", nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d-byte cubin", k.file, len(img))
	}
}

// TestEmulatedReuse checks the v2 kernel's algorithm on dense patterns, where most levels reuse
// an earlier level's set (K_{2,3}: a level with no list of its own), against the CPU engine.
func TestEmulatedReuse(t *testing.T) {
	pats := []string{
		"(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)",
		"(a)-(b)-(c)-(d)-(e)-(a), (a)-(c), (a)-(d), (b)-(d), (b)-(e), (c)-(e)",
		"(a)-(b)-(c)-(d)-(a), (a)-(c)",
		"(a)-(c), (a)-(d), (a)-(e), (b)-(c), (b)-(d), (b)-(e)",
		"(a)-(c), (a)-(d), (b)-(c), (b)-(d)",
		"(a)-(b)-(c)-(d)-(a), (e)-(a), (e)-(b), (e)-(c), (e)-(d)",
		"(a)-(b)-(c)-(a), (d)-(a), (d)-(b), (d)-(c), (e)-(a), (e)-(b), (e)-(c)",
		"(a)-(b), (c)-(a), (c)-(b), (d)-(a), (d)-(b)",
	}
	ps := parsePatterns(t, pats)
	for seed := uint64(1); seed <= 6; seed++ {
		ps = append(ps, gen.RandomPattern(seed*17, 4+int(seed%4), gen.PatternOptions{EdgeProb: 0.8, VertexLabels: int(seed % 2), Wildcard: 0.3}))
	}
	var reusing, checkCand, cases, leafPlans int
	for gi := uint64(1); gi <= uint64(testenv.Sweep(2, 4)); gi++ {
		vl := int(gi % 2)
		g := gen.RandomGraph(gi*101, 30+int(gi)*5, 0.35, vl, 1)
		goff, gadj := sortedCSR(g)
		for _, p := range ps {
			for _, sem := range semantics {
				pl := enumPlan(g, p, sem)
				if pl.Empty {
					continue
				}
				want := cpuCount(t, g, p, sem)
				fp, err := flatten(pl, true, false)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < fp.L; i++ {
					if f := fp.Meta[i*metaStride+mFlags]; f&fReuse != 0 {
						reusing++
						if f&fCheckCand != 0 {
							checkCand++
						}
					}
				}
				for _, split := range []bool{false, true} {
					if got := emulateV2(fp, fp.makeUnits(4, split), goff, gadj, nil); got != want {
						t.Errorf("graph %d %s (%s) split %v: emulated v2 %d, cpu %d", gi, p, sem, split, got, want)
					}
				}
				if lp := leafPlan(g, p, sem); !lp.Empty && len(lp.Groups) > 0 {
					fp, err := flatten(lp, true, false)
					if err != nil {
						t.Fatal(err)
					}
					leafPlans++
					if got := emulateV2(fp, fp.makeUnits(4, true), goff, gadj, nil); got != want {
						t.Errorf("graph %d %s (%s) leaf groups %d: emulated v2 %d, cpu %d", gi, p, sem, fp.G, got, want)
					}
				}
				cases++
			}
		}
	}
	t.Logf("%d cases, %d reusing levels (%d without a list of their own), %d plans with counted leaf groups", cases, reusing, checkCand, leafPlans)
	if reusing == 0 || checkCand == 0 {
		t.Errorf("reuse not exercised")
	}
}

// TestEmulatedLeaves checks leaf-group counting on patterns with leaves and closing vertices
// (stars, paths, tailed triangles, 4-cycles, labelled), and the fallback to Enumerate for
// multi-group classes and isolated vertices.
func TestEmulatedLeaves(t *testing.T) {
	pats := []string{
		"(a)-(b)", "(a)-(b), (a)-(c), (a)-(d)", "(a)-(b)-(c)-(d)", "(a)-(b)-(c)-(a), (a)-(d)",
		"(a)-(b)-(c)-(a), (a)-(d), (a)-(e), (b)-(f)", "(a)-(b)-(c)-(d)-(a)",
		"(a)-(b)-(c)-(d)-(a), (a)-(c)", "(a:1)-(b:2), (a)-(c:2), (a)-(d:3)", "(a)-(b), (c)",
		"(a:1)-(b), (a)-(c:2), (d:2)",
		// Isolated vertices (groups without parents), alone and in classes with leaves.
		"(a)-(b)-(c)-(a), (d)", "(a)-(b)-(c)-(a), (d), (e)", "(a:1)-(b), (c:1), (d:2)", "(a)-(b), (a)-(c), (d), (e)",
		// Several groups in one collision class (counted by the class DP).
		"(a)-(b)-(c)-(a), (a)-(d), (b)-(e)", "(a)-(b), (a)-(c), (b)-(d), (b)-(e), (b)-(f)",
		"(a)-(b)-(c)-(d)-(a), (a)-(e), (b)-(f), (c)-(g)", "(a:1)-(b:1), (a)-(c:2), (b)-(d:2), (b)-(e)",
	}
	ps := parsePatterns(t, pats)
	for seed := uint64(1); seed <= uint64(testenv.Sweep(4, 12)); seed++ {
		ps = append(ps, gen.RandomPattern(seed*29, 3+int(seed%5), gen.PatternOptions{EdgeProb: 0.3, VertexLabels: int(seed % 3), Wildcard: 0.3}))
	}
	var leafPlans, multiClass, fallbacks, multiplied, cases int
	for gi := uint64(1); gi <= uint64(testenv.Sweep(1, 4)); gi++ {
		vl := int(gi%2) * 3
		g := gen.RandomGraph(gi*211, 25+int(gi)*5, 0.3, vl, 1)
		goff, gadj := sortedCSR(g)
		for _, p := range ps {
			for _, sem := range semantics {
				want := cpuCount(t, g, p, sem)
				// The engine's choice, and the leaf plan wherever the kernel can count it.
				for k, pl := range []*plan.Plan{testPlan(g, p, sem, Options{}), leafPlan(g, p, sem)} {
					var got uint64
					if !pl.Empty {
						fp, err := flatten(pl, true, false)
						if err != nil {
							t.Fatal(err)
						}
						if k == 1 && fp.G > 0 {
							leafPlans++
							multi := false
							for _, c := range pl.Classes {
								multi = multi || len(c.Groups) > 1
							}
							if multi {
								multiClass++
							}
							if fp.singleGroupClasses() == multi {
								t.Errorf("graph %d %s: singleGroupClasses %v with classes %v", gi, p, fp.singleGroupClasses(), pl.Classes)
							}
						} else if k == 0 && fp.G == 0 && !sem.Induced && len(plan.Build(g, p, plan.Options{Unique: sem.Unique}).Groups) > 0 {
							fallbacks++ // the engine's choice enumerates (one closing vertex, isolated vertices)
						}
						got = emulateV2(fp, fp.makeUnits(8, true), goff, gadj, nil) * pl.Multiplier
						if got == want {
							got = emulateV2(fp, fp.makeUnits(8, true), goff, gadj, rand.New(rand.NewPCG(7, uint64(len(fp.Meta))))) * pl.Multiplier
						}
						if pl.Multiplier > 1 {
							multiplied++
						}
					}
					if got != want {
						t.Errorf("graph %d %s (%s) plan %d: emulated v2 %d, cpu %d", gi, p, sem, k, got, want)
					}
				}
				cases++
			}
		}
	}
	t.Logf("%d cases, %d with counted leaf groups (%d with a class of several groups), %d falling back to Enumerate, %d plans x |Aut|", cases, leafPlans, multiClass, fallbacks, multiplied)
	if leafPlans == 0 || multiClass == 0 || fallbacks == 0 || multiplied == 0 {
		t.Errorf("leaf counting, class counting or the fallback not exercised")
	}
}

// TestEmulatedLeafOverflow: a 21-leaf star in a 40-clique has 40 x 39!/18! embeddings, past
// 2^64; the emulated kernel must flag it (as the CPU engine reports ErrOverflow).
func TestEmulatedLeafOverflow(t *testing.T) {
	g, p := starInClique(t)
	e, _ := engine.Lookup("cpu")
	if _, err := e.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Threads: 1}); !errors.Is(err, engine.ErrOverflow) {
		t.Fatalf("cpu: %v, want overflow", err)
	}
	pl := testPlan(g, p, engine.Semantics{}, Options{NoMultiply: true})
	fp, err := flatten(pl, true, false)
	if err != nil {
		t.Fatal(err)
	}
	if fp.G == 0 {
		t.Fatal("no leaf groups")
	}
	goff, gadj := sortedCSR(g)
	if got := emulateV2(fp, fp.makeUnits(8, true), goff, gadj, nil); got != ^uint64(0) {
		t.Fatalf("emulated %d, want the overflow marker", got)
	}
	// Unique: C(39, 21) x 40 fits.
	want := cpuCount(t, g, p, engine.Semantics{Unique: true})
	pl = testPlan(g, p, engine.Semantics{Unique: true}, Options{})
	if fp, err = flatten(pl, true, false); err != nil {
		t.Fatal(err)
	}
	if got := emulateV2(fp, fp.makeUnits(8, true), goff, gadj, nil); got != want || fp.G == 0 {
		t.Fatalf("unique: emulated %d (groups %d), cpu %d", got, fp.G, want)
	}
}

// starInClique is a 21-leaf star pattern and a 40-clique: 40 x 39!/18! embeddings, past 2^64.
func starInClique(t *testing.T) (*graph.Graph, *pattern.Pattern) {
	t.Helper()
	b := graph.NewBuilder(graph.BuilderOptions{})
	for u := int64(0); u < 40; u++ {
		for v := u + 1; v < 40; v++ {
			if err := b.AddEdge(u, v, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	s := "(c)-(l0)"
	for i := 1; i < 21; i++ {
		s += fmt.Sprintf(", (c)-(l%d)", i)
	}
	p, err := pattern.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return g, p
}

// parsePatterns parses every inline pattern or fails the test.
func parsePatterns(t *testing.T, srcs []string) []*pattern.Pattern {
	t.Helper()
	var ps []*pattern.Pattern
	for _, s := range srcs {
		p, err := pattern.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

// TestKernelSyntax checks both kernels with clang's CUDA front end (no CUDA needed).
func TestKernelSyntax(t *testing.T) {
	cudacheck.Syntax(t, kernelFile, kernelSource)
	cudacheck.Syntax(t, kernelFileV1, kernelSourceV1)
	cudacheck.Syntax(t, lastSumFile, lastSumSource)
}

// TestEmulatedGraphMode runs plans without a candidate space (as for graphs whose space exceeds
// plan.DefaultSpaceLimit): the levels' lists are the data graph's adjacency lists, vertex labels
// are tested against the candidate lists. Random vertex-labelled graphs and patterns, the four
// semantics, the emulated kernel with chaos against the CPU engine; and the refusal where the
// pattern needs the space (edge labels).
func TestEmulatedGraphMode(t *testing.T) {
	var cases, checked int
	for seed := uint64(1); seed <= 24; seed++ {
		vl := int(seed % 3)
		g := gen.RandomGraphM(seed*7, 40+int(seed%5)*10, 160+int(seed%4)*60, vl, 1)
		goff, gadj := sortedCSR(g)
		p := gen.RandomPattern(seed*29, 2+int(seed%6), gen.PatternOptions{
			EdgeProb: 0.5, VertexLabels: vl, Wildcard: 0.3, Components: 1 + int(seed%7)/6,
		})
		for _, sem := range semantics {
			pl := testPlan(g, p, sem, Options{NoSpace: true})
			if pl.Empty {
				continue
			}
			if pl.Space != nil || len(pl.Groups) > 0 {
				t.Fatalf("seed %d: NoSpace plan has a space (%v) or leaf groups (%d)", seed, pl.Space != nil, len(pl.Groups))
			}
			fp, err := flattenOn(g, pl, flatOptions{reuse: true})
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, sem, err)
			}
			if !fp.Graph {
				t.Fatalf("seed %d: not in graph mode", seed)
			}
			for i := 1; i < fp.L; i++ {
				if fp.Meta[i*metaStride+mFlags]&fCheckCand != 0 {
					checked++
				}
			}
			want := cpuCount(t, g, p, sem)
			chaos := rand.New(rand.NewPCG(seed, 3))
			for _, split := range []bool{false, true} {
				if got := emulateV2(fp, fp.makeUnits(4, split), goff, gadj, chaos) * max(1, pl.Multiplier); got != want {
					t.Errorf("seed %d %s (%s) split %v: emulated graph mode %d (x%d), cpu %d", seed, p, sem, split, got, pl.Multiplier, want)
				}
			}
			cases++
		}
	}
	t.Logf("%d cases, %d levels testing candidate membership", cases, checked)
	if checked == 0 {
		t.Error("vertex labels never tested")
	}
	// Edge labels: the levels intersect adjacency lists filtered by label (flatPlan.EdgeLabels),
	// on graphs with and without edge labels, exact and wildcard pattern edges.
	labelled := 0
	for seed := uint64(1); seed <= 24; seed++ {
		el := []int{0, 2, 3}[seed%3]
		g := gen.RandomGraphM(seed*11, 40+int(seed%4)*10, 200+int(seed%3)*80, int(seed%2)+1, el)
		p := gen.RandomPattern(seed*31, 3+int(seed%4), gen.PatternOptions{
			EdgeProb: 0.6, VertexLabels: int(seed%2) + 1, EdgeLabels: max(1, el), Wildcard: 0.25, Components: 1 + int(seed%5)/4,
		})
		for _, sem := range semantics {
			pl := testPlan(g, p, sem, Options{NoSpace: true})
			if pl.Empty {
				continue
			}
			fp, err := flattenOn(g, pl, flatOptions{reuse: true, pieceCap: uint64(minPieceCap) << (seed % 2 * 8)})
			if err != nil {
				t.Fatalf("edge labels seed %d %s: %v", seed, sem, err)
			}
			labelled += len(fp.EdgeLabels)
			goff, gadj := fp.sortedCSR(g)
			want := cpuCount(t, g, p, sem)
			chaos := rand.New(rand.NewPCG(seed, 5))
			if got := emulateV2(fp, fp.makeUnits(4, true), goff, gadj, chaos) * max(1, pl.Multiplier); got != want {
				t.Errorf("edge labels seed %d %s (%s): emulated graph mode %d (x%d), cpu %d", seed, p, sem, got, pl.Multiplier, want)
			}
		}
	}
	if labelled == 0 {
		t.Error("no level intersected label-filtered lists")
	}
}

// TestEmulatedPieces runs the emulation with every level's buffer bounded to minPieceCap on
// graphs whose degrees exceed it, so that level sets are computed and iterated in pieces (with
// reusing levels falling back to their own lists), in both layouts (candidate space and graph
// mode), the four semantics, random spills and donations of piece tasks, and listing; counts
// and rows must be the CPU engine's.
func TestEmulatedPieces(t *testing.T) {
	cpuEngine, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	var cases, pieces, fallbacks, listed int
	for seed := uint64(1); seed <= uint64(testenv.Sweep(5, 16)); seed++ {
		vl := int(seed % 2)
		g := gen.RandomGraphM(seed*11, 40, 560+int(seed%4)*30, vl, 1)
		goff, gadj := sortedCSR(g)
		p := gen.RandomPattern(seed*17, 2+int(seed%3), gen.PatternOptions{EdgeProb: 0.6, VertexLabels: vl, Wildcard: 0.5})
		if seed%4 == 0 { // a clique: its levels reuse stored sets
			p = mustParse("(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)")
		}
		for _, sem := range semantics {
			nospace := seed%2 == 0
			pl := testPlan(g, p, sem, Options{NoLeaves: true, NoSpace: nospace})
			if pl.Empty || len(pl.Levels) < 2 {
				continue
			}
			want := cpuCount(t, g, p, sem)
			fp, err := flattenOn(g, pl, flatOptions{reuse: true, pieceCap: 1})
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, sem, err)
			}
			for i := 1; i < fp.L; i++ {
				if fp.Cap[i] > minPieceCap {
					t.Fatalf("seed %d: level %d has a buffer of %d, above %d", seed, i, fp.Cap[i], minPieceCap)
				}
				if fp.Meta[i*metaStride+mBackAll] != 0 {
					fallbacks++
				}
			}
			chaos := rand.New(rand.NewPCG(seed, 5))
			for _, split := range []bool{false, true} {
				got, n := emulate2(fp, fp.makeUnits(4, split), goff, gadj, chaos, nil)
				if got*max(1, pl.Multiplier) != want {
					t.Errorf("seed %d %s (%s, graph mode %v) split %v: emulated in pieces %d (x%d), cpu %d", seed, p, sem, fp.Graph, split, got, pl.Multiplier, want)
				}
				pieces += n
			}
			cases++
			if sem.Unique || pl.Multiplier > 1 {
				continue
			}
			// Listing in pieces: the last level is stored in pieces of minPieceCap, and the
			// output buffer holds barely more than one.
			lfp, err := flattenOn(g, pl, flatOptions{reuse: true, storeLast: true, pieceCap: minPieceCap})
			if err != nil {
				t.Fatal(err)
			}
			list := &emuList{cap: int(lfp.Cap[lfp.L-1]) + 3}
			_, n := emulate2(lfp, lfp.makeUnits(4, true), goff, gadj, chaos, list)
			pieces += n
			var got, wantRows []string
			for _, row := range list.rows {
				match := make([]uint32, p.NumVertices())
				for level, lv := range pl.Levels {
					match[lv.Vertex] = row[level]
				}
				got = append(got, fmt.Sprint(match))
			}
			for m, err := range cpuEngine.Matches(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 1}) {
				if err != nil {
					t.Fatal(err)
				}
				wantRows = append(wantRows, fmt.Sprint(m))
			}
			slices.Sort(got)
			slices.Sort(wantRows)
			if !slices.Equal(got, wantRows) {
				t.Errorf("seed %d %s (%s): listing in pieces gave %d rows, cpu %d", seed, p, sem, len(got), len(wantRows))
			}
			listed++
		}
	}
	t.Logf("%d cases (%d listed), %d later pieces, %d levels with a fallback for a reused set in pieces", cases, listed, pieces, fallbacks)
	if pieces == 0 || fallbacks == 0 || listed == 0 {
		t.Error("the piece path, the reuse fallback or listing was not exercised")
	}
}

// TestKernelConstants: the layout constants the host shares with the kernels (metadata words,
// flags, control words, task size, options) have the same values in host.go/stmatch.go and in
// both kernel sources. A stale META_STRIDE in the v1 kernel once made every v1 count 0.
// TestKernelRegistered: `submatch gpu-info --compile` finds the generic kernel under the name
// and source the engine compiles it with, so that it warms the same cache entry.
func TestKernelRegistered(t *testing.T) {
	if src, err := gpu.KernelSource(kernelFile); err != nil || src != kernelSource {
		t.Fatalf("gpu.KernelSource(%q): %d bytes, %v", kernelFile, len(src), err)
	}
}

func TestKernelConstants(t *testing.T) {
	define := regexp.MustCompile(`(?m)^#define (\w+) \(?(0x[0-9a-f]+|\d+)u?(?: \* C_LINE\))?`)
	read := func(src string) map[string]uint64 {
		vals := map[string]uint64{}
		for _, m := range define.FindAllStringSubmatch(src, -1) {
			v, err := strconv.ParseUint(m[2], 0, 64)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(m[0], "C_LINE)") {
				v *= ctlLine
			}
			vals[m[1]] = v
		}
		return vals
	}
	want := map[string]uint64{
		"MAXL": maxLevels, "META_STRIDE": metaStride, "M_BACK": mBack, "M_COLLIDE": mCollide, "M_LOWER": mLower,
		"M_UPPER": mUpper, "M_NONADJ": mNonAdj, "M_NEEDIDX": mNeedIdx, "M_CANDOFF": mCandOff, "M_CANDLEN": mCandLen,
		"M_BUFOFF": mBufOff, "M_FLAGS": mFlags, "M_EBASE": mEBase, "M_CAP": mCap, "M_BACKALL": mBackAll,
		"F_REUSE": fReuse, "F_REUSED": fReused, "F_NARROW": fNarrow, "F_CHECKCAND": fCheckCand, "F_GRAPH": fGraph,
		"F_PIECES": fPieces, "C_LINE": ctlLine, "C_NEXT": cNext, "C_OVERFLOW": cOverflow, "C_WORK": cWork,
		"C_IDLE": cIdle, "C_HEAD": cHead, "C_TAIL": cTail, "C_QSIZE": cQSize, "C_DONATED": cDonated,
		"C_SPILLED": cSpilled, "C_TAKEN": cTaken, "C_OUT": cOut, "C_STOP": cStop, "C_PIECES": cPieces,
		"C_CANCEL": cCancel, "C_POLL": cPoll, "C_WORDS": ctlWords, "OPT_STEAL": optSteal, "OPT_LIST": optList, "OPT_UNROLL": optUnroll, "OPT_UNROLL_LEAVES": optUnrollLeaves,
		"MAX_CLASS": maxClassGroups, "MAX_CLASS_LISTS": maxClassLists, "MAX_CLASS_STATES": maxClassStates,
	}
	v2 := read(kernelSource)
	for name, w := range want {
		if got, ok := v2[name]; !ok || got != w {
			t.Errorf("stmatch.cu: %s = %d (defined %v), host %d", name, got, ok, w)
		}
	}
	if got := strings.Count(kernelSource, "#define TASK_WORDS (6 + 2 * MAXL)"); got != 1 || taskWords != 6+2*maxLevels {
		t.Errorf("TASK_WORDS: the kernel and the host (%d) disagree", taskWords)
	}
	v1 := read(kernelSourceV1)
	for name, got := range v1 {
		if w, ok := want[name]; ok && got != w {
			t.Errorf("stmatch_v1.cu: %s = %d, host %d", name, got, w)
		}
	}
	if v1["META_STRIDE"] != metaStride {
		t.Errorf("stmatch_v1.cu: META_STRIDE %d, host %d", v1["META_STRIDE"], metaStride)
	}
}

// TestBuildPlanFromBase: the plan stmatch builds from another engine's plan (CountFrom, any
// options) flattens to the same kernel arrays as the one it builds from scratch, in both layouts
// (candidate space, and graph mode where the space is not built).
func TestBuildPlanFromBase(t *testing.T) {
	n := 0
	for seed := uint64(1); seed <= 30; seed++ {
		c := proptest.MakeLarger(seed)
		for _, sem := range semantics {
			for _, o := range []Options{{}, {NoSpace: true}, {NoLeaves: true}} {
				want := testPlan(c.G, c.P, sem, o)
				base := plan.Build(c.G, c.P, plan.Options{Induced: sem.Induced, Unique: sem.Unique, MultiplyAutomorphisms: seed%2 == 0})
				got, err := buildPlan(context.Background(), c.G, c.P, sem, o, base)
				if err != nil {
					t.Fatal(err)
				}
				if want.Empty || got.Empty {
					if want.Empty != got.Empty {
						t.Errorf("seed %d %s: empty %v from scratch, %v from a base", seed, sem, want.Empty, got.Empty)
					}
					continue
				}
				fw, errw := flattenOn(c.G, want, o.flatOptions(false))
				fg, errg := flattenOn(c.G, got, o.flatOptions(false))
				if (errw == nil) != (errg == nil) {
					t.Fatalf("seed %d %s: flatten errors %v and %v", seed, sem, errw, errg)
				}
				if errw != nil {
					continue
				}
				if !slices.Equal(fw.Meta, fg.Meta) || !slices.Equal(fw.Cands, fg.Cands) || !slices.Equal(fw.Offsets, fg.Offsets) ||
					!slices.Equal(fw.values(), fg.values()) || fw.Graph != fg.Graph || want.Multiplier != got.Multiplier {
					t.Errorf("seed %d %s %+v: the plan built from a base flattens differently", seed, sem, o)
				}
				n++
			}
		}
	}
	t.Logf("%d plans compared", n)
}

// TestGraphModeCapacity: in graph mode a level whose label no vertex can fail keeps every
// neighbour its adjacency runs give, so its buffer must hold a degree's worth, not its
// (filtered) candidate list. Found by a sweep: a wildcard level with 1 candidate and a buffer of 1
// got 3 neighbours, and the kernel wrote past its buffer into the next level's.
func TestGraphModeCapacity(t *testing.T) {
	g := gen.RandomGraph(5000217, 35, 0.05, 4, 1)
	p, ok := gen.SamplePattern(5000217, g, 8, gen.SampleOptions{Components: 1, Induced: true, KeepEdge: 0.8330334081862991, Wildcard: 0.5})
	if !ok {
		t.Fatal("no pattern sampled")
	}
	pl := testPlan(g, p, engine.Semantics{}, Options{NoSpace: true})
	fp, err := flattenOn(g, pl, Options{}.flatOptions(false))
	if err != nil {
		t.Fatal(err)
	}
	goff, gadj := fp.sortedCSR(g)
	if got, want := emulateV2(fp, fp.makeUnits(4, true), goff, gadj, nil)*max(1, pl.Multiplier), cpuCount(t, g, p, engine.Semantics{}); got != want {
		t.Fatalf("emulated %d, cpu %d", got, want)
	}
}

// TestEmulatedDense runs proptest's dense cases (near-cliques on dense graphs: chains of reused
// sets under symmetry windows) through the emulated kernel, with a candidate space and in graph
// mode, with random spills and donations, against the oracle.
func TestEmulatedDense(t *testing.T) {
	seeds, _ := proptest.Seeds(t, 150, 40)
	var checked, graphMode int
	for o := range proptest.WithOracleDense(seeds, nil) {
		c := o.Case
		for _, opts := range []Options{{}, {NoSpace: true}} {
			pl := testPlan(c.G, c.P, o.Sem, opts)
			var got uint64
			if !pl.Empty {
				fp, err := flattenOn(c.G, pl, opts.flatOptions(false))
				if err != nil {
					t.Fatalf("%v\n%s", err, c.Describe(o.Sem, "", "./engine/stmatch -run TestEmulatedDense"))
				}
				if fp.Graph {
					graphMode++
				}
				chaos := rand.New(rand.NewPCG(c.Seed, 5))
				goff, gadj := fp.sortedCSR(c.G)
				got = emulateV2(fp, fp.makeUnits(4, true), goff, gadj, chaos) * max(1, pl.Multiplier)
			}
			if got != o.Want {
				t.Errorf("emulated %d, oracle %d (no space %v)\n%s", got, o.Want, opts.NoSpace, c.Describe(o.Sem, "", "./engine/stmatch -run TestEmulatedDense"))
			}
			checked++
		}
	}
	t.Logf("%d plans checked, %d in graph mode", checked, graphMode)
	if graphMode == 0 {
		t.Error("no plan in graph mode")
	}
}

// TestEmulatedSearchedPlans: the plans stmatch builds when its order search runs (forced on
// small graphs: searchPlan's two ways, the leaf-group decision and the rebuilds after it) count
// what the oracle counts through the emulated kernel, on proptest's dense and general cases in
// every convention, with and without a candidate space.
func TestEmulatedSearchedPlans(t *testing.T) {
	seeds, _ := proptest.Seeds(t, 40, 12)
	var checked, other int
	check := func(o proptest.Oracled) {
		c := o.Case
		for _, opts := range []Options{{searchAt: 1e-9}, {searchAt: 1e-9, NoSpace: true}} {
			pl := testPlan(c.G, c.P, o.Sem, opts)
			var got uint64
			if !pl.Empty {
				def := testPlan(c.G, c.P, o.Sem, Options{NoOrderSearch: true, NoSpace: opts.NoSpace})
				if !slices.Equal(fullOrder(pl), fullOrder(def)) || pl.Multiplier != def.Multiplier {
					other++
				}
				fp, err := flattenOn(c.G, pl, opts.flatOptions(false))
				if err != nil {
					t.Fatalf("%v\n%s", err, c.Describe(o.Sem, "", "./engine/stmatch -run TestEmulatedSearchedPlans"))
				}
				chaos := rand.New(rand.NewPCG(c.Seed, 7))
				goff, gadj := fp.sortedCSR(c.G)
				got = emulateV2(fp, fp.makeUnits(4, true), goff, gadj, chaos) * max(1, pl.Multiplier)
			}
			if got != o.Want {
				t.Errorf("emulated %d, oracle %d (order %v x%d, no space %v)\n%s", got, o.Want, fullOrder(pl), pl.Multiplier, opts.NoSpace,
					c.Describe(o.Sem, "", "./engine/stmatch -run TestEmulatedSearchedPlans"))
			}
			checked++
		}
	}
	for o := range proptest.WithOracleDense(seeds, nil) {
		check(o)
	}
	for o := range proptest.WithOracle(seeds, nil) {
		check(o)
	}
	t.Logf("%d plans checked, %d with another order or symmetry choice than the default", checked, other)
	if other == 0 {
		t.Error("the search never chose another plan")
	}
}

// TestGraphModeFreeLevel: in graph mode a later component's first vertex (no backward edge)
// iterates its whole candidate list, which may be longer than the largest degree.
func TestGraphModeFreeLevel(t *testing.T) {
	g := gen.RandomGraph(1, 12, 0.5, 1, 1)
	goff, gadj := sortedCSR(g)
	p := mustParse("(a)-(b)-(c), (d)-(e)")
	pl := testPlan(g, p, engine.Semantics{}, Options{NoSpace: true})
	fp, err := flattenOn(g, pl, Options{NoSpace: true}.flatOptions(false))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := emulateV2(fp, fp.makeUnits(4, true), goff, gadj, nil)*max(1, pl.Multiplier), cpuCount(t, g, p, engine.Semantics{}); got != want {
		t.Fatalf("emulated %d, cpu %d", got, want)
	}
}
