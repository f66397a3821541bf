// Package stmatch is the GPU depth-first engine (--engine stmatch): one persistent kernel, each
// warp runs the plan's nested loops as an explicit stack over the candidate space, with per-level
// candidate sets in the warp's slice of a global buffer, so memory stays fixed whatever the result
// count.
//
// The current (second) version: a generic kernel that interprets the plan, all four semantics,
// counting and listing on one or several GPUs (matches stream through a bounded buffer per
// device: a launch also ends when it is full, and the rows that did not fit wait in the work
// queue). Work units are roots, heavy roots split over their level-1 candidates and ordered
// heaviest first; a level starts from the stored set of the level its plan reuses (Reuse/Extra);
// postponed leaf groups, isolated pattern vertices included, are counted combinatorially, a
// collision class of several groups by the CPU engine's Venn-region programme.
// Below the units, a device work queue balances the load: a warp that has been on one unit or
// task for a while gives the upper half of its shallowest open loop to idle warps, and at the end
// of every time slice each warp spills its whole stack into the queue, which the next launch
// resumes (so launches stay short and cancellation is prompt). With several GPUs each device pulls
// ranges of units from a shared dispenser and keeps its own queue. The first version's kernel is
// kept (Options.V1) for comparison.
//
// The kernel source is compiled two ways: generic (the plan's structure read from metadata) and
// per query (codegen.go writes each level's sources and checks out as code); by default a count
// starts generic and switches to the per-query kernel once a background compile has it ready.
// A plan whose candidate space would be too large runs on the data graph's adjacency lists
// instead (graph mode; patterns without edge labels). A level's buffer holds at most
// Options.PieceCap candidates; a longer set is computed and iterated in pieces (Stats.Pieces).
// Unrolling: the last level is counted, and leaf products computed, for 32 candidates of the
// level above at once (a lane each), so that short sets fill the warp.
//
// Counting: each warp keeps a 64-bit count per launch and writes it to its own slot; the host adds
// the slots with carry detection (engine.ErrOverflow). In v2 the leaf groups' products and the
// additions to a warp's count are checked on the device too (a flag the host reads after each
// launch), except a two-level plan's per-root counts (bounded by the list lengths); v1 does not
// check a single warp passing 2^64 within one launch.
//
// Cancellation: the context is checked between launches, and a launch ends after its time slice
// (Options.Slice, default maxLaunch) unless one warp is inside a single huge set operation; a
// cancelled count returns the matches counted so far with Partial set.
package stmatch

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"submatch/engine"
	"submatch/gpu"
	"submatch/graph"
	"submatch/pattern"
	"submatch/plan"
)

//go:embed kernels/stmatch.cu
var kernelSource string

//go:embed kernels/stmatch_v1.cu
var kernelSourceV1 string

// KernelSource returns the CUDA source of the generic kernel.
func KernelSource() string { return kernelSource }

const (
	kernelFile    = "stmatch.cu"
	kernelName    = "stmatch_count"
	kernelFileV1  = "stmatch_v1.cu"
	queryFile     = "stmatch_query.cu" // the per-query kernel's name in NVRTC messages
	kernelNameV1  = "stmatch_count_v1"
	threadsBlock  = 128
	warpsPerBlock = threadsBlock / 32
	blocksPerSM   = 16
	// maxLaunch is the kernel time below which the next batch of roots grows (4x).
	maxLaunch = 100 * time.Millisecond
)

var errSpaceTooLarge = errors.New("stmatch: the candidate space is too large, and the pattern needs it (edge labels, or the v1 kernel): use --engine cpu")

// Options select the kernel's features; the zero value runs everything of the current version.
type Options struct {
	// V1 runs the first version's kernel (kernels/stmatch_v1.cu): one root per work unit, no
	// reuse. Kept for comparison; NoSplit and NoReuse are then implied.
	V1 bool
	// NoSplit gives every root one work unit (no splitting of heavy roots, roots in order).
	NoSplit bool
	// NoReuse intersects every backward list at every level (plan Reuse/Extra ignored).
	NoReuse bool
	// NoLeaves enumerates every pattern vertex (plan built with Enumerate) instead of counting
	// postponed leaf groups.
	NoLeaves bool
	// NoMultiply counts every embedding of a symmetric pattern instead of the symmetry-broken
	// matches times |Aut(pattern)|.
	NoMultiply bool
	// NoSteal turns off the donation of work to idle warps (the end-of-slice spills remain).
	NoSteal bool
	// Slice is the time after which a launch's warps stop and spill their work into the queue
	// for the next launch (0: maxLaunch). Shorter slices make cancellation quicker.
	Slice time.Duration
	// DonateAfter is how long a warp must have been on its current unit or task before it gives
	// half of it to an idle warp (0: defaultDonateAfter). Moving a short subtree costs more than
	// it saves: the thief recomputes the prefix's sets.
	DonateAfter time.Duration
	// NoSpace runs without the candidate space, on the data graph's adjacency lists, as a count
	// does when the space would exceed plan.DefaultSpaceLimit (for the checks of that path).
	NoSpace bool
	// Kernel chooses between the generic kernel and the per-query kernel generated from the
	// plan (codegen.go); the zero value is KernelTiered. Both kernels are checked against the CPU
	// engine.
	Kernel KernelChoice
	// NoUnrollLeaves computes the leaf products one last-level candidate at a time (the warp
	// striding over its lists) instead of 32 at once, one a lane when their lists are short (the
	// default, for plans whose collision classes are single groups).
	NoUnrollLeaves bool
	// UnrollClasses unrolls the leaf products (as by default) also for plans with collision
	// classes of several groups, each lane counting its candidate's classes alone
	// (class_count_t<true>). Off until the device check has run it (github Q_20's leaves form
	// such a class).
	UnrollClasses bool
	// NoIsolatedLeaves enumerates isolated pattern vertices as levels (the Enumerate plan)
	// instead of counting them from their candidate lists (leaf groups without parents) on the
	// device, as the CPU engine does.
	NoIsolatedLeaves bool
	// NoUnroll counts the last level for one candidate of the level above at a time, not for 32
	// at once (unrolling fills the lanes when the sets are short).
	NoUnroll bool
	// PieceCap bounds the buffer of each level of a warp (candidates; 0: defaultPieceCap, at
	// least minPieceCap). A level whose set could be longer computes it in pieces of at most
	// that many, so the grid does not shrink for high-degree graphs; tiny values force that path
	// for the checks. The v1 kernel has no pieces.
	PieceCap uint64

	// replicas runs that many independent runs on each device (0, 1: one), as if each were a
	// GPU of its own: the device checks exercise the several-GPU paths (shared work units,
	// listing from several devices) on a machine with one.
	replicas int
}

// replicate returns devs with each device repeated n times (n < 2: devs).
func replicate(devs []*gpu.Device, n int) []*gpu.Device {
	if n < 2 {
		return devs
	}
	out := make([]*gpu.Device, 0, n*len(devs))
	for _, d := range devs {
		for range n {
			out = append(out, d)
		}
	}
	return out
}

// flatOptions is how a count with options o lays out its plan (listing stores the last level).
func (o Options) flatOptions(listing bool) flatOptions {
	fo := flatOptions{reuse: !o.V1 && !o.NoReuse, storeLast: listing, pieceCap: o.PieceCap}
	if fo.pieceCap == 0 {
		fo.pieceCap = defaultPieceCap
	}
	if o.V1 {
		fo.pieceCap = 0
	}
	return fo
}

// KernelChoice says which kernel runs a count. The generic kernel interprets the plan's metadata
// and is compiled once; the per-query kernel has the plan's levels written out as code, which
// NVRTC needs a while to compile for every new query shape (then it is cached on disk).
type KernelChoice int

const (
	// KernelTiered starts on the per-query kernel when it is cached already, else on the generic
	// one, and compiles the per-query kernel in the background once a count needs a second
	// launch, switching to it at the first launch after it is ready.
	KernelTiered KernelChoice = iota
	// KernelGeneric runs the generic kernel only.
	KernelGeneric
	// KernelQuery compiles the per-query kernel before the first launch and runs it only.
	KernelQuery
)

// ParseKernelChoice reads tiered, generic or query (--stmatch-kernel).
func ParseKernelChoice(s string) (KernelChoice, error) {
	switch s {
	case "tiered", "":
		return KernelTiered, nil
	case "generic":
		return KernelGeneric, nil
	case "query":
		return KernelQuery, nil
	}
	return 0, fmt.Errorf("stmatch kernel must be tiered, generic or query, not %q", s)
}

// buildPlan builds the plan the options call for: without Enumerate (postponed leaf groups
// counted by the kernel) when the v2 kernel can count its groups and counting them saves work,
// else with Enumerate. A single group of one vertex saves nothing: the Enumerate plan counts that
// vertex as its last level, and can start it from a reused set (on the H100, wiki-Vote 4-clique
// embeddings: 14.4 ms with the closing vertex as a leaf group, 6.2 ms enumerated).
// Building stops early with ctx's error when ctx ends (the candidate space of a graph with
// hundreds of millions of edges takes a while). A second plan, and every plan when base (a plan
// of g and pat built by another engine) is given, reuses the filtered candidates (plan.Rebuild).
func buildPlan(ctx context.Context, g *graph.Graph, pat *pattern.Pattern, sem engine.Semantics, o Options, base *plan.Plan) (*plan.Plan, error) {
	// Counting embeddings of a symmetric pattern breaks symmetry and multiplies by |Aut| (as the
	// CPU engine does); listing (NoLeaves) and v1 enumerate every embedding.
	opts := plan.Options{Induced: sem.Induced, Unique: sem.Unique, Enumerate: o.V1 || o.NoLeaves,
		MultiplyAutomorphisms: !o.V1 && !o.NoLeaves && !o.NoMultiply}
	if o.NoSpace {
		opts.SpaceLimit = -1
	}
	pl, err := plan.BuildFrom(ctx, g, pat, base, opts)
	if err != nil {
		return nil, err
	}
	single := len(pl.Groups) == 1 && len(pl.Groups[0].Vertices) == 1 && len(pl.Groups[0].Parents) > 0
	if pl.Space == nil && !pl.Empty {
		// No candidate space (too large): the kernel runs on the graph's adjacency lists,
		// which leaf counting cannot use. Do not try to build the space a second time.
		opts.SpaceLimit = -1
		single = true
	}
	if !opts.Enumerate && (!leafCountable(pl) || single || (isolatedGroups(pl) && o.NoIsolatedLeaves)) {
		opts.Enumerate = true
		return plan.Rebuild(ctx, g, pl, opts)
	}
	return pl, nil
}

// isolatedGroups reports whether some leaf group of pl has no parents (isolated pattern vertices).
func isolatedGroups(pl *plan.Plan) bool {
	for _, g := range pl.Groups {
		if len(g.Parents) == 0 {
			return true
		}
	}
	return false
}

// Engine is the stmatch engine; the zero value is ready to use.
type Engine struct{ Options Options }

func init() {
	engine.Register(Engine{})
	// `submatch gpu-info --compile` warms the cache for the generic kernel: its cold NVRTC
	// compile takes about 12 s on the H100 host, which a first count would otherwise pay.
	gpu.RegisterKernel(kernelFile, kernelSource)
}

// Name implements engine.Engine.
func (Engine) Name() string { return "stmatch" }

// ListsMatches tells --engine auto that Matches lists on the GPU.
func (Engine) ListsMatches() bool { return true }

// Stats reports where the time of a count went and how the kernel ran. With several GPUs the
// times are those of the slowest device and the counters are summed.
type Stats struct {
	Device      string
	GPUs        int           // devices that took part
	CacheHit    bool          // the kernel came from the disk or memory cache
	Compile     time.Duration // compile (or cache load)
	Upload      time.Duration // allocation and host-to-device copies
	Kernel      time.Duration // sum of the launches' kernel times (CUDA events)
	Total       time.Duration // the whole Count, planning included
	Launches    int
	Blocks      int
	Warps       int
	BufferBytes uint64 // per-warp set buffers, all warps
	DeviceBytes uint64 // everything allocated
	// PerWarpBytes is what one more warp costs (set buffers, count, queue slots).
	PerWarpBytes uint64
	Levels       int
	StrideWords  uint64 // one warp's buffer, uint32 words
	Roots        uint64
	Units        uint64 // work units (roots, or parts of split roots)
	Version      int    // 1: the v1 kernel, 2: the current one
	Groups       int    // postponed leaf groups counted by the kernel
	// Multiplier is |Aut(pattern)| when embeddings were counted as symmetry-broken matches, else 1.
	Multiplier uint64
	// Work queue (v2): its slots per device, and the tasks donated to idle warps, spilled at the
	// end of time slices and taken from the queue.
	QueueSlots              uint64
	Donated, Spilled, Taken uint64
	// Pieces counts the pieces of level sets that a warp moved on to after finishing the one
	// before (sets longer than their buffer, Options.PieceCap); pieces recomputed for a task
	// taken from the queue are not counted.
	Pieces uint64
	// QueryKernel is set when the per-query kernel ran (from the first launch, or from
	// QueryLaunches before the end with KernelTiered); QueryCompile is its NVRTC time (0 when it
	// came from the cache; with KernelTiered it ran in the background).
	QueryKernel   bool
	QueryCompile  time.Duration
	QueryLaunches int
}

// Count implements engine.Engine.
func (e Engine) Count(ctx context.Context, p *engine.Problem) (engine.Result, error) {
	res, _, err := CountOptions(ctx, p, e.Options)
	return res, err
}

// devices returns the GPUs a count uses: those named by p.GPUs, or all.
func devices(ctx context.Context, p *engine.Problem) ([]*gpu.Device, error) {
	devs, err := gpu.Open(ctx)
	if err != nil {
		return nil, fmt.Errorf("stmatch: %w", err)
	}
	if len(devs) == 0 {
		return nil, fmt.Errorf("stmatch: %w", gpu.ErrNoGPU)
	}
	if p == nil || len(p.GPUs) == 0 {
		return devs, nil
	}
	var out []*gpu.Device
	for _, k := range p.GPUs {
		if k < 0 || k >= len(devs) {
			return nil, fmt.Errorf("stmatch: GPU %d asked for, %d available", k, len(devs))
		}
		if !slices.Contains(out, devs[k]) {
			out = append(out, devs[k])
		}
	}
	return out, nil
}

// device returns the first GPU.
func device(ctx context.Context) (*gpu.Device, error) {
	devs, err := devices(ctx, nil)
	if err != nil {
		return nil, err
	}
	return devs[0], nil
}

// CountStats is Count that also reports timings and launch shape.
func CountStats(ctx context.Context, p *engine.Problem) (engine.Result, Stats, error) {
	return CountOptions(ctx, p, Options{})
}

// CountOptions is CountStats with the kernel's features selected by o.
func CountOptions(ctx context.Context, p *engine.Problem, o Options) (engine.Result, Stats, error) {
	return countFrom(ctx, p, o, nil)
}

// CountFrom is Count reusing the filtered candidates of base, a plan another engine built for the
// same data graph and pattern (with any options): --engine auto decides with the CPU plan and
// then delegates here. A base for another pattern is ignored.
func (e Engine) CountFrom(ctx context.Context, p *engine.Problem, base *plan.Plan) (engine.Result, error) {
	res, _, err := countFrom(ctx, p, e.Options, base)
	return res, err
}

// countFrom is CountOptions with an optional base plan (see CountFrom).
func countFrom(ctx context.Context, p *engine.Problem, o Options, base *plan.Plan) (engine.Result, Stats, error) {
	var st Stats
	t0 := time.Now()
	if p.Data == nil || p.Pattern == nil {
		return engine.Result{}, st, fmt.Errorf("stmatch engine: problem needs a data graph and a pattern")
	}
	devs, err := devices(ctx, p)
	if err != nil {
		return engine.Result{}, st, err
	}
	if o.V1 {
		devs = devs[:1]
	} else {
		devs = replicate(devs, o.replicas)
	}
	st.Device, st.GPUs = devs[0].String(), len(devs)
	pl, err := buildPlan(ctx, p.Data, p.Pattern, p.Semantics, o, base)
	if err != nil {
		return engine.Result{Partial: true}, st, err
	}
	res := engine.Result{PlanTime: time.Since(t0)}
	if pl.Empty {
		st.Total = time.Since(t0)
		return res, st, ctx.Err()
	}
	fp, err := flattenOn(p.Data, pl, o.flatOptions(false))
	if err == nil && fp.Graph && o.V1 {
		err = errSpaceTooLarge
	}
	if err != nil {
		return engine.Result{}, st, err
	}
	st.Levels, st.StrideWords, st.Roots, st.Groups = fp.L, fp.Stride, fp.NumRoots, fp.G
	st.Version = 2
	if o.V1 {
		st.Version = 1
	}
	count, partial, err := countOn(ctx, devs, p, fp, o, &st)
	if err == nil && pl.Multiplier > 1 {
		hi, lo := bits.Mul64(count, pl.Multiplier)
		if hi != 0 {
			err = engine.ErrOverflow
		}
		count = lo
	}
	st.Multiplier = pl.Multiplier
	st.Total = time.Since(t0)
	res.Count, res.Partial, res.DeviceTime = count, partial, st.Kernel
	if err != nil {
		if partial {
			return res, st, err
		}
		return engine.Result{}, st, err
	}
	return res, st, nil
}

// countOn runs the count on devs, one goroutine per device pulling ranges of work units, and sums
// their counts.
func countOn(ctx context.Context, devs []*gpu.Device, p *engine.Problem, fp *flatPlan, o Options, st *Stats) (uint64, bool, error) {
	var units []uint64
	if !o.V1 {
		units = fp.makeUnits(gridWarps(devs), !o.NoSplit)
		st.Units = uint64(len(units))
	} else {
		st.Units = fp.NumRoots
	}
	disp := newDispenser(uint64(len(units)), devs)
	runs := make([]*deviceRun, len(devs))
	counts := make([]uint64, len(devs))
	partials := make([]bool, len(devs))
	errs := make([]error, len(devs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for k, d := range devs {
		runs[k] = newDeviceRun(d, p.GPUMemoryLimit)
		wg.Add(1)
		go func(r *deviceRun, k int) {
			defer wg.Done()
			defer r.free()
			if err := r.prepare(p, fp, o, units); err != nil {
				errs[k] = err
				cancel()
				return
			}
			if o.V1 {
				counts[k], partials[k], errs[k] = r.runV1(ctx, p, fp)
			} else {
				counts[k], partials[k], errs[k] = r.run(ctx, p, fp, o, disp, nil)
			}
			if errs[k] != nil && !partials[k] {
				cancel()
			}
		}(runs[k], k)
	}
	wg.Wait()
	mergeStats(st, runs)
	// A device's own failure wins over the cancellations it caused on the others.
	for k := range devs {
		if errs[k] != nil && !partials[k] {
			return 0, false, errs[k]
		}
	}
	var total uint64
	partial := false
	var ctxErr error
	for k := range devs {
		var carry uint64
		total, carry = bits.Add64(total, counts[k], 0)
		if carry != 0 {
			return 0, false, engine.ErrOverflow
		}
		partial = partial || partials[k]
		if errs[k] != nil && ctxErr == nil {
			ctxErr = errs[k]
		}
	}
	return total, partial, ctxErr
}

// mergeStats folds the devices' statistics into st: times of the slowest, sums of the counters.
func mergeStats(st *Stats, runs []*deviceRun) {
	for _, r := range runs {
		s := &r.st
		st.CacheHit = st.CacheHit || s.CacheHit
		st.Compile = max(st.Compile, s.Compile)
		st.Upload = max(st.Upload, s.Upload)
		st.Kernel = max(st.Kernel, s.Kernel)
		st.Launches += s.Launches
		st.Blocks += s.Blocks
		st.Warps += s.Warps
		st.BufferBytes += s.BufferBytes
		st.DeviceBytes += s.DeviceBytes
		st.PerWarpBytes = max(st.PerWarpBytes, s.PerWarpBytes)
		st.QueueSlots = max(st.QueueSlots, s.QueueSlots)
		st.Donated += s.Donated
		st.Pieces += s.Pieces
		st.Spilled += s.Spilled
		st.Taken += s.Taken
		st.QueryKernel = st.QueryKernel || s.QueryKernel
		st.QueryCompile = max(st.QueryCompile, s.QueryCompile)
		st.QueryLaunches += s.QueryLaunches
	}
}

// free releases the run's device memory, recording in its statistics how much it held.
func (r *deviceRun) free() {
	r.st.DeviceBytes = r.mem.Used()
	r.mem.FreeAll()
}

// deviceRun is one GPU's share of a count: the compiled kernel, the uploaded plan and buffers.
type deviceRun struct {
	d      *gpu.Device
	fn     *gpu.Function
	mem    gpu.Allocs // the count's buffers, within its --gpu-memory (Limit 0: the device budget alone)
	blocks int
	warps  int
	st     Stats

	meta, off, val, cands, units, buf, counts, ctl, tasks, seq *gpu.Buffer
	gOff, gAdj                                                 gpu.DevicePtr
	queueCap                                                   uint64

	// querySrc is the per-query kernel's source while KernelTiered has not switched to it yet;
	// tier delivers its background compile.
	querySrc string
	tier     chan tierResult
	shared   uint32 // dynamic shared memory per block (the plan metadata), set by prepare
}

// residentBlocks is how many blocks of f the device runs at once with r's shared memory (the
// occupancy calculator's count per SM; blocksPerSM per SM when it cannot say): the grid of a
// launch, before memory limits it.
func (r *deviceRun) residentBlocks(f *gpu.Function) int {
	perSM := blocksPerSM
	if n, err := f.ActiveBlocksPerSM(threadsBlock, r.shared); err == nil && n > 0 {
		perSM = n
	}
	return max(1, r.d.Info().SMs) * perSM
}

type tierResult struct {
	mod *gpu.Module
	err error
}

// tierUp runs before every launch of a KernelTiered count: before the second launch it starts
// compiling the per-query kernel in the background (a count that ends in one launch never pays
// for it), and at the first launch after the compile is done it switches to that kernel. Both
// kernels read and write the same buffers and leave nothing on the device between launches but
// the work queue, so the switch is free. A failed compile leaves the generic kernel running.
func (r *deviceRun) tierUp() {
	if r.querySrc == "" || r.st.Launches == 0 {
		return
	}
	if r.tier == nil {
		r.tier = make(chan tierResult, 1)
		go func(src string) {
			m, err := r.d.Compile(src, queryFile, nil)
			r.tier <- tierResult{m, err}
		}(r.querySrc)
		return
	}
	var t tierResult
	select {
	case t = <-r.tier:
	default:
		return
	}
	r.querySrc = ""
	err := t.err
	var f *gpu.Function
	if err == nil {
		f, err = t.mod.Function(kernelName)
	}
	if err == nil {
		// The grid stays as large as the buffers, unless the per-query kernel fits fewer blocks
		// at once: the warps of blocks no longer launched then count 0 from here on.
		if resident := r.residentBlocks(f); resident < r.blocks {
			if err = r.counts.Memset(0); err == nil {
				r.blocks = resident
			}
		}
	}
	if err != nil {
		slog.Warn("stmatch: the per-query kernel is not used; the generic kernel goes on", "err", err)
		return
	}
	r.fn = f
	r.st.QueryKernel, r.st.QueryCompile = true, t.mod.CompileTime
}

// newDeviceRun starts d's share of a count that may allocate limit bytes there (0: no limit but
// the device budget).
func newDeviceRun(d *gpu.Device, limit uint64) *deviceRun {
	return &deviceRun{d: d, mem: gpu.Allocs{Device: d, Limit: limit, Prefix: "stmatch: "}}
}

// taskBytes is one queue slot: the task's words and the slot's sequence number.
const taskBytes = taskWords*4 + 8

// queueSlots is the work queue's capacity for warps warps and L levels: room for every warp to
// spill one task per level at the end of a slice, plus donations (at most about one per warp
// outstanding), rounded up to a power of two.
func queueSlots(warps, L int) uint64 {
	need := uint64(warps) * uint64(L+2)
	c := uint64(1)
	for c < need {
		c <<= 1
	}
	return c
}

// prepare compiles the kernel and uploads everything a count needs on r.d; the grid is as large
// as both the kernel's occupancy and the memory left allow.
func (r *deviceRun) prepare(p *engine.Problem, fp *flatPlan, o Options, units []uint64) error {
	tc := time.Now()
	src, file, name := kernelSource, kernelFile, kernelName
	if o.V1 {
		src, file, name = kernelSourceV1, kernelFileV1, kernelNameV1
	}
	var mod *gpu.Module
	var err error
	if !o.V1 && o.Kernel != KernelGeneric {
		if r.querySrc, err = specialise(kernelSource, fp); err != nil {
			return err
		}
		if o.Kernel == KernelQuery {
			mod, err = r.d.Compile(r.querySrc, queryFile, nil)
		} else {
			mod, err = r.d.Cached(r.querySrc, queryFile, nil)
		}
		if err != nil {
			return fmt.Errorf("stmatch: compiling the per-query kernel: %w", err)
		}
		if mod != nil {
			r.querySrc = ""
			r.st.QueryKernel, r.st.QueryCompile = true, mod.CompileTime
		}
	}
	if mod == nil {
		if mod, err = r.d.Compile(src, file, nil); err != nil {
			return fmt.Errorf("stmatch: compiling the kernel: %w", err)
		}
	}
	r.st.CacheHit = mod.CacheHit
	r.st.Compile = time.Since(tc)
	if r.fn, err = mod.Function(name); err != nil {
		return err
	}

	tu := time.Now()
	if r.meta, err = gpu.UploadTo(&r.mem, "plan", fp.Meta); err != nil {
		return err
	}
	if r.off, err = gpu.UploadTo(&r.mem, "candidate space offsets", fp.Offsets); err != nil {
		return err
	}
	if r.val, err = r.mem.Alloc("candidate space", max(1, fp.nValues)*4); err != nil {
		return err
	}
	var at uint64
	for _, part := range fp.ValueParts {
		if err := gpu.CopyToDevice(r.val, at*4, part); err != nil {
			return fmt.Errorf("stmatch: candidate space: %w", err)
		}
		at += uint64(len(part))
	}
	if r.cands, err = gpu.UploadTo(&r.mem, "candidates", fp.Cands); err != nil {
		return err
	}
	if fp.NonAdjacent || fp.Graph {
		offs, adj := fp.sortedCSR(p.Data)
		if len(adj) == 0 {
			adj = []uint32{0}
		}
		b, err := gpu.UploadTo(&r.mem, "graph offsets", offs)
		if err != nil {
			return err
		}
		r.gOff = b.Ptr()
		if b, err = gpu.UploadTo(&r.mem, "graph adjacency", adj); err != nil {
			return err
		}
		r.gAdj = b.Ptr()
	}
	if r.ctl, err = r.mem.Alloc("control words", ctlWords*8); err != nil {
		return err
	}
	if err := r.ctl.Memset(0); err != nil {
		return err
	}
	if !o.V1 {
		if len(units) == 0 {
			units = []uint64{0}
		}
		if r.units, err = gpu.UploadTo(&r.mem, "work units", units); err != nil {
			return err
		}
	}

	// Per-warp set buffers, counts and (v2) queue slots: as many warps as the occupancy allows
	// and the memory left holds, down to one block.
	r.shared = uint32((fp.L + fp.G) * metaStride * 8)
	want := r.residentBlocks(r.fn)
	perWarp := fp.Stride*4 + 8
	if !o.V1 {
		perWarp += 2 * uint64(fp.L+2) * taskBytes // queueSlots rounds up by less than 2x
	}
	r.blocks = chooseBlocks(want, warpsPerBlock, perWarp, r.mem.Available())
	r.warps = r.blocks * warpsPerBlock
	r.st.Blocks, r.st.Warps, r.st.PerWarpBytes = r.blocks, r.warps, perWarp
	if r.buf, err = r.mem.Alloc("per-warp buffers", uint64(r.warps)*fp.Stride*4); err != nil {
		return err
	}
	r.st.BufferBytes = r.buf.Size()
	if r.counts, err = r.mem.Alloc("per-warp counts", uint64(r.warps)*8); err != nil {
		return err
	}
	if !o.V1 {
		r.queueCap = queueSlots(r.warps, fp.L)
		r.st.QueueSlots = r.queueCap
		if r.tasks, err = r.mem.Alloc("work queue", r.queueCap*taskWords*4); err != nil {
			return err
		}
		seq := make([]uint64, r.queueCap)
		for k := range seq {
			seq[k] = uint64(k)
		}
		if r.seq, err = gpu.UploadTo(&r.mem, "work queue sequence numbers", seq); err != nil {
			return err
		}
	}
	r.st.Upload = time.Since(tu)
	return nil
}

// Control words of the v2 kernel (the C_* defines of kernels/stmatch.cu), each on a 128-byte
// line of its own.
const (
	ctlLine   = 16
	ctlWords  = 13 * ctlLine
	cNext     = 0 * ctlLine
	cOverflow = 1 * ctlLine
	cWork     = 2 * ctlLine
	cIdle     = 3 * ctlLine
	cHead     = 4 * ctlLine
	cTail     = 5 * ctlLine
	cQSize    = 6 * ctlLine
	cDonated  = 7 * ctlLine
	cSpilled  = 8 * ctlLine
	cTaken    = 9 * ctlLine
	cOut      = 10 * ctlLine
	cStop     = 11 * ctlLine
	cPieces   = 12 * ctlLine
)

const (
	taskWords = 6 + 2*maxLevels
	optSteal  = 1
	optList   = 2
	optUnroll = 4
	// optUnrollLeaves: unless Options.NoUnrollLeaves, for plans whose leaf classes are single
	// groups (with Options.UnrollClasses, for every plan with leaf groups).
	optUnrollLeaves = 8
	sliceFloor      = time.Millisecond
	// defaultDonateAfter: see Options.DonateAfter.
	defaultDonateAfter = 500 * time.Microsecond
)

// addCounts adds the warps' counts of the last launch to *count, reporting overflow.
func (r *deviceRun) addCounts(count *uint64, scratch []uint64) error {
	if err := gpu.CopyToHost(scratch, r.counts, 0); err != nil {
		return fmt.Errorf("stmatch: %w", err)
	}
	for _, c := range scratch {
		var carry uint64
		*count, carry = bits.Add64(*count, c, 0)
		if carry != 0 {
			return engine.ErrOverflow
		}
	}
	return nil
}

// runV1 runs the first version's kernel over every root in batches, one launch each.
func (r *deviceRun) runV1(ctx context.Context, p *engine.Problem, fp *flatPlan) (count uint64, partial bool, err error) {
	counts := make([]uint64, r.warps)
	batch := uint64(r.warps) * 2
	total := fp.NumRoots
	var done uint64
	for done < total {
		if err := ctx.Err(); err != nil {
			return count, true, err
		}
		end := min(total, done+batch)
		if err := r.ctl.Memset(0); err != nil {
			return count, false, err
		}
		kt, err := r.fn.LaunchSync(gpu.Dim3{X: uint32(r.blocks)}, gpu.Dim3{X: threadsBlock}, 0,
			r.meta, int32(fp.L), r.off, r.val, r.cands, r.gOff, r.gAdj, r.buf, fp.Stride,
			done, end, r.ctl, r.counts)
		if err != nil {
			return count, false, fmt.Errorf("stmatch: %w", err)
		}
		r.st.Kernel += kt
		r.st.Launches++
		if err := r.addCounts(&count, counts); err != nil {
			return 0, false, err
		}
		done = end
		if p.Progress != nil {
			p.Progress(float64(done) / float64(total))
		}
		if kt < maxLaunch {
			batch *= 4
		}
	}
	return count, false, nil
}

// unitDispenser hands out ranges of work units to the devices of a count.
type unitDispenser struct {
	mu          sync.Mutex
	next, total uint64
	chunk       uint64
	done        atomic.Uint64 // units finished or turned into queued tasks, all devices
}

// gridWarps estimates the warps of the devices' grids together (for the number of work units).
func gridWarps(devs []*gpu.Device) int {
	n := 0
	for _, d := range devs {
		n += max(1, d.Info().SMs) * blocksPerSM * warpsPerBlock
	}
	return n
}

// newDispenser hands total units out to devs: all at once to a single device; to several, in
// ranges small enough that the last ones even out the devices' load, large enough that a launch
// has work for every warp.
func newDispenser(total uint64, devs []*gpu.Device) *unitDispenser {
	u := &unitDispenser{total: total, chunk: total}
	if len(devs) > 1 {
		u.chunk = max(uint64(4*blocksPerSM*warpsPerBlock*max(1, devs[0].Info().SMs)), total/uint64(16*len(devs)))
	}
	return u
}

func (u *unitDispenser) take() (lo, hi uint64, ok bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.next >= u.total {
		return 0, 0, false
	}
	lo = u.next
	u.next = min(u.total, lo+u.chunk)
	return lo, u.next, true
}

// run drives the v2 kernel on one device: each launch takes host units from the range it was
// given and tasks from the device's queue until its time slice ends (the warps then spill what
// they hold into the queue) or the work runs out; the next launch resumes from the queue. The
// context is checked between launches, so a cancelled count stops within about one slice.
//
// With rows set (listing), the kernel writes the matches into rows' buffer instead of counting
// them; a launch also ends when the buffer is full, and after each launch rows.drain hands the
// rows written to the consumer (false: the consumer stopped, and so does the run).
func (r *deviceRun) run(ctx context.Context, p *engine.Problem, fp *flatPlan, o Options, disp *unitDispenser, rows *rowSink) (count uint64, partial bool, err error) {
	counts := make([]uint64, r.warps)
	slice := o.Slice
	if slice <= 0 {
		slice = maxLaunch
	}
	slice = max(slice, sliceFloor)
	opts := uint32(optSteal)
	if o.NoSteal {
		opts = 0
	}
	if !o.NoUnroll {
		opts |= optUnroll
	}
	if !o.NoUnrollLeaves && (o.UnrollClasses || fp.singleGroupClasses()) {
		opts |= optUnrollLeaves
	}
	var out gpu.DevicePtr
	var outCap uint64
	if rows != nil {
		opts |= optList
		out, outCap = rows.buf.Ptr(), rows.cap
	}
	donate := o.DonateAfter
	if donate <= 0 {
		donate = defaultDonateAfter
	}
	var lo, hi, queued uint64
	ctl := make([]uint64, ctlWords)
	for {
		if lo >= hi && queued == 0 {
			var ok bool
			if lo, hi, ok = disp.take(); !ok {
				return count, false, nil
			}
		}
		if err := ctx.Err(); err != nil {
			return count, true, err
		}
		// The queue's words (head, tail, size) carry over; ctl holds what the last launch left.
		ctl[cNext], ctl[cWork], ctl[cIdle], ctl[cOut], ctl[cStop] = 0, queued, 0, 0, 0
		if err := gpu.CopyToDevice(r.ctl, 0, ctl); err != nil {
			return count, false, fmt.Errorf("stmatch: %w", err)
		}
		r.tierUp()
		if r.st.QueryKernel {
			r.st.QueryLaunches++
		}
		kt, err := r.fn.LaunchSync(gpu.Dim3{X: uint32(r.blocks)}, gpu.Dim3{X: threadsBlock}, r.shared,
			r.meta, int32(fp.L), r.off, r.val, r.cands, r.gOff, r.gAdj, r.buf, fp.Stride,
			r.units, lo, hi, r.ctl, r.counts, int32(fp.G), r.tasks, r.seq, r.queueCap, uint64(slice.Nanoseconds()), opts, uint64(donate.Nanoseconds()),
			out, outCap)
		if err != nil {
			return count, false, fmt.Errorf("stmatch: %w", err)
		}
		r.st.Kernel += kt
		r.st.Launches++
		if err := gpu.CopyToHost(ctl, r.ctl, 0); err != nil {
			return count, false, fmt.Errorf("stmatch: %w", err)
		}
		switch ctl[cOverflow] {
		case 0:
		case 2:
			return count, false, errors.New("stmatch: a listing task found no room in the work queue")
		default:
			return 0, false, engine.ErrOverflow
		}
		if rows != nil && ctl[cOut] > 0 {
			if ctl[cOut] > outCap {
				return count, false, fmt.Errorf("stmatch: %d rows written to a buffer of %d", ctl[cOut], outCap)
			}
			if !rows.drain(ctl[cOut]) {
				return count, false, rows.err
			}
		}
		if err := r.addCounts(&count, counts); err != nil {
			return 0, false, err
		}
		queued = ctl[cWork]
		if queued != ctl[cQSize] || ctl[cIdle] != 0 || ctl[cHead]-ctl[cTail] != queued {
			return count, false, fmt.Errorf("stmatch: work queue out of step after a launch: %d tasks counted, %d slots reserved, %d published, %d warps idle",
				queued, ctl[cQSize], ctl[cHead]-ctl[cTail], ctl[cIdle])
		}
		taken := min(ctl[cNext], hi-lo)
		lo += taken
		r.st.Donated, r.st.Spilled, r.st.Taken, r.st.Pieces = ctl[cDonated], ctl[cSpilled], ctl[cTaken], ctl[cPieces]
		if p.Progress != nil && disp.total > 0 {
			p.Progress(float64(disp.done.Add(taken)) / float64(disp.total))
		}
	}
}

// rowSink receives the rows a listing launch wrote: L words each, in level order.
type rowSink struct {
	buf  *gpu.Buffer
	cap  uint64 // rows
	L    int
	host []uint32
	// emit hands rows (whole rows, level order) to the consumer; false when it stopped. The
	// rows are only read until emit returns.
	emit func(rows []uint32) bool
	// stopped is set when the consumer stopped the sequence; err when a copy failed.
	stopped bool
	err     error
}

// drain copies n rows to the host and emits them; false when the consumer stopped or the copy
// failed (err).
func (s *rowSink) drain(n uint64) bool {
	words := s.host[:n*uint64(s.L)]
	if err := gpu.CopyToHost(words, s.buf, 0); err != nil {
		s.err = fmt.Errorf("stmatch: reading matches: %w", err)
		return false
	}
	if !s.emit(words) {
		s.stopped = true
		return false
	}
	return true
}

// rowYielder yields rows in level order as matches in pattern vertex order.
type rowYielder struct {
	order []int    // order[level] = pattern vertex
	match []uint32 // one match, handed to yield
	yield func([]uint32, error) bool
}

func (y *rowYielder) rows(words []uint32) bool {
	L := len(y.order)
	for k := 0; k+L <= len(words); k += L {
		for level, v := range y.order {
			y.match[v] = words[k+level]
		}
		if !y.yield(y.match, nil) {
			return false
		}
	}
	return true
}

// listRows is the output buffer's size in rows: at least the longest last-level set (so that a
// launch that starts with an empty buffer always makes progress) and about 64 MiB otherwise.
func listRows(fp *flatPlan) uint64 {
	return max(fp.Cap[fp.L-1], (64<<20)/uint64(4*fp.L))
}

// Matches implements engine.Engine: the kernel writes the matches of each time slice into a
// bounded buffer (a launch also ends when it is full, its warps queueing what they hold), and the
// host yields them in pattern vertex order between launches, so any number of matches streams in
// fixed memory. Listing runs on every GPU of the problem, as a count does (listOn); the plan
// enumerates every vertex (no leaf counting) and is the same one the CPU engine lists with.
func (e Engine) Matches(ctx context.Context, p *engine.Problem) iter.Seq2[[]uint32, error] {
	return func(yield func([]uint32, error) bool) {
		if p.Data == nil || p.Pattern == nil {
			yield(nil, fmt.Errorf("stmatch engine: problem needs a data graph and a pattern"))
			return
		}
		devs, err := devices(ctx, p)
		if err != nil {
			yield(nil, err)
			return
		}
		o := e.Options
		o.NoLeaves = true
		o.V1 = false // listing is the v2 kernel's (the v1 kernel only counts)
		pl, err := buildPlan(ctx, p.Data, p.Pattern, p.Semantics, o, nil)
		if err != nil {
			yield(nil, err)
			return
		}
		if pl.Empty {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
			}
			return
		}
		match := make([]uint32, p.Pattern.NumVertices())
		if len(pl.Levels) == 1 { // one vertex: its candidates are the matches
			for _, c := range pl.Candidates[pl.Levels[0].Vertex] {
				match[pl.Levels[0].Vertex] = c
				if !yield(match, nil) {
					return
				}
			}
			return
		}
		fp, err := flattenOn(p.Data, pl, o.flatOptions(true))
		if err != nil {
			yield(nil, err)
			return
		}
		y := &rowYielder{match: match, yield: yield}
		for _, lv := range pl.Levels {
			y.order = append(y.order, lv.Vertex)
		}
		if err := listOn(ctx, replicate(devs, o.replicas), p, fp, o, y); err != nil {
			yield(nil, err)
		}
	}
}

// listOn lists the plan's matches on devs into y. Each device takes ranges of the work units as a
// count's do and writes its rows into its own buffer; fanIn brings the devices' batches to this
// goroutine. The error is nil when the consumer stopped.
func listOn(ctx context.Context, devs []*gpu.Device, p *engine.Problem, fp *flatPlan, o Options, y *rowYielder) error {
	units := fp.makeUnits(gridWarps(devs), !o.NoSplit)
	disp := newDispenser(uint64(len(units)), devs)
	if len(devs) == 1 {
		_, err := listOnDevice(ctx, devs[0], p, fp, o, units, disp, y.rows)
		return err
	}
	return fanIn(ctx, len(devs), func(ctx context.Context, k int, emit func([]uint32) bool) (bool, error) {
		return listOnDevice(ctx, devs[k], p, fp, o, units, disp, emit)
	}, y.rows)
}

// fanIn runs n producers concurrently and hands every batch they emit to consume, on the calling
// goroutine, one at a time: a producer's emit returns once consume has finished with the batch
// (so the producer may reuse its buffer) with consume's answer, or false when the run is being
// stopped. A producer returns whether its emit was answered false (the consumer stopped) and its
// error. When the consumer stops, or a producer fails, the others are cancelled through their
// context. fanIn returns nil when the consumer stopped or everything finished, else the first
// producer error that is not a cancellation, else a cancellation (the caller's context ended).
func fanIn(ctx context.Context, n int, produce func(ctx context.Context, k int, emit func([]uint32) bool) (stopped bool, err error), consume func([]uint32) bool) error {
	type batch struct {
		rows []uint32
		done chan bool // the consumer's answer: go on
	}
	batches := make(chan batch)
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	var cut atomic.Bool // an emit was refused because the run was being stopped
	var wg sync.WaitGroup
	for k := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			done := make(chan bool)
			emit := func(rows []uint32) bool {
				select {
				case batches <- batch{rows, done}:
					return <-done
				case <-ctx.Done():
					cut.Store(true)
					return false
				}
			}
			stopped, err := produce(ctx, k, emit)
			errs[k] = err
			if err != nil || stopped {
				cancel() // the other producers stop too
			}
		}()
	}
	go func() {
		wg.Wait()
		close(batches)
	}()
	consuming := true
	for b := range batches {
		consuming = consuming && consume(b.rows)
		b.done <- consuming
	}
	if !consuming {
		return nil
	}
	// A producer's own failure wins over the cancellations it caused on the others.
	var ctxErr error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			if ctxErr == nil {
				ctxErr = err
			}
		default:
			return err
		}
	}
	if ctxErr == nil && cut.Load() {
		// Rows were refused, so the listing is incomplete: only the caller's context can have
		// stopped it here (no producer failed, the consumer did not stop).
		ctxErr = parent.Err()
		if ctxErr == nil {
			ctxErr = context.Canceled
		}
	}
	return ctxErr
}

// listOnDevice runs the listing kernel on d, handing its rows to emit; stopped reports that emit
// returned false.
func listOnDevice(ctx context.Context, d *gpu.Device, p *engine.Problem, fp *flatPlan, o Options, units []uint64, disp *unitDispenser, emit func([]uint32) bool) (stopped bool, err error) {
	r := newDeviceRun(d, p.GPUMemoryLimit)
	defer r.free()
	sink := &rowSink{cap: listRows(fp), L: fp.L, emit: emit}
	if r.mem.Limit > 0 {
		// Leave the output buffer room within --gpu-memory.
		sink.cap = max(fp.Cap[fp.L-1], min(sink.cap, r.mem.Limit/4/uint64(4*fp.L)))
	}
	if sink.buf, err = r.mem.Alloc("match buffer", sink.cap*uint64(4*fp.L)); err != nil {
		return false, err
	}
	sink.host = make([]uint32, sink.cap*uint64(fp.L))
	if err := r.prepare(p, fp, o, units); err != nil {
		return false, err
	}
	if _, _, err = r.run(ctx, p, fp, o, disp, sink); err != nil && !sink.stopped {
		return false, err
	}
	return sink.stopped, nil
}
