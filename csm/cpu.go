package csm

import (
	"context"
	"fmt"
	"github.com/submatch/submatch/internal/setops"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

func init() { Register(cpuEngine{}) }

type cpuEngine struct{}

func (cpuEngine) Name() string { return DefaultEngine }

func (cpuEngine) Open(g *dynamic.Graph, patterns []*pattern.Pattern, opts Options) (Matcher, error) {
	return newCPU(g, patterns, opts)
}

// Open opens patterns over g with the CPU engine.
func Open(g *dynamic.Graph, patterns []*pattern.Pattern, opts Options) (Matcher, error) {
	return newCPU(g, patterns, opts)
}

// task is one anchored search: pattern, term, the data vertices of the anchor levels, and, for
// a part of a split search, the range [lo, hi) of the first free level's candidates (hi 0: all).
type task struct {
	pat, term int32
	x, y      uint32
	lo, hi    int32
}

type cpuMatcher struct {
	g     *dynamic.Graph
	progs []*program
	opts  Options

	net *Net // the batch's net change

	// The other graph of a phase, by dense ids: flags, and the states of changed elements.
	vFlag   []bool
	touch   []bool
	otherV  map[uint32]VertexState
	otherP  map[uint64]PairState
	flagged []uint32
	// anyV: some vertex changed; singlePair: exactly one pair changed (its endpoints are then the
	// anchors of every pair term, so no other candidate is touched).
	anyV, singlePair bool

	// The anchors of a phase: changed vertices and pairs present in the current graph.
	ancV    []uint32
	ancVcur []VertexState
	ancVoth []VertexState
	ancP    [][2]uint32
	ancL    [][2]uint32 // the labels of ancP's endpoints
	ancPcur []PairState
	ancPoth []PairState

	sinceCompact int // changes applied since the graph was last compacted

	// The endpoint labels a changed pair must have to anchor some pair term: anyPair (a
	// wildcard, or a label of 64 or more), else bit l1 of pairLabels[l0].
	anyPair    bool
	pairLabels [64]uint64

	tasks   []task
	workers []*worker
	counts  []uint64
	next    atomic.Int64   // the next part of a parallel phase
	joined  sync.WaitGroup // the workers that joined a parallel phase
}

func newCPU(g *dynamic.Graph, patterns []*pattern.Pattern, opts Options) (*cpuMatcher, error) {
	if len(patterns) == 0 {
		return nil, fmt.Errorf("csm: no patterns")
	}
	m := &cpuMatcher{
		g: g, opts: opts,
		net:    NewNet(g),
		otherV: map[uint32]VertexState{}, otherP: map[uint64]PairState{},
		counts: make([]uint64, len(patterns)),
	}
	for _, p := range patterns {
		pr := newProgram(p, opts.Semantics)
		m.progs = append(m.progs, pr)
		for ti := pr.n; ti < len(pr.terms); ti++ {
			la, lb := pr.terms[ti].levels[0].vl, pr.terms[ti].levels[1].vl
			if la.Any || lb.Any || la.Value >= 64 || lb.Value >= 64 {
				m.anyPair = true
				continue
			}
			m.pairLabels[la.Value] |= 1 << lb.Value
			m.pairLabels[lb.Value] |= 1 << la.Value
		}
	}
	threads := opts.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	for range threads {
		m.workers = append(m.workers, newWorker(m))
	}
	return m, nil
}

func (m *cpuMatcher) Graph() *dynamic.Graph { return m.g }

func (m *cpuMatcher) Patterns() []*pattern.Pattern {
	out := make([]*pattern.Pattern, len(m.progs))
	for i, pr := range m.progs {
		out[i] = pr.p
	}
	return out
}

func (m *cpuMatcher) Apply(ctx context.Context, batch []updates.Update, emit Emit, res *Result) error {
	defer m.net.Reset()
	res.Deltas = res.Deltas[:0]
	for range m.progs {
		res.Deltas = append(res.Deltas, Delta{})
	}
	if len(batch) == 1 {
		if x, y, c, ok := m.unanchored(&batch[0]); ok {
			// One edge update whose endpoints' labels no pattern pair has: it creates and
			// destroys nothing (most updates of a stream, when the patterns use few of the
			// labels), and, when valid, is checked by the change itself (with the dense ids
			// found here).
			m.net.start(nil, res, nil)
			if m.net.applyEdgeAt(&batch[0], x, y, c) {
				res.Applied = 1
				m.sinceCompact++
				return ctx.Err()
			}
		}
	}
	if err := m.net.Compute(batch, m.opts.SkipInvalid, res); err != nil {
		return err
	}
	return m.search(ctx, emit, res)
}

// unanchored reports whether u is an edge update between existing distinct vertices whose
// labels no pattern pair has, and then its endpoints' dense ids and pair (as Net.edgeUpdate).
func (m *cpuMatcher) unanchored(u *updates.Update) (x, y uint32, c PairChange, ok bool) {
	if m.anyPair {
		return 0, 0, c, false
	}
	x, y, c, ok = m.net.edgeUpdate(u)
	return x, y, c, ok && !m.anchors(m.g.Label(x), m.g.Label(y))
}

// ApplyChange implements ChangeApplier: the net change is set as if Compute had found it.
func (m *cpuMatcher) ApplyChange(ctx context.Context, vertices []VertexChange, pairs []PairChange, emit Emit, res *Result) error {
	m.net.Reset()
	defer m.net.Reset()
	res.Deltas = res.Deltas[:0]
	for range m.progs {
		res.Deltas = append(res.Deltas, Delta{})
	}
	m.net.Vertices = append(m.net.Vertices, vertices...)
	m.net.Pairs = append(m.net.Pairs, pairs...)
	return m.search(ctx, emit, res)
}

// Relevant implements ChangeApplier.
func (m *cpuMatcher) Relevant() (func(l0, l1 uint32) bool, bool) {
	return m.anchors, !m.anyPair
}

// search runs the destroyed and created phases of the net change in m.net and applies it to the
// graph in between.
func (m *cpuMatcher) search(ctx context.Context, emit Emit, res *Result) error {
	if len(m.net.Vertices) == 0 && len(m.net.Pairs) == 0 {
		return ctx.Err()
	}
	if m.net.single && !m.anchors(m.g.Label(m.net.x), m.g.Label(m.net.y)) {
		// One edge update whose endpoints' labels no pattern pair has: it creates and destroys
		// nothing (most updates of a stream, when the patterns use few of the labels).
		m.sinceCompact++
		if err := m.net.Apply(); err != nil {
			return err
		}
		return ctx.Err()
	}

	// Destroyed: matches of the old graph (the current one) failing in the new.
	m.prepare(false)
	if err := m.phase(ctx, -1, emit); err != nil {
		m.clearFlags()
		return err
	}
	for i, c := range m.counts {
		res.Deltas[i].Destroyed = c
	}
	m.clearFlags()

	if err := m.net.Apply(); err != nil {
		return err
	}

	// Created: matches of the new graph failing in the old.
	m.prepare(true)
	err := m.phase(ctx, +1, emit)
	m.clearFlags()
	// Compact from time to time: amortised over at least as many updates as the graph has edges.
	m.sinceCompact += len(m.net.Pairs) + len(m.net.Vertices)
	if m.sinceCompact >= 1<<20 && uint64(m.sinceCompact) >= m.g.NumEdges() {
		m.g.Compact()
		m.sinceCompact = 0
	}
	for i, c := range m.counts {
		res.Deltas[i].Created = c
	}
	if err != nil {
		return err
	}
	return nil
}

// anchors reports whether a changed pair whose endpoints have labels l0 and l1 anchors some
// pair term (in one orientation or the other).
func (m *cpuMatcher) anchors(l0, l1 uint32) bool {
	return m.anyPair || l0 < 64 && l1 < 64 && m.pairLabels[l0]&(1<<l1) != 0
}

func pairKey64(u, v uint32) uint64 {
	if u > v {
		u, v = v, u
	}
	return uint64(u)<<32 | uint64(v)
}

// prepare sets up the other graph and the anchors of a phase: created (the current graph is the
// new one, the other the old) or destroyed.
func (m *cpuMatcher) prepare(created bool) {
	g := m.g
	if n := g.IDBound(); len(m.vFlag) < n {
		m.vFlag = append(m.vFlag, make([]bool, n-len(m.vFlag))...)
		m.touch = append(m.touch, make([]bool, n-len(m.touch))...)
	}
	m.ancV, m.ancVcur, m.ancVoth = m.ancV[:0], m.ancVcur[:0], m.ancVoth[:0]
	m.ancP, m.ancPcur, m.ancPoth, m.ancL = m.ancP[:0], m.ancPcur[:0], m.ancPoth[:0], m.ancL[:0]
	for a := range m.net.AnchorVertices(g, created) {
		m.vFlag[a.V] = true
		m.flagged = append(m.flagged, a.V)
		m.otherV[a.V] = a.Other
		m.ancV = append(m.ancV, a.V)
		m.ancVcur = append(m.ancVcur, a.Cur)
		m.ancVoth = append(m.ancVoth, a.Other)
	}
	for a := range m.net.AnchorPairs(g, created) {
		u, v := a.U, a.V
		m.touch[u], m.touch[v] = true, true
		m.flagged = append(m.flagged, u, v)
		m.otherP[pairKey64(u, v)] = a.Other
		m.ancP = append(m.ancP, [2]uint32{u, v})
		m.ancL = append(m.ancL, [2]uint32{g.Label(u), g.Label(v)})
		m.ancPcur = append(m.ancPcur, a.Cur)
		m.ancPoth = append(m.ancPoth, a.Other)
	}
	m.anyV = len(m.ancV) > 0
	m.singlePair = len(m.ancP) == 1
}

func (m *cpuMatcher) clearFlags() {
	m.anyV, m.singlePair = false, false
	for _, v := range m.flagged {
		m.vFlag[v], m.touch[v] = false, false
	}
	m.flagged = m.flagged[:0]
	clearMap(m.otherV)
	clearMap(m.otherP)
}

// With several workers, a phase's searches with more than splitChunk first-level candidates are
// split into parts of splitChunk, and the phase starts on one goroutine, which takes the parts in
// turn; once it has visited wakeNodes search nodes in the phase (a heavy batch: most batches end
// long before), the other workers join it and take the parts left, one at a time, from the same
// counter. (Variables: the tests lower them.)
var (
	splitChunk = 16
	wakeNodes  = uint64(1 << 11)
)

// firstLevel returns how many candidates the first free level of task tk draws (an upper bound:
// its smallest parent list, or the vertices it scans), or -1 when that level cannot be split.
func (m *cpuMatcher) firstLevel(tk *task) int {
	pr := m.progs[tk.pat]
	t := &pr.terms[tk.term]
	na := 2
	if t.vertex >= 0 {
		na = 1
	}
	if na >= pr.n || na >= t.tail {
		return -1
	}
	lv := &t.levels[na]
	if len(lv.parents) == 0 {
		if lv.vl.Any {
			return len(m.g.Vertices())
		}
		return len(m.g.VerticesWithLabel(lv.vl.Value))
	}
	if !lv.exact {
		return -1
	}
	best := -1
	for _, pe := range lv.parents {
		x := tk.x
		if pe.pos == 1 {
			x = tk.y
		}
		if l := len(m.g.NeighborsWith(x, lv.vl.Value, pe.el.Value)); best < 0 || l < best {
			best = l
		}
	}
	return best
}

// split replaces the searches with more than splitChunk first-level candidates by parts.
func (m *cpuMatcher) split() {
	n := len(m.tasks)
	for i := 0; i < n; i++ {
		c := m.firstLevel(&m.tasks[i])
		if c <= splitChunk {
			continue
		}
		tk := m.tasks[i]
		m.tasks[i].lo, m.tasks[i].hi = 0, int32(splitChunk)
		for lo := splitChunk; lo < c; lo += splitChunk {
			tk.lo, tk.hi = int32(lo), int32(min(lo+splitChunk, c))
			m.tasks = append(m.tasks, tk)
		}
	}
}

// phase runs every anchored search of the phase and leaves the per-pattern counts in m.counts.
func (m *cpuMatcher) phase(ctx context.Context, sign int, emit Emit) error {
	m.tasks = m.tasks[:0]
	for pi, pr := range m.progs {
		// The terms are the n vertex terms, then the pair terms.
		for ti := 0; ti < pr.n && len(m.ancV) > 0; ti++ {
			t := &pr.terms[ti]
			vl := t.levels[0].vl
			for i, v := range m.ancV {
				cur, oth := m.ancVcur[i], m.ancVoth[i]
				if vl.Matches(cur.Label) && !(oth.Alive && vl.Matches(oth.Label)) {
					m.tasks = append(m.tasks, task{pat: int32(pi), term: int32(ti), x: v})
				}
			}
		}
		for ti := pr.n; ti < len(pr.terms) && len(m.ancP) > 0; ti++ {
			t := &pr.terms[ti]
			it := &pr.pairs[t.pair]
			la, lb := t.levels[0].vl, t.levels[1].vl
			for i, e := range m.ancP {
				l0, l1 := m.ancL[i][0], m.ancL[i][1]
				ab, ba := la.Matches(l0) && lb.Matches(l1), la.Matches(l1) && lb.Matches(l0)
				if !ab && !ba || !it.valid(m.ancPcur[i]) || it.valid(m.ancPoth[i]) {
					continue
				}
				if ab {
					m.tasks = append(m.tasks, task{pat: int32(pi), term: int32(ti), x: e[0], y: e[1]})
				}
				if ba {
					m.tasks = append(m.tasks, task{pat: int32(pi), term: int32(ti), x: e[1], y: e[0]})
				}
			}
		}
	}
	for i := range m.counts {
		m.counts[i] = 0
	}
	if len(m.tasks) == 0 {
		return nil
	}
	if emit != nil || len(m.workers) == 1 {
		w := m.workers[0]
		w.reset(ctx, sign, emit)
		for i := range m.tasks {
			if err := w.run(&m.tasks[i]); err != nil {
				return err
			}
		}
		return addCounts(m.counts, w.counts)
	}
	m.split()
	m.next.Store(0)
	for _, w := range m.workers {
		w.reset(ctx, sign, nil)
		w.partErr = nil
	}
	main := m.workers[0]
	main.wakeAt = main.nodes + wakeNodes
	main.parts()
	main.wakeAt = 0
	m.joined.Wait()
	for _, w := range m.workers {
		if w.partErr != nil {
			return w.partErr
		}
		if err := addCounts(m.counts, w.counts); err != nil {
			return err
		}
	}
	return nil
}

// parts runs the phase's searches (parts) the shared counter hands out until none is left or
// one fails.
func (w *worker) parts() {
	m := w.m
	for {
		i := int(m.next.Add(1) - 1)
		if i >= len(m.tasks) {
			return
		}
		if err := w.run(&m.tasks[i]); err != nil {
			w.partErr = err
			m.next.Store(int64(len(m.tasks)))
			return
		}
	}
}

// wake starts the other workers on the phase's remaining parts (called once per phase by the
// first worker, from inside a search).
func (m *cpuMatcher) wake() {
	if int(m.next.Load()) >= len(m.tasks) {
		return
	}
	for _, w := range m.workers[1:] {
		m.joined.Add(1)
		go func() {
			defer m.joined.Done()
			w.parts()
		}()
	}
}

func addCounts(dst, src []uint64) error {
	for i, c := range src {
		s, carry := bits.Add64(dst[i], c, 0)
		if carry != 0 {
			return engine.ErrOverflow
		}
		dst[i] = s
	}
	return nil
}

// worker runs anchored searches; each has its own buffers.
type worker struct {
	m       *cpuMatcher
	g       *dynamic.Graph
	ctx     context.Context
	sign    int
	emit    Emit
	counts  []uint64
	f       []uint32 // data vertex per level
	out     []int64  // a match in pattern order, original ids
	pr      *program
	pat     int
	t       *term
	count   uint64
	nodes   uint64 // search nodes, to poll the context from time to time
	wakeAt  uint64 // the node count at which to wake the other workers (0: never)
	partErr error  // a parallel phase's error
	memo    [pattern.MaxVertices]memo
	na      int   // the anchor levels of the current task
	lo, hi  int32 // its part of level na's candidates (hi 0: all)
	err     error
	sums    uint64     // searches counted by sumTail with a nonzero sum (tests)
	lists   [][]uint32 // the parents' runs of the level being extended
	bufs    [][]uint32 // two per level: the intersection of the parents' runs
}

func newWorker(m *cpuMatcher) *worker {
	return &worker{m: m, counts: make([]uint64, len(m.progs)), f: make([]uint32, pattern.MaxVertices),
		out: make([]int64, pattern.MaxVertices), bufs: make([][]uint32, 4*pattern.MaxVertices)}
}

func (w *worker) reset(ctx context.Context, sign int, emit Emit) {
	w.g, w.ctx, w.sign, w.emit, w.err = w.m.g, ctx, sign, emit, nil
	for i := range w.memo {
		w.memo[i].t = nil // the graph may have changed
	}
	for i := range w.counts {
		w.counts[i] = 0
	}
}

func (w *worker) run(tk *task) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	w.pr = w.m.progs[tk.pat]
	w.pat = int(tk.pat)
	w.t = &w.pr.terms[tk.term]
	w.count = 0
	w.f[0], w.f[1] = tk.x, tk.y
	w.na, w.lo, w.hi = 2, tk.lo, tk.hi
	if w.t.vertex >= 0 {
		w.na = 1
	}
	w.anchored(0, w.na)
	if w.err != nil {
		return w.err
	}
	s, carry := bits.Add64(w.counts[tk.pat], w.count, 0)
	if carry != 0 {
		return engine.ErrOverflow
	}
	w.counts[tk.pat] = s
	return nil
}

// anchored checks the anchor levels 0..na-1 (their vertices preset in f) and searches on.
func (w *worker) anchored(k, na int) {
	if k == na {
		w.extend(k)
		return
	}
	if !w.accept(k, w.f[k], -1) {
		return
	}
	if k+1 == w.pr.n && na == k+1 {
		w.leaf()
		return
	}
	w.anchored(k+1, na)
}

// extend enumerates level k (all earlier levels assigned).
func (w *worker) extend(k int) {
	n := w.pr.n
	if k == n {
		w.leaf()
		return
	}
	if w.err != nil {
		return
	}
	if w.nodes++; w.nodes == w.wakeAt {
		w.m.wake()
	}
	if w.nodes&(1<<14-1) == 0 {
		if err := w.ctx.Err(); err != nil {
			w.err = err
			return
		}
	}
	if k == w.t.tail && w.emit == nil && (!w.t.tailTwins || (!w.t.tailV || !w.m.anyV) && (!w.t.tailP || w.m.singlePair || w.tailUntouched(k))) {
		w.countTail(k)
		return
	}
	lv := &w.t.levels[k]
	g := w.g
	last := k == n-1
	if len(lv.parents) == 0 {
		var list []uint32
		if lv.vl.Any {
			list = g.Vertices()
		} else {
			list = g.VerticesWithLabel(lv.vl.Value)
		}
		if k == w.na {
			list = w.part(list)
		}
		for _, c := range list {
			if w.accept(k, c, -1) {
				w.f[k] = c
				if last {
					w.leaf()
				} else {
					w.extend(k + 1)
				}
			}
		}
		return
	}
	if lv.exact {
		w.extendExact(k, lv, last)
		return
	}
	// Draw candidates from the parent with the fewest matching neighbours.
	src := 0
	if len(lv.parents) > 1 {
		best := -1
		for i := range lv.parents {
			s := w.candidateCount(w.f[lv.parents[i].pos], lv.vl, lv.parents[i].el)
			if best < 0 || s < best {
				best, src = s, i
			}
		}
	}
	x := w.f[lv.parents[src].pos]
	el := lv.parents[src].el
	runs := g.Runs(x)
	if !lv.vl.Any {
		runs = g.RunsWithVertexLabel(x, lv.vl.Value)
	}
	for ri := range runs {
		if !el.Any && runs[ri].EdgeLabel != el.Value {
			continue
		}
		for _, c := range runs[ri].Neighbors {
			if w.accept(k, c, src) {
				w.f[k] = c
				if last {
					w.leaf()
				} else {
					w.extend(k + 1)
				}
			}
		}
	}
}

// extendExact draws level k's candidates from the intersection of its parents' runs (one run
// each: exact labels) and, on the last level of a plain count, counts them without enumeration.
func (w *worker) extendExact(k int, lv *level, last bool) {
	f := w.f
	cand := w.candidates(k, lv)
	whole := true
	if k == w.na && w.hi != 0 {
		cand, whole = w.part(cand), false
	}
	if len(cand) == 0 {
		return
	}
	skip := -2 // the parents' edges hold
	if len(lv.nonAdj) > 0 {
		if cand = w.nonNeighbours(k, lv, cand); len(cand) == 0 {
			return
		}
		skip = -3 // and the non-edges
	}
	if last && lv.countable && w.emit == nil {
		c := w.free(lv, cand, whole)
		if w.needScan(lv) {
			c -= w.failing(lv, cand)
		}
		w.count += c
		return
	}
	if k+1 == w.t.tail && w.t.sumLevel >= 0 && w.emit == nil && w.summable(&w.t.levels[w.t.sumLevel]) {
		w.sumTail(k, cand, skip)
		return
	}
	for _, c := range cand {
		if w.accept(k, c, skip) {
			f[k] = c
			if last {
				w.leaf()
			} else {
				w.extend(k + 1)
			}
		}
	}
}

// untouched reports whether the earlier data vertices that level lv's candidates pair with in
// its other-graph checks are endpoints of no changed pair: no candidate can then fail those
// checks (a changed pair has both endpoints touched), so its candidates are counted, not checked.
func (w *worker) untouched(lv *level) bool {
	for i := range lv.otherP {
		if w.m.touch[w.f[lv.otherP[i].pos]] {
			return false
		}
	}
	return true
}

// tailUntouched is untouched for every tail level from k (their checks pair with levels before
// the tail: tail levels are not each other's parents, and have no non-edges).
func (w *worker) tailUntouched(k int) bool {
	for i := k; i < w.pr.n; i++ {
		if !w.untouched(&w.t.levels[i]) {
			return false
		}
	}
	return true
}

// nonNeighbours removes from level k's candidates the neighbours (any edge label) of the
// earlier vertices it must not be adjacent to (induced), in the level's other two buffers.
func (w *worker) nonNeighbours(k int, lv *level, cand []uint32) []uint32 {
	g := w.g
	out := 4*k + 2
	for _, j := range lv.nonAdj {
		for _, r := range g.RunsWithVertexLabel(w.f[j], lv.vl.Value) {
			w.bufs[out] = subtract(cand, r.Neighbors, w.bufs[out][:0])
			cand = w.bufs[out]
			out ^= 1 // 4k+2 <-> 4k+3
			if len(cand) == 0 {
				return nil
			}
		}
	}
	return cand
}

// subtract appends to out the elements of the sorted list a that are not in the sorted list b,
// galloping through b when it is much longer.
func subtract(a, b, out []uint32) []uint32 {
	if len(b) > 16*len(a) {
		for _, x := range a {
			if _, ok := slices.BinarySearch(b, x); !ok {
				out = append(out, x)
			}
		}
		return out
	}
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) || b[j] != x {
			out = append(out, x)
		}
	}
	return out
}

// part returns the current task's part of its first free level's candidates.
func (w *worker) part(cand []uint32) []uint32 {
	if w.hi == 0 {
		return cand
	}
	return cand[min(int(w.lo), len(cand)):min(int(w.hi), len(cand))]
}

// countTail counts the matches of the tail levels k.. as the product of their free candidates
// (independent levels whose labels cannot collide), with checked arithmetic.
func (w *worker) countTail(k int) {
	if prod := w.tailProduct(k, -1); prod > 0 {
		w.addCount(prod)
	}
}

// addCount adds c to the task's count (checked).
func (w *worker) addCount(c uint64) {
	s, carry := bits.Add64(w.count, c, 0)
	if carry != 0 {
		w.err = engine.ErrOverflow
		return
	}
	w.count = s
}

// tailProduct returns the product of the free candidates of the tail levels k.. but level
// leave (-1: none); 0 when some level has none, or on overflow (w.err set).
func (w *worker) tailProduct(k, leave int) uint64 {
	prod := uint64(1)
	var c uint64 // the free candidates of the last level not a twin
	r := uint64(0)
	for i := k; i < w.pr.n; i++ {
		if i == leave {
			continue
		}
		lv := &w.t.levels[i]
		if i > k && lv.twin {
			// A twin of the level before: another distinct vertex of the same c candidates.
			if r++; c <= r {
				return 0
			}
			hi, lo := bits.Mul64(prod, c-r)
			if hi != 0 {
				w.err = engine.ErrOverflow
				return 0
			}
			prod = lo
			continue
		}
		r = 0
		var ok bool
		c, ok = w.memoGet(i, lv)
		if !ok {
			if cand := w.candidates(i, lv); len(cand) > 0 {
				c = w.free(lv, cand, true)
			}
			w.memoPut(i, lv, c)
		}
		if c > 0 && w.needScan(lv) { // (never in a tail with twins: see extend)
			c -= w.failing(lv, w.candidates(i, lv))
		}
		if c == 0 {
			return 0
		}
		hi, lo := bits.Mul64(prod, c)
		if hi != 0 {
			w.err = engine.ErrOverflow
			return 0
		}
		prod = lo
	}
	return prod
}

// summable reports whether the term's sumLevel lv can be counted from its parent's run alone
// in this phase: none of its candidates can fail an other-graph check.
func (w *worker) summable(lv *level) bool {
	m := w.m
	return !(lv.otherV && m.anyV) && (len(lv.otherP) == 0 || m.singlePair)
}

// sumTail counts the matches of level k (the last before the tail, its candidates cand, checked
// by accept with skip) and the tail: the product of the tail levels but the term's sumLevel
// (which do not depend on level k), times the sum over the accepted candidates of the
// sumLevel's free candidates, its parent's run's length less the earlier vertices surely in it.
func (w *worker) sumTail(k int, cand []uint32, skip int) {
	tail := w.t.tail
	lv := &w.t.levels[w.t.sumLevel]
	vl, el, sure := lv.vl.Value, lv.parents[0].el.Value, lv.injSure
	// The search nodes the candidates stand for (extend counts one per accepted candidate).
	n := uint64(len(cand))
	if w.nodes < w.wakeAt && w.nodes+n >= w.wakeAt {
		w.m.wake()
	}
	if (w.nodes+n)>>14 != w.nodes>>14 {
		if err := w.ctx.Err(); err != nil {
			w.err = err
			return
		}
	}
	w.nodes += n
	g := w.g
	var sum uint64
	for _, c := range cand {
		if !w.accept(k, c, skip) {
			continue
		}
		if d := uint64(g.DegreeWith(c, vl, el)); d > sure {
			sum += d - sure // (no overflow: at most the number of half-edges)
		}
	}
	if sum == 0 {
		return
	}
	w.sums++
	prod := w.tailProduct(tail, w.t.sumLevel)
	if prod == 0 {
		return
	}
	hi, lo := bits.Mul64(prod, sum)
	if hi != 0 {
		w.err = engine.ErrOverflow
		return
	}
	w.addCount(lo)
}

// memo remembers a tail level's last free count and the data vertices it depended on: while
// an outer level varies, the tail levels that do not depend on it keep their count.
type memo struct {
	t    *term
	keys [memoDeps]uint32
	val  uint64
}

func (w *worker) memoGet(i int, lv *level) (uint64, bool) {
	mm := &w.memo[i]
	if lv.deps == nil || mm.t != w.t {
		return 0, false
	}
	for d, j := range lv.deps {
		if mm.keys[d] != w.f[j] {
			return 0, false
		}
	}
	return mm.val, true
}

func (w *worker) memoPut(i int, lv *level, val uint64) {
	if lv.deps == nil {
		return
	}
	mm := &w.memo[i]
	mm.t, mm.val = w.t, val
	for d, j := range lv.deps {
		mm.keys[d] = w.f[j]
	}
}

// candidates returns the intersection of the runs of level k's parents (exact labels), in the
// level's own buffers when there are several parents.
func (w *worker) candidates(k int, lv *level) []uint32 {
	g := w.g
	f := w.f
	w.lists = w.lists[:0]
	for i := range lv.parents {
		l := g.NeighborsWith(f[lv.parents[i].pos], lv.vl.Value, lv.parents[i].el.Value)
		if len(l) == 0 {
			return nil
		}
		w.lists = append(w.lists, l)
	}
	if len(w.lists) == 1 {
		return w.lists[0]
	}
	// Smallest first, through the level's two buffers (kept for the next call).
	buf, tmp := w.bufs[4*k], w.bufs[4*k+1]
	out := setops.IntersectAll(w.lists, &buf, &tmp)
	w.bufs[4*k], w.bufs[4*k+1] = buf, tmp
	return out
}

// free counts the candidates of a plain level that no earlier level uses; cand is all of them
// (whole), or the current task's part.
func (w *worker) free(lv *level, cand []uint32, whole bool) uint64 {
	g := w.g
	n := uint64(len(cand))
	inj := lv.inj
	if whole {
		n -= lv.injSure
		inj = lv.injCheck
	}
	for _, j := range inj {
		x := w.f[j]
		if g.Label(x) != lv.vl.Value {
			continue
		}
		if _, ok := slices.BinarySearch(cand, x); ok {
			n--
		}
	}
	return n
}

func (w *worker) candidateCount(x uint32, vl, el pattern.Label) int {
	g := w.g
	if !vl.Any && !el.Any {
		return len(g.NeighborsWith(x, vl.Value, el.Value))
	}
	runs := g.Runs(x)
	if !vl.Any {
		runs = g.RunsWithVertexLabel(x, vl.Value)
	}
	s := 0
	for i := range runs {
		if el.Any || runs[i].EdgeLabel == el.Value {
			s += len(runs[i].Neighbors)
		}
	}
	return s
}

// accept checks every constraint of level k on candidate c against the earlier levels, except
// the edge to parent skip (the source of the candidates; -1: none, -2: every parent).
func (w *worker) accept(k int, c uint32, skip int) bool {
	lv := &w.t.levels[k]
	g := w.g
	f := w.f
	for _, j := range lv.inj {
		if f[j] == c {
			return false
		}
	}
	if !lv.vl.Matches(g.Label(c)) {
		return false
	}
	for _, j := range lv.above {
		if f[j] >= c {
			return false
		}
	}
	for _, j := range lv.below {
		if f[j] <= c {
			return false
		}
	}
	for i := range lv.parents {
		if skip <= -2 {
			break
		}
		if i == skip {
			continue
		}
		p := &lv.parents[i]
		if p.el.Any {
			if _, ok := g.EdgeLabel(c, f[p.pos]); !ok {
				return false
			}
		} else if !g.HasEdgeLabelled(c, f[p.pos], p.el.Value) {
			return false
		}
	}
	for _, j := range lv.nonAdj {
		if skip == -3 {
			break
		}
		if _, ok := g.EdgeLabel(c, f[j]); ok {
			return false
		}
	}
	return w.otherOK(lv, c)
}

// otherOK checks level lv's items against the other graph for candidate c: only a changed
// vertex, or a pair of endpoints of changed pairs, can fail them.
func (w *worker) otherOK(lv *level, c uint32) bool {
	m := w.m
	if lv.otherV && m.vFlag[c] {
		if s := m.otherV[c]; !s.Alive || !lv.vl.Matches(s.Label) {
			return false
		}
	}
	if m.touch[c] {
		for i := range lv.otherP {
			oc := &lv.otherP[i]
			d := w.f[oc.pos]
			if !m.touch[d] {
				continue
			}
			if s, ok := m.otherP[pairKey64(c, d)]; ok && !oc.it.valid(s) {
				return false
			}
		}
	}
	return true
}

// needScan reports whether some candidate of level lv may fail its other-graph checks, so that
// a count of its free candidates must subtract the failing ones (failing).
func (w *worker) needScan(lv *level) bool {
	m := w.m
	return (lv.otherV && m.anyV) || (len(lv.otherP) > 0 && !m.singlePair && !w.untouched(lv))
}

// failing counts the candidates of level lv that no earlier level uses (those free counts)
// and that fail their other-graph checks: a scan of flags, the checks only for touched ones.
func (w *worker) failing(lv *level, cand []uint32) uint64 {
	m := w.m
	var n uint64
	for _, c := range cand {
		if !m.touch[c] && !m.vFlag[c] {
			continue
		}
		used := false
		for _, j := range lv.inj {
			used = used || w.f[j] == c
		}
		if !used && !w.otherOK(lv, c) {
			n++
		}
	}
	return n
}

func (w *worker) leaf() {
	w.count++
	if w.emit == nil || w.err != nil {
		return
	}
	for k := range w.pr.n {
		w.out[w.t.levels[k].w] = w.g.OriginalID(w.f[k])
	}
	if !w.emit(SignedMatch{Pattern: w.pat, Sign: w.sign, Vertices: w.out[:w.pr.n]}) {
		w.err = ErrStopped
	}
}
