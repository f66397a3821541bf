package cpu

import (
	"slices"
	"sync/atomic"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// pairSum counts the last two enumerated levels together with one vertex below them by wedge
// counters, for all of the two levels' data vertices at once: v1 and v2 (levels p and p+1, not
// adjacent in the pattern) and e, adjacent to both (the plan's one postponed vertex, or its last
// level p+2). Once the earlier levels are mapped (U, their data vertices), the sets of v1 and v2
// (D1, D2) are fixed, and so is the set of e but for its edges to v1 and v2 (S_E: the common
// neighbours of e's other parents, or every vertex when it has none). With D1', D2', S_E' those
// sets less U and k_i(y) = |N(y) ∩ Di'| (N by e's edges' labels), the assignments of v1, v2 and e,
// all distinct, are
//
//	Σ_{x∈D1'} Σ_{z∈D2', z≠x} |S_E' ∩ N(x) ∩ N(z)| = Σ_{y∈S_E'} k1(y) k2(y) - Σ_{x∈D1'∩D2'} |S_E' ∩ N(x)|
//
// (y ≠ x, z as it is their neighbour). The counters k1 and k2 take one pass over the
// neighbourhoods of D1' and D2' (Σ deg, or |S_E'| bit tests a vertex with a hub row), where the
// loop intersected a pair of neighbourhoods for every (x, z): |D1||D2| intersections. When
// D1' = D2' (the same parents and window) the sum is Σ k(y)(k(y)-1), and a symmetry restriction
// between v1 and v2 halves it. A 4-cycle v1-e-v2 closed through the key (STMatch's q4: two
// triangles on an edge joined by a fifth vertex) and a wheel (q6: the hub and a rim vertex, then
// the two rim vertices next to it and the opposite one) are counted so.
//
// The checks of the three levels are those of Plan.Admits: the candidate bit (a data vertex that
// completes a match is a candidate: the filters keep every vertex of every match), injectivity
// (the sets less U, and x ≠ z) and no induced non-adjacency (the tail has none). Symmetry windows
// of the three against earlier levels narrow their sets; any other restriction among them but
// one between v1 and v2 keeps the loop.
type pairSum struct {
	level   int          // v1's level p (v2's is p+1)
	eLevel  int          // e's level (p+2), or -1 when e is the postponed group
	eg      int          // e's group, or -1
	win     *plan.Window // e's symmetry window: its level's, or its group's
	ordered bool         // a symmetry restriction between v1 and v2: the pairs are counted once
	keyEdge []int        // e's backward edges to earlier levels than p (eLevel only)
	nOthers int          // e's parents before p (group only: the prefix of its chain)
	eLabel  pattern.Label
	edge    pattern.Label // the label of e's edges to v1 and v2
	byRow   bool          // adjacency alone decides e's edges: hub rows may answer
	used    bool          // count has applied the sum (pairSumUsed counts it once)
	// cg, when not nil, is the plan's other postponed group, a factor (factorGroup): its
	// placements among the deg(m[cgParent]) − cgUsed vertices multiply the sum.
	cg       *plan.LeafGroup
	cgParent int
	cgUsed   int64

	d1, d2, se []uint32
	// The lists N(x) ∩ S_E of the elements x of D1 and D2 (S_E before its window and less U: the
	// common neighbours of e's other parents), kept while those parents' data vertices stay
	// (local): when they all come before the last key level, every key below them meets the
	// same x again. lgen[x] is the generation of x's list at arena[loff[x]:][:llen[x]].
	local            bool
	otherLevels      []int
	localKey         []uint32
	localGen         uint32
	lgen, loff, llen []uint32
	arena            []uint32
	base             []uint32 // S_E before its window and U
	lbuf             []uint32
	cnt1, cnt2       []uint32 // k1, k2 by data vertex (zero between uses)
	// c64 holds k(y) when D1' = D2': the generation in the high half (a count from an earlier
	// key reads as zero), the count in the low half.
	c64      []uint64
	stamp    []uint32 // membership of S_E' (listed) or of U (not listed), by generation
	gen      uint32
	touched  [2][]uint32
	nbuf     []uint32
	ebufs    [][]uint32
	sets     [][]uint32
	out, tmp []uint32
}

// pairSumMaxVertices bounds the data graphs that get the counters and local lists (up to 40
// bytes a data vertex a worker, allocated at first use); larger graphs keep the loop.
const pairSumMaxVertices = 1 << 21

// pairSumSymLimit bounds |D1'|² |V| for symPairs, whose sum of up to |D1'|² |S_E'| / 2 is not
// checked for overflow; beyond it the two-pass count with checks runs (tests set 0 to force it).
var pairSumSymLimit float64 = 1 << 62

// pairSumLocal lets tests and benchmarks turn the local lists off.
var pairSumLocal = true

// pairSumEnabled turns the pair sum off (for tests and benchmarks).
var pairSumEnabled = true

// pairSumUsed counts the workers whose search has applied the pair sum (tests).
var pairSumUsed atomic.Int64

// pairSumFor returns the pair sum for pl, or nil when its tail does not have the shape.
func pairSumFor(g *graph.Graph, pl *plan.Plan) *pairSum {
	L := len(pl.Levels)
	if !pairSumEnabled || g.NumVertices() > pairSumMaxVertices {
		return nil
	}
	ps := &pairSum{eLevel: -1, eg: -1, cgParent: -1}
	// e's group, if any, is the one postponed group that is not a factor (factorGroup).
	eg := -1
	switch len(pl.Groups) {
	case 0:
	case 1:
		eg = 0
		if f, ok := factorGroup(g, pl, 0); ok && !groupHasParent(&pl.Groups[0], L-1) {
			eg, ps.cg, ps.cgParent, ps.cgUsed = -1, &pl.Groups[0], pl.Groups[0].Parents[0].Level, f
		}
	case 2:
		for gi := range pl.Groups {
			if f, ok := factorGroup(g, pl, gi); ok && ps.cg == nil {
				ps.cg, ps.cgParent, ps.cgUsed = &pl.Groups[gi], pl.Groups[gi].Parents[0].Level, f
				eg = 1 - gi
			}
		}
		if ps.cg == nil {
			return nil
		}
	default:
		return nil
	}
	var e1, e2 *pattern.Label // e's edge labels to v1 and v2
	switch {
	case eg >= 0:
		lg := &pl.Groups[eg]
		if len(lg.Vertices) != 1 || L < 3 {
			return nil
		}
		ps.level, ps.eg, ps.eLabel, ps.win = L-2, eg, lg.VertexLabel, &lg.Window
		for k := range lg.Parents {
			pe := &lg.Parents[k]
			switch {
			case pe.Level == L-2 && e1 == nil:
				e1 = &pe.EdgeLabel
			case pe.Level == L-1 && e2 == nil:
				e2 = &pe.EdgeLabel
			case pe.Level < L-2:
				ps.nOthers++
			default:
				return nil
			}
		}
	case L >= 4:
		ps.level, ps.eLevel = L-3, L-1
		el := &pl.Levels[L-1]
		if len(el.NonAdjacent) > 0 {
			return nil
		}
		ps.win = &el.Window
		ps.eLabel = el.VertexLabel
		for k := range el.Backward {
			be := &el.Backward[k]
			switch {
			case be.Level == L-3 && e1 == nil:
				e1 = &be.EdgeLabel
			case be.Level == L-2 && e2 == nil:
				e2 = &be.EdgeLabel
			case be.Level < L-3:
				ps.keyEdge = append(ps.keyEdge, k)
			default:
				return nil
			}
		}
	default:
		return nil
	}
	if e1 == nil || e2 == nil || *e1 != *e2 || ps.level < 1 || ps.win.BoundedFrom(ps.level) {
		return nil // (a window holding e against v1 or v2 would hold it against the pairs summed)
	}
	if ps.cg != nil && ps.cgParent >= ps.level {
		return nil // the factor must be fixed before v1
	}
	ps.edge = *e1
	ps.byRow = hubEdge(g, ps.edge)
	p := ps.level
	v1, v2 := &pl.Levels[p], &pl.Levels[p+1]
	if len(v1.NonAdjacent) > 0 || len(v2.NonAdjacent) > 0 {
		return nil
	}
	for _, be := range v2.Backward {
		if be.Level == p {
			return nil // v1 and v2 adjacent: not a wedge
		}
	}
	ps.ordered = slices.Contains(v2.Lower, p) || slices.Contains(v2.Upper, p)
	ps.ebufs = make([][]uint32, len(ps.keyEdge))
	if ps.eg >= 0 {
		for _, pe := range pl.Groups[ps.eg].Parents {
			if pe.Level < p {
				ps.otherLevels = append(ps.otherLevels, pe.Level)
			}
		}
	} else {
		for _, k := range ps.keyEdge {
			ps.otherLevels = append(ps.otherLevels, pl.Levels[ps.eLevel].Backward[k].Level)
		}
	}
	ps.local = len(ps.otherLevels) > 0 && slices.Max(ps.otherLevels) < p-1 && pairSumLocal
	ps.localKey = make([]uint32, len(ps.otherLevels))
	return ps
}

// factorGroup reports whether postponed group gi of pl is counted as a factor beside the pair
// sum: its placements are the same for every assignment of the levels after its parent's. It
// is when it has one parent, reached by edges that adjacency alone decides (hubEdge), no vertex
// label and no window, and every other pattern vertex but the parent is the parent's neighbour
// in the pattern: the data vertices of those all lie in the parent's neighbourhood, so the
// group's set less them has deg(parent) − used elements (used, returned) whichever they are
// (STMatch's q11: the pendant f on the wheel's hub c, deg(c) − 4 for every wheel).
func factorGroup(g *graph.Graph, pl *plan.Plan, gi int) (used int64, ok bool) {
	lg := &pl.Groups[gi]
	if len(lg.Parents) != 1 || !lg.VertexLabel.Any || lg.Bounded() || !hubEdge(g, lg.Parents[0].EdgeLabel) {
		return 0, false
	}
	parent := pl.Levels[lg.Parents[0].Level].Vertex
	for u := range pl.Pattern.NumVertices() {
		if u == parent || slices.Contains(lg.Vertices, u) {
			continue
		}
		if !pl.Pattern.Adjacent(u, parent) {
			return 0, false
		}
		used++
	}
	return used, true
}

// groupHasParent reports whether group lg has a parent at level l.
func groupHasParent(lg *plan.LeafGroup, l int) bool {
	for _, pe := range lg.Parents {
		if pe.Level == l {
			return true
		}
	}
	return false
}

// count returns the number of assignments of v1, v2 and e (and the factor group's placements)
// for the data vertices of the earlier levels in w.m; applied is false when the sum does not
// apply to them (a restriction between v1 and v2 whose sets differ), and the caller loops over
// v1. The pairs come first: the factor's placements may overflow where no pair makes a match (a
// hub of thousands with no wheel around it), and the count is then 0, not an overflow.
func (ps *pairSum) count(w *worker) (n uint64, ok, applied bool) {
	n, ok, applied = ps.pairs(w)
	if !ok || !applied || n == 0 || ps.cg == nil {
		return n, ok, applied
	}
	f, ok := placements(ps.cg, int64(w.g.Degree(w.m[ps.cgParent]))-ps.cgUsed)
	if !ok {
		return 0, false, true
	}
	n, ok = mulChecked(n, f)
	return n, ok, true
}

// pairs is count without the factor group.
func (ps *pairSum) pairs(w *worker) (n uint64, ok, applied bool) {
	p := ps.level
	used := w.m[:p]
	ps.d1 = withoutUsed(ps.d1, w.candidates(p), used)
	if len(ps.d1) == 0 {
		return 0, true, true
	}
	w.skipBound = p
	d2 := w.candidates(p + 1)
	w.skipBound = -1
	ps.d2 = withoutUsed(ps.d2, d2, used)
	if len(ps.d2) == 0 {
		return 0, true, true
	}
	sym := slices.Equal(ps.d1, ps.d2)
	if ps.ordered && !sym {
		return 0, true, false
	}
	if !ps.used {
		ps.used = true
		pairSumUsed.Add(1)
	}
	nv := w.g.NumVertices()
	ps.gen++
	if ps.gen == 0 {
		clear(ps.stamp)
		clear(ps.c64)
		ps.gen = 1
	}
	listed, lo, hi := ps.eSet(w)
	if listed && len(ps.se) == 0 {
		return 0, true, true
	}
	if sym && float64(len(ps.d1))*float64(len(ps.d1))*float64(nv) < pairSumSymLimit {
		// Σ C(k(y), 2) < |D|² |S_E| / 2 fits: the unordered pairs, counted once.
		if ps.c64 == nil {
			ps.c64 = make([]uint64, nv)
		}
		t := ps.symPairs(w, listed, lo, hi)
		if !ps.ordered {
			t *= 2
		}
		return t, true, true
	}
	if ps.cnt1 == nil {
		ps.cnt1, ps.cnt2, ps.stamp = make([]uint32, nv), make([]uint32, nv), make([]uint32, nv)
	}
	if listed {
		for _, y := range ps.se {
			ps.stamp[y] = ps.gen
		}
	} else {
		for _, u := range used {
			ps.stamp[u] = ps.gen
		}
	}
	// k1 and k2 by two passes (the same set twice where D1' = D2' but Σ k² might not fit),
	// their products summed with checks.
	diag := ps.pass(w, 0, ps.d1, ps.cnt1, ps.d2, listed, lo, hi)
	ps.pass(w, 1, ps.d2, ps.cnt2, nil, listed, lo, hi)
	var t uint64
	for _, y := range ps.touched[0] {
		k := uint64(ps.cnt1[y]) * uint64(ps.cnt2[y])
		ps.cnt1[y] = 0
		if t, ok = addChecked(t, k); !ok {
			return 0, false, true
		}
	}
	for _, y := range ps.touched[1] {
		ps.cnt2[y] = 0
	}
	t -= diag
	if ps.ordered {
		t /= 2
	}
	return t, true, true
}

// withoutUsed returns s less the vertices of used, in buf.
func withoutUsed(buf, s, used []uint32) []uint32 {
	buf = buf[:0]
	for _, x := range s {
		if !slices.Contains(used, x) {
			buf = append(buf, x)
		}
	}
	return buf
}

// eSet sets ps.se to S_E less U when e has parents before v1 (listed), else returns the window
// [lo, hi) of e's data vertices (every vertex of e's label within it, less U).
func (ps *pairSum) eSet(w *worker) (listed bool, lo, hi uint64) {
	used := w.m[:ps.level]
	var se []uint32
	switch {
	case ps.eg >= 0 && ps.nOthers > 0:
		se, ps.base = w.leaves.chainPrefixes(ps.eg, ps.nOthers, w.m, w.mi) // (base for the local lists)
	case ps.eLevel >= 0 && len(ps.keyEdge) > 0:
		el := &w.levels[ps.eLevel]
		sets := ps.sets[:0]
		for k, bi := range ps.keyEdge {
			be := &el.Backward[bi]
			sets = append(sets, plan.NeighbourSet(w.g, w.m[be.Level], be.VertexLabel, be.EdgeLabel, &ps.ebufs[k]))
		}
		ps.sets = sets
		ps.base = intersectAll(sets, &ps.out, &ps.tmp)
		se = w.bounds(ps.eLevel, ps.base)
	default:
		lo, hi = ps.win.Range(w.m, -1)
		return false, lo, min(hi, uint64(w.g.NumVertices()))
	}
	ps.se = withoutUsed(ps.se, se, used)
	if ps.local {
		ps.keepLocal(w)
	}
	return true, 0, 0
}

// keepLocal starts a new generation of the local lists when a parent of e before v1 has another
// data vertex than when they were made.
func (ps *pairSum) keepLocal(w *worker) {
	if ps.lgen == nil {
		nv := w.g.NumVertices()
		ps.lgen, ps.loff, ps.llen = make([]uint32, nv), make([]uint32, nv), make([]uint32, nv)
	}
	same := ps.localGen != 0
	for k, j := range ps.otherLevels {
		if ps.localKey[k] != w.m[j] {
			same = false
			ps.localKey[k] = w.m[j]
		}
	}
	if same {
		return
	}
	ps.localGen++
	if ps.localGen == 0 {
		clear(ps.lgen)
		ps.localGen = 1
	}
	ps.arena = ps.arena[:0]
}

// localList returns N(x) ∩ S_E (before the window and U), made at x's first use in this
// generation: by x's hub row over S_E when that is the shorter, else by a merge.
func (ps *pairSum) localList(w *worker, x uint32) []uint32 {
	if ps.lgen[x] == ps.localGen {
		return ps.arena[ps.loff[x]:][:ps.llen[x]]
	}
	list := plan.NeighbourSet(w.g, x, ps.eLabel, ps.edge, &ps.nbuf)
	off := len(ps.arena)
	if row := ps.rowFor(w, x, len(list)); row != nil {
		for _, y := range ps.base {
			if row[y>>6]&(1<<(y&63)) != 0 {
				ps.arena = append(ps.arena, y)
			}
		}
	} else {
		ps.lbuf = intersect(list, ps.base, ps.lbuf)
		ps.arena = append(ps.arena, ps.lbuf...)
	}
	ps.lgen[x], ps.loff[x], ps.llen[x] = ps.localGen, uint32(off), uint32(len(ps.arena)-off)
	return ps.arena[off:]
}

// rowFor returns x's hub row when adjacency alone decides e's edge and S_E is shorter than the
// n neighbours a merge would read, else nil.
func (ps *pairSum) rowFor(w *worker, x uint32, n int) []uint64 {
	if !ps.byRow || len(ps.base) >= n {
		return nil
	}
	return w.hubs.rowOf(x)
}

// neighbours returns x's neighbours by e's edge that may count: those in the window [lo, hi) of
// e's data vertices, or, with S_E' listed and the list long enough for two binary searches to
// pay, those between its least and greatest elements (a hub row is read instead when S_E' is the
// shorter). A list of S_E' may keep elements outside: they fail the membership test.
func (ps *pairSum) neighbours(w *worker, x uint32, listed bool, lo, hi uint64) []uint32 {
	var list []uint32
	if listed && ps.local {
		list = ps.localList(w, x)
	} else {
		list = plan.NeighbourSet(w.g, x, ps.eLabel, ps.edge, &ps.nbuf)
	}
	if len(list) == 0 {
		return list
	}
	if listed {
		if len(list) < pairSumWindowMin {
			return list
		}
		lo, hi = uint64(ps.se[0]), uint64(ps.se[len(ps.se)-1])+1
	}
	if uint64(list[0]) < lo || uint64(list[len(list)-1]) >= hi { // (Clip is a call: one per x)
		list = plan.Clip(list, lo, hi)
	}
	return list
}

// pairSumWindowMin is the shortest neighbour list that neighbours narrows to S_E's range.
const pairSumWindowMin = 64

// pass adds, for every x of d, one to cnt[y] for each y of S_E' adjacent to x by e's edge, and
// returns Σ |S_E' ∩ N(x)| over the x of d that are in other (sorted; nil: none).
func (ps *pairSum) pass(w *worker, side int, d, cnt, other []uint32, listed bool, lo, hi uint64) uint64 {
	touched := ps.touched[side][:0]
	stamp, gen := ps.stamp, ps.gen
	var diag uint64
	j := 0
	for _, x := range d {
		var c uint32
		list := ps.neighbours(w, x, listed, lo, hi)
		switch {
		case !listed:
			for _, y := range list {
				if stamp[y] != gen {
					if cnt[y] == 0 {
						touched = append(touched, y)
					}
					cnt[y]++
					c++
				}
			}
		case ps.byRow && len(ps.se) < len(list) && w.hubs.rowOf(x) != nil:
			row := w.hubs.rowOf(x)
			for _, y := range ps.se {
				if row[y>>6]&(1<<(y&63)) != 0 {
					if cnt[y] == 0 {
						touched = append(touched, y)
					}
					cnt[y]++
					c++
				}
			}
		default:
			for _, y := range list {
				if stamp[y] == gen {
					if cnt[y] == 0 {
						touched = append(touched, y)
					}
					cnt[y]++
					c++
				}
			}
		}
		for j < len(other) && other[j] < x {
			j++
		}
		if j < len(other) && other[j] == x {
			diag += uint64(c)
		}
	}
	ps.touched[side] = touched
	return diag
}

// symPairs returns Σ C(k(y), 2) over the y of S_E' when D1' = D2' (in ps.d1): the unordered pairs
// {x, z} of distinct elements of D1' and a common neighbour y of theirs in S_E'. Each increment of
// k(y) adds the pairs the new x makes with the earlier ones, k(y) before it, so no pass over the
// counters follows. With S_E listed, its elements are set to a count of zero of this generation
// first and only they count; else every neighbour in the window counts, and the used vertices'
// pairs are taken out after.
func (ps *pairSum) symPairs(w *worker, listed bool, lo, hi uint64) uint64 {
	c64 := ps.c64
	cur := uint64(ps.gen) << 32
	var t uint64
	if listed {
		for _, y := range ps.se {
			c64[y] = cur
		}
	}
	for _, x := range ps.d1 {
		list := ps.neighbours(w, x, listed, lo, hi)
		switch {
		case !listed:
			for _, y := range list {
				v := c64[y]
				if v&^(1<<32-1) != cur {
					v = cur
				}
				t += v & (1<<32 - 1)
				c64[y] = v + 1
			}
		case ps.byRow && len(ps.se) < len(list) && w.hubs.rowOf(x) != nil:
			row := w.hubs.rowOf(x)
			for _, y := range ps.se {
				if row[y>>6]&(1<<(y&63)) != 0 {
					v := c64[y]
					t += v & (1<<32 - 1)
					c64[y] = v + 1
				}
			}
		default:
			for _, y := range list {
				if v := c64[y]; v&^(1<<32-1) == cur {
					t += v & (1<<32 - 1)
					c64[y] = v + 1
				}
			}
		}
	}
	if !listed {
		for _, u := range w.m[:ps.level] {
			if v := c64[u]; v&^(1<<32-1) == cur {
				k := v & (1<<32 - 1)
				t -= k * (k - 1) / 2
				c64[u] = cur // a vertex used twice is taken out once
			}
		}
	}
	return t
}
