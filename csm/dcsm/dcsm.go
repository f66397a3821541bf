// Package dcsm owns the DCSM engine of continuous matching (csm.Engine "dcsm"): the design of
// DCSM (chapter 4 of the STMatch/GCSM/MATCHA/DCSM thesis) over the CPU engine's delta program.
// Updates are matched one by one, each against the graph exactly as the updates before it left
// it (the per-update deltas of the CPU engine with batches of one, in every convention), many of
// them at once on the GPU: a multi-version graph in GPU memory (store.go) keeps, per vertex, its
// sorted neighbours with the interval of update timestamps in which each edge version exists;
// per wave of updates (every update that has arrived, up to a bound on its updates and one on
// its search records, from the GPU memory bound) an updater kernel rewrites
// the touched vertices (one warp a vertex, merging the new versions in and dropping the versions
// no later update can read: the collector), and an executor kernel runs every anchored search of
// every update of the wave at the update's own timestamp (one warp a search, idle warps taking
// the next). Results are streamed back per wave, in arrival order; the wave bound is the
// back-pressure (the next wave waits for the last). The matcher implements csm.Streamer; without
// a usable GPU, Open fails with an error wrapping gpu.ErrNoGPU. ApplyEachMatches also lists
// every update's signed matches (listing launches through a bounded buffer after each wave).
package dcsm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/bits"
	"slices"
	"time"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/csm/internal/gpucsm"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

func init() { csm.Register(dcsmEngine{}) }

type dcsmEngine struct{}

func (dcsmEngine) Name() string { return "dcsm" }

// Lists: the engine lists signed matches (--emit matches), on the GPU as in the emulation.
func (dcsmEngine) Lists() bool { return true }

// Suits (csm.AutoCandidate): runs that report every update on its own, without a window.
// Measured (docs/benchmarks.md, DCSM on the H200): 19-63x the CPU engine on one thread on R-MAT
// streams, slower than it on email10's small graph (the caller's size bar). A window is exact
// with the engine (watch applies its expiries between runs of the stream), but every expiry
// closes a wave (email10 with a window of 400 updates: 589 waves instead of one), which undoes
// what the waves amortise; no windowed run was measured on a GPU (docs/dcsm.md).
func (dcsmEngine) Suits(r csm.RunShape) bool { return r.Batch == 1 && !r.ByTime && !r.Window }

// CheckPatterns: the patterns lower to the kernels' table (csm.PatternChecker).
func (dcsmEngine) CheckPatterns(patterns []*pattern.Pattern, sem engine.Semantics) error {
	_, err := lowerAll(patterns, sem)
	return err
}

// lowerAll lowers a non-empty pattern set.
func lowerAll(patterns []*pattern.Pattern, sem engine.Semantics) (*table, error) {
	if len(patterns) == 0 {
		return nil, fmt.Errorf("dcsm: no patterns")
	}
	return lower(patterns, sem)
}

func (dcsmEngine) Open(g *dynamic.Graph, patterns []*pattern.Pattern, opts csm.Options) (csm.Matcher, error) {
	m, err := open(g, patterns, opts, func(t *table) (backend, error) { return openDevice(t, opts.GPUMemory) })
	if err != nil {
		return nil, err
	}
	return m, nil
}

// ErrListing is returned when asked to list signed matches by a backend that does not list
// (the host-side measuring backend of the benchmarks; the GPU and the emulation list).
var ErrListing = errors.New("dcsm: this backend does not list signed matches (counts only)")

// ErrBatch is returned by Apply for a batch it cannot give the net change of: DCSM applies
// updates one at a time (ApplyEach).
var ErrBatch = errors.New("dcsm: Apply takes one update (not a vertex deletion with edges); use ApplyEach for a stream")

// DefaultListCap is the matches the listing buffer holds.
const DefaultListCap = 1 << 16

// DefaultWave is the most updates of one wave.
const DefaultWave = 1 << 14

// DefaultWaveBytes bounds the search records of one wave (uploaded with it; a hub's search is
// split into parts, so a wave of updates at a hub has many): a wave closes once its records
// reach the bound, whatever its number of updates. With Options.GPUMemory the bound is a
// sixteenth of it (two waves in flight, each buffer rounded up to a power of two, beside the
// graph), at most this and at least 64 KiB; a single update's records are never split.
const DefaultWaveBytes = 64 << 20

// waveBudget is the bound on a wave's search records for a GPU memory bound (0: none).
func waveBudget(gpuMemory uint64) uint64 {
	if gpuMemory == 0 {
		return DefaultWaveBytes
	}
	return max(min(gpuMemory/16, DefaultWaveBytes), 64<<10)
}

// Stats describes the matcher's work so far.
type Stats struct {
	Waves, Updates, Tasks int
	// With listing on: the matches listed, the listing launches over groups of searches, and
	// those over windows of one search's matches.
	Listed               uint64
	ListGroups, ListWins int
	// PeakWaveBytes is the largest search records of one wave (bytes).
	PeakWaveBytes uint64
	// PoolEntries is the pool's used prefix, LiveEntries the entries in blocks, both now;
	// PeakPool the largest PoolEntries seen; Bytes the GPU memory held.
	PoolEntries, LiveEntries, PeakPool, Bytes uint64
	// Time spent in the waves (planning, upload, both kernels, download), and on the host
	// before them (validating the updates, changing the host graph, making the searches; with
	// validation on its own goroutine, the bookkeeping's time, waiting for validation included);
	// Plan is the planning's part of Time (the host's: blocks and the updater's records).
	Time, Host, Plan time.Duration
	// GPU is the device time of the waves' kernels (CUDA events; 0 on the emulation), Wall
	// the time spent in ApplyEach: GPU/Wall is the GPU's utilisation over the stream.
	GPU, Wall time.Duration
	// Submit is the part of Time spent in the backend's start (packing and uploading the waves,
	// launching their kernels), Collect the part in its finish (waiting for the kernels and
	// copying the counts back); Calls counts ApplyEach calls. At a low rate a call is a wave and
	// the wave's round trip is Plan + Submit + Collect (watch -v logs them).
	Submit, Collect time.Duration
	Calls           int
	// GraphApply is the time the host graph took the validated edge changes (edges.go: on
	// goroutines of their own during and after a long call), GraphWait the time callers waited
	// for it (Graph, a vertex operation, the next call); both up to the last apply waited for.
	GraphApply, GraphWait time.Duration
}

// Matcher is an open DCSM pattern set.
type Matcher struct {
	g    *dynamic.Graph
	pats []*pattern.Pattern
	opts csm.Options
	tab  *table
	net  *csm.Net
	be   backend
	s    store
	// Two waves: one gathered on the host while the other (busy) runs on the GPU.
	waves [2]wave
	cur   int
	busy  *wave
	ts    uint32 // the timestamp of the last update applied
	pool  uint64 // the backend's pool capacity (entries)
	// MaxWave bounds a wave's updates (DefaultWave), waveBytes its search records
	// (waveBudget); tests make them small. minWave is the fewest updates of a wave launched
	// before it is full (DefaultMinWave; early).
	maxWave   int
	minWave   int
	idleStep  int
	waveBytes uint64
	stats     Stats
	res       csm.Result // the reports'
	broken    error      // the error after which the matcher refuses work
	t0        time.Time  // the start of the host's current run of updates (Stats.Host)
	// The validating part (validate): its own Result, the last timestamp it gave (ts is the last
	// the waves booked), a vertex deletion's edges, and the chunks it hands to the bookkeeping.
	vres    csm.Result
	vts     uint32
	ed      edges // the edges' states, degrees, and the changes the host graph has not had (edges.go)
	expand  []updates.Update
	one     [1]updates.Update
	inline  chunk
	chunks  [pipeChunks]chunk
	pipeMin int // the shortest stream validated on a goroutine of its own (DefaultPipeMin)
	pipeLen int // a chunk's updates (pipeChunkLen)
	// With emit non-nil (ApplyEachMatches), every wave is finished, its matches listed, before
	// the next starts; listCap is the listing buffer's matches (DefaultListCap; tests make it
	// small), lbuf the buffer on the host.
	emit    csm.Emit
	listCtx context.Context
	listCap uint64
	lbuf    []uint32
	out     []int64
}

func open(g *dynamic.Graph, patterns []*pattern.Pattern, opts csm.Options, mk func(*table) (backend, error)) (*Matcher, error) {
	t, err := lowerAll(patterns, opts.Semantics)
	if err != nil {
		return nil, err
	}
	be, err := mk(t)
	if err != nil {
		return nil, err
	}
	m := &Matcher{g: g, pats: patterns, opts: opts, tab: t, net: csm.NewNet(g), be: be, maxWave: DefaultWave, minWave: DefaultMinWave, idleStep: idleEvery,
		waveBytes: waveBudget(opts.GPUMemory), listCap: DefaultListCap, out: make([]int64, MaxPatternVertices),
		pipeMin: DefaultPipeMin, pipeLen: pipeChunkLen}
	m.ed.loadAsync(g)
	in, err := m.s.load(g, t.relevant)
	if err != nil {
		m.ed.ready()
		be.close()
		return nil, err
	}
	m.pool = max(2*m.s.top, 1<<16)
	if err := be.load(in, &m.s, m.pool); err != nil {
		m.ed.ready()
		be.close()
		return nil, err
	}
	m.ed.ready() // the matcher is open with its edge table (its cost is the opening's)
	// Both waves' vertex index, as the store's: the opening's cost too.
	for i := range m.waves {
		m.waves[i].grow(len(m.s.off))
	}
	return m, nil
}

// Graph returns the current graph (read it only between calls). The host graph takes a call's
// edge changes on goroutines of their own, during and after the call (edges.go): Graph waits
// for them.
func (m *Matcher) Graph() *dynamic.Graph {
	_ = m.syncGraph() // an error breaks the matcher: its calls return it
	return m.g
}

// Patterns returns the standing patterns.
func (m *Matcher) Patterns() []*pattern.Pattern { return m.pats }

// Stats returns the figures of the work so far.
func (m *Matcher) Stats() Stats {
	st := m.stats
	st.PoolEntries, st.LiveEntries, st.Bytes = m.s.top, m.s.live, m.be.bytes()
	st.GPU = m.be.gpuTime()
	st.GraphApply, st.GraphWait = m.ed.took, m.ed.waited
	return st
}

// Utilisation returns the device time of the waves' kernels and the time spent applying the
// stream (watch prints the GPU's utilisation from them); busy is 0 without a device.
func (m *Matcher) Utilisation() (busy, wall time.Duration) {
	return m.be.gpuTime(), m.stats.Wall
}

// LogStats logs the figures of the work so far (watch -v), after waiting for the host graph's
// update (Graph), so that its time is in them.
func (m *Matcher) LogStats(l *slog.Logger) {
	m.Graph()
	st := m.Stats()
	l.Info("dcsm", "updates", st.Updates, "waves", st.Waves, "searches", st.Tasks, "peak_wave_search_bytes", st.PeakWaveBytes, "pool_entries", st.PoolEntries,
		"peak_pool_entries", st.PeakPool, "entries_in_blocks", st.LiveEntries, "gpu_bytes", st.Bytes, "listed", st.Listed, "list_groups", st.ListGroups, "list_windows", st.ListWins, "wave_time", st.Time.Round(time.Microsecond), "plan_time", st.Plan.Round(time.Microsecond),
		"submit_time", st.Submit.Round(time.Microsecond), "collect_time", st.Collect.Round(time.Microsecond), "calls", st.Calls, "host_time", st.Host.Round(time.Microsecond),
		"gpu_time", st.GPU.Round(time.Microsecond), "stream_time", st.Wall.Round(time.Microsecond),
		"host_graph_apply", st.GraphApply.Round(time.Microsecond), "host_graph_wait", st.GraphWait.Round(time.Microsecond))
}

// Close frees the GPU memory.
func (m *Matcher) Close() {
	_ = m.ed.wait() // no goroutine changes the graph after Close
	m.be.close()
}

// Apply applies a batch of one update and reports its delta (csm.Matcher). A vertex deletion of
// a vertex with edges, or a longer batch, fails with ErrBatch: its net change is not the sum of
// per-update deltas.
func (m *Matcher) Apply(ctx context.Context, batch []updates.Update, emit csm.Emit, res *csm.Result) error {
	if len(batch) != 1 {
		return ErrBatch
	}
	if u := batch[0]; u.Kind == updates.DeleteVertex {
		g := m.Graph() // up to date: its degrees are read
		if m.broken != nil {
			return m.broken
		}
		if v, ok := g.Lookup(u.U); ok && g.Degree(v) > 0 {
			return ErrBatch
		}
	}
	rep := func(_ updates.Update, r *csm.Result) error {
		res.Deltas = append(res.Deltas[:0], r.Deltas...)
		res.Applied, res.Skipped = r.Applied, r.Skipped
		res.Invalid = append(res.Invalid[:0], r.Invalid...)
		return nil
	}
	if emit != nil {
		return m.ApplyEachMatches(ctx, batch, emit, rep)
	}
	return m.ApplyEach(ctx, batch, rep)
}

// ApplyEachMatches is ApplyEach that also lists every update's created and destroyed matches:
// emit gets an update's signed matches (in no particular order) before report gets the update.
// Each wave is finished before the next starts (the next wave's updater drops versions this
// wave's searches read). emit returning false stops the stream with csm.ErrStopped. A backend
// that does not list fails with ErrListing.
func (m *Matcher) ApplyEachMatches(ctx context.Context, stream []updates.Update, emit csm.Emit, report func(u updates.Update, res *csm.Result) error) error {
	if m.broken != nil {
		return m.broken
	}
	if !m.be.lists() {
		return ErrListing
	}
	m.emit, m.listCtx = emit, ctx
	defer func() { m.emit, m.listCtx = nil, nil }()
	return m.ApplyEach(ctx, stream, report)
}

// ApplyEach applies the stream update by update (csm.Streamer). An invalid update (without
// Options.SkipInvalid) changes nothing: the updates before it are reported and the matcher can go
// on. Any other error (cancellation, the GPU, report's) leaves the graph changed by updates whose
// results were not all reported; the matcher then refuses further work with that error.
//
// The host's work per update is in two parts (pipe.go): validating it (validate: against the
// engine's own edge table; the host graph takes the changes on a goroutine of its own, edges.go),
// then adding its edge versions and searches to the wave (book), which also closes,
// launches and reports the waves. On a long stream with more than one thread (Options.Threads;
// 0: GOMAXPROCS) the first part runs on a goroutine of its own, a chunk of updates ahead of the
// second (report is called on the caller's goroutine, in order, as ever).
func (m *Matcher) ApplyEach(ctx context.Context, stream []updates.Update, report func(u updates.Update, res *csm.Result) error) error {
	if m.broken != nil {
		return m.broken
	}
	// The host's time is taken per run of updates between waves, not per update (a clock read
	// costs about as much as a small update's bookkeeping).
	m.t0 = time.Now()
	m.stats.Calls++
	defer func(start time.Time) { m.stats.Wall += time.Since(start) }(m.t0)
	var err error
	if m.piped(len(stream)) {
		err = m.applyPiped(ctx, stream, report)
	} else {
		err = m.applyInline(ctx, stream, report)
	}
	m.stats.Host += time.Since(m.t0)
	if err != nil {
		var ie *csm.InvalidError
		if !errors.As(err, &ie) {
			// Report's, the backend's or an internal error stops the stream: nothing more is
			// reported.
			m.broken = err
			m.settle()
			return err
		}
		if ferr := m.drain(ctx, report); ferr != nil {
			return ferr
		}
		return err
	}
	return m.drain(ctx, report)
}

// piped reports whether a call with n updates validates them on a goroutine of its own: n at
// least pipeMin, no listing, and more than one thread (Options.Threads; 0: GOMAXPROCS).
func (m *Matcher) piped(n int) bool {
	return m.emit == nil && n >= m.pipeMin && m.threads() > 1
}

// applyInline validates and books the stream's updates one by one on the caller's goroutine,
// then has the host graph take the call's log (edges.go).
func (m *Matcher) applyInline(ctx context.Context, stream []updates.Update, report func(u updates.Update, res *csm.Result) error) error {
	err := m.runInline(ctx, stream, report)
	if serr := m.ed.start(m.g, m.threads()); serr != nil {
		err = serr // internal: it breaks the matcher, an invalid update's error or not
	}
	return err
}

// runInline validates and books the stream's updates one by one.
func (m *Matcher) runInline(ctx context.Context, stream []updates.Update, report func(u updates.Update, res *csm.Result) error) error {
	c := &m.inline
	for i := range stream {
		c.reset()
		err := m.validate(&stream[i], len(stream)-i, c)
		if berr := m.bookChunk(ctx, c, report); berr != nil {
			return berr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// bookChunk adds a chunk's updates to the waves, launching each wave when it is full.
func (m *Matcher) bookChunk(ctx context.Context, c *chunk, report func(u updates.Update, res *csm.Result) error) error {
	for i := range c.recs {
		m.book(c, &c.recs[i])
		if w := &m.waves[m.cur]; len(w.ups) >= m.maxWave || 4*uint64(len(w.tasks)) >= m.waveBytes || m.early(w) {
			m.stats.Host += time.Since(m.t0)
			err := m.launch(ctx, report)
			m.t0 = time.Now()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// early reports whether the wave being gathered, not full, is launched now: it has at least
// minWave updates, a multiple of idleStep (idleEvery: the backend is asked that often), and the
// call's wave before it (busy) has finished on the backend or had nothing to run there. The GPU then works on it while the
// host validates and books the next, and the host reports the finished wave's updates meanwhile,
// not all at the end of a long call. With listing on, waves fill up as before (each is finished
// before the next starts). A call's first wave is never early: splitting it leaves the GPU idle
// no less (nothing runs before it) and adds a second wave's slowest search to the call (email10's
// q6_1 on the H200: two waves of 4,096 and 5,055 updates kept the kernels busy 42.9 ms, one wave
// of 9,151 about 21 ms).
func (m *Matcher) early(w *wave) bool {
	n := len(w.ups)
	if n < m.minWave || n%m.idleStep != 0 || m.emit != nil {
		return false
	}
	b := m.busy
	return b != nil && (!b.started || m.be.idle(b))
}

// DefaultMinWave is the fewest updates of a wave launched before it is full, when the backend is
// idle (Matcher.early).
const DefaultMinWave = 4096

// idleEvery is how often (in a wave's updates) a wave past minWave asks whether the backend is
// idle.
const idleEvery = 256

// drain launches the wave being gathered and reports it and the one before it. After an error
// it reports nothing more (settle).
func (m *Matcher) drain(ctx context.Context, report func(u updates.Update, res *csm.Result) error) error {
	if err := m.launch(ctx, report); err != nil {
		m.settle()
		return err
	}
	if b := m.busy; b != nil {
		m.busy = nil
		if err := m.finish(b, report); err != nil {
			m.broken = err
			return err
		}
	}
	return nil
}

// settle waits for the wave running on the backend and drops it and the wave being gathered
// without reporting them: the matcher is broken (a failed wave or report's error).
func (m *Matcher) settle() {
	if b := m.busy; b != nil {
		m.busy = nil
		if b.started {
			_ = m.be.finish(b) // its results are dropped; the error that broke the matcher is returned
		}
		b.reset()
	}
	m.waves[m.cur].reset()
}

// validate validates one update of the stream (ahead: the updates of the call from it on) against
// the graph as the updates before it left it, and applies it (to the engine's edge table, and to
// the host graph directly or through the log, edges.go; a vertex deletion after its edges'
// deletions, each an update of its own), appending to c what the wave's bookkeeping needs of
// each: its edge changes with the endpoints' dense ids, labels and degrees, leaving out the edges
// no search reads (the label filter). An invalid update (without SkipInvalid) changes nothing and is not appended: its
// *csm.InvalidError is returned, as is any other error.
func (m *Matcher) validate(u *updates.Update, ahead int, c *chunk) error {
	if u.Kind == updates.DeleteVertex {
		if err := m.syncGraph(); err != nil {
			return err
		}
		// Its edges' deletions first, each an update of its own (a hub's may span waves).
		m.expand = csm.IncidentDeletions(m.g, *u, m.expand[:0])
		for i := range m.expand {
			if err := m.validateOne(&m.expand[i], ahead, c); err != nil {
				return err
			}
		}
	}
	return m.validateOne(u, ahead, c)
}

func (m *Matcher) validateOne(u *updates.Update, ahead int, c *chunk) error {
	if m.vts == inf-1 {
		return fmt.Errorf("dcsm: more than %d updates in one run", inf-1)
	}
	if done, err := m.validateEdge(u, ahead, c); done {
		return err
	}
	// Anything else reads the host graph's lists (csm.Net): it is brought up to date first.
	if err := m.syncGraph(); err != nil {
		return err
	}
	r := &m.vres
	m.one[0] = *u
	// Validated and applied at once: the host searches nothing on the graph before the change.
	if err := m.net.ComputeApply(m.one[:], m.opts.SkipInvalid, r); err != nil {
		return err
	}
	m.noteNet()
	rec := change{u: *u, ahead: ahead, p0: len(c.pairs), v0: len(c.verts)}
	if r.Skipped > 0 {
		rec.err = r.Invalid[0].Err
		rec.p1, rec.v1 = rec.p0, rec.v0
		c.recs = append(c.recs, rec)
		return nil
	}
	m.vts++
	rec.t, rec.idBound = m.vts, m.g.IDBound()
	// What the update changed, by original ids; for one edge update between existing vertices,
	// the dense ids the Net found.
	verts := m.net.Vertices
	sx, sy, single := m.net.SingleEdge()
	c.verts = append(c.verts, verts...)
	for i := range m.net.Pairs {
		pc := &m.net.Pairs[i]
		x, y := sx, sy
		if !single {
			x, _ = m.g.Lookup(pc.U)
			y, _ = m.g.Lookup(pc.V)
		}
		lx, ly := m.g.Label(x), m.g.Label(y)
		if !m.tab.relevant(lx, ly) {
			// No search reads the edge, nor is anchored at it (the label filter): the
			// multi-version graph leaves it out.
			continue
		}
		// Both endpoints existed before the update (else it destroyed nothing).
		oldAlive := true
		for _, vc := range verts {
			if !vc.Old.Alive && (vc.ID == pc.U || vc.ID == pc.V) {
				oldAlive = false
			}
		}
		c.pairs = append(c.pairs, pairRec{x: x, y: y, lx: lx, ly: ly, dx: uint32(m.g.Degree(x)), dy: uint32(m.g.Degree(y)),
			old: pc.Old, new: pc.New, oldAlive: oldAlive})
	}
	rec.p1, rec.v1 = len(c.pairs), len(c.verts)
	c.recs = append(c.recs, rec)
	return nil
}

// book adds a validated update to the wave being gathered: its edge versions and its anchored
// searches (and one-vertex patterns' matches, counted here).
func (m *Matcher) book(c *chunk, rec *change) {
	w := &m.waves[m.cur]
	k := len(w.ups)
	npat := len(m.tab.pats)
	n := 2 * npat * (k + 1)
	if k == 0 { // a new wave: room for what the call has left, up to the bound (or minWave: early)
		h := max(min(m.maxWave, m.minWave, rec.ahead), 1)
		w.ups = slices.Grow(w.ups, h)
		w.clean = 0
		n = 2 * npat * h
	}
	if n > w.clean { // the counters zeroed ahead, for the hint or twice as many as before
		c := max(n, 2*w.clean)
		w.counts, w.host = zeroed(w.counts, w.clean, c), zeroed(w.host, w.clean, c)
		w.clean = c
	}
	w.ups = append(w.ups, waveUpdate{u: rec.u, err: rec.err})
	n = 2 * npat * (k + 1)
	w.counts, w.host = w.counts[:n], w.host[:n]
	if rec.err != nil {
		return
	}
	t := rec.t
	m.ts = t
	if w.first == 0 {
		w.first = t
	}
	if n := rec.idBound; n > len(w.idx) {
		m.s.grow(n)
		w.grow(n)
	}
	slot := 2 * npat * k
	for _, vc := range c.verts[rec.v0:rec.v1] {
		for p, pp := range m.tab.pats {
			if pp.n != 1 {
				continue
			}
			if vc.New.Alive && !vc.Old.Alive && pp.label.Matches(vc.New.Label) {
				w.host[slot+2*p]++
				if m.emit != nil {
					w.hostm = append(w.hostm, hostMatch{k, p, 1, vc.ID})
				}
			}
			if vc.Old.Alive && !vc.New.Alive && pp.label.Matches(vc.Old.Label) {
				w.host[slot+2*p+1]++
				if m.emit != nil {
					w.hostm = append(w.hostm, hostMatch{k, p, -1, vc.ID})
				}
			}
		}
	}
	for i := rec.p0; i < rec.p1; i++ {
		pc := &c.pairs[i]
		x, y, lx, ly := pc.x, pc.y, pc.lx, pc.ly
		kx, ky := uint64(lx)<<32|uint64(x), uint64(ly)<<32|uint64(y)
		if pc.old.Present {
			w.addDel(x, ky, t)
			w.addDel(y, kx, t)
		}
		if pc.new.Present {
			w.addIns(x, ky, pc.new.Label, t)
			w.addIns(y, kx, pc.new.Label, t)
		}
		if m.tab.refs == nil { // more than 64 pair terms: each tried
			for p := range m.tab.pats {
				pp := &m.tab.pats[p]
				for j := range pp.pairs {
					m.anchorPair(w, pc, p, &pp.pairs[j], pp.pairs[j].orient(lx, ly), k, t)
				}
			}
			continue
		}
		// The pair terms whose anchors' labels match the edge, in table order.
		ms := m.tab.terms(lx, ly)
		for b := ms[0] | ms[1]; b != 0; b &= b - 1 {
			j := bits.TrailingZeros64(b)
			r := &m.tab.refs[j]
			m.anchorPair(w, pc, r.p, r.pt, uint8(ms[0]>>j&1|(ms[1]>>j&1)<<1), k, t)
		}
	}
}

// anchorPair adds the searches of pattern p's pair term pt anchored at the changed pair pc of the
// wave's update k (timestamp t) in the orientations of orient: of the matches the change creates
// (the term holds after it, not before) or destroys (the reverse; read before it).
func (m *Matcher) anchorPair(w *wave, pc *pairRec, p int, pt *pairTerm, orient uint8, k int, t uint32) {
	if orient == 0 {
		return
	}
	slot := uint32(len(m.tab.pats)*k + p)
	vNew, vOld := pt.item.Valid(pc.new), pt.item.Valid(pc.old)
	switch {
	case vNew && !vOld:
		w.anchor(pt, orient, pc.x, pc.y, pc.dx, pc.dy, t, slot, 0)
	case vOld && !vNew && pc.oldAlive:
		w.anchor(pt, orient, pc.x, pc.y, pc.dx, pc.dy, t-1, slot, 1)
	}
}

// launch plans the wave being gathered and starts it on the backend, then finishes and reports
// the wave before it, which ran meanwhile: the host validates and plans a wave while the GPU
// matches the last one. Updates are reported in order.
func (m *Matcher) launch(ctx context.Context, report func(u updates.Update, res *csm.Result) error) error {
	if err := m.launchWave(ctx, report); err != nil {
		m.broken = err
		return err
	}
	return nil
}

func (m *Matcher) launchWave(ctx context.Context, report func(u updates.Update, res *csm.Result) error) error {
	w := &m.waves[m.cur]
	if len(w.ups) == 0 {
		return nil
	}
	w.started = len(w.touched) > 0 || len(m.s.compact) > 0 || len(w.tasks) > 0
	if m.emit != nil {
		w.tcount = slices.Grow(w.tcount[:0], len(w.tasks)/taskWords)[:len(w.tasks)/taskWords]
	}
	if w.started {
		t0 := time.Now()
		if err := m.plan(w); err != nil {
			w.reset()
			return err
		}
		m.stats.Plan += time.Since(t0)
		t1 := time.Now()
		if err := m.be.start(ctx, w); err != nil {
			w.reset()
			return err
		}
		m.stats.Submit += time.Since(t1)
		m.s.release() // the blocks this wave left: its updater reads them before any later one writes
		m.stats.Waves++
		m.stats.Tasks += len(w.tasks) / taskWords
		m.stats.PeakWaveBytes = max(m.stats.PeakWaveBytes, 4*uint64(len(w.tasks)))
		m.stats.Time += time.Since(t0)
		m.stats.PeakPool = max(m.stats.PeakPool, m.s.top)
	}
	if m.emit != nil { // listing: this wave is finished before the next starts
		m.cur ^= 1
		return m.finish(w, report)
	}
	prev := m.busy
	m.busy = w
	m.cur ^= 1
	if prev != nil {
		return m.finish(prev, report)
	}
	return nil
}

// finish waits for a started wave's results and reports its updates in order.
func (m *Matcher) finish(w *wave, report func(u updates.Update, res *csm.Result) error) error {
	defer w.reset()
	if w.started {
		t0 := time.Now()
		err := m.be.finish(w)
		d := time.Since(t0)
		m.stats.Time += d
		m.stats.Collect += d
		if err != nil {
			return err
		}
	}
	if m.emit != nil {
		return m.listWave(w, report)
	}
	return m.reportWave(w, 0, len(w.ups), report)
}

// reportWave reports the updates [a, b) of a finished wave, in order (with listing on, the host's
// matches of each, one-vertex patterns', just before it).
func (m *Matcher) reportWave(w *wave, a, b int, report func(u updates.Update, res *csm.Result) error) error {
	npat := len(m.tab.pats)
	res := &m.res
	for k := a; k < b; k++ {
		wu := w.ups[k]
		for ; w.hostAt < len(w.hostm) && w.hostm[w.hostAt].k == k; w.hostAt++ {
			h := w.hostm[w.hostAt]
			m.out[0] = h.v
			if !m.emit(csm.SignedMatch{Pattern: h.p, Sign: h.sign, Vertices: m.out[:1]}) {
				return csm.ErrStopped
			}
		}
		res.Deltas = res.Deltas[:0]
		res.Invalid = res.Invalid[:0]
		res.Applied, res.Skipped = 1, 0
		if wu.err != nil {
			res.Applied, res.Skipped = 0, 1
			res.Invalid = append(res.Invalid, csm.Invalid{Update: wu.u, Err: wu.err})
		}
		for p := range npat {
			i := 2 * (npat*k + p)
			c, d := w.counts[i]+w.host[i], w.counts[i+1]+w.host[i+1]
			if c < w.host[i] || d < w.host[i+1] {
				return fmt.Errorf("dcsm: %w", errOverflow)
			}
			res.Deltas = append(res.Deltas, csm.Delta{Created: c, Destroyed: d})
		}
		m.stats.Updates++
		if err := report(wu.u, res); err != nil {
			return err
		}
	}
	return nil
}

// plan gives every touched vertex of w its new block and packs the updater's records.
func (m *Matcher) plan(w *wave) error {
	s := &m.s
	// The collector: vertices that lost entries in the last wave are rewritten without them.
	if w.first == 0 { // no update applied: later ones read at the last timestamp or after
		w.first = m.ts + 1
	}
	for _, v := range s.compact {
		w.touch(v)
	}
	s.compact = s.compact[:0]
	w.vrec = slices.Grow(w.vrec[:0], vrecWords*len(w.touched))
	w.ikey, w.iel, w.ic = slices.Grow(w.ikey[:0], len(w.ins)), slices.Grow(w.iel[:0], len(w.ins)), slices.Grow(w.ic[:0], len(w.ins))
	w.group()
	var ia, da uint32 // where the vertex's insertions and deletions start
	for i, v := range w.touched {
		ib, db := w.nins[i], w.ndel[i]
		ins := w.sorted[ia:ib]
		kept := s.ln[v] - s.dead[v]
		nn := kept + uint32(len(ins))
		old := block{s.off[v], s.class[v]}
		on := s.ln[v]
		var nb block
		if nn > 0 {
			nb = s.alloc(nn)
		} else {
			nb = block{0, noBlock}
		}
		if old.class != noBlock {
			s.pending = append(s.pending, old)
		}
		s.live += uint64(nn) - uint64(on)
		s.off[v], s.class[v], s.ln[v], s.dead[v] = nb.off, nb.class, nn, db-da
		if db > da {
			s.compact = append(s.compact, v)
		}
		sortIns(ins)
		for _, e := range ins {
			w.ikey, w.iel, w.ic = append(w.ikey, e.key), append(w.iel, e.el), append(w.ic, e.c)
		}
		w.vrec = append(w.vrec, v, uint32(old.off), uint32(old.off>>32), on, uint32(nb.off), uint32(nb.off>>32), nn,
			ia, ib, da, db, 0)
		ia, da = ib, db
	}
	if s.top > m.pool {
		m.pool = max(2*m.pool, s.top)
	}
	return m.be.ensure(m.pool, len(s.off))
}

var errOverflow = errors.New("a count overflows 64 bits")

// zeroed returns s[:to] with its elements before from kept and the others zero.
func zeroed(s []uint64, from, to int) []uint64 {
	s = slices.Grow(s[:from], to-from)[:to]
	clear(s[from:])
	return s
}

// listWave lists a finished wave's matches and reports its updates: the searches in groups whose
// matches fit the buffer (gpucsm.ListGroups), a search with more in windows of the buffer's size,
// each update reported once its searches' matches are emitted. A search that lists other than
// the matches it counted is an error (checkListed).
func (m *Matcher) listWave(w *wave, report func(u updates.Update, res *csm.Result) error) error {
	npat := len(m.tab.pats)
	if need := m.listCap * listStride; uint64(len(m.lbuf)) < need {
		m.lbuf = make([]uint32, need)
	}
	next := 0 // the next update to report
	// upTo reports the updates before search i's: their searches' matches are all emitted.
	upTo := func(i int) error {
		if k := int(w.tasks[i*taskWords+4]) / npat; k > next {
			if err := m.reportWave(w, next, k, report); err != nil {
				return err
			}
			next = k
		}
		return nil
	}
	ctx := m.listCtx
	err := gpucsm.ListGroups(w.tcount, m.listCap, func(lo, hi int, sum uint64, big bool) error {
		if !big {
			if err := m.be.listMatches(ctx, w, lo, hi, 0, 0, m.lbuf); err != nil {
				return err
			}
			if err := checkListed(w, lo, hi, 0); err != nil {
				return err
			}
			m.stats.ListGroups++
			m.stats.Listed += sum
			var cur uint64
			for i := lo; i < hi; i++ {
				n := w.tcount[i]
				if err := upTo(i); err != nil {
					return err
				}
				if err := m.emitMatches(w, i, m.lbuf[cur*listStride:(cur+n)*listStride]); err != nil {
					return err
				}
				cur += n
			}
			return nil
		}
		if err := upTo(lo); err != nil {
			return err
		}
		for skip := uint64(0); skip < sum; skip += m.listCap {
			n := min(m.listCap, sum-skip)
			if err := m.be.listMatches(ctx, w, lo, lo+1, skip, n, m.lbuf); err != nil {
				return err
			}
			if err := checkListed(w, lo, lo+1, n); err != nil {
				return err
			}
			m.stats.ListWins++
			m.stats.Listed += n
			if err := m.emitMatches(w, lo, m.lbuf[:n*listStride]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return m.reportWave(w, next, len(w.ups), report)
}

// checkListed compares what a listing launch listed with the counts: with window 0 each search
// of [lo, hi) must have found its count, else the one search must have written window matches.
func checkListed(w *wave, lo, hi int, window uint64) error {
	for i := lo; i < hi; i++ {
		want := w.tcount[i]
		if window > 0 {
			want = window
		}
		if got := w.listed[i-lo]; got != want {
			return fmt.Errorf("dcsm: internal error: search %d listed %d matches, counted %d", i, got, want)
		}
	}
	return nil
}

// emitMatches emits search i's matches in buf (listStride words each, dense ids in level order)
// as signed matches in pattern vertex order, by original ids.
func (m *Matcher) emitMatches(w *wave, i int, buf []uint32) error {
	tk := w.tasks[i*taskWords : (i+1)*taskWords]
	npat := len(m.tab.pats)
	p, sign := int(tk[4])%npat, 1
	if tk[5] != 0 {
		sign = -1
	}
	ord := m.tab.order[tk[0]]
	out := m.out[:len(ord)]
	for j := 0; j < len(buf); j += listStride {
		for k, pv := range ord {
			out[pv] = m.g.OriginalID(buf[j+k])
		}
		if !m.emit(csm.SignedMatch{Pattern: p, Sign: sign, Vertices: out}) {
			return csm.ErrStopped
		}
	}
	return nil
}

// Streams reports that the engine's matchers are csm.Streamers: watch reports every update and
// refuses the options that batch updates before it loads anything.
func (dcsmEngine) Streams() bool { return true }

// emulatedEngine is the engine with the host emulation of the kernels.
type emulatedEngine struct{ dcsmEngine }

func (emulatedEngine) Name() string { return "dcsm-emulated" }

// Lists reports true: the emulation lists signed matches (ApplyEachMatches).
func (emulatedEngine) Lists() bool { return true }

func (emulatedEngine) Open(g *dynamic.Graph, patterns []*pattern.Pattern, opts csm.Options) (csm.Matcher, error) {
	m, err := OpenEmulated(g, patterns, opts)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// EmulatedEngine returns the engine running the host emulation of the kernels instead of the
// GPU, named "dcsm-emulated" (not registered: tests register it to run the command's per-update
// path without a GPU). It is exact and single-threaded.
func EmulatedEngine() csm.Engine { return emulatedEngine{} }

// OpenEmulated opens the patterns over g with the host emulation of the kernels: the same
// multi-version graph, updater and searches, in Go, without a GPU.
func OpenEmulated(g *dynamic.Graph, patterns []*pattern.Pattern, opts csm.Options) (*Matcher, error) {
	return open(g, patterns, opts, func(t *table) (backend, error) { return newEmu(t), nil })
}
