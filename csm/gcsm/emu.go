package gcsm

import (
	"context"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// phase is what a kernel launch reads besides the graph and the table: the anchored searches
// (taskWords each: global term index, the anchors' data vertices x and y, pattern, part), and the other
// graph as the states of the changed elements alive in the current graph, sorted for binary
// search: vertices (dense id, alive, label) and pairs (key u<<32|v with u < v, present, label).
type phase struct {
	tasks                []uint32
	cv, cvAlive, cvLabel []uint32
	cpKey                []uint64
	cpPresent, cpLabel   []uint32
}

func (p *phase) reset() {
	p.tasks = p.tasks[:0]
	p.cv, p.cvAlive, p.cvLabel = p.cv[:0], p.cvAlive[:0], p.cvLabel[:0]
	p.cpKey, p.cpPresent, p.cpLabel = p.cpKey[:0], p.cpPresent[:0], p.cpLabel[:0]
}

func (p *phase) numTasks() int { return len(p.tasks) / taskWords }

// taskWords is a task's record: global term, anchors x and y, pattern, and the part [lo, hi) of
// the first free level's source entries it takes (hi 0: all).
const taskWords = 6

// emu is the host emulation of the kernel: the same interpreter over the same table, lists and
// cache, one anchored search at a time. Tests check it against the CPU engine without a GPU; the
// frequency estimator walks with it.
type emu struct {
	t  *table
	h  *hostGraph
	c  *dcsr
	ph *phase
	f  [MaxPatternVertices]uint32
	// list reads, and those served by the cache
	reads, hits uint64
	// onRead, when set, is told every list read (the estimator's access record): the vertex
	// and the bytes the read took from its list by the cost model of charge (the kernel
	// loads a list once per level step; the step's scans and binary searches in it are one read).
	onRead func(v uint32, bytes uint64)
	// cost: with onRead, the bytes taken so far from each earlier position's list in this step.
	cost [MaxPatternVertices]uint64
	bufs [MaxPatternVertices][]uint32
	// ctx, when set, stops a listing (polled every pollSteps candidates); steps counts them.
	ctx   context.Context
	steps uint32
}

// pollSteps is how many candidates a host listing enumerates between looks at its context.
const pollSteps = 1024

type hlist struct {
	keys []uint64
	elab []uint32
}

func (e *emu) list(v uint32) hlist {
	e.reads++
	if e.c != nil {
		if k, l, ok := e.c.devList(v); ok {
			e.hits++
			return hlist{k, l}
		}
	}
	k, l := e.h.list(v)
	return hlist{k, l}
}

func (l hlist) find(key uint64) int {
	if i, ok := slices.BinarySearch(l.keys, key); ok {
		return i
	}
	return -1
}

func pairKey(a, b uint32) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(a)<<32 | uint64(b)
}

func level(rec []uint32, k int) []uint32 {
	return rec[termHeader+k*levelWords : termHeader+(k+1)*levelWords]
}

// accept checks candidate c (label lab) of level k against the earlier levels, except the edge
// to parent skip (-1: none), reading the lists of the earlier positions in ls.
func (e *emu) accept(lv []uint32, k int, c, lab uint32, skip int, ls *[MaxPatternVertices]hlist) bool {
	if !levelLayout.OrderOK(lv, k, c, e.f[:]) {
		return false
	}
	if lv[lVLAny] == 0 && lab != lv[lVL] {
		return false
	}
	key := uint64(lab)<<32 | uint64(c)
	for i := range int(lv[lNPar]) {
		if i == skip {
			continue
		}
		idx := e.find(ls, lv[lPPos+i], key)
		if idx < 0 {
			return false
		}
		if lv[lPELAny+i] == 0 {
			e.charge(lv[lPPos+i], sectorBytes)
			if ls[lv[lPPos+i]].elab[idx] != lv[lPEL+i] {
				return false
			}
		}
	}
	for j := range k {
		if lv[lNonAdj]&(1<<j) != 0 && e.find(ls, uint32(j), key) >= 0 {
			return false
		}
	}
	ph := e.ph
	if lv[lOtherV] != 0 {
		if i, ok := slices.BinarySearch(ph.cv, c); ok {
			if ph.cvAlive[i] == 0 || (lv[lVLAny] == 0 && ph.cvLabel[i] != lv[lVL]) {
				return false
			}
		}
	}
	if m := lv[lOtherP]; m != 0 {
		for j := range k {
			if m&(1<<j) == 0 {
				continue
			}
			if i, ok := slices.BinarySearch(ph.cpKey, pairKey(c, e.f[j])); ok {
				valid := ph.cpPresent[i] == 0
				if lv[lOPAdj+j] != 0 {
					valid = ph.cpPresent[i] != 0 && (lv[lOPELAny+j] != 0 || ph.cpLabel[i] == lv[lOPEL+j])
				}
				if !valid {
					return false
				}
			}
		}
	}
	return true
}

// sectorBytes is the cost model's unit of a random read through the mapping (a binary search's
// probe, an edge label looked up): the GPU reads host memory in 32-byte sectors.
const sectorBytes = 32

// searchBytes is what a binary search in a list of n entries reads by the cost model.
func searchBytes(n int) uint64 { return sectorBytes * uint64(bits.Len(uint(n))) }

// charge adds bytes to the cost of position j's list in this step (with onRead).
func (e *emu) charge(j uint32, bytes uint64) {
	if e.onRead != nil {
		e.cost[j] += bytes
	}
}

// find looks key up in position j's list, charging the binary search.
func (e *emu) find(ls *[MaxPatternVertices]hlist, j uint32, key uint64) int {
	e.charge(j, searchBytes(len(ls[j].keys)))
	return ls[j].find(key)
}

// flush tells onRead the step's reads: the lists of the positions in mask, with their costs.
func (e *emu) flush(mask uint32) {
	if e.onRead == nil {
		return
	}
	for ; mask != 0; mask &= mask - 1 {
		j := bits.TrailingZeros32(mask)
		e.onRead(e.f[j], e.cost[j])
		e.cost[j] = 0
	}
}

// anchors checks the anchor levels of a task (f[0], f[1] set).
func (e *emu) anchors(rec []uint32) bool {
	na := int(rec[tAnchors])
	var ls [MaxPatternVertices]hlist
	for k := range na {
		lv := level(rec, k)
		var need uint32
		if k > 0 {
			for j := range k {
				if lv[lNonAdj]&(1<<j) != 0 || (lv[lNPar] > 0 && lv[lPPos] == uint32(j)) {
					ls[j] = e.list(e.f[j])
					need |= 1 << j
				}
			}
		}
		ok := e.accept(lv, k, e.f[k], e.h.labels[e.f[k]], -1, &ls)
		e.flush(need)
		if !ok {
			return false
		}
	}
	return true
}

// lists reads the lists level k needs (its parents' and, induced, its non-neighbours) and
// returns their positions as a mask.
func (e *emu) lists(lv []uint32, k int, ls *[MaxPatternVertices]hlist) uint32 {
	need := lv[lNonAdj]
	for i := range int(lv[lNPar]) {
		need |= 1 << lv[lPPos+i]
	}
	need &= 1<<k - 1
	for j := range k {
		if need&(1<<j) != 0 {
			ls[j] = e.list(e.f[j])
		}
	}
	return need
}

// source chooses level k's source as the kernel does (gpucsm's csm_source): the parent with the
// fewest entries of the level's label (the first such), and that range of its list.
func source(lv []uint32, ls *[MaxPatternVertices]hlist) (src, lo, hi int) {
	return levelLayout.Source(lv, func(pos uint32) []uint64 { return ls[pos].keys })
}

// part narrows a source range to the entries [plo, phi) of it (phi 0: all).
func part(lo, hi int, plo, phi uint32) (int, int) {
	if phi == 0 {
		return lo, hi
	}
	return min(lo+int(plo), hi), min(lo+int(phi), hi)
}

// gen appends level k's accepted candidates (f[0..k-1] set) to out: drawn from the source's
// entries [plo, phi) (phi 0: all), every other check made by accept.
func (e *emu) gen(rec []uint32, k int, out []uint32, plo, phi uint32) []uint32 {
	return e.genRange(rec, k, out, plo, phi, false)
}

// genRange is gen, the part [plo, phi) taken as absolute positions in the source list when abs
// is set (a spilled search's rest of a level).
func (e *emu) genRange(rec []uint32, k int, out []uint32, plo, phi uint32, abs bool) []uint32 {
	lv := level(rec, k)
	var ls [MaxPatternVertices]hlist
	need := e.lists(lv, k, &ls)
	src, lo, hi := source(lv, &ls)
	if abs {
		lo, hi = int(plo), int(phi)
	} else {
		lo, hi = part(lo, hi, plo, phi)
	}
	if e.onRead != nil {
		e.chargeSource(lv, &ls, src, hi-lo)
	}
	s := ls[lv[lPPos+src]]
	for i := lo; i < hi; i++ {
		if lv[lPELAny+src] == 0 && s.elab[i] != lv[lPEL+src] {
			continue
		}
		c, lab := uint32(s.keys[i]), uint32(s.keys[i]>>32)
		if e.accept(lv, k, c, lab, src, &ls) {
			out = append(out, c)
		}
	}
	e.flush(need)
	return out
}

// genSample is gen for the estimator's sampled walks: with at most m source entries it checks
// them all (gen), else m entries drawn uniformly (with replacement) from the level's source
// range. It appends the accepted ones to out and returns them with the number of entries
// checked and the range's size n. With onRead the step's charges are gen's for choosing and
// scanning the range, and the sample's checks scaled by n over the entries checked (an unbiased
// estimate of the whole range's checks).
func (e *emu) genSample(rec []uint32, k int, out []uint32, plo, phi uint32, m int, rng *rand.Rand) ([]uint32, int, int) {
	lv := level(rec, k)
	var ls [MaxPatternVertices]hlist
	need := e.lists(lv, k, &ls)
	src, lo, hi := source(lv, &ls)
	lo, hi = part(lo, hi, plo, phi)
	n := max(hi-lo, 0)
	if e.onRead != nil {
		e.chargeSource(lv, &ls, src, n)
	}
	before := e.cost
	s := ls[lv[lPPos+src]]
	checked := min(m, n)
	for d := range checked {
		i := lo + d
		if m < n {
			i = lo + rng.IntN(n)
		}
		if lv[lPELAny+src] == 0 && s.elab[i] != lv[lPEL+src] {
			continue
		}
		c, lab := uint32(s.keys[i]), uint32(s.keys[i]>>32)
		if e.accept(lv, k, c, lab, src, &ls) {
			out = append(out, c)
		}
	}
	if e.onRead != nil && checked < n {
		for j := range e.cost {
			e.cost[j] = before[j] + (e.cost[j]-before[j])*uint64(n)/uint64(checked)
		}
	}
	e.flush(need)
	return out, checked, n
}

// chargeSource charges choosing level k's source (a label range found in each parent's list,
// two binary searches) and scanning n entries of it (keys, and edge labels when the level
// checks them).
func (e *emu) chargeSource(lv []uint32, ls *[MaxPatternVertices]hlist, src, n int) {
	for i := range int(lv[lNPar]) {
		if lv[lVLAny] == 0 {
			e.charge(lv[lPPos+i], 2*searchBytes(len(ls[lv[lPPos+i]].keys)))
		}
	}
	per := uint64(8)
	if lv[lPELAny+src] == 0 {
		per += 4
	}
	e.charge(lv[lPPos+src], per*uint64(max(n, 0)))
}

// firstLevel returns the number of source entries of a task's first free level (the anchors
// set, not checked), or 0 when the term has none.
func (e *emu) firstLevel(task []uint32) int {
	rec := e.t.words[int(task[0])*termWords:][:termWords]
	na := int(rec[tAnchors])
	if na >= int(rec[tN]) {
		return 0
	}
	e.f[0], e.f[1] = task[1], task[2]
	lv := level(rec, na)
	var ls [MaxPatternVertices]hlist
	for i := range int(lv[lNPar]) {
		j := lv[lPPos+i]
		ls[j] = hlistOf(e.h, e.f[j])
	}
	_, lo, hi := source(lv, &ls)
	return hi - lo
}

func hlistOf(h *hostGraph, v uint32) hlist {
	k, l := h.list(v)
	return hlist{k, l}
}

// run counts the matches of one task (as the kernel does: the last level by its number of
// accepted candidates).
func (e *emu) run(task []uint32) uint64 {
	rec := e.t.words[int(task[0])*termWords:][:termWords]
	e.f[0], e.f[1] = task[1], task[2]
	if !e.anchors(rec) {
		return 0
	}
	return e.search(rec, int(rec[tAnchors]), task[4], task[5])
}

// runSpilled counts the matches of a spilled search (the kernel's SPILL_WORDS record: term,
// host task, depth d with f[0..d-1] fixed and checked, flags, part of level d, f).
func (e *emu) runSpilled(r []uint32) uint64 {
	rec := e.t.words[int(r[0])*termWords:][:termWords]
	copy(e.f[:], r[8:8+MaxPatternVertices])
	return e.searchRange(rec, int(r[2]), r[4], r[5], r[3]&spillAbs != 0)
}

// listTask visits the matches of one task (f in level order), as the kernel lists them: every level
// enumerated, no tail counted as a product. It stops, returning false, when visit returns false
// or e.ctx is done.
func (e *emu) listTask(task []uint32, visit func(f []uint32) bool) bool {
	rec := e.t.words[int(task[0])*termWords:][:termWords]
	e.f[0], e.f[1] = task[1], task[2]
	if e.anchors(rec) {
		return e.listFrom(rec, int(rec[tAnchors]), task[4], task[5], visit)
	}
	return true
}

func (e *emu) listFrom(rec []uint32, k int, plo, phi uint32, visit func(f []uint32) bool) bool {
	n := int(rec[tN])
	if k == n {
		return visit(e.f[:n])
	}
	e.bufs[k] = e.gen(rec, k, e.bufs[k][:0], plo, phi)
	for i := 0; i < len(e.bufs[k]); i++ {
		if e.ctx != nil {
			if e.steps++; e.steps%pollSteps == 0 && e.ctx.Err() != nil {
				return false
			}
		}
		e.f[k] = e.bufs[k][i]
		if !e.listFrom(rec, k+1, 0, 0, visit) {
			return false
		}
	}
	return true
}

// spillAbs is the flag of a spilled search whose part of level d is absolute (SF_ABS).
const spillAbs = 1

// search counts the matches below level k (plo, phi: the part of level k's source, on the
// first free level).
func (e *emu) search(rec []uint32, k int, plo, phi uint32) uint64 {
	return e.searchRange(rec, k, plo, phi, false)
}

// searchRange is search, the part absolute with abs (genRange).
func (e *emu) searchRange(rec []uint32, k int, plo, phi uint32, abs bool) uint64 {
	n := int(rec[tN])
	if k == n {
		return 1
	}
	if k == int(rec[tTail]) { // independent levels: the product of their numbers of candidates
		prod := uint64(1)
		for i := k; i < n && prod > 0; i++ {
			prod *= uint64(len(e.genRange(rec, i, e.bufs[i][:0], plo, phi, abs)))
			plo, phi, abs = 0, 0, false
		}
		return prod
	}
	e.bufs[k] = e.genRange(rec, k, e.bufs[k][:0], plo, phi, abs)
	if k == n-1 {
		return uint64(len(e.bufs[k]))
	}
	var sum uint64
	for i := 0; i < len(e.bufs[k]); i++ {
		e.f[k] = e.bufs[k][i]
		sum += e.search(rec, k+1, 0, 0)
	}
	return sum
}
