package sgsi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/checked"
	"github.com/submatch/submatch/internal/par"
)

// Stats reports where a count's time and bytes went (SGSI's Table 7 split: communication, the
// host-device copies, against computation, the kernels).
type Stats struct {
	Device      string
	RegionBytes uint64 // the device region the count laid out (within --gpu-memory)
	CacheBytes  uint64 // of which the segment cache
	InCore      bool   // the label graphs the query reads fit the segment cache together (a direct count's blocks still overwrite it)
	Segments    uint64 // segment uploads
	SegmentHits uint64 // segment uses that found it resident
	Chunks      uint64 // row chunks joined
	// Windows counts the chunks of one row joined in windows of its list (its buffer did not
	// fit); Parts the segment uploads holding a part of a list longer than a segment.
	Windows, Parts uint64
	// WindowRetries counts windows joined again in halves (their output did not fit).
	WindowRetries uint64
	// Gathered counts the segment uploads that carried only the lists a chunk reads; Merged the
	// segments that went up in such an upload with their neighbours (one copy, one launch).
	Gathered, Merged uint64
	// Blocks counts the direct count's blocks (direct.go: a count's last step without buffers),
	// BlockRows the rows they counted (generated ones included), BlockFallbacks the units
	// (rows, or generating vertices) whose lists did not fit a block, joined the buffered way;
	// Pieces the uploads of a block's second-column lists (generated rows).
	Blocks, BlockRows, BlockFallbacks, Pieces uint64
	// Tiled counts the tables (parts of a level's table with one first edge) sorted in tiles
	// (rowOrder): by the first edge's blocks, then the column of the longest lists.
	Tiled uint64
	// OffsetBytes is the bytes of the segment uploads' offsets (the rest of a segment upload is
	// its lists); Sparse counts the gathered uploads whose offsets are only the lists' vertices'.
	OffsetBytes, Sparse uint64
	Steps               int
	BytesToGPU          uint64
	BytesFromGPU        uint64
	// CopiesToGPU and CopiesFromGPU count the host-device copies and Launches the kernels: each
	// a driver call. On the GPU uploads and kernels are queued; a copy back waits for them.
	CopiesToGPU, CopiesFromGPU, Launches uint64
	// Comm and Comp are the time of the copies and of the kernels: on the GPU, device time from
	// events around each (the host queues them and goes on), past the first 2,048 of a kind
	// around one in 8 and scaled (an estimate); on the host emulation, host time.
	Comm, Comp time.Duration
	// Overlap is the device time during which an upload and a kernel of the direct count's
	// pipeline ran at once (Options.Overlap; zero serially and on the host emulation): the
	// copies' and kernels' own times are in Comm and Comp.
	Overlap time.Duration
	// Pipelined counts the direct count's kernels queued through the pipeline (Options.Overlap:
	// zero when the count ran serially, for want of room for two slots or of streams).
	Pipelined  uint64
	PeakDevice uint64 // bytes of the region ever used
	PeakHost   uint64 // bytes of the spilled tables at their largest
	// TableCopied is the bytes of pending tables copied into a larger table when one grew (at
	// most: the GPU allocates at least 1 MiB): a level is joined instead once it holds
	// flushAt/growFlushFrac words and another chunk's output as large as its largest would not
	// fit.
	TableCopied uint64
	Setup       time.Duration // the backend: on the GPU the kernels' compilation, the region, the staging buffer
	Layout      time.Duration // the store (signatures), the plan and the label graphs it reads
	// Search is the part of Layout the join order's search took (chooseLate, weighTails and
	// the chosen plan's estimate: joinEstimator's probes).
	Search time.Duration
	// Store and LabelGraphs are two more parts of Layout: finding (or building) the graph's
	// store (storeFor; its signature table when it builds it there), and building the label
	// graphs the steps, leaf groups and tails read (those not kept with the graph already).
	Store, LabelGraphs time.Duration
	// LabelBuilds is each label graph this count built, in order, with its passes' times (the
	// debug line's label_builds): where LabelGraphs went (a dealt count: every runner's).
	LabelBuilds []LabelBuild
	Filter      time.Duration
	Total       time.Duration
	// Balance is each join step's load balance (balance.go): the rows each layer took and the
	// thresholds chosen.
	Balance Balance
	// The joins' time by phase, host wall clock, so that Other (Total less Setup, Layout, Filter
	// and these) is what no phase accounts for: Group splits tables by each row's shortest list and sorts
	// them by its vertex; Refs finds the lists each chunk reads and gathers them for upload;
	// Tables grows the spilled tables (on the GPU pinned allocations and their copies). Driver
	// is the joins' time in copies and launches: on the GPU the driver calls and the
	// waits for the device (a copy back waits for everything queued, an upload for room in the
	// staging buffer), on the host emulation the emulated copies and kernels (Comm + Comp).
	Group, Refs, Tables, Driver time.Duration
	// Devices has one row per runner of a count dealt to several (deal.go), else none.
	Devices []DeviceStats
	// PerStep is each join step's table sizes and host time (steps[i] adds the query vertex
	// Order[i+1]), and, past Steps when a count's leaves are counted (leaves.go), the leaf
	// step's (its rows the last table's, its output the count before |Aut(p)|, the leaves
	// Order[Steps+1:]); Order is the join order; Candidates |C(u)| per query vertex (the filter's).
	PerStep    []StepStats
	Order      []int
	Candidates []uint64
	// Refined is the candidates the host's refinement removed (Options.Refine), summed over
	// the query vertices.
	Refined uint64
	// Weighed is the estimate the plan was chosen by (zero where none was weighed); the leaf
	// step's PerStep Items are the list entries it read, to set beside Weighed.LeafEntries.
	Weighed Weighed
}

// StepStats is one join step's share of a count: the rows of its input table (width i+1 for
// step i), the buffer entries its first linking edges filled (Prealloc: the lists' lengths;
// none for the rows the direct count took), its output rows (the next table, or the final
// step's matches: unique ones where the count multiplies by |Aut(p)|) and the host wall time
// spent in it, deeper steps excluded (on the emulation the kernels' time too).
type StepStats struct {
	Rows, Items, Out uint64
	Time             time.Duration
}

// add adds o's counters and time to s.
func (s *StepStats) add(o StepStats) {
	s.Rows += o.Rows
	s.Items += o.Items
	s.Out += o.Out
	s.Time += o.Time
}

// Other is Total less the phases Stats times: the runner's own work between them (the chunks'
// rows, buffer offsets and counts), and the time of a count cut short before the joins began.
func (s *Stats) Other() time.Duration {
	return s.Total - s.Setup - s.Layout - s.Filter - s.Group - s.Refs - s.Tables - s.Driver
}

// errNoFit is returned (wrapped in engine.ErrMemory) when one row, segment or list does not fit.
var errNoFit = errors.New("does not fit the device region")

// maxKernelIndex bounds what the kernels index with 32 bits: a chunk's buffer words (F, whose
// loops step j += G), a segment's entries (local offsets); rows stay below maxKernelIndex/sigWords
// (a filter chunk's signatures sigs[3n + i], a join chunk's idx and link range). The schedule
// keeps below them; checkKernel refuses a chunk beyond them (a clear error rather than a fault on
// the device).
const maxKernelIndex = 1 << 31

// errKernelRange is checkKernel's error.
var errKernelRange = errors.New("is beyond the kernels' 32-bit indices")

// checkKernel refuses a chunk of rows rows and buffer words, or a filter chunk of rows vertices
// (buffer 0), that the kernels cannot address.
func checkKernel(rows, buffer uint64) error {
	if rows >= maxKernelIndex/sigWords || buffer >= maxKernelIndex {
		return fmt.Errorf("sgsi: a chunk of %d rows with %d buffer words %w (%d): %w", rows, buffer, errKernelRange, maxKernelIndex, engine.ErrMemory)
	}
	return nil
}

// maxFlush bounds, in words, the pending table of a level before it is joined.
const maxFlush = 1 << 26

// growFlushFrac: a level's pending table that holds at least flushAt/growFlushFrac words is
// joined when another chunk's output as large as the largest it took would make it grow. Growing copies the
// rows already spilled into a new table (on the GPU a fresh pinned allocation; docs/benchmarks.md,
// sgsigrow).
const growFlushFrac = 8

// segKey names a resident segment: a label graph and a segment index, or a candidate list.
type segKey struct {
	key lgKey
	i   int
	v   uint32 // invalid: the whole segment; else a gathered upload of v's list alone
}

// cartKey is the segment key of C(u) for cartesian steps.
func cartKey(u int) lgKey { return lgKey{1<<40 | uint64(u), anyLabel, bothSides} }

// runner is one count's or listing's schedule over a Backend.
type runner struct {
	ctx   context.Context
	be    Backend
	st    *Stats
	s     *store
	q     *query
	count bool
	emit  func(m []uint32) bool // listing: each match in pattern order; false stops

	maxCache uint64 // words; 0: no cap
	// oneSegment uploads every segment on its own (tests: the schedule before runs of gathered
	// segments, to compare with).
	oneSegment bool
	blockRows  uint32 // W2: rows whose buffers exceed this go to a block or the whole grid (balance.go)
	blockSize  uint32
	// layers fixes the load-balance thresholds (Options.Layers; nil: chosen per chunk by bal);
	// gridCap caps a whole-grid launch's blocks (0: bal's costs' GridBlocks); poolRows is the
	// most rows a task-pool block takes in a launch that has blocks enough (0: POOL, one batch;
	// tests set more, so that a block takes several batches).
	layers            *Thresholds
	gridCap, poolRows uint32
	bal               balancer
	threads           int // the host's goroutines for passes over a table (<= 0: all cores)

	bitsOff, bitWords uint64
	// sumOff is the device counter the final step's Count adds to (read by drainSum); sumChunks
	// the chunks added since it was last read.
	sumOff, sumChunks  uint64
	cacheOff, cacheCap uint64
	cacheUsed          uint64 // the ring's cursor
	resident           []resident
	refs               [][]uint32           // touched's result, reused
	runRefs            []uint32             // a run's refs, reused
	cached             map[segKey][2]uint64 // offsets, neighbours
	arenaOff, arenaCap uint64

	segs   map[lgKey][]segment
	cands  [][]uint32 // C(u), host
	total  uint64
	stop   bool
	hostIn []uint64 // words of each level's table in use
	// pendN is the words of each level's pending table; a level is joined when it holds flushAt.
	pendN   []uint64
	flushAt uint64
	// hostLimit is --memory (0: none): the host memory the count may hold beyond the data graph
	// (the store's signatures and label graphs, candidates, the spilled tables); hostHeld what
	// the tables hold now (the words each level's host table was allocated with). A dealt
	// count's runners share it (hostShared, hostOwn).
	hostLimit uint64
	outMax    uint64   // words: the most a chunk may spill (bounded by --memory)
	tabCap    []uint64 // words of each level's host table as allocated (table)
	maxOut    []uint64 // words of the largest chunk output spilled into each level's table (table)
	tmp       []uint32
	// Per-chunk host buffers, reused (a chunk is done with them before the next level runs).
	fBuf, idxBuf, cntBuf, oBuf []uint32
	// stage gathers what one copy uploads (a chunk's descriptor, rows, offsets and index; a
	// segment's offsets and lists), so that each goes up in one copy.
	stage []uint32
	grp   []uint8 // byShortest's choice per row, reused
	// sortBuf is the radix sort's buffer (sortBuffer), reused.
	sortBuf []uint32
	// buffered turns the direct count off (Options.Buffered); bitsHost is the host copy of the
	// candidate bitsets; keyOff and up are the direct count's, reused.
	buffered bool
	// coreOrder joins in the core order (unless Options.PaperOrder) instead of SGSI's; refine refines
	// the filter's candidates on the host (Options.Refine).
	coreOrder, refine bool
	// joinLeaves joins a count's leaves (Options.JoinLeaves) instead of the leaf step's count.
	joinLeaves bool
	// leafSizes[g], once set (the leaf step's first table of as many rows as the candidates of
	// group g's parent), holds |S_g| for each of those candidates, in their order (leaves.go).
	leafSizes [][]uint32
	// leafScratch holds the leaf step's goroutines' buffers and caches from table to table.
	leafScratch []*leafScratch
	// overlapGen and overlapTable run the direct count's pieces of generated rows and blocks of
	// table rows through the backend's pipeline (Options.Overlap; false, the zero value: serial).
	overlapGen, overlapTable bool
	// blockSum is set while a direct block's count is on the device, not yet read (read when
	// the next block is collected, or at the count's end: at most one block's sum pending).
	blockSum bool
	bitsHost []uint32
	keyOff   []uint64
	up       listUpload
	// part, when set, is this runner's place in a count dealt to several (deal.go): the first
	// runner filters and plans for all and deals the first column's candidates, the others
	// take its results.
	part      *dealing
	predictor predictor // how a dealt count's first runner weighs the roots
	tailReach int       // Options.tailReach
	// waited is how long a dealt count's runner waited for the first runner's filter (Filter's).
	waited time.Duration
	// coreBlock is the least block budget of the direct count in core (0: minCoreBlockWords;
	// tests set it small to count in several blocks).
	coreBlock uint64
	// paces sizes each join step's chunks by their time (pacer); blockPace the direct count's
	// blocks (their words), and the pieces of generated rows with them.
	paces     []pacer
	blockPace pacer
	// inStep is the join step running plus one (Stats.PerStep's time goes to it), 0 outside
	// the joins; stepMark when it started or was last resumed.
	inStep   int
	stepMark time.Time
}

// enterStep charges the time since the last switch to the step running and makes step i (-1:
// none) the running one; it returns the step it replaced, for the caller to enter again.
func (r *runner) enterStep(i int) int {
	now := time.Now()
	if r.inStep > 0 {
		r.st.PerStep[r.inStep-1].Time += now.Sub(r.stepMark)
	}
	prev := r.inStep - 1
	r.inStep, r.stepMark = i+1, now
	return prev
}

// sortBuffer returns a buffer of n words for sorting a table by radix, or nil when --memory
// leaves no room for it (the table is then sorted by comparisons, in place).
func (r *runner) sortBuffer(n uint64) []uint32 { return r.sortBufferWithin(n, r.reserveRows) }

// sortBufferWithin is sortBuffer with the buffer's growth reserved by reserve (reserveRows lets
// the leaf step's memos go for it, reserve does not).
func (r *runner) sortBufferWithin(n uint64, reserve func(string, uint64) error) []uint32 {
	if uint64(cap(r.sortBuf)) < n {
		if err := reserve("the sort's buffer", 4*(n+n/4-uint64(cap(r.sortBuf)))); err != nil {
			return nil
		}
		r.sortBuf = nil // (not copied: grow)
	}
	return grow(&r.sortBuf, n)
}

func (r *runner) put(off uint64, src []uint32) error {
	t := time.Now()
	err := r.be.Put(off, src)
	d := time.Since(t)
	r.st.Comm += d
	r.st.Driver += d
	r.st.BytesToGPU += 4 * uint64(len(src))
	r.st.CopiesToGPU++
	r.st.PeakDevice = max(r.st.PeakDevice, 4*(off+uint64(len(src))))
	return err
}

func (r *runner) get(dst []uint32, off uint64) error {
	t := time.Now()
	err := r.be.Get(dst, off)
	d := time.Since(t)
	r.st.Comm += d
	r.st.Driver += d
	r.st.BytesFromGPU += 4 * uint64(len(dst))
	r.st.CopiesFromGPU++
	return err
}

// readJoin copies a join kernel's output back (get), or returns the context's error once the
// context has ended: a kernel may then have left its work in part (kernelStopper; the stop flag
// rises only after the context's end, and the copy waited for the kernels queued before it), and
// what a stopped kernel's rows hold (counts, buffers, output rows) must be neither counted nor
// spilled, nor read as offsets.
func (r *runner) readJoin(dst []uint32, off uint64) error {
	if err := r.get(dst, off); err != nil {
		return err
	}
	return r.ctx.Err()
}

func (r *runner) kernel(f func() error) error {
	t := time.Now()
	err := f()
	d := time.Since(t)
	r.st.Comp += d
	r.st.Driver += d
	r.st.Launches++
	return err
}

func (r *runner) used(off uint64) { r.st.PeakDevice = max(r.st.PeakDevice, 4*off) }

// zero writes n zero words at off.
func (r *runner) zero(off, n uint64) error {
	for n > 0 {
		k := min(n, 1<<20)
		if uint64(len(r.tmp)) < k {
			r.tmp = make([]uint32, k)
		}
		clear(r.tmp[:k])
		if err := r.put(off, r.tmp[:k]); err != nil {
			return err
		}
		off, n = off+k, n-k
	}
	return nil
}

// run filters, plans and joins.
func (r *runner) run(induced, unique bool) error {
	if ks, ok := r.be.(kernelStopper); ok {
		defer ks.stopOn(r.ctx)()
	}
	g := r.s.g
	q := r.q
	nv := g.NumVertices()
	W := r.be.Words()
	r.bitWords = bitsetWords(nv)
	r.bitsOff = 0
	fixed := uint64(q.n) * r.bitWords
	// The bitsets, the query's signatures and labels, and one filter chunk of 32 vertices.
	if fixed+uint64(len(q.sigs)+len(q.vlabels))+32*(sigWords+1) > W {
		return fmt.Errorf("sgsi: the candidate bitsets (%d bytes) %w of %d bytes: %w", 4*fixed, errNoFit, 4*W, engine.ErrMemory)
	}
	rest := W - fixed
	tf := time.Now().Add(-r.waited)
	// A dealt count's other runners take the first runner's candidates and plan (deal.go); the
	// first runner (or the only one) filters and plans, and deals for the others.
	follower := r.part != nil && r.part.i > 0
	leader := r.part != nil && r.part.i == 0
	if follower {
		if err := r.follow(); err != nil {
			return err
		}
	} else if err := r.filter(fixed); err != nil {
		return err
	}
	if slices.ContainsFunc(r.cands, func(c []uint32) bool { return len(c) == 0 }) {
		r.st.Filter, r.st.Driver = time.Since(tf), 0
		if leader {
			r.part.pre.publish(r, nil) // no match: nothing to deal
		}
		return nil
	}
	r.st.Filter = time.Since(tf)
	r.st.Driver = 0 // (the filter's copies and launches are Filter's)

	// The order, the steps and the label graphs they read (built here: part of Layout).
	tl := time.Now()
	if !follower {
		sizes := make([]uint64, q.n)
		for u, c := range r.cands {
			sizes[u] = uint64(len(c))
		}
		replan := func() {
			q.plan(sizes, r.edgeEntries, g.HasEdgeLabels(), induced, unique, r.count, r.coreOrder, !r.joinLeaves)
		}
		replan()
		est := newJoinEstimator(g, q, joinSeed)
		est.useSigs(r.s)
		if r.coreOrder { // (which vertices go last: by the estimate of the tables, chooseLate)
			if err := est.chooseLate(r.ctx.Err, sizes, r.cands, replan); err != nil {
				return err
			}
		}
		// (How far the tails reach: by the estimate of the tables, as the prediction's.)
		if r.tailReach > 0 {
			q.tailCap = map[int]int{}
			for b := range q.n {
				q.tailCap[b] = r.tailReach - 1
			}
			replan()
		} else if err := est.weighTails(r.ctx.Err, sizes, r.cands, replan); err != nil {
			return err
		}
		r.st.Candidates = sizes
		w, err := est.planned(r.ctx.Err, sizes, r.cands)
		if err != nil {
			return err
		}
		r.st.Weighed = w
		r.st.Search = time.Since(tl)
	}
	tg := time.Now()
	r.st.Steps = len(q.steps)
	r.st.Order = slices.Clone(q.order)
	steps := len(q.steps)
	if q.counted() {
		steps++ // the leaf step (leaves.go)
	}
	r.st.PerStep = make([]StepStats, steps)
	need := uint64(0)
	keys := map[lgKey]bool{}
	for _, st := range q.steps {
		ls := append(append([]link{st.first}, st.others...), st.nonadj...)
		if st.cartesian {
			ls = ls[1:]
			need += uint64(len(r.cands[st.u])) + 2 // C(u) and its two offsets
		}
		for _, l := range ls {
			if !keys[l.key] {
				keys[l.key] = true
				lg, err := r.label(l.key)
				if err != nil {
					return err
				}
				need += lg.deviceWords()
			}
		}
	}
	for _, g := range q.leafGroups { // (read on the host only: no segments)
		for _, pe := range g.parents {
			if _, err := r.label(pe.key); err != nil {
				return err
			}
		}
	}
	var tailKeys []lgKey
	for _, t := range q.tails {
		tailKeys = append(tailKeys, t.keys()...)
	}
	for _, t := range q.chains {
		tailKeys = append(tailKeys, t.allKeys()...)
	}
	for _, t := range q.pairs {
		tailKeys = append(tailKeys, t.keys()...)
	}
	for _, k := range tailKeys {
		if _, err := r.label(k); err != nil {
			return err
		}
	}
	if leader {
		// The first runner of a dealt count: the others wait for this (its label graphs are
		// built and counted against --memory above; rootWeights reads only those).
		r.part.pre.publish(r, r.rootWeights())
	}
	r.st.LabelGraphs = time.Since(tg)
	r.st.Layout += time.Since(tl)
	r.sumOff = (fixed + 1) &^ 1 // even: a 64-bit counter
	r.cacheOff = r.sumOff + 2
	// Out of core: a quarter for segments, the rest for bigger chunks. Lists longer than a
	// segment are cut into parts, so no list has to fit the cache whole.
	capWords := rest / 4
	if r.maxCache > 0 {
		capWords = min(capWords, r.maxCache)
	}
	if need <= rest/2 {
		capWords = max(capWords, need)
	}
	if need <= capWords {
		r.cacheCap, r.st.InCore = need, true
	} else {
		r.cacheCap = capWords
	}
	if !r.st.InCore && r.cacheCap < minSegWords {
		return fmt.Errorf("sgsi: no room for a segment cache of %d words (%d bytes left after the candidate bitsets): %w", minSegWords, 4*rest, engine.ErrMemory)
	}
	r.arenaOff = (r.cacheOff + r.cacheCap + 1) &^ 1 // even: the arena starts with a 64-bit counter
	// The least arena: the counter, the descriptor, one row of the widest table with its offsets
	// and counts, one buffer entry and its output row.
	minArena := uint64(2+2+64) + 2*uint64(q.n) + 8
	if r.arenaOff+minArena > W {
		return fmt.Errorf("sgsi: no room for tables: %w", engine.ErrMemory)
	}
	r.arenaCap = W - r.arenaOff
	r.st.CacheBytes = 4 * r.cacheCap
	maxSeg := min(r.cacheCap, maxKernelIndex)
	if !r.st.InCore {
		maxSeg = min(max(minSegWords, r.cacheCap/2), maxKernelIndex) // the kernels read local offsets as u32
	}
	r.segs = map[lgKey][]segment{}
	for key := range keys {
		r.segs[key] = segments(r.s.label(key), maxSeg)
	}
	for _, st := range q.steps {
		if st.cartesian { // C(u) as the one list of a one-vertex graph, cut like the others
			c := r.cands[st.u]
			r.segs[cartKey(st.u)] = segments(&labelGraph{offsets: []uint64{0, uint64(len(c))}, nbrs: c}, maxSeg)
		}
	}
	r.cached = map[segKey][2]uint64{}
	r.pendN = make([]uint64, q.n+1)
	r.flushAt = min(2*r.arenaCap, maxFlush)
	r.outMax = ^uint64(0)
	if r.hostLimit > 0 {
		// The pending tables of all levels share what --memory leaves; each may hold flushAt
		// words plus one chunk's output before it is joined, and grows by half again.
		left := (r.ownLimit() - min(r.ownLimit(), r.hostOwn())) / 4
		r.flushAt = max(1, min(r.flushAt, left/uint64(3*q.n)))
		r.outMax = max(uint64(q.n), r.flushAt)
	}
	// Level 0: C(order[0]), or this runner's share of it (deal.go).
	first := r.cands[q.order[0]]
	if r.part != nil {
		first = r.part.pre.parts[r.part.i]
	}
	if q.n == 1 {
		return r.finish(first, 1)
	}
	if err := r.zero(r.sumOff, 2); err != nil {
		return err
	}
	// A pattern of three vertices counted out of core: its rows generated from edges, no table.
	done, err := false, error(nil)
	if r.directOK() {
		done, err = r.directEdges(first)
	}
	if !done {
		err = r.level(0, first)
	}
	if r.count {
		// The final step's counts so far (a lower bound when the count was cut short).
		if e := r.drainSum(); err == nil {
			err = e
		}
		if err == nil {
			err = r.kernelCut()
		}
		r.st.PerStep[len(r.st.PerStep)-1].Out = r.total
		// Each match stands for q.aut embeddings (a lower bound too when cut short).
		var ok bool
		if r.total, ok = checked.Mul(r.total, q.aut); !ok && err == nil {
			err = engine.ErrOverflow
		}
	}
	return err
}

// errCutLive: a count's kernel left its work early while the count's context was still running
// (the backend raised its stop flag on its own).
var errCutLive = errors.New("sgsi: a kernel of the count stopped with the count's context running")

// kernelCut returns the context's error when a count's kernel left its work early (the count is
// then partial, as when the context's end is seen between chunks): a kernel stopped during the
// last block or the last step's last chunk (added up on the device, not read back) leaves no
// later check of the context to report it.
func (r *runner) kernelCut() error {
	ks, ok := r.be.(kernelStopper)
	if !ok {
		return nil
	}
	if cut, err := ks.cut(); err != nil || !cut {
		return err
	}
	if err := r.ctx.Err(); err != nil {
		return err
	}
	return errCutLive
}

// filter runs the signature filter on the device (the signature table streamed through the
// region above the fixed words of candidate bitsets at bitsOff) and reads the bitsets back into
// bitsHost and the candidate lists cands.
func (r *runner) filter(fixed uint64) error {
	g, q := r.s.g, r.q
	nv := g.NumVertices()
	W := r.be.Words()
	if err := r.zero(r.bitsOff, fixed); err != nil {
		return err
	}
	qs := fixed
	if err := r.put(qs, q.sigs); err != nil {
		return err
	}
	if err := r.put(qs+uint64(len(q.sigs)), q.vlabels); err != nil {
		return err
	}
	area := qs + uint64(len(q.sigs)+len(q.vlabels))
	chunkV := min((W-area)/(sigWords+1), maxKernelIndex/sigWords-32) / 32 * 32
	if chunkV == 0 {
		return fmt.Errorf("sgsi: no room to filter: %w", engine.ErrMemory)
	}
	for base := uint64(0); base < uint64(nv); base += chunkV {
		k := min(chunkV, uint64(nv)-base)
		for j := range uint64(sigWords) {
			if err := r.put(area+j*k, r.s.sigs[j*uint64(nv)+base:j*uint64(nv)+base+k]); err != nil {
				return err
			}
		}
		if err := r.put(area+sigWords*k, g.VertexLabels()[base:base+k]); err != nil {
			return err
		}
		if err := checkKernel(k, 0); err != nil {
			return err
		}
		a := filterArgs{Sigs: area, Labels: area + sigWords*k, N: uint32(k), Base: uint32(base), QSigs: qs,
			QLab: qs + uint64(len(q.sigs)), NQ: uint32(q.n), Bits: r.bitsOff, Words: uint32(r.bitWords)}
		if err := r.kernel(func() error { return r.be.Filter(a) }); err != nil {
			return err
		}
	}
	if err := r.reserve("the candidate bitsets", 0); err != nil { // (counted in hostShared)
		return err
	}
	bitsHost := make([]uint32, fixed)
	if err := r.get(bitsHost, r.bitsOff); err != nil {
		return err
	}
	if r.refine {
		// One round of neighbourhood refinement on the host, the bitsets then uploaded again.
		r.st.Refined = refineCandidates(g, q.p, bitsHost, r.bitWords, r.threads)
		if err := r.put(r.bitsOff, bitsHost); err != nil {
			return err
		}
	}
	r.bitsHost = bitsHost
	r.cands = make([][]uint32, q.n)
	for u := range q.n {
		b := bitsHost[uint64(u)*r.bitWords : uint64(u+1)*r.bitWords]
		size := uint64(0)
		for _, x := range b {
			size += uint64(bits.OnesCount32(x))
		}
		if err := r.reserveShared("the candidate lists", 4*size); err != nil {
			return err
		}
		r.cands[u] = make([]uint32, 0, size)
		for w, x := range b {
			for ; x != 0; x &= x - 1 {
				r.cands[u] = append(r.cands[u], uint32(w*32+bits.TrailingZeros32(x)))
			}
		}
		if size == 0 {
			return nil
		}
	}
	return nil
}

// drainSum adds the device counter of the final step's counts to the total and zeroes it.
func (r *runner) drainSum() error {
	var c [2]uint32
	if err := r.get(c[:], r.sumOff); err != nil {
		return err
	}
	r.sumChunks = 0
	var ok bool
	if r.total, ok = checked.Add(r.total, uint64(c[0])|uint64(c[1])<<32); !ok {
		return engine.ErrOverflow
	}
	return r.zero(r.sumOff, 2)
}

// finish counts or emits a final table of width w.
func (r *runner) finish(table []uint32, w int) error {
	if r.count {
		var ok bool
		if r.total, ok = checked.Add(r.total, uint64(len(table)/w)); !ok {
			return engine.ErrOverflow
		}
		return nil
	}
	m := make([]uint32, r.q.n)
	for i := 0; i+w <= len(table); i += w {
		for j, u := range r.q.order {
			m[u] = table[i+j]
		}
		if !r.emit(m) {
			r.stop = true
			return nil
		}
	}
	return nil
}

// segment makes segment i of key resident and returns its offsets' and neighbours' region
// offsets, and its offsets' vertices (0: dense offsets; see gather). refs, when set, are the
// (sorted, distinct) vertices of the segment whose lists the chunk reads: out of core, when their
// lists take less than half the segment and the segment is not resident, only they are uploaded
// (the others' lists empty), for this use only.
func (r *runner) segment(key lgKey, i int, refs []uint32) (uint64, uint64, uint32, error) {
	k := segKey{key, i, invalid}
	if at, one, ok := r.lookup(key, i, refs); ok {
		nref := uint32(0)
		if one && sparse(1, r.segs[key][i].lo, r.segs[key][i].hi) {
			nref = 1
		}
		return at[0], at[1], nref, nil
	}
	sg := r.segs[key][i]
	n := uint64(len(sg.neighbours()))
	keep := true
	if refs != nil && !r.st.InCore {
		if m := r.refWords(sg, refs); 2*m < n {
			// Gather: the referenced lists, packed; the other vertices' lists empty.
			nOff, nref := r.gather(sg.lo, sg.hi, r.segs[key][i:i+1], refs, m)
			keep = len(refs) == 1
			if keep {
				k.v = refs[0]
			}
			r.st.Gathered++
			off, nbr, err := r.upload(k, keep, nOff)
			return off, nbr, nref, err
		}
	}
	// The whole segment: its local offsets then its neighbours, one copy.
	r.stage = sg.localOffsets(r.stage)
	r.stage = append(r.stage, sg.neighbours()...)
	if sg.head() > 0 || sg.tail() {
		r.st.Parts++
	}
	off, nbr, err := r.upload(k, keep, uint64(sg.hi-sg.lo)+1)
	return off, nbr, 0, err
}

// lookup returns the region offsets of segment i of key when it is resident, whole or (refs of
// one vertex, one set) as that vertex's gathered list.
func (r *runner) lookup(key lgKey, i int, refs []uint32) (at [2]uint64, one, ok bool) {
	if at, ok := r.cached[segKey{key, i, invalid}]; ok {
		r.st.SegmentHits++
		return at, false, true
	}
	if len(refs) == 1 {
		// One vertex's list alone (windows of one row, chunks of one first vertex): kept too.
		if at, ok := r.cached[segKey{key, i, refs[0]}]; ok {
			r.st.SegmentHits++
			return at, true, true
		}
	}
	return [2]uint64{}, false, false
}

// sparse reports whether a gathered upload of n lists of the vertices [lo, hi) takes their
// vertices and offsets (2n+1 words) rather than every vertex's offset (hi-lo+1 words).
func sparse(n int, lo, hi uint32) bool { return 2*uint64(n)+1 < uint64(hi-lo)+1 }

// refWords is the length of the lists of refs (vertices of the whole segment sg).
func (r *runner) refWords(sg segment, refs []uint32) uint64 {
	n := uint64(0)
	for _, v := range refs {
		from, to := sg.lg.span(v)
		n += min(to, sg.ehi) - max(from, sg.elo)
	}
	return n
}

// gather stages the lists of refs (sorted, within segs, which cover [lo, hi) in order), m words,
// after their offsets, and returns the offsets' words and vertices: dense (0 vertices), the local
// offset of every vertex of [lo, hi), the others' lists empty; or, when shorter (sparse), refs
// then their offsets, the kernels finding a row's vertex among refs by binary search. Dense
// offsets took one word a vertex of the range whatever the chunk read: about half of what went
// to the device out of core once the label graphs held one label's neighbours (issue 21).
func (r *runner) gather(lo, hi uint32, segs []segment, refs []uint32, m uint64) (uint64, uint32) {
	list := func(s *int, v uint32) []uint32 {
		for segs[*s].hi <= v {
			*s++
		}
		sg := segs[*s]
		from, to := sg.lg.span(v)
		return sg.lg.nbrs[max(from, sg.elo):min(to, sg.ehi)]
	}
	if n := uint64(len(refs)); sparse(len(refs), lo, hi) {
		nOff := 2*n + 1
		g := grow(&r.stage, nOff+m)
		copy(g, refs)
		at, s := nOff, 0
		for x, v := range refs {
			g[n+uint64(x)] = uint32(at - nOff)
			at += uint64(copy(g[at:], list(&s, v)))
		}
		g[2*n] = uint32(at - nOff)
		r.stage = g[:at]
		r.st.Sparse++
		return nOff, uint32(n)
	}
	nOff := uint64(hi-lo) + 1
	g := grow(&r.stage, nOff+m)
	at := nOff
	x, s := 0, 0
	for v := lo; v < hi; v++ {
		g[v-lo] = uint32(at - nOff)
		if x < len(refs) && refs[x] == v {
			at += uint64(copy(g[at:], list(&s, v)))
			x++
		}
	}
	g[hi-lo] = uint32(at - nOff)
	r.stage = g[:at]
	return nOff, 0
}

// upload copies the staged segment (nOff local offsets, then its lists) into the cache ring and,
// with keep, records it resident under k.
func (r *runner) upload(k segKey, keep bool, nOff uint64) (uint64, uint64, error) {
	w := uint64(len(r.stage))
	if w > r.cacheCap {
		return 0, 0, fmt.Errorf("sgsi: a segment of %d bytes %w (segment cache %d bytes): %w", 4*w, errNoFit, 4*r.cacheCap, engine.ErrMemory)
	}
	// The cache is a ring: the upload goes at the cursor (back to the start when it does not fit
	// before the end) and evicts only the segments it overwrites.
	if r.cacheUsed+w > r.cacheCap {
		r.cacheUsed = 0
	}
	lo, hi := r.cacheOff+r.cacheUsed, r.cacheOff+r.cacheUsed+w
	live := r.resident[:0]
	for _, e := range r.resident {
		if e.at < hi && lo < e.end {
			delete(r.cached, e.k)
		} else {
			live = append(live, e)
		}
	}
	r.resident = live
	if err := r.put(lo, r.stage); err != nil {
		return 0, 0, err
	}
	r.cacheUsed += w
	r.st.OffsetBytes += 4 * nOff
	at := [2]uint64{lo, lo + nOff}
	if keep {
		r.cached[k] = at
		r.resident = append(r.resident, resident{k, lo, hi})
	}
	r.st.Segments++
	return at[0], at[1], nil
}

// gatherRun returns the end of the run of segments from i that edge uploads as one gathered
// segment, only the lists the chunk reads: whole segments (no list cut at either end), none
// resident, together within the cache (the run is used by the launches queued right after it and
// kept for no other). A run of one is left to segment, which may keep it (whole, or one vertex's
// list).
func (r *runner) gatherRun(key lgKey, t [][]uint32, i int) int {
	if r.st.InCore || r.oneSegment {
		return i + 1
	}
	segs := r.segs[key]
	var dense, refs, lists uint64 // the run's dense offsets, vertices read and their lists
	e := i
	for ; e < len(segs); e++ {
		sg := segs[e]
		if sg.head() > 0 || sg.tail() {
			break
		}
		if _, ok := r.cached[segKey{key, e, invalid}]; ok {
			break
		}
		m := r.refWords(sg, t[e])
		if len(t[e]) == 1 && e == i {
			break // one vertex's list (kept): segment's
		}
		d, n := dense+uint64(sg.hi-sg.lo), refs+uint64(len(t[e]))
		if min(d, 2*n)+1+lists+m > min(r.cacheCap, maxKernelIndex) { // gather's upload
			break
		}
		dense, refs, lists = d, n, lists+m
	}
	for e > i && len(t[e-1]) == 0 {
		e-- // no trailing segments without lists read
	}
	return max(e, i+1)
}

// resident is a segment in the cache: its key and its words [at, end) of the region.
type resident struct {
	k       segKey
	at, end uint64
}

// touched returns, for each of key's segments, the sorted distinct vertices of column col of the
// rows that it holds (nil: none); win, when set, limits them to the segments holding the list
// positions [win[0], win[1]) (one row). The slices are reused by the next call.
func (r *runner) touched(key lgKey, rows []uint32, width, col int, win *[2]uint64) [][]uint32 {
	segs := r.segs[key]
	for len(r.refs) < len(segs) {
		r.refs = append(r.refs, nil)
	}
	t := r.refs[:len(segs)]
	for i := range t {
		t[i] = t[i][:0]
	}
	first := 0 // the first segment holding the last row's vertex
	for i := col; i < len(rows); i += width {
		v := rows[i]
		// Rows sorted by this column (the first edge's) mostly stay in the segment of the last.
		if f := &segs[first]; v < f.lo || v >= f.hi || first > 0 && segs[first-1].hi > v {
			first = find(segs, v)
		}
		for s := first; s < len(segs) && segs[s].lo <= v; s++ {
			if win != nil {
				from := segs[s].lg.start(v)
				if segs[s].ehi <= from+win[0] || segs[s].elo >= from+win[1] {
					continue
				}
			}
			if n := len(t[s]); n == 0 || t[s][n-1] != v { // a run of one vertex: once
				t[s] = append(t[s], v)
			}
		}
	}
	for i, x := range t {
		if len(x) > 1 {
			slices.Sort(x)
			t[i] = slices.Compact(x)
		}
	}
	return t
}

// leafOrder sorts the leaf step's table by the columns a closed tail's (a tail with ws) memo
// of W is keyed by (u's and the ws' but the latest: tailMemoCols), the earliest column the
// most significant, out of core only: there the joins' chunks are sorted by another column,
// so u's vertex changes from row to row and the tail's A and memos miss (issue 21,
// q20/q_12_1 at a quarter of the layout: 3.4x its in-core time); in core the rows come in
// their prefix order. A radix sort per column, stable, where --memory has room for its buffer
// beside the leaf step's memos, set up first (leafWorkers): the sort is for them, and
// reserveRows would let them go for its buffer (rev33's note: under a tight --memory a larger
// table's sort shed them for the rest of the count). Without the room, one sort by comparisons
// of the columns together, in place.
func (r *runner) leafOrder(table []uint32) error {
	k := r.q.joined
	if r.st.InCore || k < 2 {
		return nil
	}
	i := slices.IndexFunc(r.q.tails, func(t leafTail) bool { return len(t.ws) > 0 })
	if i < 0 {
		return nil
	}
	ts := time.Now()
	defer func() { r.st.Group += time.Since(ts) }()
	_, cols := tailMemoCols(&r.q.tails[i])
	cols = slices.Sorted(slices.Values(cols))
	if _, err := r.leafWorkers(len(table) / k); err != nil {
		return err
	}
	buf := r.sortBufferWithin(uint64(len(table)), r.reserve)
	if buf == nil {
		sort.Sort(colsSorter{rowSorter{table, k, rowOrder{}, make([]uint32, k)}, cols})
		return nil
	}
	for _, c := range slices.Backward(cols) {
		if err := sortRows(r.ctx, table, buf, k, rowOrder{col: c}, bits.Len32(uint32(r.s.g.NumVertices())), r.threads); err != nil {
			return err
		}
	}
	return nil
}

// colsSorter orders a table's rows by the columns cols, the first the most significant.
type colsSorter struct {
	rowSorter
	cols []int
}

func (s colsSorter) Less(i, j int) bool {
	a, b := s.t[i*s.k:(i+1)*s.k], s.t[j*s.k:(j+1)*s.k]
	for _, c := range s.cols {
		if a[c] != b[c] {
			return a[c] < b[c]
		}
	}
	return false
}

// level joins step i into table (rows of width i+1), chunk by chunk, recursing depth first on
// each chunk's output.
func (r *runner) level(i int, table []uint32) error {
	defer r.enterStep(r.enterStep(i))
	r.st.PerStep[i].Rows += uint64(len(table) / (i + 1))
	if i == len(r.q.steps) { // the leaf step: a row of every joined vertex
		if err := r.leafOrder(table); err != nil {
			return err // (the table's rows mixed up: the count is partial)
		}
		return r.leafCount(table)
	}
	st := &r.q.steps[i]
	final := i == len(r.q.steps)-1 && !r.q.counted()
	desc := r.desc(st)
	if final && r.directOK() {
		if done, err := r.directTable(i, st, table, desc); done || err != nil {
			return err
		}
	}
	t := time.Now()
	groups, err := r.byShortest(st, table, i+1, !(final && r.count))
	r.st.Group += time.Since(t)
	if err != nil {
		return err // (the table's rows mixed up: the count or listing is partial)
	}
	for _, g := range groups {
		if err := r.join(i, g.st, g.rows, g.order, desc, final); err != nil || r.stop {
			return err
		}
	}
	if final {
		return nil
	}
	return r.flush(i + 1)
}

// rowGroup is a part of a table joined with one choice of the step's first linking edge, and the
// order of its rows out of core.
type rowGroup struct {
	st    *step
	rows  []uint32
	order rowOrder
}

// rowOrder is an order of a table's rows: by column col, or, tiled (shift > 0), by column tile's
// blocks of 2^shift vertices, then col within each block.
type rowOrder struct {
	col, tile int
	shift     uint
}

func (o rowOrder) tiled() bool { return o.shift > 0 }

// less compares rows a and b.
func (o rowOrder) less(a, b []uint32) bool {
	if o.tiled() && a[o.tile]>>o.shift != b[o.tile]>>o.shift {
		return a[o.tile]>>o.shift < b[o.tile]>>o.shift
	}
	return a[o.col] < b[o.col]
}

// byShortest splits table (in place) by the linking edge whose list is the shortest for each row
// (ties: the plan's first edge) and returns the parts, each with the step taking that edge as its
// first: a row's buffer then holds its shortest list, and the other edges are intersected with
// it. Any linking edge may fill the buffers (each is a condition on the new vertex, the first
// adds the candidate, distinctness and order checks), so the matches are the same; the buffers,
// and so the chunks and the lists they read, are smaller.
//
// Out of core each part is then ordered (join sorts it) for the lists its chunks read: a chunk
// reads the lists of its rows' vertices in every linking column, so the rows are sorted by the
// column of the longest lists in all, and tiled by the first edge's column (whose lists, the
// buffers', are the shorter) in blocks of about four chunks' rows: a chunk then reads a narrow
// range of the long lists and one block's short lists, not lists from every segment. With
// spill, the chunk's rows take half the arena (join). It returns the context's error, the table's
// rows mixed up, when the context ends (looked at every sortCheckRows rows a goroutine: R-MAT
// scale 18's 4-cycles split tens of millions of rows, 0.2 s on the emulation).
func (r *runner) byShortest(st *step, table []uint32, k int, spill bool) ([]rowGroup, error) {
	if st.cartesian || len(st.others) == 0 {
		return []rowGroup{{st, table, rowOrder{col: st.first.col}}}, nil
	}
	links := append([]link{st.first}, st.others...)
	lgs := make([]*labelGraph, len(links))
	for j, l := range links {
		lgs[j] = r.s.label(l.key)
	}
	n := len(table) / k
	if cap(r.grp) < n {
		r.grp = make([]uint8, n, n+n/4)
	}
	grp := r.grp[:n]
	nw := rowWorkers(n, r.threads)
	// sums[w][b*len(links)+j]: the length of link j's lists over worker w's rows of group b.
	sums := make([][]uint64, nw)
	var stopped atomic.Bool
	par.For(nw, nw, func(w int) {
		sum := make([]uint64, len(links)*len(links))
		rowBlocks(r.ctx, &stopped, w*n/nw, (w+1)*n/nw, 1, func(from, to int) {
			var d [32]uint64
			for row := from; row < to; row++ {
				best := 0
				for j := range links {
					d[j] = lgs[j].degree(table[row*k+links[j].col])
					if d[j] < d[best] {
						best = j
					}
				}
				grp[row] = uint8(best)
				for j := range links {
					sum[best*len(links)+j] += d[j]
				}
			}
		})
		sums[w] = sum
	})
	if stopped.Load() {
		return nil, r.ctx.Err()
	}
	rs := rowSorter{table, k, rowOrder{}, make([]uint32, k)}
	var out []rowGroup
	lo := 0
	for j := range links {
		// Rows of link j to [lo, a).
		a, b := lo, n-1
		for steps := 1; a <= b; steps++ {
			if steps%sortCheckRows == 0 {
				if err := r.ctx.Err(); err != nil {
					return nil, err
				}
			}
			switch {
			case int(grp[a]) == j:
				a++
			case int(grp[b]) != j:
				b--
			default:
				rs.Swap(a, b)
				grp[a], grp[b] = grp[b], grp[a]
				a++
				b--
			}
		}
		if a == lo {
			continue
		}
		v := st
		if j > 0 {
			v = &step{u: st.u, first: links[j], less: st.less, greater: st.greater, nonadj: st.nonadj}
			for x, l := range links {
				if x != j {
					v.others = append(v.others, l)
				}
			}
		}
		out = append(out, rowGroup{v, table[lo*k : a*k], r.rowOrder(links, j, sums, a-lo, k, spill)})
		lo = a
	}
	return out, nil
}

// rowOrder is the order (see byShortest) of the n rows of width k that take links[j] as their
// first edge; sums are byShortest's list lengths per worker.
func (r *runner) rowOrder(links []link, j int, sums [][]uint64, n, k int, spill bool) rowOrder {
	total := func(x int) uint64 {
		t := uint64(0)
		for _, sum := range sums {
			t += sum[j*len(links)+x]
		}
		return t
	}
	o := rowOrder{col: links[j].col, tile: links[j].col}
	most := uint64(0)
	for x, l := range links {
		if t := total(x); t > most {
			o.col, most = l.col, t
		}
	}
	if o.col == o.tile || n == 0 {
		return rowOrder{col: o.col}
	}
	// A chunk's rows: the arena (half of it, to spill) over a row's words and mean buffer.
	area := r.arenaCap
	if spill {
		area /= 2
	}
	perChunk := max(1, area/(uint64(k+3)+total(j)/uint64(n)))
	blocks := uint64(n) / (4 * perChunk)
	nv := uint64(r.s.g.NumVertices())
	if blocks < 2 {
		return rowOrder{col: o.col}
	}
	o.shift = uint(max(1, bits.Len64(nv/blocks)-1))
	return o
}

// kernelFunc is a join kernel as a method expression (Backend.First...): unlike a method value
// (r.be.First), passing one allocates nothing.
type kernelFunc func(Backend, joinArgs) error

// join joins step i (with st's first edge) into the rows of table, chunk by chunk.
func (r *runner) join(i int, st *step, table []uint32, order rowOrder, desc []uint32, final bool) error {
	k := i + 1
	rows := len(table) / k
	var firstLG *labelGraph
	if !st.cartesian {
		firstLG = r.s.label(st.first.key)
	}
	deg := func(row int) uint64 {
		if st.cartesian {
			return uint64(len(r.cands[st.u]))
		}
		return firstLG.degree(table[row*k+st.first.col])
	}
	const descWords = 2 + 2 + 64 // the counter, then the descriptor
	pace := r.pacer(i)
	if !st.cartesian && k > 1 && !r.st.InCore {
		// Rows in order (byShortest): a chunk then reads narrow ranges of the label graphs'
		// segments, the next chunk the ranges after them.
		t := time.Now()
		if err := sortRows(r.ctx, table, r.sortBuffer(uint64(len(table))), k, order, bits.Len32(uint32(r.s.g.NumVertices())), r.threads); err != nil {
			return err // (the table's rows mixed up: the count is partial)
		}
		if order.tiled() {
			r.st.Tiled++
		}
		r.st.Group += time.Since(t)
	}
	for start := 0; start < rows; {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		// The chunk: as many rows as fit with their buffers and, for a table to spill, room
		// for the longest row's output.
		var T, maxDeg uint64
		end := start
		for end < rows {
			d := deg(end)
			n := uint64(end - start + 1)
			in := descWords + n*uint64(k+3) + 2 + T + d // the chunk's rows, offsets and buffers
			words := in
			if !(final && r.count) {
				words += max(maxDeg, d) * uint64(k+1)
			}
			// A chunk to spill takes at most half the arena (or one row), leaving the rest to
			// its output: bounding only its buffers left rows of short lists, many to a chunk,
			// room for one row's output, and their output went back in a batch of a few rows
			// at a time, each a copy back that waits for the device (54,570 at R-MAT scale 21,
			// 1/64).
			spill := !(final && r.count)
			if words > r.arenaCap || T+d >= maxKernelIndex || n >= maxKernelIndex/sigWords || (spill && end > start && in > r.arenaCap/2) || (spill && (T+d)*uint64(k+1) > r.outMax) || (end > start && T+d > pace.limit()) {
				break
			}
			T += d
			maxDeg = max(maxDeg, d)
			end++
		}
		if end == start {
			// One row whose buffer (and output) does not fit: joined in windows of its first
			// list, one chunk each.
			if err := r.windows(i, st, table[start*k:end*k+k], deg(start), desc, final); err != nil || r.stop {
				return err
			}
			start++
			continue
		}
		t := time.Now()
		if err := r.chunk(i, st, table[start*k:end*k], T, desc, final, nil); err != nil || r.stop {
			return err
		}
		pace.took(T, time.Since(t))
		start = end
	}
	return nil
}

// windows joins one row whose buffer of d words does not fit the region, a window of its first
// list (or of C(u)) at a time.
func (r *runner) windows(i int, st *step, row []uint32, d uint64, desc []uint32, final bool) error {
	k := uint64(i + 1)
	const descWords = 2 + 2 + 64
	room := r.arenaCap - min(r.arenaCap, descWords+k+3+2)
	spill := !(final && r.count)
	if spill {
		// Room for one output row at least; a window whose output turns out not to fit is
		// joined again in halves (errWindow), so windows are not sized for every entry surviving.
		room -= min(room, k+1)
	}
	most := min(room, maxKernelIndex-1)
	if most == 0 {
		return fmt.Errorf("sgsi: one row of %d words with one buffer entry %w (%d words for tables): %w", k, errNoFit, r.arenaCap, engine.ErrMemory)
	}
	pace := r.pacer(i)
	win := min(most, pace.limit())
	for p := uint64(0); p < d; {
		w := [2]uint64{p, min(d, p+win)}
		r.st.Windows++
		t := time.Now()
		err := r.chunk(i, st, row, w[1]-w[0], desc, final, &w)
		if errors.Is(err, errWindow) && w[1]-w[0] > 1 {
			r.st.WindowRetries++
			win = (w[1] - w[0]) / 2
			continue
		}
		if err != nil || r.stop {
			return err
		}
		pace.took(w[1]-w[0], time.Since(t))
		p = w[1]
		win = min(most, 2*win, pace.limit())
	}
	return nil
}

// Chunks are sized by time as well as by memory: the context is checked between chunks, so a
// chunk's time is how late a cancelled count stops (within a second, the project's rule). In
// core, the memory bounds alone let one chunk of a dense step run for tens of seconds (a 12-vertex
// walk on R-MAT scale 23 on an H200: 51 s in one step, stopped 80 s after its deadline).
const (
	// chunkTarget is the time a join chunk should take.
	chunkTarget = 200 * time.Millisecond
	// firstChunkItemsDefault is a step's first chunk's buffer entries (SGSI's T); leastChunkItems the
	// fewest a chunk is cut to (a chunk always takes one row or one window).
	firstChunkItemsDefault = 1 << 22
	leastChunkItems        = 1 << 10
)

// firstChunkItems is firstChunkItemsDefault (a variable so that tests can cut steps into many
// chunks).
var firstChunkItems uint64 = firstChunkItemsDefault

// pacer sizes one join step's chunks by the time its chunks took: one that took over
// chunkTarget scales the next to the target, one under a quarter of it that used at least half
// of its limit doubles it.
type pacer struct{ items uint64 }

// pacer returns step i's pacer.
func (r *runner) pacer(i int) *pacer {
	if len(r.paces) < r.q.n {
		r.paces = make([]pacer, r.q.n)
	}
	return &r.paces[i]
}

// limit is the most buffer entries the next chunk may take.
func (p *pacer) limit() uint64 {
	if p.items == 0 {
		p.items = firstChunkItems
	}
	return p.items
}

// took records that a chunk of items entries took d.
func (p *pacer) took(items uint64, d time.Duration) {
	lim := p.limit()
	switch {
	case d > chunkTarget:
		p.items = max(leastChunkItems, uint64(float64(items)*float64(chunkTarget)/float64(d)))
	case d < chunkTarget/4 && items >= lim/2:
		p.items = min(2*lim, maxKernelIndex)
	}
}

// errWindow is chunk's answer for a window whose output does not fit the chunk area or --memory.
var errWindow = errors.New("sgsi: a window's output does not fit")

// chunk joins one chunk of rows (SGSI's Algorithms 2-5 with Prealloc-Combine) and spills its
// output to the host: the next level's table, or the matches.
func (r *runner) chunk(i int, st *step, rows []uint32, T uint64, desc []uint32, final bool, win *[2]uint64) error {
	r.st.Chunks++
	r.st.PerStep[i].Items += T
	k := i + 1
	R := uint64(len(rows) / k)
	if err := checkKernel(R, T); err != nil {
		return err
	}
	// Region layout of the chunk.
	a := r.arenaOff
	totalOff := a
	descOff := a + 2
	rowsOff := descOff + 66
	fOff := rowsOff + R*uint64(k)
	idxOff := fOff + R + 1
	cntOff := idxOff + R
	gbaOff := cntOff + R + 1
	outOff := gbaOff + T
	// Buffer offsets (Algorithm 3), then the rows dealt to the load-balance layers (balance.go).
	F := grow(&r.fBuf, R+1)
	F[0] = 0
	lg := (*labelGraph)(nil)
	if !st.cartesian {
		lg = r.s.label(st.first.key)
	}
	for j := range R {
		d := uint64(len(r.cands[st.u]))
		if lg != nil {
			d = lg.degree(rows[j*uint64(k)+uint64(st.first.col)])
		}
		if win != nil {
			d = win[1] - win[0]
		}
		F[j+1] = F[j] + uint32(d)
	}
	idx := grow(&r.idxBuf, R)
	lay := r.deal(i, F, idx)
	// The descriptor, rows, offsets and index lie side by side from descOff: one copy.
	h := grow(&r.stage, idxOff+R-descOff)
	clear(h[copy(h, desc) : rowsOff-descOff])
	copy(h[rowsOff-descOff:], rows)
	copy(h[fOff-descOff:], F)
	copy(h[idxOff-descOff:], idx)
	if err := r.put(descOff, h); err != nil {
		return err
	}
	base := joinArgs{Rows: rowsOff, Width: uint32(k), F: fOff, Bits: r.bitsOff + uint64(st.u)*r.bitWords,
		Desc: descOff, GBA: gbaOff, Cnt: cntOff, Total: totalOff, WinHi: invalid}
	if win != nil {
		base.WinLo, base.WinHi = uint32(win[0]), uint32(win[1])
	}
	launch := func(a joinArgs, f kernelFunc) error { return r.launchLayers(a, f, idxOff, &lay, false) }
	// The first edge, segment by segment (Algorithm 4).
	if st.cartesian {
		// C(u), part by part: every row's buffer gets each part at its position in C(u).
		for s, sg := range r.segs[cartKey(st.u)] {
			if win != nil && (sg.ehi <= win[0] || sg.elo >= win[1]) {
				continue
			}
			_, nb, _, err := r.segment(cartKey(st.u), s, nil)
			if err != nil {
				return err
			}
			a := base
			a.Col, a.SegNbr, a.Hi, a.Head = invalid, nb, uint32(sg.ehi-sg.elo), uint32(sg.elo)
			if err := launch(a, Backend.First); err != nil {
				return err
			}
		}
	} else {
		if err := r.edge(base, st.first, rows, k, launch, Backend.First, false, win, nil); err != nil {
			return err
		}
	}
	// The other linking edges (Algorithm 5), then the non-edges of induced matching. A window's
	// entries lie in the value range of its part of the first list: parts of other lists that
	// decide no value in it are skipped.
	var vals *[2]uint32
	if win != nil && !st.cartesian {
		list := lg.list(rows[st.first.col])
		vals = &[2]uint32{list[win[0]], list[win[1]-1]}
	}
	for _, l := range st.others {
		if err := r.edge(base, l, rows, k, launch, Backend.Intersect, false, nil, vals); err != nil {
			return err
		}
	}
	for _, l := range st.nonadj {
		if err := r.edge(base, l, rows, k, launch, Backend.Intersect, true, nil, vals); err != nil {
			return err
		}
	}
	r.used(outOff)
	if final && r.count {
		// Added up on the device: no copy back, so the chunk's copies and kernels queue behind
		// the last ones without a wait. A chunk adds under 2^32 (its buffers' length), so the
		// 64-bit counter is read before 2^31 chunks could wrap it.
		c := base
		c.Total = r.sumOff
		if err := launch(c, Backend.Count); err != nil {
			return err
		}
		if r.sumChunks++; r.sumChunks == 1<<31 {
			return r.drainSum()
		}
		return nil
	}
	// Prealloc-Combine's second pass: counts, offsets, then copies in batches that fit.
	if err := r.zero(cntOff, R); err != nil {
		return err
	}
	cnt := grow(&r.cntBuf, R+1)
	b := base
	b.HasCnt = 1
	if err := launch(b, Backend.Count); err != nil {
		return err
	}
	if err := r.readJoin(cnt[:R], cntOff); err != nil {
		return err
	}
	O := grow(&r.oBuf, R+1)
	O[0] = 0
	for j := range R {
		O[j+1] = O[j] + cnt[j]
	}
	if err := r.put(cntOff, O); err != nil {
		return err
	}
	outCap := r.arenaOff + r.arenaCap - outOff
	w := uint64(k + 1)
	if win != nil && (uint64(O[R])*w > outCap || uint64(O[R])*w > r.outMax) {
		r.st.PerStep[i].Items -= T // joined again in halves
		return errWindow           // before anything is spilled: windows() retries with half the window
	}
	r.st.PerStep[i].Out += uint64(O[R])
	// The output joins the next level's pending table (pinned host memory), which is joined
	// when it holds flushAt words: deeper levels then get full chunks, not one chunk's output.
	at := uint64(0)
	if !final {
		at = r.pendN[i+1]
	}
	if err := r.table(i+1, at+uint64(O[R])*w, at); err != nil {
		return err
	}
	tt := time.Now()
	next, err := r.be.HostTable(i+1, at+uint64(O[R])*w, at)
	r.st.Tables += time.Since(tt)
	if err != nil {
		return err
	}
	r.noteHost(i+1, uint64(len(next)))
	for lo := uint64(0); lo < R; {
		hi := lo + 1
		for hi < R && uint64(O[hi+1]-O[lo])*w <= outCap {
			hi++
		}
		if uint64(O[hi]-O[lo])*w > outCap {
			return fmt.Errorf("sgsi: one row's output %w: %w", errNoFit, engine.ErrMemory)
		}
		l := base
		l.Out, l.A, l.B = outOff, uint32(lo), uint32(hi)
		if err := r.launchLayers(l, Backend.Link, idxOff, &lay, true); err != nil {
			return err
		}
		n := uint64(O[hi]-O[lo]) * w
		r.used(outOff + n)
		if err := r.readJoin(next[at+uint64(O[lo])*w:at+uint64(O[lo])*w+n], outOff); err != nil {
			return err
		}
		lo = hi
	}
	if final {
		err = r.finish(next, int(w))
		r.noteHost(i+1, 0)
		return err
	}
	r.pendN[i+1] = uint64(len(next))
	if r.pendN[i+1] >= r.flushAt || r.pendN[i+1] >= r.flushAt/growFlushFrac && r.pendN[i+1]+r.maxOut[i+1] > r.tabCap[i+1] {
		return r.flush(i + 1) // (the second: rather than copy its rows into a larger table)
	}
	return nil
}

// flush joins level's pending table.
func (r *runner) flush(level int) error {
	n := r.pendN[level]
	if n == 0 {
		return nil
	}
	t := time.Now()
	tab, err := r.be.HostTable(level, n, n)
	r.st.Tables += time.Since(t)
	if err != nil {
		return err
	}
	r.pendN[level] = 0
	err = r.level(level, tab)
	r.noteHost(level, 0)
	return err
}

// edge runs kernel f for link l over every segment the rows touch (win: see touched; vals, when
// set, the value range of the buffers' entries: parts of a list outside it are skipped). Out of
// core, runs of neighbouring segments whose lists are gathered go up as one segment: one copy
// and one launch for them all.
func (r *runner) edge(base joinArgs, l link, rows []uint32, k int, launch func(joinArgs, kernelFunc) error, f kernelFunc, negate bool, win *[2]uint64, vals *[2]uint32) error {
	t, d := time.Now(), r.st.Driver
	err := r.edgeSegments(base, l, rows, k, launch, f, negate, win, vals)
	r.st.Refs += time.Since(t) - (r.st.Driver - d) // (the copies and launches are Driver's)
	return err
}

// edgeSegments is edge less its timing.
func (r *runner) edgeSegments(base joinArgs, l link, rows []uint32, k int, launch func(joinArgs, kernelFunc) error, f kernelFunc, negate bool, win *[2]uint64, vals *[2]uint32) error {
	segs := r.segs[l.key]
	t := r.touched(l.key, rows, k, l.col, win)
	for s := 0; s < len(t); s++ {
		refs := t[s]
		if len(refs) == 0 {
			continue
		}
		sg := segs[s]
		if vals != nil && sg.hi == sg.lo+1 && (sg.head() > 0 || sg.tail()) {
			// A part of one list decides the values in (prev, last]: none of [vals[0], vals[1]]?
			if sg.head() > 0 && vals[1] <= sg.prev() || sg.tail() && vals[0] > sg.lg.nbrs[sg.ehi-1] {
				continue
			}
		}
		a := base
		var err error
		if e := r.gatherRun(l.key, t, s); e > s+1 {
			m := uint64(0)
			all := r.runRefs[:0]
			for j := s; j < e; j++ {
				m += r.refWords(segs[j], t[j])
				all = append(all, t[j]...)
			}
			r.runRefs = all
			lo, hi := sg.lo, segs[e-1].hi
			nOff, nref := r.gather(lo, hi, segs[s:e], all, m)
			r.st.Gathered++
			r.st.Merged += uint64(e - s)
			a.NRef = nref
			a.SegOff, a.SegNbr, err = r.upload(segKey{}, false, nOff)
			a.Lo, a.Hi = lo, hi
			s = e - 1
		} else {
			a.SegOff, a.SegNbr, a.NRef, err = r.segment(l.key, s, refs)
			a.Lo, a.Hi = sg.lo, sg.hi
			a.Head, a.Prev = uint32(sg.head()), sg.prev()
			if sg.tail() {
				a.Tail = 1
			}
		}
		if err != nil {
			return err
		}
		a.Col = uint32(l.col)
		if negate {
			a.Negate = 1
		}
		if err := launch(a, f); err != nil {
			return err
		}
	}
	return nil
}

// noteHost records level's table size (words) and the peak of all levels'.
func (r *runner) noteHost(level int, words uint64) {
	for len(r.hostIn) <= level {
		r.hostIn = append(r.hostIn, 0)
	}
	r.hostIn[level] = words
	sum := uint64(0)
	for _, w := range r.hostIn {
		sum += w
	}
	r.st.PeakHost = max(r.st.PeakHost, 4*sum)
}

// label returns the label graph of key, building it first when --memory leaves room for it.
func (r *runner) label(key lgKey) (*labelGraph, error) {
	var reserve func(uint64) error
	if r.hostLimit > 0 {
		reserve = func(bytes uint64) error { return r.reserveShared("a label graph", bytes) }
	}
	lg, b, err := r.s.build(key, r.threads, reserve)
	if err == nil && b.Key != "" { // (built here, not by an earlier count)
		r.st.LabelBuilds = append(r.st.LabelBuilds, b)
	}
	return lg, err
}

// edgeEntries is the store's, counted on the count's threads.
func (r *runner) edgeEntries(key uint64) uint64 { return r.s.edgeEntries(key, r.threads) }

// hostShared is the host memory held that a dealt count's runners share (deal.go): the store
// (signatures, label graphs), the candidate bitsets' host copy and the candidate lists, the
// first runner's.
func (r *runner) hostShared() uint64 {
	b := r.s.bytes() + 4*uint64(r.q.n)*r.bitWords
	for _, c := range r.cands {
		b += 4 * uint64(len(c))
	}
	return b
}

// hostOwn is the host memory this runner holds alone: its spilled tables, its sort buffer and
// the leaf step's sizes.
func (r *runner) hostOwn() uint64 {
	b := 4 * uint64(cap(r.sortBuf))
	for _, c := range r.tabCap {
		b += 4 * c
	}
	return b + r.leafBytes()
}

// runners is how many runners share --memory: those of a dealt count, else 1.
func (r *runner) runners() uint64 {
	if r.part == nil {
		return 1
	}
	return uint64(max(1, len(r.part.pre.parts)))
}

// ownLimit is what --memory leaves this runner for hostOwn: an even share of what the shared
// memory leaves (all of it on one runner).
func (r *runner) ownLimit() uint64 {
	return (r.hostLimit - min(r.hostLimit, r.hostShared())) / r.runners()
}

// reserve checks that bytes more of host memory, this runner's own, stay within --memory: every
// runner of a dealt count may hold as much (the shared memory, plus the runners' own, within
// the limit).
func (r *runner) reserve(what string, bytes uint64) error {
	return r.reserveAs(what, 0, bytes)
}

// reserveRows is reserve for a table or the sort's buffer: over --memory, the leaf step's
// memos and sizes, caches the step counts without, are let go first (shedLeafMemos), so that a
// count that fits without them is not stopped by them.
func (r *runner) reserveRows(what string, bytes uint64) error {
	err := r.reserve(what, bytes)
	if err != nil && r.shedLeafMemos() {
		err = r.reserve(what, bytes)
	}
	return err
}

// reserveShared checks that bytes more of host memory that a dealt count's runners share (the
// store's label graphs, the candidate lists) stay within --memory.
func (r *runner) reserveShared(what string, bytes uint64) error {
	return r.reserveAs(what, bytes, 0)
}

func (r *runner) reserveAs(what string, shared, own uint64) error {
	if r.hostLimit == 0 {
		return nil
	}
	n := r.runners()
	held := r.hostShared() + n*r.hostOwn()
	if held+shared+n*own > r.hostLimit {
		if n > 1 {
			what = fmt.Sprintf("%s (each of %d runners)", what, n)
		}
		return fmt.Errorf("sgsi: %s need %d bytes of host memory beside the %d held, over %s %d: %w", what, shared+own, held, memoryBound, r.hostLimit, engine.ErrMemory)
	}
	return nil
}

// table checks, before level's host table grows to n words, that --memory has room for it
// (backends allocate half again as much), and counts the keep words a growth copies; the
// n - keep words added are an output spilled into it (maxOut).
func (r *runner) table(level int, n, keep uint64) error {
	for len(r.tabCap) <= level {
		r.tabCap = append(r.tabCap, 0)
		r.maxOut = append(r.maxOut, 0)
	}
	r.maxOut[level] = max(r.maxOut[level], n-keep)
	if n <= r.tabCap[level] {
		return nil
	}
	if err := r.reserveRows("the spilled tables", 4*(n+n/2-r.tabCap[level])); err != nil {
		return err
	}
	r.tabCap[level] = n + n/2
	if keep > 0 {
		r.st.TableCopied += 4 * keep
	}
	return nil
}

// sortRows sorts a table's rows of k words in order o, in place, by the values' bits (keyBits:
// the values are below 2^keyBits): with buf, a buffer of the table's size, by a radix sort (rows
// of 2 to 8 words moved as arrays, wider ones word by word; a tiled order by col, then stably by
// the tile column's high bits); without, by comparisons (rows of 2 to 8 words as arrays, wider
// ones or a tiled order through rowSorter). A table of millions of rows took seconds to sort by
// comparisons (R-MAT scale 22: a third of the runner's host time); the radix sort moves each
// row twice or three times (a tiled order: twice as many).
//
// The radix sort looks at ctx every sortCheckRows rows a goroutine counts or moves: once ctx has
// ended it returns ctx's error within about a millisecond, t's rows then mixed up (the caller
// discards the table). The sort by comparisons (no buffer) does not look at ctx.
func sortRows(ctx context.Context, t, buf []uint32, k int, o rowOrder, keyBits, workers int) error {
	if len(t)/max(k, 1) < 2 {
		return nil
	}
	if buf != nil {
		scatter := scatterRows
		if k < len(arrayScatters) && arrayScatters[k] != nil {
			scatter = arrayScatters[k]
		}
		if err := radixSort(ctx, t, buf, k, o.col, 0, keyBits, workers, scatter); err != nil || !o.tiled() {
			return err
		}
		return radixSort(ctx, t, buf, k, o.tile, int(o.shift), keyBits, workers, scatter)
	}
	if k < len(arraySorts) && arraySorts[k] != nil && !o.tiled() {
		arraySorts[k](t, o.col)
		return nil
	}
	sort.Sort(rowSorter{t, k, o, make([]uint32, k)})
	return nil
}

// arraySorts[k] sorts rows of k words, 2 to 8, as arrays; arrayScatters[k] moves them in a
// radix sort's pass.
var (
	arraySorts = [...]func([]uint32, int){2: sortArrays[[2]uint32], 3: sortArrays[[3]uint32], 4: sortArrays[[4]uint32],
		5: sortArrays[[5]uint32], 6: sortArrays[[6]uint32], 7: sortArrays[[7]uint32], 8: sortArrays[[8]uint32]}
	arrayScatters = [...]scatterFunc{2: scatterArrays[[2]uint32], 3: scatterArrays[[3]uint32], 4: scatterArrays[[4]uint32],
		5: scatterArrays[[5]uint32], 6: scatterArrays[[6]uint32], 7: scatterArrays[[7]uint32], 8: scatterArrays[[8]uint32]}
)

// rowArray is a table row of 2 to 8 words.
type rowArray interface {
	[2]uint32 | [3]uint32 | [4]uint32 | [5]uint32 | [6]uint32 | [7]uint32 | [8]uint32
}

// asArrays views t as rows of len(A) words.
func asArrays[A rowArray](t []uint32) []A {
	var z A
	return unsafe.Slice((*A)(unsafe.Pointer(unsafe.SliceData(t))), len(t)/len(z))
}

// sortArrays sorts t, rows of len(A) words, by column col, viewed as a slice of A.
func sortArrays[A rowArray](t []uint32, col int) {
	slices.SortFunc(asArrays[A](t), func(a, b A) int { return cmp.Compare(a[col], b[col]) })
}

// radixDigits returns the passes and bits a pass of a radix sort on keyBits bits: digits of at
// most 12 bits (a histogram within the L1 cache), as few passes as that allows.
func radixDigits(keyBits int) (passes, bits int) {
	keyBits = max(keyBits, 1)
	passes = (keyBits + 11) / 12
	return passes, (keyBits + passes - 1) / passes
}

// minWorkerRows is the fewest rows a goroutine of the host's table passes (radixSort, byShortest)
// takes: below it a pass is not worth a goroutine.
const minWorkerRows = 1 << 14

// rowWorkers is the goroutines of a pass over n rows on up to workers (<= 0: all cores).
func rowWorkers(n, workers int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return max(1, min(workers, n/minWorkerRows))
}

// sortCheckRows is how many rows a goroutine of radixSort counts or moves between two looks at
// its context: 2^15 rows of 5 words are about a millisecond's work (BenchmarkSortRows), a look
// some nanoseconds.
const sortCheckRows = 1 << 15

// rowBlocks calls f on the words [lo, hi) of a table's rows of k words, sortCheckRows rows at a
// time, while ctx lasts and stopped is not set; it sets stopped when ctx has ended.
func rowBlocks(ctx context.Context, stopped *atomic.Bool, lo, hi, k int, f func(lo, hi int)) {
	for at := lo; at < hi; at += sortCheckRows * k {
		if stopped.Load() || ctx.Err() != nil {
			stopped.Store(true)
			return
		}
		f(at, min(hi, at+sortCheckRows*k))
	}
}

// radixSort sorts t, rows of k words, by the bits [from, keyBits) of column col (values below
// 2^keyBits), through buf (as long as t): a stable least-significant-digit radix sort, each pass
// moving the rows by scatter,
// on up to workers goroutines (<= 0: all cores), each counting then moving its own range of rows
// (the device's host has 16 cores; the runner's other work waits for the sort). It returns ctx's
// error, t's rows mixed up, when ctx ends (looked at every sortCheckRows rows).
func radixSort(ctx context.Context, t, buf []uint32, k, col, from, keyBits, workers int, scatter scatterFunc) error {
	if keyBits <= from {
		return nil
	}
	src, dst := t, buf[:len(t)]
	passes, bits := radixDigits(keyBits - from)
	n := len(t) / k
	nw := rowWorkers(n, workers)
	counts := make([][1 << 12]int, nw)
	rows := func(w int) (int, int) { return w * n / nw * k, (w + 1) * n / nw * k }
	var stopped atomic.Bool
	blocks := func(w int, f func(lo, hi int)) {
		lo, hi := rows(w)
		rowBlocks(ctx, &stopped, lo, hi, k, f)
	}
	for p := range passes {
		shift, mask := uint(from+p*bits), uint32(1)<<bits-1
		par.For(nw, nw, func(w int) {
			c := counts[w][:1<<bits]
			clear(c)
			blocks(w, func(lo, hi int) {
				for i := lo + col; i < hi; i += k {
					c[src[i]>>shift&mask]++
				}
			})
		})
		if stopped.Load() {
			return ctx.Err()
		}
		at := 0
		for d := range 1 << bits {
			for w := range counts {
				counts[w][d], at = at, at+counts[w][d] // where each digit's rows of range w start
			}
		}
		par.For(nw, nw, func(w int) {
			blocks(w, func(lo, hi int) { scatter(src[lo:hi], dst, k, col, counts[w][:1<<bits], shift, mask) })
		})
		if stopped.Load() {
			return ctx.Err()
		}
		src, dst = dst, src
	}
	if passes%2 == 1 {
		par.For(nw, nw, func(w int) {
			lo, hi := rows(w)
			copy(t[lo:hi], buf[lo:hi])
		})
	}
	return nil
}

// scatterFunc moves the rows of src (k words each) to dst in a radix sort's pass: a row whose
// digit (column col's value >> shift & mask) is d goes to row c[d], which then moves on.
type scatterFunc func(src, dst []uint32, k, col int, c []int, shift uint, mask uint32)

// scatterArrays is a scatterFunc for rows of len(A) words, moved as arrays.
func scatterArrays[A rowArray](src, dst []uint32, _, col int, c []int, shift uint, mask uint32) {
	s, d := asArrays[A](src), asArrays[A](dst)
	for i := range s {
		x := s[i][col] >> shift & mask
		d[c[x]] = s[i]
		c[x]++
	}
}

// scatterRows is a scatterFunc for rows of any width, moved word by word.
func scatterRows(src, dst []uint32, k, col int, c []int, shift uint, mask uint32) {
	for i := 0; i+k <= len(src); i += k {
		x := src[i+col] >> shift & mask
		copy(dst[c[x]*k:c[x]*k+k], src[i:i+k])
		c[x]++
	}
}

// rowSorter sorts a table's rows of k words in order o, in place.
type rowSorter struct {
	t   []uint32
	k   int
	o   rowOrder
	tmp []uint32
}

func (s rowSorter) Len() int { return len(s.t) / s.k }
func (s rowSorter) Less(i, j int) bool {
	return s.o.less(s.t[i*s.k:(i+1)*s.k], s.t[j*s.k:(j+1)*s.k])
}
func (s rowSorter) Swap(i, j int) {
	a, b := s.t[i*s.k:(i+1)*s.k], s.t[j*s.k:(j+1)*s.k]
	copy(s.tmp, a)
	copy(a, b)
	copy(b, s.tmp)
}

// grow returns (*buf)[:n], reallocating when it is shorter.
func grow(buf *[]uint32, n uint64) []uint32 {
	if uint64(cap(*buf)) < n {
		*buf = make([]uint32, n, n+n/4)
	}
	return (*buf)[:n]
}
