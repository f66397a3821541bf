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
// Two kernels of their own take patterns the plan kernels search slowly: clique patterns
// (cliques.go, kernels/cliques.cu) and plans whose last level and the postponed vertex on it are
// summed from per-key tables as the CPU engine's last-level sum does (lastsum.go,
// kernels/lastsum.cu: STMatch's q1).
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
	"log/slog"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
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

// errSpaceTooLarge: a plan without a candidate space, for the v1 kernel (or without the data graph).
var errSpaceTooLarge = errors.New("stmatch: the candidate space is too large, and the v1 kernel needs it: use --engine cpu")

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
	// PlanCliques counts clique patterns with the plan kernels, as any other pattern, instead of
	// the clique kernel that KernelTiered and KernelCliques take for them (V1 implies it).
	PlanCliques bool
	// NoLastSum counts plans of the last-level-sum shape (lastSumFor: STMatch's q1) with the
	// plan kernels, looping over the last level, instead of the last-level-sum kernel
	// (kernels/lastsum.cu) that KernelTiered and KernelCliques take for them.
	NoLastSum bool
	// NoOrderSearch keeps the plan's default matching order. By default a count whose search is
	// estimated above plan.DefaultSearchOrders nodes compares other orders by estimated cost
	// (plan.Options.SearchOrders): dense patterns (STMatch's q17-q22) gain most.
	NoOrderSearch bool
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
	// NoHubs searches every list by binary search: no bitmaps for the longest lists (hubs.go).
	NoHubs bool
	// Graph places what the kernels read from the data graph (--stmatch-graph-memory): the candidate
	// space, the root candidates and the work units, and the data graph's CSR where the plan
	// needs it (the plan kernels); the CSR, its upward runs and the split roots' pieces (the
	// clique kernel). gpu.OnDevice, the zero value, uploads them within --gpu-memory;
	// gpu.OnHost leaves them in pinned host memory mapped into the device's address space
	// (the kernels read them over the bus: zero-copy), gpu.OnManaged in managed memory (the
	// driver migrates the pages the kernels touch). In those two modes only the plan, the
	// per-warp buffers, the work queue, the counts and the hub bitmaps take device memory, so a
	// graph of any size the host holds is counted by the unchanged kernels: the out-of-core
	// baselines that sgsi and pbe are measured against (docs/out-of-core.md). Within a
	// --gpu-memory those modes bound the level buffers (budgetPieceCap) so that a full grid fits.
	Graph gpu.Placement

	// replicas runs that many independent runs on each device (0, 1: one), as if each were a
	// GPU of its own: the device checks exercise the several-GPU paths (shared work units,
	// listing from several devices) on a machine with one. The runs take turns on the GPU (each
	// one's kernel time is its own share), share its memory budget (a run sizes its grid to the
	// memory free when it prepares, so a memory-bound second run gets a small grid or fails),
	// and each may use Problem.GPUMemoryLimit.
	replicas int
	// cliqueCut, when its split is positive, replaces cliqueSplit's sizes (for the measurements
	// of the split).
	cliqueCut struct{ split, span int }
	// searchAt, when positive, replaces plan.DefaultSearchOrders as the estimated size above
	// which the order is searched (tests force the search on small graphs with it).
	searchAt float64
	// order, when set, is the matching order (plan.Options.Order; no order search), for the
	// measurements of orders (TestGPUOrders).
	order []int
	// searchThreads is the host threads the order search may use (the problem's Threads; <= 0:
	// every core), shared by its two ways.
	searchThreads int
	// cliqueNarrow keeps the clique kernel's matrices narrow: roots of more than
	// cliqueMatrixMax upward neighbours go to the host (for the tests of that path).
	cliqueNarrow bool
	// cliqueSlice, when positive, replaces maxLaunch as the clique kernel's time slice (for its
	// measurement).
	cliqueSlice time.Duration
	// hubMin, when positive, replaces hubMinLen as the shortest list with a bitmap (the tests
	// give every list one with 1).
	hubMin int
	// queueSlots, when positive (a power of two), is the work queue's first capacity in place
	// of queueSlots(warps, L): the tests start it too small, so that the host must grow it.
	queueSlots uint64
}

// cliqueKernel says whether the options count clique patterns with the clique kernel.
func (o Options) cliqueKernel() bool {
	return o.Kernel == KernelCliques || (o.Kernel == KernelTiered && !o.V1 && !o.PlanCliques)
}

// cliqueMinBytes is the least --gpu-memory with which a count takes the clique kernel: one
// block of its widest bit matrices (cliqueWideMax members, two words a lane) and their counts.
// A smaller budget, which only the host and managed modes can run in (the graph's buffers are
// elsewhere), counts cliques with the plan kernels, whose per-warp buffers are smaller.
const cliqueMinBytes = warpsPerBlock * (cliqueWideMax*cliqueWideMax/8 + 8)

// cliqueKernelFor says whether a clique pattern of p is counted with the clique kernel.
func (o Options) cliqueKernelFor(p *engine.Problem) bool {
	return o.cliqueKernel() && (p.GPUMemoryLimit == 0 || p.GPUMemoryLimit >= cliqueMinBytes)
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

// flatOptionsWithin is flatOptions for a count or a listing within limit bytes of GPU memory (0:
// none) of a plan of levels levels: with the graph in host or managed memory (Options.Graph) and
// no PieceCap set, the level buffers are capped by budgetPieceCap, so that a full grid (and a
// listing's match buffer, at least one last-level piece) fits the budget.
func (o Options) flatOptionsWithin(listing bool, limit uint64, levels int) flatOptions {
	fo := o.flatOptions(listing)
	if o.Graph != gpu.OnDevice && o.PieceCap == 0 && !o.V1 {
		fo.pieceCap = budgetPieceCap(limit, levels)
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
	// KernelCliques counts clique patterns (plan.AsClique) with the clique kernel
	// (kernels/cliques.cu) and every other pattern as KernelTiered does. KernelTiered does the
	// same unless Options.PlanCliques; KernelGeneric and KernelQuery run cliques on the plan
	// kernels.
	KernelCliques
)

// ParseKernelChoice reads tiered, generic, query or cliques (--stmatch-kernel).
func ParseKernelChoice(s string) (KernelChoice, error) {
	switch s {
	case "tiered", "":
		return KernelTiered, nil
	case "generic":
		return KernelGeneric, nil
	case "query":
		return KernelQuery, nil
	case "cliques":
		return KernelCliques, nil
	}
	return 0, fmt.Errorf("stmatch kernel must be tiered, generic, query or cliques, not %q", s)
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
		MultiplyAutomorphisms: !o.V1 && !o.NoLeaves && !o.NoMultiply, Order: o.order}
	if o.NoSpace {
		opts.SpaceLimit = -1
	}
	search := 0.0
	if !o.NoOrderSearch && !o.V1 {
		search = plan.DefaultSearchOrders
		if o.searchAt > 0 {
			search = o.searchAt
		}
	}
	pl, err := plan.BuildFrom(ctx, g, pat, base, opts)
	if err != nil {
		return nil, err
	}
	noSpace := pl.Space == nil && !pl.Empty
	if noSpace {
		// No candidate space (too large): the kernel runs on the graph's adjacency lists,
		// which leaf counting cannot use. Do not try to build the space a second time.
		opts.SpaceLimit = -1
	}
	searched := false
	if search > 0 && !pl.Empty && !noSpace && pl.NodeBound() >= search {
		// Compare orders by estimate. (The bound is cheap; below it the search would not start,
		// so the plan is not rebuilt.)
		opts.SearchOrders, opts.SearchRate, opts.SearchThreads = search, searchRate, o.searchThreads
		if pl, err = searchPlan(ctx, g, pl, opts); err != nil {
			return nil, err
		}
		searched = true
	}
	if !opts.Enumerate && (noSpace || !leafCountable(pl) || singleClosing(pl) || (isolatedGroups(pl) && o.NoIsolatedLeaves)) {
		opts.Enumerate = true
		if searched {
			// Keep the order the search chose (searching again would double the planning).
			opts.Order = fullOrder(pl)
		}
		return plan.Rebuild(ctx, g, pl, opts)
	}
	return pl, nil
}

// searchPlan returns the plan of least estimated cost that plan's order search finds from def
// (built with opts, SearchOrders set), in two ways at once when leaf groups may be counted:
// (a) the plans compared with their leaf groups counted, then, when the one chosen counts a
// single closing vertex (which this engine enumerates instead), again in Enumerate mode; (b) the
// plans compared in the form this engine runs (plan.Options.EnumerateSingle). The screening's
// few probes misjudge heavy-tailed searches by large factors (STMatch's q20 on wiki-Vote: 16 to
// 1,024 probes put an order at 3e10-5e10 steps that 20,000 put at 1.8e12, and it ran 13 times
// longer than (a)'s order), and each way keeps its default plan unless another looks clearly
// cheaper, so the two ways fail on different patterns (q20 in (b), q14 in (a)); their results
// are compared with finalProbes probes each (at most finalWork list entries a thread each, on all
// the search's threads; the second estimate stops once it is sure to cost more than the first).
// Every bound is one of work, so that the same query on the same machine gets the same plan
// however loaded the machine is (but for the safety nets, finalCap and plan's orderSearchCap,
// which a debug log reports). Two results that run the
// same search (plan.SameSearch) are not compared.
func searchPlan(ctx context.Context, g *graph.Graph, def *plan.Plan, opts plan.Options) (*plan.Plan, error) {
	leafMode := func() (*plan.Plan, error) {
		pl, err := plan.Rebuild(ctx, g, def, opts)
		if err == nil && !opts.Enumerate && singleClosing(pl) {
			enum := opts
			enum.Enumerate = true
			pl, err = plan.Rebuild(ctx, g, pl, enum)
		}
		return pl, err
	}
	if opts.Enumerate || opts.Induced {
		return leafMode()
	}
	threads := opts.SearchThreads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	// The two ways run at once, on half the threads each: the screening's work is bounded per
	// worker (plan.Options.SearchThreads), so that each way's screening takes about as long as it
	// would alone on all of them.
	opts.SearchThreads = max(1, threads/2)
	var plans [2]*plan.Plan
	var errs [2]error
	var wg sync.WaitGroup
	wg.Go(func() { plans[0], errs[0] = leafMode() })
	wg.Go(func() {
		single := opts
		single.EnumerateSingle = true
		plans[1], errs[1] = plan.Rebuild(ctx, g, def, single)
	})
	wg.Wait()
	if err := errors.Join(errs[0], errs[1]); err != nil {
		return nil, err
	}
	// The same search (the orders may differ by an automorphism: q11's two ways do) costs the
	// same: no need to estimate it twice.
	if plan.SameSearch(plans[0], plans[1]) {
		return plans[0], nil
	}
	// The two estimates run one after the other on all the search's threads, in blocks of
	// probes, each stopped at finalProbes or after the block that brings its list entries read to
	// finalWork a thread (deterministic: plan.EstimateOptions.WorkLimit), and the second once it
	// is sure to cost more than the first. finalCap is only a safety net.
	fin := plan.EstimateOptions{Seed: 3, Probes: finalProbes, MinProbes: finalProbes / 16,
		WorkLimit: finalWork * int64(threads), Budget: finalCap, Threads: threads}
	first, err := plans[0].Estimate(ctx, g, fin)
	if err != nil {
		return nil, err
	}
	fin.CostAbove = first.Cost
	second, err := plans[1].Estimate(ctx, g, fin)
	if err != nil {
		return nil, err
	}
	for _, e := range []plan.Estimate{first, second} {
		if e.OverBudget {
			finalCapHits.Add(1)
			slog.Debug("stmatch: an estimate of the order search stopped at its time cap (the plan depends on the machine's load)",
				"cap", finalCap, "probes", e.Probes, "scanned", e.Scanned, "work_limit", fin.WorkLimit)
		}
	}
	slog.Debug("stmatch: the order search's two ways", "cost_leaf", first.Cost, "probes_leaf", first.Probes, "scanned_leaf", first.Scanned,
		"cost_single", second.Cost, "probes_single", second.Probes, "scanned_single", second.Scanned, "above", second.Above,
		"elapsed", first.Elapsed+second.Elapsed)
	if !second.Above && second.Cost < first.Cost {
		return plans[1], nil
	}
	return plans[0], nil
}

// singleClosing reports whether pl's only leaf group is one vertex with parents, which stmatch
// enumerates as the last level instead: counting it as a group saves nothing.
func singleClosing(pl *plan.Plan) bool {
	return len(pl.Groups) == 1 && len(pl.Groups[0].Vertices) == 1 && len(pl.Groups[0].Parents) > 0
}

// finalCapHits counts the estimates finalCap stopped (tests).
var finalCapHits atomic.Int64

// finalProbes and finalWork (list entries read a thread, plan.Estimate.Scanned) bound each of
// the estimates that compare searchPlan's two results; finalCap stops one that takes far longer
// than its work should (a safety net: the choice then depends on the machine's load). Until
// 2026-12-05 a time budget of 125 ms bounded them instead: on a loaded machine the same plan's
// estimate stopped after 1,024-2,944 probes and came out at 5.7e12 in one run, 3.05e13 in
// another, and the plan chosen with it (docs/benchmarks.md, "pbe12").
const (
	finalProbes = 16384
	finalWork   = 16_000_000
	finalCap    = 5 * time.Second
)

// searchRate is the speed of the v2 kernel in plan.Estimate.Cost steps per second on an H100
// (wiki-Vote, STMatch's q11-q22 with the orders chosen: 4e10 to 2.5e11 steps a second); it
// bounds the order search to a share of the predicted kernel time (plan.Options.SearchRate).
const searchRate = 1e11

// fullOrder returns pl's levels' pattern vertices followed by its leaf groups' vertices.
func fullOrder(pl *plan.Plan) []int {
	order := pl.Order()
	for _, g := range pl.Groups {
		order = append(order, g.Vertices...)
	}
	return order
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
	gpu.RegisterKernel(cliqueFile, cliqueSource)
	gpu.RegisterKernel(lastSumFile, lastSumSource)
}

// Name implements engine.Engine.
func (Engine) Name() string { return "stmatch" }

// Stats reports where the time of a count went and how the kernel ran. With several GPUs the
// times are those of the slowest device and the counters are summed.
type Stats struct {
	Device      string
	GPUs        int           // devices that took part
	CacheHit    bool          // the kernel came from the disk or memory cache
	Open        time.Duration // starting the devices (the first count of a process; then ~0)
	Prepare     time.Duration // host work before the uploads: plan and flat plan, or orienting a clique count's graph
	Compile     time.Duration // compile (or cache load)
	Upload      time.Duration // allocation and host-to-device copies
	Kernel      time.Duration // sum of the launches' kernel times (CUDA events)
	Run         time.Duration // the launches from first to last, the host's work between them included
	Free        time.Duration // releasing the count's device memory at its end
	Total       time.Duration // the whole Count, planning included
	Launches    int
	Blocks      int
	Warps       int
	BufferBytes uint64 // per-warp set buffers, all warps
	DeviceBytes uint64 // everything allocated
	// HostBytes is what the data graph's buffers took in host or managed memory
	// (Options.Graph), on all devices.
	HostBytes uint64
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
	// QuerySource names the per-query kernel's source (the first 16 hex digits of its sha256;
	// "": none was made): counts with the same one share a compile (the kernel cache's key is
	// the source's hash with the compiler's options, version and target).
	QuerySource string
	// Cliques is set when the clique kernel counted (KernelCliques); HeavyRoots is then how many
	// roots were too large for its bit matrices and were counted on the host, in HostTime.
	Cliques    bool
	HeavyRoots int
	// LastSum is set when the last-level-sum kernel counted (kernels/lastsum.cu).
	LastSum   bool
	WideTasks int // clique units with wide matrices (roots of 1,025 to 2,048 upward neighbours, or their pieces)
	HostTime  time.Duration
	// HubRows is the number of lists that had a bitmap (hubs.go), HubBytes what the bitmaps
	// and their row index took on the devices.
	HubRows  int
	HubBytes uint64
	// MaxLaunch is the longest launch; MaxQueued the most tasks left in a device's work queue
	// after a launch; QueueGrown how often a queue was made larger for the next launch's spills.
	MaxLaunch  time.Duration
	MaxQueued  uint64
	QueueGrown int
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
	return countFrom(ctx, p, o, nil, nil)
}

// CountFrom is Count reusing the filtered candidates of base, a plan another engine built for the
// same data graph and pattern (with any options): --engine auto decides with the CPU plan and
// then delegates here. A base for another pattern is ignored.
func (e Engine) CountFrom(ctx context.Context, p *engine.Problem, base *plan.Plan) (engine.Result, error) {
	res, _, err := countFrom(ctx, p, e.Options, base, nil)
	return res, err
}

// PrepareCount implements engine.Preparer: the plan (order search included) is built and
// flattened in the background, from base as CountFrom does, while --engine auto looks for the
// GPU; Count then starts the devices (already open by then) and counts. A clique pattern, which
// the clique kernel counts, has nothing to prepare.
func (e Engine) PrepareCount(ctx context.Context, p *engine.Problem, base *plan.Plan) engine.Prepared {
	pctx, cancel := context.WithCancel(ctx)
	pc := &preparedCount{o: e.Options, p: p, base: base, cancel: cancel, done: make(chan struct{})}
	if p.Data == nil || p.Pattern == nil {
		close(pc.done)
		return pc
	}
	if _, clique := plan.AsClique(p.Data, p.Pattern); clique && e.Options.cliqueKernelFor(p) {
		close(pc.done)
		return pc
	}
	pc.started = true
	go func() {
		defer close(pc.done)
		pc.pr = prepare(pctx, p, e.Options, base)
	}()
	return pc
}

// preparedCount is a count whose plan is being built (PrepareCount).
type preparedCount struct {
	o       Options
	p       *engine.Problem
	base    *plan.Plan
	cancel  context.CancelFunc // stops the preparation
	started bool               // the plan is being prepared (else Count plans as CountFrom does)
	done    chan struct{}      // closed once pr is set (or at once when nothing is prepared)
	pr      prepared
}

// Count implements engine.Prepared.
func (pc *preparedCount) Count(ctx context.Context) (engine.Result, error) {
	defer pc.cancel()
	pre := pc
	if !pc.started {
		pre = nil
	}
	res, _, err := countFrom(ctx, pc.p, pc.o, pc.base, pre)
	return res, err
}

// Release implements engine.Prepared.
func (pc *preparedCount) Release() { pc.cancel() }

// prepared is a count's host work before the devices: its plan, flattened.
type prepared struct {
	pl  *plan.Plan
	err error // building the plan failed (or was stopped)
	fp  *flatPlan
	ls  *lastSumPlan // the plan flattened for the last-level-sum kernel (fp is then ls.fp)
	// divide, when above 1, is |Aut(p)|: pl counts the embeddings of a count of unique matches
	// (uniqueByEmbeddings), which are that many times as many.
	divide   uint64
	ferr     error // flattening failed, or the plan does not suit the options
	planTime time.Duration
	prepare  time.Duration // planTime and the flattening
}

// prepare builds the plan of p (from base when given) and flattens it for a count, with what
// the devices' runs need from the host and can have before the devices are open: the roots'
// weights for the work units and the hub bitmaps.
func prepare(ctx context.Context, p *engine.Problem, o Options, base *plan.Plan) prepared {
	tp := time.Now()
	o.searchThreads = p.Threads
	var pr prepared
	var built *plan.Plan
	if pr.pl, pr.divide, built = uniqueByEmbeddings(ctx, p, o, base); pr.pl == nil {
		if built != nil {
			base = built
		}
		pr.pl, pr.err = buildPlan(ctx, p.Data, p.Pattern, p.Semantics, o, base)
	}
	pr.planTime = time.Since(tp)
	if pr.err == nil && !pr.pl.Empty && o.lastSumKernel() {
		if shape, why := lastSumFor(pr.pl); why == "" {
			ls, err := flattenLastSum(p.Data, pr.pl, shape)
			if err != nil || ls.fits(p.GPUMemoryLimit) {
				pr.ls, pr.ferr = ls, err
				if err == nil {
					pr.fp = ls.fp
					if !o.NoSplit {
						pr.fp.rootWeights()
					}
				}
				pr.prepare = time.Since(tp)
				return pr
			}
		}
	}
	if pr.err == nil && !pr.pl.Empty {
		pr.fp, pr.ferr = flattenOn(p.Data, pr.pl, o.flatOptionsWithin(false, p.GPUMemoryLimit, len(pr.pl.Levels)))
		if pr.ferr == nil && pr.fp.Graph && o.V1 {
			pr.ferr = errSpaceTooLarge
		}
		if pr.ferr == nil && !o.V1 {
			pr.fp.forDevices(ctx, p.Data, o)
		}
	}
	pr.prepare = time.Since(tp)
	return pr
}

// fullGridWarps is the grid budgetPieceCap sizes the buffers for: an H100's or H200's 132 SMs
// with blocksPerSM blocks of warpsPerBlock warps.
const fullGridWarps = 132 * blocksPerSM * warpsPerBlock

// budgetPieceCap is the piece cap of a count with its graph in host or managed memory within
// limit bytes of GPU memory (0: none) for a plan of levels levels: small enough that the
// per-warp buffers of a full grid take at most half of the limit (the rest: queue, plan, hub
// bitmaps), between minPieceCap and defaultPieceCap. Those modes exist for budgets far below the
// graph, where the default cap (256 KiB a level and warp) left room for a few dozen warps.
func budgetPieceCap(limit uint64, levels int) uint64 {
	if limit == 0 {
		return defaultPieceCap
	}
	c := limit / 2 / (fullGridWarps * 4 * uint64(max(1, levels)))
	return min(defaultPieceCap, max(minPieceCap, c))
}

// forDevices makes what the devices' runs take from fp before they are open: the roots'
// weights and the hub bitmaps (up to hubMaxBytes of host memory). A stopped preparation (its
// count released: no GPU, or auto chose another engine) makes nothing; the runs then build
// what they need themselves.
func (fp *flatPlan) forDevices(ctx context.Context, g *graph.Graph, o Options) {
	if ctx.Err() != nil {
		return
	}
	if !o.NoSplit && fp.splitsRoots() {
		fp.rootWeights()
	}
	if !o.NoHubs && ctx.Err() == nil {
		fp.prebuildHubs(g, o.hubMin)
	}
}

// countFrom is CountOptions with an optional base plan (see CountFrom) and an optional count
// prepared already (PrepareCount; its base and options are then pre's).
func countFrom(ctx context.Context, p *engine.Problem, o Options, base *plan.Plan, pre *preparedCount) (engine.Result, Stats, error) {
	var st Stats
	t0 := time.Now()
	if p.Data == nil || p.Pattern == nil {
		return engine.Result{}, st, fmt.Errorf("stmatch engine: problem needs a data graph and a pattern")
	}
	defer func() {
		if st.Total == 0 { // an early failure
			st.Total = time.Since(t0)
		}
		st.log(p.Logger())
	}()
	c, clique := plan.AsClique(p.Data, p.Pattern)
	clique = clique && o.cliqueKernelFor(p)
	// The devices start (CUDA's initialisation, the first count of a process) while the plan is
	// built and flattened (or while its preparation finishes). A failure to start them stops the
	// planning.
	type opened struct {
		devs []*gpu.Device
		err  error
		at   time.Duration
	}
	openc := make(chan opened, 1)
	pctx, stopPlan := context.WithCancel(ctx)
	defer stopPlan()
	if pre != nil {
		stopPlan = pre.cancel
	}
	go func() {
		devs, err := devices(ctx, p)
		at := time.Since(t0)
		if err != nil {
			stopPlan()
		}
		openc <- opened{devs, err, at}
	}()
	if clique {
		op := <-openc
		if op.err != nil {
			return engine.Result{}, st, op.err
		}
		st.Open = op.at
		devs := replicate(op.devs, o.replicas)
		st.Device, st.GPUs = devs[0].String(), len(devs)
		st.Cliques, st.Multiplier = true, 1
		cliques, partial, err := countCliques(ctx, devs, p, c, o, &st)
		res := engine.Result{Count: cliques, Partial: partial, DeviceTime: st.Kernel}
		if err == nil || partial {
			var ok bool
			if res.Count, ok = c.Embeddings(cliques, p.Semantics.Unique); !ok {
				return engine.Result{}, st, engine.ErrOverflow
			}
		}
		st.Total = time.Since(t0)
		if err != nil && !partial {
			return engine.Result{}, st, err
		}
		return res, st, err
	}
	var pr prepared
	if pre != nil {
		<-pre.done
		pr = pre.pr
	} else {
		pr = prepare(pctx, p, o, base)
	}
	pl, err, fp, ferr, planTime := pr.pl, pr.err, pr.fp, pr.ferr, pr.planTime
	st.Prepare = pr.prepare
	op := <-openc
	if op.err != nil {
		return engine.Result{}, st, op.err
	}
	if err != nil {
		return engine.Result{Partial: true}, st, err
	}
	st.Open = op.at
	devs := op.devs
	if o.V1 {
		devs = devs[:1]
	} else {
		devs = replicate(devs, o.replicas)
	}
	st.Device, st.GPUs = devs[0].String(), len(devs)
	res := engine.Result{PlanTime: planTime}
	if pl.Empty {
		st.Total = time.Since(t0)
		return res, st, ctx.Err()
	}
	if ferr != nil {
		return engine.Result{}, st, ferr
	}
	st.Levels, st.StrideWords, st.Roots, st.Groups = fp.L, fp.Stride, fp.NumRoots, fp.G
	st.Version = 2
	if o.V1 {
		st.Version = 1
	}
	var count uint64
	var partial bool
	if pr.ls != nil {
		count, partial, err = countLastSum(ctx, devs, p, pr.ls, o, &st)
	} else {
		count, partial, err = countOn(ctx, devs, p, fp, o, &st)
	}
	if err == nil && pl.Multiplier > 1 {
		hi, lo := bits.Mul64(count, pl.Multiplier)
		if hi != 0 {
			err = engine.ErrOverflow
		}
		count = lo
	}
	if pr.divide > 1 {
		count /= pr.divide
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
		runs[k] = newDeviceRun(d, p.GPUMemoryLimit, o)
		wg.Add(1)
		go func(r *deviceRun, k int) {
			defer wg.Done()
			defer r.free()
			if err := r.prepare(ctx, p, fp, o, units); err != nil {
				errs[k], partials[k] = err, cancelled(err)
				cancel()
				return
			}
			tr := time.Now()
			if o.V1 {
				counts[k], partials[k], errs[k] = r.runV1(ctx, p, fp)
			} else {
				counts[k], partials[k], errs[k] = r.run(ctx, p, fp, o, disp, nil)
			}
			r.st.Run = time.Since(tr)
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
