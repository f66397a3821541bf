package cpu

import (
	"sync/atomic"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/plan"
)

// pollMask sets how often a worker looks at the stop flag and at idle workers: once every
// pollMask+1 search nodes (a power of two). Tests lower it to make work stealing frequent.
var pollMask uint32 = 1<<10 - 1

// rampPollMask sets how often the first worker of a count looks at the time until the others
// join (scheduler.pollRamp): once every rampPollMask+1 search nodes, a clock read per 64 nodes.
const rampPollMask = 1<<6 - 1

// worker owns the per-goroutine state of a depth-first search over one plan. All buffers are
// allocated up front or grown once; the recursion allocates nothing in steady state.
type worker struct {
	g      *graph.Graph
	pl     *plan.Plan
	levels []plan.Level
	m      []uint32 // data vertex of each level
	mi     []int    // index of m[i] in its vertex's candidate list (candidate space only)

	// With a candidate space: the edge index of each Extra edge of each level, and whether a
	// level's index in its candidate list is needed by a later level.
	space   [][]*plan.EdgeIndex
	needIdx []bool
	// candIndex[i], when not nil, maps a data vertex to its index in level i's candidate list
	// (a dense table, shared by all workers, built when the graph is small enough).
	candIndex [][]int32

	raw        [][]uint32   // per level: its local candidate set before bounds and checks
	candBuf    [][]uint32   // per level: the intersection result
	tmpBuf     [][]uint32   // per level: ping-pong buffer for multi-way intersections
	unionSlots [][][]uint32 // per level and backward edge: merged runs for wildcard labels
	sets       [][]uint32   // scratch list of input sets

	leaves leafCounter
	// hubs, when not nil, are the data graph's hub rows; hubBuf[i] is level i's pair of buffers
	// for filtering by them, hubVerts a scratch list of hubs.
	hubs     *hubView
	hubBuf   [][2][]uint32
	hubVerts []uint32
	reused   []bool // reused[i]: a later level starts from level i's set
	// baseWithin[i]: level i starts from an earlier level's set that holds only level i's
	// candidates (no candidate space, or the earlier vertex's candidates are among level i's),
	// so that intersectLevel may filter every Extra list by its hub row.
	baseWithin []bool
	prefix     []levelPrefix
	// lastSum, when not nil, counts the last level and the postponed vertices below it at once
	// (see lastSum).
	lastSum *lastSum
	// pairSum, when not nil, counts the last two levels and the vertex below them at once (see
	// pairSum); skipBound is a level whose symmetry restrictions bounds ignores meanwhile (-1).
	pairSum   *pairSum
	skipBound int
	// isoMarks (a bit per data vertex, all clear between uses) marks the vertices countIsolated
	// has excluded; allocated on first use.
	isoMarks plan.Bitset

	// Loop state per level, shared with maybeDonate (same goroutine).
	iterCands [][]uint32
	iterPos   []int
	iterEnd   []int // 0 when level i has no active loop
	sched     *scheduler
	rampPoll  bool // this worker starts the others when the count has run long enough

	count    uint64
	overflow bool
	stop     *atomic.Bool
	stopped  bool
	tick     uint32

	// emit, when set, receives every complete match (listing); returning false stops.
	emit    func(m []uint32) bool
	mapping []uint32 // emit's argument: data vertex per pattern vertex
}

// denseIndexLimit bounds the dense vertex-to-candidate-index tables, in entries (4 bytes each).
const denseIndexLimit = 1 << 26

// candidateIndexes builds, for every level whose candidate index the candidate space needs, a
// dense table from data vertex to index in the level's candidate list, unless the tables would
// exceed limit entries (workers then binary-search the candidate list). Levels whose candidates
// are disjoint share a table (only a level's own candidates are looked up in it): the levels of
// a pattern whose vertices have distinct labels take one table, not one each, so that a small
// count writes fewer fresh pages.
func candidateIndexes(g *graph.Graph, pl *plan.Plan, limit int) [][]int32 {
	out := make([][]int32, len(pl.Levels))
	if pl.Space == nil {
		return out
	}
	needIdx := levelsNeedingIndex(pl)
	table := make([]int, len(pl.Levels)) // the table each level uses
	var unions []plan.Bitset             // the candidates of each table's levels
	for i, l := range pl.Levels {
		if !needIdx[i] {
			continue
		}
		cand := pl.CandidateBits[l.Vertex]
		table[i] = len(unions)
		for t, u := range unions {
			if disjoint(u, cand) {
				table[i] = t
				break
			}
		}
		if table[i] == len(unions) {
			unions = append(unions, plan.NewBitset(g.NumVertices()))
		}
		for k, w := range cand {
			unions[table[i]][k] |= w
		}
	}
	if len(unions)*g.NumVertices() > limit {
		return out
	}
	tables := make([][]int32, len(unions))
	for t := range tables {
		tables[t] = make([]int32, g.NumVertices())
	}
	for i, l := range pl.Levels {
		if !needIdx[i] {
			continue
		}
		t := tables[table[i]]
		for k, v := range pl.Candidates[l.Vertex] {
			t[v] = int32(k)
		}
		out[i] = t
	}
	return out
}

// disjoint reports whether sets a and b (over the same vertices) have no common member.
func disjoint(a, b plan.Bitset) bool {
	for k, w := range a {
		if w&b[k] != 0 {
			return false
		}
	}
	return true
}

// levelsNeedingIndex reports, per level, whether the candidate space is looked up by that level's
// candidate index (it is the parent of a later level's edge or of a postponed group).
func levelsNeedingIndex(pl *plan.Plan) []bool {
	need := make([]bool, len(pl.Levels))
	if pl.Space == nil {
		return need
	}
	for _, l := range pl.Levels {
		for _, be := range l.Extra {
			need[be.Level] = true
		}
	}
	for _, lg := range pl.Groups {
		for _, pe := range lg.Parents {
			need[pe.Level] = true
		}
	}
	return need
}

// setHubs gives the worker the hub rows (nil: none) for its intersections.
func (w *worker) setHubs(h *hubRows) {
	hv := h.view()
	w.hubs, w.leaves.hubs = hv, hv
}

func newWorker(g *graph.Graph, pl *plan.Plan, stop *atomic.Bool) *worker {
	L := len(pl.Levels)
	w := &worker{
		g: g, pl: pl, levels: pl.Levels, m: make([]uint32, L), stop: stop,
		candBuf: make([][]uint32, L), tmpBuf: make([][]uint32, L), raw: make([][]uint32, L),
		mapping: make([]uint32, pl.Pattern.NumVertices()),
	}
	maxBack := 0
	w.unionSlots = make([][][]uint32, L)
	for i, l := range pl.Levels {
		maxBack = max(maxBack, len(l.Backward))
		w.unionSlots[i] = make([][]uint32, len(l.Backward))
	}
	w.sets = make([][]uint32, 0, maxBack+1)
	w.hubBuf = make([][2][]uint32, L)
	w.hubVerts = make([]uint32, 0, maxBack)
	w.reused = make([]bool, L)
	w.iterCands, w.iterPos, w.iterEnd = make([][]uint32, L), make([]int, L), make([]int, L)
	w.mi = make([]int, L)
	w.needIdx = levelsNeedingIndex(pl)
	w.candIndex = make([][]int32, L)
	if pl.Space != nil {
		w.space = make([][]*plan.EdgeIndex, L)
		for i, l := range pl.Levels {
			for _, be := range l.Extra {
				parent := pl.Levels[be.Level].Vertex
				w.space[i] = append(w.space[i], pl.Space[[2]int{parent, l.Vertex}])
			}
		}
	}
	w.baseWithin = make([]bool, L)
	for i, l := range pl.Levels {
		if l.Reuse >= 0 {
			w.reused[l.Reuse] = true
			w.baseWithin[i] = pl.Space == nil || pl.CandidateBits[pl.Levels[l.Reuse].Vertex].SubsetOf(pl.CandidateBits[l.Vertex])
		}
	}
	w.prefix = make([]levelPrefix, L)
	for i, l := range pl.Levels {
		if l.Reuse < 0 && len(l.Extra) >= 3 {
			pf := &w.prefix[i]
			for _, be := range l.Extra[:len(l.Extra)-1] {
				pf.levels = append(pf.levels, be.Level)
			}
			pf.key = make([]uint32, len(pf.levels))
		}
	}
	w.leaves.init(g, pl)
	w.lastSum = lastSumFor(g, pl, &w.leaves)
	w.pairSum, w.skipBound = pairSumFor(g, pl), -1
	return w
}

// levelPrefix holds, for a level of three backward edges or more that reuses no earlier set,
// the intersection of its parents' lists but the deepest's (Extra is in the order of the
// levels), computed when levels held the data vertices key. The deeper a level the more often
// it changes, so most calls find the prefix still valid and intersect it, often a few dozen
// vertices, with the deepest parent's list or hub row only: wiki-Vote's wheel (STMatch's q6)
// counts its last rim vertex in the common neighbours of the hub and two rim vertices, and the
// hub's and the first rim vertex's stay the same across every choice of the second.
type levelPrefix struct {
	levelKey // levels nil: the level keeps no prefix
	set      []uint32
}

// levelKey is what a cache computed for some levels' data vertices (levels) holds of them: key,
// the vertices it was computed for, once valid.
type levelKey struct {
	levels []int
	key    []uint32
	valid  bool
}

// current reports whether the cache was computed for the data vertices in m.
func (lk *levelKey) current(m []uint32) bool {
	if !lk.valid {
		return false
	}
	for k, j := range lk.levels {
		if lk.key[k] != m[j] {
			return false
		}
	}
	return true
}

// keep records that the cache is now computed for the data vertices in m.
func (lk *levelKey) keep(m []uint32) {
	for k, j := range lk.levels {
		lk.key[k] = m[j]
	}
	lk.valid = true
}

// candidates returns the sorted local candidates of level i, already narrowed to its symmetry
// window: the intersection of the neighbour sets of its mapped backward neighbours (starting from
// a reusable earlier level's set), or the vertex's candidate list when it has none. The
// unnarrowed set is kept in w.raw[i] for later levels that reuse it.
func (w *worker) candidates(i int) []uint32 {
	lvl := &w.levels[i]
	if len(lvl.Backward) == 0 {
		w.raw[i] = w.pl.Candidates[lvl.Vertex]
		return w.bounds(i, w.raw[i])
	}
	// Levels that a later level reuses need the full set; others can narrow first.
	narrowed := !w.reused[i] || lvl.NarrowShared
	if w.prefix[i].levels != nil {
		return w.prefixCandidates(i, narrowed)
	}
	sets := w.sets[:0]
	if lvl.Reuse >= 0 {
		sets = append(sets, w.raw[lvl.Reuse])
	}
	first := len(sets) // the Extra edges' lists
	for k := range lvl.Extra {
		sets = append(sets, w.extraList(i, k))
	}
	for k := range sets {
		if narrowed {
			sets[k] = w.bounds(i, sets[k])
		}
		if len(sets[k]) == 0 {
			w.raw[i] = nil
			return nil
		}
	}
	w.raw[i] = w.intersectLevel(i, sets, first)
	if narrowed {
		return w.raw[i]
	}
	return w.bounds(i, w.raw[i])
}

// extraList returns the list of level i's k-th Extra edge: its parent's neighbours that satisfy
// the edge's label constraints, or its edge index's list with a candidate space.
func (w *worker) extraList(i, k int) []uint32 {
	be := &w.levels[i].Extra[k]
	if w.space != nil {
		return w.space[i][k].List(w.mi[be.Level])
	}
	return plan.NeighbourSet(w.g, w.m[be.Level], be.VertexLabel, be.EdgeLabel, &w.unionSlots[i][k])
}

// prefixParts returns the two sets a level that keeps a prefix (levelPrefix) intersects: the
// prefix, computed again when one of its parents changed, and the deepest parent's list, both
// narrowed to the level's window when narrowed; row is the deepest parent's hub row when it
// may stand for the list (nil otherwise; with a row, deep is not narrowed).
func (w *worker) prefixParts(i int, narrowed bool) (base, deep []uint32, row []uint64) {
	lvl := &w.levels[i]
	pf := &w.prefix[i]
	last := len(lvl.Extra) - 1
	if !pf.current(w.m) {
		sets := w.sets[:0]
		for k := range last {
			sets = append(sets, w.extraList(i, k))
		}
		pf.set = append(pf.set[:0], w.intersectLevel(i, sets, 0)...)
		pf.keep(w.m)
	}
	base, deep = pf.set, w.extraList(i, last)
	if be := &lvl.Extra[last]; w.hubs != nil && hubEdge(w.g, be.EdgeLabel) && w.hubs.ready(w.m[be.Level]) {
		row = w.hubs.bitsOf(w.m[be.Level])
	}
	if narrowed {
		base = w.bounds(i, base)
		if row == nil { // a row stands for the list, which then need not be narrowed
			deep = w.bounds(i, deep)
		}
	}
	return base, deep, row
}

// prefixCandidates is candidates for a level that keeps a prefix: the prefix filtered by the
// deepest parent's hub row, or merged with its list.
func (w *worker) prefixCandidates(i int, narrowed bool) []uint32 {
	base, deep, row := w.prefixParts(i, narrowed)
	switch {
	case len(base) == 0 || len(deep) == 0:
		w.raw[i] = nil
	case row != nil:
		out := filterRow(base, row, w.hubBuf[i][0])
		w.hubBuf[i][0], w.raw[i] = out, out
	default:
		w.candBuf[i] = intersect(base, deep, w.candBuf[i])
		w.raw[i] = w.candBuf[i]
	}
	if narrowed {
		return w.raw[i]
	}
	return w.bounds(i, w.raw[i])
}

// prefixCount counts the admitted candidates of the last level i, which keeps a prefix, when
// the deepest parent has a hub row, testing the prefix's elements against the row without
// materialising their intersection (ok is false otherwise: the caller counts candidates(i)).
func (w *worker) prefixCount(i int) (n uint64, ok bool) {
	if w.prefix[i].levels == nil || w.reused[i] {
		return 0, false
	}
	base, deep, row := w.prefixParts(i, true)
	if row == nil {
		return 0, false
	}
	if len(deep) == 0 {
		return 0, true
	}
	lvl := &w.levels[i]
	if w.space == nil || len(lvl.NonAdjacent) > 0 {
		for _, x := range base {
			if row[x>>6]&(1<<(x&63)) != 0 && w.accept(i, x) {
				n++
			}
		}
		return n, true
	}
	// The candidate space's lists hold candidates only, so an element fails the level's checks
	// only by being the data vertex of a Collide level (distinct vertices): count them all and
	// take those out.
	for _, x := range base {
		n += row[x>>6] >> (x & 63) & 1
	}
	for _, j := range lvl.Collide {
		x := w.m[j]
		if row[x>>6]&(1<<(x&63)) != 0 {
			if k := lowerBound(base, 0, x); k < len(base) && base[k] == x {
				n--
			}
		}
	}
	return n, true
}

// intersectLevel intersects level i's sets (sets[first:] are its Extra edges' lists, in order):
// the lists of hubs with a row (see hubRows) are not merged but used to filter the intersection
// of the others, keeping the shortest Extra list merged so that the result stays within the
// level's candidates. When the level starts from an earlier level's set that is within them
// (baseWithin) and no longer than the shortest list, that list is filtered too: a filter reads
// the set once, where the merge read both (STMatch's 7-vertex patterns: a reused set of tens of
// common neighbours merged with a list of hundreds at the last levels).
func (w *worker) intersectLevel(i int, sets [][]uint32, first int) []uint32 {
	if w.hubs == nil || len(sets) < 2 {
		return intersectAll(sets, &w.candBuf[i], &w.tmpBuf[i])
	}
	lvl := &w.levels[i]
	shortest := first
	for k := first + 1; k < len(sets); k++ {
		if len(sets[k]) < len(sets[shortest]) {
			shortest = k
		}
	}
	if first > 0 && w.baseWithin[i] && len(sets[0]) <= len(sets[shortest]) {
		shortest = -1 // every Extra list may be filtered
	}
	hubs := w.hubVerts[:0]
	kept := sets[:0]
	for k, s := range sets {
		if k >= first && k != shortest {
			be := lvl.Extra[k-first]
			if v := w.m[be.Level]; w.hubs.ready(v) && hubEdge(w.g, be.EdgeLabel) {
				hubs = append(hubs, v)
				continue
			}
		}
		kept = append(kept, s)
	}
	w.hubVerts = hubs
	cur := intersectAll(kept, &w.candBuf[i], &w.tmpBuf[i])
	for k, v := range hubs {
		buf := &w.hubBuf[i][k%2]
		*buf, _ = w.hubs.filter(cur, v, *buf)
		cur = *buf
	}
	return cur
}

// bounds narrows sorted candidates to the symmetry-breaking window of level i (less the bound
// of level w.skipBound, see pairSum.count).
func (w *worker) bounds(i int, cands []uint32) []uint32 {
	return w.levels[i].Narrow(cands, w.m, w.skipBound)
}

// accept applies the per-candidate checks of level i (plan.Plan.Admits).
func (w *worker) accept(i int, c uint32) bool {
	return w.pl.Admits(w.g, &w.levels[i], w.m, c)
}

// shouldStop polls the shared stop flag (and offers work to idle workers) every pollMask+1 calls.
func (w *worker) shouldStop() bool {
	if w.stopped {
		return true
	}
	w.tick++
	if w.rampPoll && w.tick&rampPollMask == 0 && w.sched.pollRamp() {
		w.rampPoll = false
	}
	if w.tick&pollMask == 0 {
		if w.stop.Load() {
			w.stopped = true
		} else if w.sched != nil && w.sched.hungry.Load() > 0 {
			w.maybeDonate()
		}
	}
	return w.stopped
}

func (w *worker) add(n uint64) {
	var ok bool
	if w.count, ok = addChecked(w.count, n); !ok {
		w.overflow = true
		w.stopped = true
	}
}

// searchFrom explores level i onward with levels < i mapped. It returns false when the search
// must stop (cancelled, overflow, or the consumer wants no more matches).
func (w *worker) searchFrom(i int) bool {
	last := len(w.levels) - 1
	if i > last {
		return w.complete()
	}
	if ps := w.pairSum; ps != nil && i == ps.level && w.emit == nil {
		if n, ok, applied := ps.count(w); applied {
			if !ok {
				w.overflow, w.stopped = true, true
				return false
			}
			w.add(n)
			return !w.shouldStop()
		}
	}
	if i == last && w.emit == nil && w.lastSum != nil {
		n, ok := w.lastSum.count(w)
		if !ok {
			w.overflow, w.stopped = true, true
			return false
		}
		w.add(n)
		return !w.shouldStop()
	}
	if i == last && w.emit == nil && w.leaves.support != nil {
		n, ok := w.supportLast(i)
		if !ok {
			w.overflow, w.stopped = true, true
			return false
		}
		w.add(n)
		return !w.shouldStop()
	}
	if i == last && w.emit == nil && len(w.pl.Groups) == 0 {
		if n, ok := w.prefixCount(i); ok {
			w.add(n)
			return !w.shouldStop()
		}
	}
	cands := w.candidates(i)
	if i == last && w.emit == nil && len(w.pl.Groups) == 0 && len(w.levels[i].Backward) == 0 {
		// An isolated pattern vertex last (induced plans keep it as a level): count its
		// admissible candidates by subtraction instead of testing each.
		w.add(w.countIsolated(i, cands))
		return !w.shouldStop()
	}
	if i == last && w.emit == nil && len(w.pl.Groups) == 0 {
		// Last level, nothing below: count without descending.
		var n uint64
		for _, c := range cands {
			if w.accept(i, c) {
				n++
			}
		}
		w.add(n)
		return !w.shouldStop()
	}
	return w.loop(i, cands)
}

// supportLast counts the last level i and the postponed vertices below it from edge supports
// (support.go), each admitted data vertex's term summed in one loop instead of descending to
// the leaf counter (ok is false on overflow).
func (w *worker) supportLast(i int) (n uint64, ok bool) {
	cands := w.candidates(i)
	sc := w.leaves.support
	sc.mark(w.m, len(cands))
	n, ok = w.supportSum(i, cands)
	sc.unmark()
	return n, ok
}

// supportSum is supportLast's loop over the last level's candidates cands.
func (w *worker) supportSum(i int, cands []uint32) (n uint64, ok bool) {
	for _, c := range cands {
		if !w.accept(i, c) {
			continue
		}
		w.m[i] = c
		k, ok := w.leaves.support.count(w.m)
		if !ok {
			return 0, false
		}
		if n, ok = addChecked(n, k); !ok {
			return 0, false
		}
	}
	return n, true
}

// countIsolated counts the candidates of level i, a level without backward edges (an isolated
// pattern vertex), that its checks admit: cands is the level's candidate list narrowed to its
// symmetry window, and a candidate fails only by being the data vertex of a Collide level
// (injectivity) or a neighbour of a NonAdjacent level's (induced). So the count is |cands| minus
// the distinct such vertices inside the window, found from the few mapped vertices and their
// neighbour lists (marked in a bit set of the data vertices, cleared after), in time
// proportional to their degrees instead of |cands| (8,298 candidates tested per match of an
// induced pattern with an isolated vertex on wiki-Vote before).
func (w *worker) countIsolated(i int, cands []uint32) uint64 {
	if len(cands) == 0 {
		return 0
	}
	lvl := &w.levels[i]
	if w.isoMarks == nil {
		w.isoMarks = plan.NewBitset(w.g.NumVertices())
	}
	marks := w.isoMarks
	bitsOf := w.pl.CandidateBits[lvl.Vertex]
	lo, hi := cands[0], cands[len(cands)-1]
	excluded := 0
	exclude := func(c uint32) {
		if c >= lo && c <= hi && bitsOf.Has(c) && !marks.Has(c) {
			marks.Set(c)
			excluded++
		}
	}
	for _, j := range lvl.Collide {
		exclude(w.m[j])
	}
	for _, j := range lvl.NonAdjacent {
		for _, c := range w.g.Neighbors(w.m[j]) {
			exclude(c)
		}
	}
	if excluded > 0 {
		for _, j := range lvl.Collide {
			marks.Clear(w.m[j])
		}
		for _, j := range lvl.NonAdjacent {
			for _, c := range w.g.Neighbors(w.m[j]) {
				marks.Clear(c)
			}
		}
	}
	return uint64(len(cands) - excluded)
}

// loop runs level i over cands. The loop's bounds live in the worker so that maybeDonate can
// hand the second half of the remaining iterations to an idle worker.
func (w *worker) loop(i int, cands []uint32) bool {
	w.iterCands[i] = cands
	w.iterEnd[i] = len(cands)
	defer func() { w.iterEnd[i] = 0 }()
	for w.iterPos[i] = 0; w.iterPos[i] < w.iterEnd[i]; w.iterPos[i]++ {
		if w.shouldStop() {
			return false
		}
		c := cands[w.iterPos[i]]
		if !w.accept(i, c) {
			continue
		}
		w.assign(i, c)
		if !w.searchFrom(i + 1) {
			return false
		}
	}
	return true
}

// assign maps level i to data vertex c (and records c's candidate index when needed).
func (w *worker) assign(i int, c uint32) {
	w.m[i] = c
	if w.needIdx[i] {
		if t := w.candIndex[i]; t != nil {
			w.mi[i] = int(t[c])
			return
		}
		cands := w.pl.Candidates[w.levels[i].Vertex]
		w.mi[i] = lowerBound(cands, 0, c)
	}
}

// complete handles a full assignment of the enumerated levels.
func (w *worker) complete() bool {
	if w.emit != nil {
		for i, l := range w.levels {
			w.mapping[l.Vertex] = w.m[i]
		}
		return w.emit(w.mapping)
	}
	if len(w.pl.Groups) == 0 {
		w.add(1)
		return !w.stopped
	}
	n, ok := w.leaves.count(w.m, w.mi)
	if !ok {
		w.overflow = true
		w.stopped = true
		return false
	}
	w.add(n)
	return !w.stopped
}

// runRoot searches the subtree whose level-0 vertex is c.
func (w *worker) runRoot(c uint32) bool {
	if len(w.levels) == 0 {
		return w.complete()
	}
	if !w.accept(0, c) {
		return true
	}
	w.assign(0, c)
	if len(w.levels) == 1 && w.emit == nil && len(w.pl.Groups) == 0 {
		w.add(1)
		return !w.stopped
	}
	return w.searchFrom(1)
}
