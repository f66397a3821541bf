// Package gcsm owns the GCSM engine of continuous matching (csm.Engine "gcsm"): GCSM's design
// (Wei & Jiang, IPDPS'24) over the CPU engine's delta program. The data graph stays in host
// memory, pinned and mapped into the GPU's address space, or managed in the unified mode (one
// arena of per-vertex sorted lists, kept in step with the csm graph after each phase of a batch,
// its changed entries edited in place); per phase of a batch, a random-walk
// access-frequency estimator picks the adjacency lists the matching will read most (the
// highest-degree lists fill what they leave), lays them out as a DCSR cache in GPU memory within
// --gpu-memory (one buffer kept from phase to phase, its new and changed entries gathered by the
// GPU from the mapped host graph), and one
// interpreter kernel runs every anchored delta search of the phase, reading a cached list from
// GPU memory and any other through the mapping (zero-copy); beside the first phase's kernel the
// host prepares and estimates the second phase. The terms, matching orders and checks are exactly the CPU
// engine's (csm.Program), lowered into an instruction table, so the counts are the same in every
// convention. Without a usable GPU, Open fails with an error wrapping gpu.ErrNoGPU.
package gcsm

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

func init() { csm.Register(gcsmEngine{}) }

// Mode is how the kernel reaches the adjacency lists (Options.Mode / --gcsm-mode).
type Mode int

const (
	// ModeCache (default, "cache"): the lists the estimator's walks (the thesis's 1/D walks and
	// walk count) read most in GPU memory, the rest zero-copy: GCSM.
	ModeCache Mode = iota
	// ModeZeroCopy ("zerocopy"): every list read through the mapping.
	ModeZeroCopy
	// ModeDegree ("degree"): the highest-degree lists cached (GCSM's "naive" baseline).
	ModeDegree
	// ModeDevice ("device"): every list in GPU memory (an error when the graph does not fit).
	ModeDevice
	// ModeCacheBytes ("cache-bytes"), for measurement: uniform walks (uniformWalks a search), the
	// lists ranked by the bytes they are estimated to be read through the mapping. It serves the
	// kernel better than ModeCache, but its walks took 15-20% of a batch of 4,096-8,192 on R-MAT
	// 20 (docs/benchmarks.md, "GCSM, third pass").
	ModeCacheBytes
	// ModeCacheDensity ("cache-density"): ModeCacheBytes with the lists ranked by their
	// estimated bytes read per byte they take in the cache.
	ModeCacheDensity
	// ModeUnified ("unified"), for measurement: the host graph in CUDA managed memory instead of
	// mapped pinned memory, no cache; the driver pages the lists the kernel reads over to the GPU
	// on demand and back when the host rewrites them (gpu.Device.AllocManaged: no advice, no
	// prefetch). The pages it keeps on the GPU are outside --gpu-memory.
	ModeUnified
	// ModeCacheSampled ("cache-sampled"), for measurement: ModeCacheBytes's uniform walks, each
	// node checking a sample of sampleEntries of its source range instead of all of it (the
	// walks' cost no longer grows with the ranges).
	ModeCacheSampled
)

var modeNames = []string{"cache", "zerocopy", "degree", "device", "cache-bytes", "cache-density", "unified", "cache-sampled"}

func (m Mode) String() string { return modeNames[m] }

// estimated reports whether the mode caches the lists the estimator ranks (then fills the rest
// of the budget by degree).
func (m Mode) estimated() bool {
	return m == ModeCache || m == ModeCacheBytes || m == ModeCacheDensity || m == ModeCacheSampled
}

// ParseMode parses a mode name ("" is the default, cache).
func ParseMode(s string) (Mode, error) {
	if s == "" {
		return ModeCache, nil
	}
	if i := slices.Index(modeNames, s); i >= 0 {
		return Mode(i), nil
	}
	return 0, fmt.Errorf("gcsm: unknown mode %q; modes: %v", s, modeNames)
}

// ErrListing was returned by Apply when asked to list signed matches, before the GPU engine
// listed them; Apply no longer returns it (kept for callers that test for it).
var ErrListing = errors.New("gcsm: listing signed matches is not implemented on the GPU (counts only); use --engine cpu for --emit matches")

// listWords is a listed match's record: its task (relative to the listing's first), then the
// data vertices in level order (kernels/gcsm.cu's LIST_WORDS).
const listWords = 1 + MaxPatternVertices

// Stats describes the last batch: both phases (destroyed, created) together.
type Stats struct {
	Tasks int // anchored searches
	// Reads are the adjacency-list reads of the kernel; Hits those served from GPU memory.
	Reads, Hits uint64
	// CachedLists and CacheBytes: the cache of the phase with the most reads.
	CachedLists int
	CacheBytes  uint64
	// Coverage1 is the share of the top 1% most-read vertices (of those read) that were cached,
	// in the phase with the most reads; -1 when not measured (Matcher.MeasureCoverage).
	Coverage1 float64
	// Walks: the random walks of the estimator (the last phase's M, after its re-check).
	Walks uint64
	// Gathered: the entries gathered into the cache (every cached list's in a phase whose cache
	// was rebuilt, the new and changed ones' otherwise); Rebuilds: the phases whose cache was
	// rebuilt.
	Gathered uint64
	Rebuilds int
	// Time spent estimating, choosing, placing and copying the cache (Copy also holds the
	// release of the last phase's buffers that are not kept), in the kernel (with its uploads),
	// and bringing the host graph up to date.
	Estimate, Copy, Kernel, Sync time.Duration
	// Net is the time of validating the batch and applying its net change to the csm graph;
	// Prepare that of building (and splitting) the phases' searches.
	Net, Prepare time.Duration
	// Ahead is the host's work done beside the destroyed phase's kernel (off the batch's
	// critical path when the kernel takes longer), besides applying the net change to the graph
	// (in Net): the created phase's searches prepared and estimated (not in Prepare or Estimate).
	Ahead time.Duration
	// On the GPU, summed over the phases: the busiest persistent warp's time, the warps' mean
	// and the longest single search (load balance: WarpMax near Kernel and far above WarpMean
	// means a few warps finish the phase alone).
	WarpMax, WarpMean, TaskMax time.Duration
	// Launches of the kernel (a launch per phase, and one more per round of spilled searches)
	// and the searches spilled for load balance.
	Launches int
	Spilled  uint64
	// HostListed: the matches the host enumerated listing searches with more matches than the
	// listing buffer holds.
	HostListed uint64
}

// HitRate returns Hits/Reads (1 when nothing was read).
func (s Stats) HitRate() float64 {
	if s.Reads == 0 {
		return 1
	}
	return float64(s.Hits) / float64(s.Reads)
}

// backend runs a phase's searches: the GPU, or the host emulation in tests.
type backend interface {
	// alloc makes the host graph's memory for the mode: mapped pinned memory, or managed memory
	// in ModeUnified (the emulation: Go memory for both).
	alloc(mode Mode) allocator
	// cacheBudget is the bytes the cache may take, given the searches' buffers and, with
	// freqBytes > 0, the per-vertex read counters. keep is the size of the last phase's cache
	// buffer when the matcher would update it in place (0: it will not); kept reports that the
	// backend still holds that buffer (else the matcher rebuilds the cache).
	cacheBudget(h *hostGraph, ph *phase, freqBytes uint64, keep uint64) (budget uint64, kept bool)
	// run leaves each task's count in counts and adds the list reads to st; with freq non-nil it
	// also counts the reads per vertex.
	run(ctx context.Context, t *table, h *hostGraph, c *dcsr, ph *phase, counts []uint64, freq []uint32, st *Stats) error
	// setListing tells the backend whether the next phases list (their buffers count in
	// cacheBudget); listCap is the matches one list call holds (more only for a single task).
	setListing(on bool)
	listCap() uint64
	// list writes the matches of tasks [lo, hi) (counts: every task's count, from run) into out,
	// listWords each, every task's in a range of its own, tasks in order.
	list(ctx context.Context, t *table, h *hostGraph, c *dcsr, ph *phase, lo, hi int, counts []uint64, out []uint32) error
	close()
}

type gcsmEngine struct{}

func (gcsmEngine) Name() string { return "gcsm" }

// Lists implements csm.Lister: GCSM lists signed matches (Apply with an emit function).
func (gcsmEngine) Lists() bool { return true }

// CheckMode validates a --gcsm-mode value before anything is loaded.
func (gcsmEngine) CheckMode(mode string) error {
	_, err := ParseMode(mode)
	return err
}

// Suits (csm.AutoCandidate): batches of 64 updates or more, or by time interval. Measured
// (docs/benchmarks.md, GCSM third and fourth passes): 2.1-4.2x the CPU engine on 16 threads on
// R-MAT scale 20 at batches of 64 to 8,192; no smaller batch was measured.
func (gcsmEngine) Suits(r csm.RunShape) bool { return r.Batch >= 64 || r.ByTime }

// CheckPatterns: the patterns lower to the kernel's table (csm.PatternChecker).
func (gcsmEngine) CheckPatterns(patterns []*pattern.Pattern, sem engine.Semantics) error {
	_, err := lower(patterns, sem)
	return err
}

func (gcsmEngine) Open(g *dynamic.Graph, patterns []*pattern.Pattern, opts csm.Options) (csm.Matcher, error) {
	return open(g, patterns, opts, func(t *table) (backend, error) { return openDevice(t, opts.GPUMemory) })
}

// open lowers the patterns and opens a matcher on the backend newBackend makes for their table
// (the GPU; the tests' emulation and budgets).
func open(g *dynamic.Graph, patterns []*pattern.Pattern, opts csm.Options, newBackend func(*table) (backend, error)) (csm.Matcher, error) {
	mode, err := ParseMode(opts.Mode)
	if err != nil {
		return nil, err
	}
	t, err := lower(patterns, opts.Semantics)
	if err != nil {
		return nil, err
	}
	be, err := newBackend(t)
	if err != nil {
		return nil, err
	}
	m, err := newMatcher(g, patterns, opts, t, be, mode)
	if err != nil {
		return nil, err // not a nil *Matcher in a non-nil interface
	}
	return m, nil
}

// Matcher is an open standing-pattern set of the GCSM engine (csm.Matcher).
type Matcher struct {
	g      *dynamic.Graph
	pats   []*pattern.Pattern
	opts   csm.Options
	t      *table
	be     backend
	mode   Mode
	net    *csm.Net
	h      hostGraph
	ph     phase
	cache  dcsr
	est    estimator
	counts []uint64
	deg    []uint32 // degree mode and fillDegree: vertices by degree, highest first
	// fillDegree (the estimator's modes): the budget the estimated lists leave is filled with
	// the highest-degree lists not taken (a batch's walks rank few lists; the rest of the
	// memory would stay empty).
	fillDegree bool
	picked     []uint32 // per vertex: stamp when pack took it in this phase
	stamp      uint32
	// want and wantBytes: the lists pack chose for the phase (in its priority order) and
	// their cost.
	want      []uint32
	wantBytes uint64
	// fullCache (measurement): the cache is laid out and gathered whole at every phase (as
	// before branch gcsm6), not kept on the device and updated.
	fullCache bool
	// The created phase's searches (next, ahead set) and, in the estimator's modes, their
	// ranking (nextHot, nextWalks; nextEstimated set), made beside the destroyed phase's kernel;
	// lastBudget is the last phase's cache budget (the ranking's walk-count re-check).
	next          phase
	ahead         bool
	nextEstimated bool
	nextHot       []uint32
	nextWalks     uint64
	lastBudget    uint64
	// sequential (measurement): nothing runs beside the kernels (the host's work between the
	// phases after the destroyed phase's kernel, as before the pipelining).
	sequential bool
	ch         changes // the last batch's, for the host graph
	changed    map[int64]bool
	freq       []uint32
	listBuf    []uint32
	out        []int64
	measure    bool
	stats      Stats
	since      int // changes since the last compaction
	// broken is set when the host graph could not follow a batch that changed the graph: every
	// later batch fails with it rather than match on stale lists.
	broken error
}

func newMatcher(g *dynamic.Graph, patterns []*pattern.Pattern, opts csm.Options, t *table, be backend, mode Mode) (*Matcher, error) {
	if len(patterns) == 0 {
		be.close()
		return nil, fmt.Errorf("gcsm: no patterns")
	}
	m := &Matcher{g: g, pats: patterns, opts: opts, t: t, be: be, mode: mode, net: csm.NewNet(g)}
	m.h.alloc = be.alloc(mode)
	m.est.init(1)
	switch mode {
	case ModeCacheBytes:
		m.est.uniform, m.est.perSearch, m.est.rank = true, uniformWalks, rankBytes
	case ModeCacheDensity:
		m.est.uniform, m.est.perSearch, m.est.rank = true, uniformWalks, rankDensity
	case ModeCacheSampled:
		m.est.uniform, m.est.perSearch, m.est.sample, m.est.rank = true, uniformWalks, sampleEntries, rankBytes
	default:
		m.est.rank = rankReads
	}
	m.fillDegree = mode.estimated()
	if err := m.rebuild(); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

func (m *Matcher) rebuild() error {
	if err := m.h.build(m.g); err != nil {
		return fmt.Errorf("gcsm: host graph: %w", err)
	}
	if m.mode == ModeDegree || m.fillDegree {
		m.deg = append(m.deg[:0], m.g.Vertices()...)
		slices.SortFunc(m.deg, func(a, b uint32) int { return m.g.Degree(b) - m.g.Degree(a) })
	}
	return nil
}

// StopsMidBatch reports that a cancelled context stops Apply within about a second, also in the
// middle of a kernel (the warps poll a stop flag); the batch's counts are then incomplete (and
// the graph changed when the cancel came after the net change was applied: beside the destroyed
// phase's kernel, or in the created phase). The watch command uses it to
// stop on --timeout or an interrupt without waiting for the batch.
func (m *Matcher) StopsMidBatch() bool { return true }

// Graph returns the current graph.
func (m *Matcher) Graph() *dynamic.Graph { return m.g }

// Patterns returns the standing patterns.
func (m *Matcher) Patterns() []*pattern.Pattern { return m.pats }

// Stats returns the last batch's statistics.
func (m *Matcher) Stats() Stats { return m.stats }

// MeasureCoverage makes the kernel count its reads per vertex, for Stats.Coverage1 (slower).
func (m *Matcher) MeasureCoverage(on bool) { m.measure = on }

// Close releases the host and device memory.
func (m *Matcher) Close() {
	m.h.release()
	m.be.close()
}

// Apply applies a batch and reports each pattern's net delta (csm.Matcher); with emit non-nil it
// also lists every destroyed (Sign -1) and created (+1) match, each phase's after its count:
// the CPU engine's matches, in another order (a phase's searches in order, a search's matches
// in the order the GPU wrote them).
func (m *Matcher) Apply(ctx context.Context, batch []updates.Update, emit csm.Emit, res *csm.Result) error {
	m.be.setListing(emit != nil)
	if m.broken != nil {
		return m.broken
	}
	defer m.net.Reset()
	res.Deltas = res.Deltas[:0]
	for range m.pats {
		res.Deltas = append(res.Deltas, csm.Delta{})
	}
	m.stats = Stats{Coverage1: -1}
	tn := time.Now()
	if err := m.net.Compute(batch, m.opts.SkipInvalid, res); err != nil {
		return err
	}
	m.stats.Net += time.Since(tn)
	if len(m.net.Vertices) == 0 && len(m.net.Pairs) == 0 {
		return ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var best uint64
	// Destroyed: matches of the current (old) graph failing in the new. Beside its kernel the
	// host applies the net change to the graph and, unless listing (whose matches are named in
	// the graph before the change), prepares the created phase's searches and estimates them.
	applied := false
	var applyErr error
	apply := func() {
		t0 := time.Now()
		if applyErr = m.net.Apply(); applyErr != nil {
			return
		}
		applied = true
		m.changes()
		m.since += len(m.net.Pairs) + len(m.net.Vertices)
		m.stats.Net += time.Since(t0)
		if emit == nil && !m.sequential {
			m.prepareAhead()
		}
	}
	during := apply
	if m.sequential {
		during = nil
	}
	if err := m.phase(ctx, false, res, &best, emit, during); err != nil {
		if applied {
			_ = m.syncHost() // the graph changed: the host graph follows it (or the matcher is broken)
		}
		return err
	}
	if during == nil {
		apply()
	}
	if applyErr != nil {
		return applyErr
	}
	if err := m.syncHost(); err != nil {
		return err
	}
	// Created: matches of the new graph failing in the old.
	return m.phase(ctx, true, res, &best, emit, nil)
}

// syncHost brings the host graph in step with the graph after the batch (follow); when it
// cannot, the matcher is broken from then on.
func (m *Matcher) syncHost() error {
	t0 := time.Now()
	if err := m.follow(); err != nil {
		m.broken = fmt.Errorf("gcsm: the host graph could not follow a batch, so this matcher stops (open it again): %w", err)
		return m.broken
	}
	m.stats.Sync += time.Since(t0)
	return nil
}

// prepareAhead prepares the created phase's searches into m.next (not split: splitting reads the
// host graph, which still holds the old lists) and, in the estimator's modes, ranks the lists
// they will read with walks on the old host graph (estimator.hot, stale): run while the destroyed
// phase's kernel reads the host graph, so that this work leaves the batch's critical path.
func (m *Matcher) prepareAhead() {
	t0 := time.Now()
	m.prepare(&m.next, true)
	m.ahead = true
	m.nextHot = m.nextHot[:0]
	m.nextWalks = 0
	if m.next.numTasks() > 0 && m.mode.estimated() {
		hot, walks := m.est.hot(m, &m.next, m.lastBudget, true)
		m.nextHot = append(m.nextHot, hot...)
		m.nextWalks = walks
		m.nextEstimated = true
	}
	m.stats.Ahead += time.Since(t0)
}

// changes records the batch's net change for the host graph (after it is applied to m.g): the
// edge changes between vertices that kept their state as edits, the lists of the vertices that
// changed and of their neighbours in full.
func (m *Matcher) changes() {
	m.ch.reset()
	clear(m.changed)
	for _, c := range m.net.Vertices {
		if m.changed == nil {
			m.changed = map[int64]bool{}
		}
		m.changed[c.ID] = true
		if v, ok := m.g.Lookup(c.ID); ok {
			m.ch.full = append(m.ch.full, v)
		}
	}
	for _, c := range m.net.Pairs {
		u, uok := m.g.Lookup(c.U)
		v, vok := m.g.Lookup(c.V)
		if m.changed[c.U] || m.changed[c.V] || !uok || !vok {
			if uok {
				m.ch.full = append(m.ch.full, u)
			}
			if vok {
				m.ch.full = append(m.ch.full, v)
			}
			continue
		}
		m.ch.pair(m.g, u, v, c.Old.Present, c.Old.Label, c.New.Present, c.New.Label)
	}
}

// follow brings the host graph in step with the graph after a batch's change (m.ch): the
// changed entries edited in place and the changed vertices' lists rewritten, or everything rebuilt after a compaction or when the arena is full.
func (m *Matcher) follow() error {
	if m.since >= 1<<20 && uint64(m.since) >= m.g.NumEdges() {
		m.g.Compact()
		m.since = 0
		m.cache.clear() // the vertices renumbered
		return m.rebuild()
	}
	rebuilt, err := m.h.sync(m.g, &m.ch)
	if err != nil {
		return fmt.Errorf("gcsm: host graph: %w", err)
	}
	// The cached lists the batch changed are gathered again by the next phase.
	if rebuilt {
		m.cache.valid = false
	}
	for _, v := range m.ch.full {
		m.cache.markChanged(v)
	}
	for _, e := range m.ch.edits {
		m.cache.markChanged(e.v)
	}
	if rebuilt && (m.mode == ModeDegree || m.fillDegree) {
		return m.rebuild()
	}
	return nil
}

// phase runs the destroyed (created false) or created searches, and lists their matches to
// emit when it is set. during (when not nil) is run once beside the phase's kernel, or after the
// phase when it lists or has no searches.
func (m *Matcher) phase(ctx context.Context, created bool, res *csm.Result, best *uint64, emit csm.Emit, during func()) error {
	tp := time.Now()
	if created && m.ahead {
		m.ph, m.next = m.next, m.ph // prepared beside the destroyed phase's kernel
	} else {
		m.prepare(&m.ph, created)
	}
	estimated := created && m.ahead && m.nextEstimated
	m.ahead, m.nextEstimated = false, false
	m.split()
	m.stats.Prepare += time.Since(tp)
	n := m.ph.numTasks()
	m.stats.Tasks += n
	if n == 0 {
		if during != nil {
			during()
		}
		return nil
	}
	if err := m.fillCache(estimated); err != nil {
		return err
	}
	m.counts = slices.Grow(m.counts[:0], n)[:n]
	var freq []uint32
	if m.measure {
		if len(m.freq) < m.g.IDBound() {
			m.freq = make([]uint32, m.g.IDBound())
		}
		freq = m.freq[:m.g.IDBound()]
		clear(freq)
	}
	var st Stats
	if during != nil && emit == nil {
		done := make(chan error, 1)
		go func() { done <- m.be.run(ctx, m.t, &m.h, &m.cache, &m.ph, m.counts, freq, &st) }()
		during()
		during = nil
		if err := <-done; err != nil {
			return err
		}
	} else if err := m.be.run(ctx, m.t, &m.h, &m.cache, &m.ph, m.counts, freq, &st); err != nil {
		return err
	}
	m.stats.Reads += st.Reads
	m.stats.Hits += st.Hits
	m.stats.Kernel += st.Kernel
	m.stats.Copy += st.Copy
	m.stats.WarpMax += st.WarpMax
	m.stats.WarpMean += st.WarpMean
	m.stats.TaskMax = max(m.stats.TaskMax, st.TaskMax)
	m.stats.Launches += st.Launches
	m.stats.Spilled += st.Spilled
	if st.Reads >= *best {
		*best = st.Reads
		m.stats.CachedLists, m.stats.CacheBytes = m.cache.lists, m.cache.bytes
		if freq != nil {
			m.stats.Coverage1 = coverage(freq, &m.cache)
		}
	}
	for i := range n {
		p := m.ph.tasks[taskWords*i+3]
		d := &res.Deltas[p]
		dst := &d.Destroyed
		if created {
			dst = &d.Created
		}
		s, carry := bits.Add64(*dst, m.counts[i], 0)
		if carry != 0 {
			return engine.ErrOverflow
		}
		*dst = s
	}
	if emit != nil {
		sign := -1
		if created {
			sign = 1
		}
		if err := m.list(ctx, sign, emit); err != nil {
			return err
		}
	}
	if during != nil {
		during()
	}
	return nil
}

// list lists the phase's matches (m.counts holds each task's count): consecutive tasks in
// groups whose matches fit the backend's listing buffer, each listed by the backend and handed
// to emit in pattern vertex order with original ids. A task with more matches than the buffer
// holds is listed by the host (the kernel's emulation over the host graph, streaming).
func (m *Matcher) list(ctx context.Context, sign int, emit csm.Emit) error {
	return gpucsm.ListGroups(m.counts[:m.ph.numTasks()], m.be.listCap(), func(lo, hi int, sum uint64, host bool) error {
		if host {
			return m.listOnHost(ctx, lo, sign, emit)
		}
		m.listBuf = slices.Grow(m.listBuf[:0], int(sum)*listWords)[:int(sum)*listWords]
		if err := m.be.list(ctx, m.t, &m.h, &m.cache, &m.ph, lo, hi, m.counts, m.listBuf); err != nil {
			return err
		}
		if err := checkRecords(m.listBuf, m.counts, lo, hi); err != nil {
			return err
		}
		for r := range int(sum) {
			rec := m.listBuf[r*listWords : (r+1)*listWords]
			task := m.ph.tasks[taskWords*(lo+int(rec[0])):]
			pi, order := int(task[3]), m.t.order[task[0]]
			m.out = slices.Grow(m.out[:0], len(order))[:len(order)]
			for k, w := range order {
				m.out[w] = m.g.OriginalID(rec[1+k])
			}
			if !emit(csm.SignedMatch{Pattern: pi, Sign: sign, Vertices: m.out}) {
				return csm.ErrStopped
			}
		}
		return nil
	})
}

// checkRecords checks, before any is emitted, that the listing out of searches [lo, hi) holds
// each search's counted matches in its own range, in order: every record names its range's
// search (a record left from an earlier listing, or a garbage one, fails instead of being
// emitted or indexing out of range).
func checkRecords(out []uint32, counts []uint64, lo, hi int) error {
	j, left := lo, uint64(0)
	for r := 0; r < len(out); r += listWords {
		for left == 0 && j < hi {
			left = counts[j]
			if left == 0 {
				j++
			}
		}
		if left == 0 || out[r] != uint32(j-lo) {
			return fmt.Errorf("gcsm: internal error: listing record %d names search %d, in the range of search %d of [%d, %d)", r/listWords, int64(out[r])+int64(lo), j, lo, hi)
		}
		if left--; left == 0 {
			j++
		}
	}
	return nil
}

// checkListed checks that each search of a listing launch listed exactly its count: ends[i] is
// where search lo+i's range ended after the launch (its cursor: the range's start plus the
// matches written), the ranges laid out from 0 in search order.
func checkListed(ends, counts []uint64, lo int) error {
	var at uint64
	for i, e := range ends {
		start := at
		at += counts[lo+i]
		if e != at {
			return fmt.Errorf("gcsm: internal error: search %d listed %d matches, counted %d", lo+i, int64(e-start), counts[lo+i])
		}
	}
	return nil
}

// listOnHost lists task i's matches with the emulation (the host graph's lists), checking
// their number against the kernel's count.
func (m *Matcher) listOnHost(ctx context.Context, i, sign int, emit csm.Emit) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	task := m.ph.tasks[taskWords*i : taskWords*(i+1)]
	pi, order := int(task[3]), m.t.order[task[0]]
	e := emu{t: m.t, h: &m.h, ph: &m.ph, ctx: ctx}
	var listed uint64
	stopped := false
	done := e.listTask(task, func(f []uint32) bool {
		listed++
		m.out = slices.Grow(m.out[:0], len(order))[:len(order)]
		for k, w := range order {
			m.out[w] = m.g.OriginalID(f[k])
		}
		stopped = !emit(csm.SignedMatch{Pattern: pi, Sign: sign, Vertices: m.out})
		return !stopped
	})
	m.stats.HostListed += listed
	if stopped {
		return csm.ErrStopped
	}
	if !done {
		return ctx.Err()
	}
	if listed != m.counts[i] {
		return fmt.Errorf("gcsm: internal error: search %d listed %d matches on the host, counted %d", i, listed, m.counts[i])
	}
	return nil
}

// prepare builds the phase's searches and other-graph tables from the batch's net change, as the
// CPU engine does: the anchors are the changed elements alive in the current graph.
func (m *Matcher) prepare(ph *phase, created bool) {
	g := m.g
	ph.reset()
	vchg := slices.Collect(m.net.AnchorVertices(g, created))
	pchg := slices.Collect(m.net.AnchorPairs(g, created))
	slices.SortFunc(vchg, func(a, b csm.AnchorVertex) int { return int(a.V) - int(b.V) })
	for _, c := range vchg {
		ph.cv = append(ph.cv, c.V)
		ph.cvAlive = append(ph.cvAlive, gpucsm.B2U(c.Other.Alive))
		ph.cvLabel = append(ph.cvLabel, c.Other.Label)
	}
	slices.SortFunc(pchg, func(a, b csm.AnchorPair) int {
		ka, kb := pairKey(a.U, a.V), pairKey(b.U, b.V)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})
	for _, c := range pchg {
		ph.cpKey = append(ph.cpKey, pairKey(c.U, c.V))
		ph.cpPresent = append(ph.cpPresent, gpucsm.B2U(c.Other.Present))
		ph.cpLabel = append(ph.cpLabel, c.Other.Label)
	}
	for pi, prog := range m.t.progs {
		p := m.pats[pi]
		for ti, term := range prog.Terms {
			gt := uint32(m.t.first[pi] + ti)
			if term.Vertex >= 0 {
				vl := p.VertexLabel(term.Vertex)
				for _, c := range vchg {
					if vl.Matches(c.Cur.Label) && !(c.Other.Alive && vl.Matches(c.Other.Label)) {
						ph.tasks = append(ph.tasks, gt, c.V, 0, uint32(pi), 0, 0)
					}
				}
				continue
			}
			it := prog.Pairs[term.Pair]
			la, lb := p.VertexLabel(it.A), p.VertexLabel(it.B)
			for _, c := range pchg {
				if !it.Valid(c.Cur) || it.Valid(c.Other) {
					continue
				}
				l0, l1 := g.Label(c.U), g.Label(c.V)
				if la.Matches(l0) && lb.Matches(l1) {
					ph.tasks = append(ph.tasks, gt, c.U, c.V, uint32(pi), 0, 0)
				}
				if la.Matches(l1) && lb.Matches(l0) {
					ph.tasks = append(ph.tasks, gt, c.V, c.U, uint32(pi), 0, 0)
				}
			}
		}
	}
}

// splitChunk is the part of a first free level's source entries one task takes: a search with
// more is split into parts, so that one heavy update spreads over many warps (a variable: the
// tests lower it).
var splitChunk = 64

// split replaces the phase's searches whose first free level has more than splitChunk source
// entries by parts of splitChunk.
func (m *Matcher) split() {
	ph := &m.ph
	e := emu{t: m.t, h: &m.h}
	n := ph.numTasks()
	for i := range n {
		task := ph.tasks[taskWords*i : taskWords*(i+1)]
		c := e.firstLevel(task)
		if c <= splitChunk {
			continue
		}
		task[4], task[5] = 0, uint32(splitChunk)
		rec := [taskWords]uint32(task)
		for lo := splitChunk; lo < c; lo += splitChunk {
			rec[4], rec[5] = uint32(lo), uint32(lo+splitChunk)
			ph.tasks = append(ph.tasks, rec[:]...)
		}
	}
}

// fillCache chooses the phase's cached lists by the mode (pack) and places them in the cache kept
// from the last phase, or in a rebuilt one (dcsr.place: the device's work for run); with
// estimated set the estimator's ranking is m.nextHot (made beside the last kernel).
func (m *Matcher) fillCache(estimated bool) error {
	var freqBytes uint64
	if m.measure {
		freqBytes = 4 * uint64(m.g.IDBound())
	}
	c := &m.cache
	if c.pending { // the last phase's cache work was not done (a cancelled run)
		c.valid = false
	}
	keep := uint64(0)
	if c.valid && !m.fullCache && m.mode != ModeZeroCopy && m.mode != ModeUnified {
		keep = c.phys()
	}
	tb := time.Now()
	budget, kept := m.be.cacheBudget(&m.h, &m.ph, freqBytes, keep) // frees what it does not keep: in Copy
	m.lastBudget = budget
	m.stats.Copy += time.Since(tb)
	// The choice's budget: the layout's slack kept free when it is updated in place.
	choice := budget
	if !m.fullCache && m.mode != ModeDevice {
		choice -= budget / slackDiv
	}
	t0 := time.Now()
	switch m.mode {
	case ModeZeroCopy, ModeUnified:
		c.clear()
		return nil
	case ModeDevice:
		all := m.g.Vertices()
		if !m.pack(choice, all) {
			return fmt.Errorf("gcsm: mode device: the graph's lists (%d vertices) do not fit the %d bytes left of the GPU memory budget", len(all), budget)
		}
	case ModeDegree:
		m.pack(choice, m.deg)
	case ModeCache, ModeCacheBytes, ModeCacheDensity, ModeCacheSampled:
		hot, walks := m.nextHot, m.nextWalks
		if !estimated {
			hot, walks = m.est.hot(m, &m.ph, choice, false)
		}
		m.stats.Walks = walks
		t1 := time.Now()
		m.stats.Estimate += t1.Sub(t0)
		t0 = t1
		if m.fillDegree {
			m.pack(choice, hot, m.deg)
		} else {
			m.pack(choice, hot)
		}
	}
	c.place(m.want, m.h.ln, budget, kept && !m.fullCache)
	m.stats.Gathered += c.gathered
	if c.full {
		m.stats.Rebuilds++
	}
	m.stats.Copy += time.Since(t0)
	return nil
}

// rowBytes is what caching a list of n entries costs: its row (vertex, offset, length), a slot
// of the update's lists (a row gathered or evicted: dcsr, layoutOffsets), its keys and edge
// labels.
func rowBytes(n uint32) uint64 { return 24 + 12*uint64(n) }

// pack chooses the cached lists of each of lists in turn, each in priority order, each list
// that fits in what is left of budget bytes (skipping vertices that are dead, have no entries or
// were taken already, and lists too long for what is left: the greedy fill of the knapsack), into
// m.want (in that order: a rebuild lays them out so, and the lowest, the first evicted when the
// choice changes, leave one free range at the end) and m.wantBytes; it reports whether all of
// them fitted. The layout is made by place, and the entries are not copied here: the GPU
// gathers them from the mapped host graph (the emulation: dcsr.fill).
func (m *Matcher) pack(budget uint64, lists ...[]uint32) bool {
	h := &m.h
	m.want, m.wantBytes = m.want[:0], 0
	if len(m.picked) < len(h.ln) {
		m.picked = append(m.picked, make([]uint32, len(h.ln)-len(m.picked))...)
	}
	if m.stamp++; m.stamp == 0 { // wrapped: clear the marks
		clear(m.picked)
		m.stamp = 1
	}
	all := true
fill:
	for _, vs := range lists {
		for _, v := range vs {
			if int(v) >= len(h.ln) || h.ln[v] == 0 || !m.g.Alive(v) || m.picked[v] == m.stamp {
				continue
			}
			b := rowBytes(h.ln[v])
			if m.wantBytes+b > budget {
				all = false
				if budget-m.wantBytes < rowBytes(1) {
					break fill // full
				}
				continue
			}
			m.picked[v] = m.stamp
			m.wantBytes += b
			m.want = append(m.want, v)
		}
	}
	return all
}

// coverage is the share of the top 1% most-read vertices (at least one) that the cache held.
func coverage(freq []uint32, c *dcsr) float64 {
	var read []uint32
	for v, f := range freq {
		if f > 0 {
			read = append(read, uint32(v))
		}
	}
	if len(read) == 0 {
		return 1
	}
	slices.SortFunc(read, func(a, b uint32) int { return int(freq[b]) - int(freq[a]) })
	top := read[:max(1, len(read)/100)]
	in := 0
	for _, v := range top {
		if c.find(v) >= 0 {
			in++
		}
	}
	return float64(in) / float64(len(top))
}

// LogBatch writes the last batch's figures at debug level (submatch watch -v).
func (m *Matcher) LogBatch(l *slog.Logger) {
	s := &m.stats
	l.Debug("gcsm: batch", "mode", m.mode.String(), "tasks", s.Tasks, "list_reads", s.Reads, "from_gpu", s.HitRate(),
		"cached_lists", s.CachedLists, "cache_bytes", s.CacheBytes, "gathered", s.Gathered, "rebuilds", s.Rebuilds, "walks", s.Walks, "top1pct_coverage", s.Coverage1,
		"net", s.Net, "prepare", s.Prepare, "estimate", s.Estimate, "copy", s.Copy, "kernel", s.Kernel, "sync", s.Sync,
		"ahead", s.Ahead, "warp_max", s.WarpMax, "warp_mean", s.WarpMean, "task_max", s.TaskMax, "launches", s.Launches, "spilled", s.Spilled)
}
