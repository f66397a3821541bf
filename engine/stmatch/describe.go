package stmatch

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/plan"
)

// The stmatch engine's measured rates and costs, from which it predicts its time
// (engine.Predictor) for --engine auto; re-tune them here after device runs.
const (
	// StartSeconds is what a count's whole process spends besides its kernels: CUDA's start,
	// the kernel cache, uploads, and the driver's teardown at the process's exit, which a user
	// waits for too (docs/benchmarks.md: 0.2-0.24 s before the kernels for the small github
	// queries on the H100; on the H200, 2026-12-02, persistence mode off, STMatch's q3, q6, q7
	// and q15 took 346-381 ms whole process for kernels of 2-35 ms, the teardown 104-142 ms of
	// it).
	startSeconds = 0.35
	// NodesPerSecond is the kernel's throughput in CPU search nodes (H100, 2026-11-23, with the
	// work queue; docs/benchmarks.md "stmatch engine on the H100"): github Q_18 13.4e6 nodes in
	// 64 ms (2.1e8/s: deep plan, small sets), Q_3 1.9e5 in 1.7 ms (1.1e8/s), wiki-Vote 4-cycle
	// unique 7.0e7 in 20 ms (3.5e9/s). The low end is taken.
	NodesPerSecond = 2e8
	// WarpNodesPerSecond is the rate at which the heaviest level-1 subtree is searched. Before
	// the work queue one warp searched it alone (Q_18, 9.1e6 of its 13.4e6 nodes below one
	// level-1 vertex: 50 s, 2e5 nodes/s); now idle warps take halves of it, and Q_18 as a whole
	// takes 64 ms, so the subtree goes at least at 1.4e8 nodes/s.
	WarpNodesPerSecond = 1e8
	// CliqueSpeedup is the clique kernel's speed-up over the CPU clique counter on one thread,
	// whole process aside from start-up (R-MAT 22 4-cliques: 1.3 s whole process on an H200
	// against 43 s on 2 CPU threads); its prediction is the CPU counter's one-thread time over
	// this.
	CliqueSpeedup = 50
	// CountedNodesPerSecond is the kernel's rate on the last level's nodes of a count whose
	// plan postpones no vertex: the kernel counts them as the size of the level's set rather
	// than searching them. R-MAT scale 26 (1.76e9 edges, H200, 2026-12-03): 9.5e11 triangle
	// embeddings, 1.6e11 of them in the plan (its symmetry broken), counted in a 26.3 s kernel
	// (docs/benchmarks.md, "FR size unlabelled per engine"), where NodesPerSecond put them at
	// 28 minutes; taken at about half that rate.
	CountedNodesPerSecond = 1e10
	// LeafParentsPerSecond is the kernel's rate on the nodes whose only work is a set counted by
	// its size, with no level below them entered: the last enumerated level of a count whose
	// leaf groups are unrolled (every collision class a single group: each lane counts a leaf
	// product of its own, 32 at a time) and the level before the counted last level of a count
	// that postpones no vertex. NodesPerSecond priced them as searched nodes, and put STMatch's
	// 7-vertex patterns q20 and q22 on wiki-Vote at 2.2 and 4.5 times their time. H200 device
	// host, 2026-12-05, kernel time (the other levels at NodesPerSecond, the heaviest subtree at
	// WarpNodesPerSecond, the counted level at CountedNodesPerSecond taken out): q20 6.0e8 such
	// nodes (one leaf group) in 0.71 of a 1,439 ms kernel, 8.4e8/s; q22 6.4e8 (the level before
	// the counted one) in at most 0.07 of 528 ms, well over 1.2e9/s; q19 6.7e8 (one leaf group)
	// in 3.1 of 3,652 ms, 2.2e8/s (q18, cut at 9.6 s of kernel, at most 3e8/s). Taken at about
	// the median. Classes of several groups (class_count_t: q2, q10, q13, q17, about 1-1.7e8 of
	// their leaves a second) stay at NodesPerSecond.
	LeafParentsPerSecond = 8e8
	// cliqueCPUSecondsPerSquare is the CPU clique counter's one-thread time for 4-cliques per
	// unit of plan.UpwardSquares (engine/cpu's CliqueSecondsPerSquare, repeated so as not to
	// import that engine).
	cliqueCPUSecondsPerSquare = 9e-9
)

// The rates of the out-of-core modes (Options.Graph), from which a count whose data graph does
// not fit the GPU memory is predicted. Measured on an H200 (docs/benchmarks.md, "Zero-copy and
// unified-memory baselines", device figures): on R-MAT scale 21 with a quarter of the graph's
// bytes as --gpu-memory, the kernels took 4.7x and 14x their in-core time with the graph in
// mapped host memory and 1.05x and 1.4x in managed memory; taken a little on the slow side, so
// that --engine auto, which also wants a margin over the host for any out-of-core run, keeps such
// counts on the CPU unless the GPU is far ahead.
const (
	// ZeroCopySlowdown is the kernels' time with the graph in mapped host memory over their
	// time with it in device memory. The sets a warp builds stay in its device buffers, but
	// every list read crosses the bus (a few tens of GB/s against HBM's terabytes).
	ZeroCopySlowdown = 8
	// ManagedSlowdown is the same with the graph in managed memory that fits the device's
	// whole memory: pages move on first touch, then the kernels read device memory.
	ManagedSlowdown = 1.5
	// hostStageBytesPerSecond is the rate at which the graph's arrays are staged into pinned
	// or managed host memory (allocation and copy).
	hostStageBytesPerSecond = 4e9
	// migrateBytesPerSecond is the rate of managed pages moved to the device on faults.
	migrateBytesPerSecond = 1e10
	// zeroCopyBytesPerSecond bounds the kernels with the graph in mapped host memory: every
	// list entry their intersections read (plan.Estimate's steps, 4 bytes each) crosses the bus
	// at this rate at best. R-MAT scale 26's triangles (H200, 2026-12-03: 1.2e10 of 9.5e11
	// embeddings in 65 s of kernel, about 80 times the in-core kernel, where ZeroCopySlowdown
	// says 8): about 4.7e12 steps (estimated at scales 16-23 and extrapolated) in about 2,100 s
	// is 9e9 bytes a second.
	zeroCopyBytesPerSecond = 8e9
)

// The kernels' cold NVRTC compiles, paid by the first count on a machine whose kernel cache does
// not hold them (engine.KernelUser): --engine auto adds them to the prediction then. Measured with
// `submatch gpu-info --compile` on a fresh H200 host (2026-12-02): stmatch.cu 4,355 ms. The
// clique kernel was not in that run; it is taken as dcsm.cu's 1,881 ms there, a source of the
// same size (14 KB). Both are taken 1.5x, as hosts differ (the H100 host of 2026-11 took about
// 12 s for the generic kernel, then larger, with an older NVRTC), on the side of the CPU.
const (
	coldCompileSeconds       = 6.5
	cliqueColdCompileSeconds = 3
)

// Kernels implements engine.KernelUser: the clique kernel for a clique count that takes it,
// else the generic kernel (which KernelTiered starts on while it compiles the per-query kernel
// in the background; KernelQuery's per-query kernel, new for each query, is not in the cache's
// registry and takes about as long).
func (e Engine) Kernels(w *engine.Workload) []engine.Kernel {
	switch {
	case e.Options.V1:
		return []engine.Kernel{{File: kernelFileV1, ColdSeconds: cliqueColdCompileSeconds}}
	case w.Clique != nil && !w.Listing && w.Problem != nil && e.Options.cliqueKernelFor(w.Problem):
		return []engine.Kernel{{File: cliqueFile, ColdSeconds: cliqueColdCompileSeconds}}
	case w.Clique == nil && e.lastSum(w):
		return []engine.Kernel{{File: lastSumFile, ColdSeconds: cliqueColdCompileSeconds}}
	}
	return []engine.Kernel{{File: kernelFile, ColdSeconds: coldCompileSeconds}}
}

// MaxLevels is the most enumerated levels the kernels run.
const MaxLevels = 32

// Capabilities implements engine.Describer.
func (Engine) Capabilities() engine.Capabilities {
	return engine.Capabilities{Device: engine.GPU, Lists: true,
		Summary: "GPU depth-first search with work stealing (STMatch); a clique kernel; one or several GPUs"}
}

// StartSeconds implements engine.Predictor.
func (Engine) StartSeconds() float64 { return startSeconds }

// Predict implements engine.Predictor: start-up, plus the whole tree at NodesPerSecond (the
// counted last level at CountedNodesPerSecond, the nodes that only count a set at
// LeafParentsPerSecond) and the heaviest level-1 subtree at WarpNodesPerSecond (one warp starts
// it alone); cliques on the
// clique kernel. When what the kernels read from the data graph (GraphBytes) does not fit the
// workload's GPU memory (engine.Workload.InCore), the prediction is for the engine with the graph
// in host memory (zero-copy) or, when it fits the device's whole memory, that is predicted
// faster and no --gpu-memory was given (Problem.GPUMemoryLimit: managed memory is not bounded
// by it), in managed memory (Prediction.Run, OutOfCore). It reads w's figures and a sampled pass
// (engine.Workload.UpwardSquares, for a clique): ctx is checked once.
func (e Engine) Predict(ctx context.Context, w *engine.Workload) (engine.Prediction, error) {
	if err := engine.PredictionStopped(ctx, "stmatch"); err != nil {
		return engine.Prediction{}, err
	}
	return e.predict(w), nil
}

// predict is Predict's prediction.
func (e Engine) predict(w *engine.Workload) engine.Prediction {
	if e.Options.V1 && w.Clique == nil && w.Plan != nil && w.Plan.Space == nil {
		return engine.Prediction{Seconds: -1, Note: "the v1 kernel needs a candidate space"}
	}
	pr := inCore(w, e.lastSum(w), e.Options)
	if !pr.Eligible() || w.Problem == nil || w.Problem.Data == nil || e.Options.Graph != gpu.OnDevice {
		return pr
	}
	need := GraphBytes(w)
	if w.InCore(need) {
		return pr
	}
	over := gpu.FormatBytes(need) + " of graph over half of " + gpu.FormatBytes(w.GPUMemory) + " of GPU memory"
	kernel := pr.Seconds - startSeconds
	if f := starved(w); f > 1 {
		kernel *= f
		over += fmt.Sprintf(", room for 1/%.0f of the grid", f)
	}
	stage := float64(need) / hostStageBytesPerSecond
	o := e.Options
	o.Graph = gpu.OnHost
	zc := ZeroCopySlowdown * kernel
	if w.Estimate != nil {
		zc = max(zc, 4*steps(w.Estimate)/zeroCopyBytesPerSecond)
	}
	best := engine.Prediction{Seconds: startSeconds + stage + zc, OutOfCore: true,
		Run: Engine{Options: o}, Mode: "graph in host memory (zero-copy)", Note: over + ": zero-copy"}
	switch {
	case w.Problem.GPUMemoryLimit > 0:
		// An explicit --gpu-memory is a bound the user set; managed memory is not bounded by it
		// (the driver migrates as many pages as the device holds), so it is not predicted.
		best.Note += " (not managed memory: it would exceed --gpu-memory " + gpu.FormatBytes(w.Problem.GPUMemoryLimit) + ")"
	case w.DeviceMemory > 0 && need <= w.DeviceMemory/2:
		o.Graph = gpu.OnManaged
		s := startSeconds + stage + float64(need)/migrateBytesPerSecond + ManagedSlowdown*kernel
		if s < best.Seconds {
			best = engine.Prediction{Seconds: s, OutOfCore: true, Run: Engine{Options: o},
				Mode: "graph in managed memory", Note: over + ", within the device's: managed memory"}
		}
	}
	return best
}

// starved is how many times fewer warps than a full grid (fullGridWarps) the search's buffers
// leave room for in half of w's GPU memory, at least 1: the level buffers at budgetPieceCap and
// the work queue's slots for the plan kernels, a bit matrix a warp for the clique kernel (within
// cliqueMinBytes). The out-of-core kernel times scale with it.
func starved(w *engine.Workload) float64 {
	if w.GPUMemory == 0 {
		return 1
	}
	var perWarp uint64
	if w.Clique != nil && w.GPUMemory >= cliqueMinBytes {
		perWarp = cliqueMatrixMax*cliqueMatrixMax/8 + 8
	} else {
		var levels uint64 = 1
		switch {
		case w.Plan != nil:
			levels = uint64(max(1, len(w.Plan.Levels)))
		case w.Clique != nil:
			levels = uint64(w.Clique.K)
		case w.Problem.Pattern != nil:
			levels = uint64(w.Problem.Pattern.NumVertices())
		}
		perWarp = 4*levels*budgetPieceCap(w.GPUMemory, int(levels)) + 8 + 2*(levels+2)*taskBytes
	}
	warps := w.GPUMemory / 2 / perWarp
	return float64(fullGridWarps) / float64(max(1, min(warps, fullGridWarps)))
}

// steps is est's set-operation steps, the lists clipped to their windows where it says
// (plan.Estimate.NarrowCost).
func steps(est *plan.Estimate) float64 {
	if est.NarrowCost > 0 {
		return est.NarrowCost + est.GroupCost
	}
	return est.Cost
}

// GraphBytes is what the kernels would read from the data graph for w (Options.Graph places
// it): the data graph's CSR and upward runs for a clique; else the plan's candidate space, a
// root candidate and a work unit a vertex at most, and the CSR when the plan needs the
// graph's edges (induced matches).
func GraphBytes(w *engine.Workload) uint64 {
	g := w.Problem.Data
	n := uint64(g.NumVertices())
	csr := 8*(n+1) + 8*g.NumEdges()
	if w.Clique != nil {
		return csr + 8*n
	}
	b := 12 * n
	if w.Plan != nil {
		for _, idx := range w.Plan.Space {
			off, val := idx.Arrays()
			b += 8*uint64(len(off)) + 4*uint64(len(val))
		}
	}
	if w.Problem.Semantics.Induced || (w.Plan != nil && w.Plan.Space == nil) {
		// Induced matches test edges; a plan without a candidate space runs on the graph's
		// adjacency lists (graph mode).
		b += csr
	}
	return b
}

// lastSum says whether the count of w runs on the last-level-sum kernel (lastSumFor; the
// workload's plan stands for the engine's own, as for the rest of the prediction).
func (e Engine) lastSum(w *engine.Workload) bool {
	if w.Listing || w.Plan == nil || !e.Options.lastSumKernel() {
		return false
	}
	_, why := lastSumFor(w.Plan)
	return why == ""
}

// inCore is the prediction with the graph in device memory; summed says that the last level is
// counted by the last-level-sum kernel; o are the engine's options (whether the kernel unrolls
// leaf products: leafParents). Its nodes then drop out, and with them, in proportion, the
// heaviest subtree's, as the CPU engine's prediction of its own last-level sum does (the key's
// tables, about a triangle listing's intersections, taken as paid by the levels above): STMatch's
// q1 on wiki-Vote, 425.6 ms of plan kernel on an H200, was otherwise put at the loop's nodes.
func inCore(w *engine.Workload, summed bool, o Options) engine.Prediction {
	if w.Clique != nil {
		if w.Listing {
			return engine.Prediction{Seconds: -1, Note: "cliques are listed by the plan kernels"}
		}
		s := cliqueCPUSecondsPerSquare * float64(w.Clique.K-3) * w.UpwardSquares() / CliqueSpeedup
		return engine.Prediction{Seconds: startSeconds + s, Note: "the clique kernel"}
	}
	if why := ineligible(w.Plan); why != "" {
		return engine.Prediction{Seconds: -1, Note: why}
	}
	nodes, heaviest, counted, parents := w.Bound, 0.0, 0.0, 0.0
	if e := w.Estimate; e != nil {
		nodes, heaviest = e.Nodes, e.HeaviestSubtree
		if !w.Listing && len(w.Plan.Groups) == 0 && len(e.LevelNodes) == len(w.Plan.Levels) && len(e.LevelNodes) > 1 {
			counted = e.LevelNodes[len(e.LevelNodes)-1]
			nodes -= counted
		}
		if summed && len(e.LevelNodes) == len(w.Plan.Levels) && e.Nodes > 0 {
			keep := 1 - e.LevelNodes[len(e.LevelNodes)-1]/e.Nodes
			nodes, heaviest = nodes*keep, heaviest*keep
		} else if l := leafParents(w, o); l >= 0 {
			parents = e.LevelNodes[l]
			nodes -= parents
		}
	}
	spread := nodes/NodesPerSecond + counted/CountedNodesPerSecond + parents/LeafParentsPerSecond
	heavy := heaviest / WarpNodesPerSecond
	pr := engine.Prediction{Seconds: startSeconds + spread + heavy, Note: "throughput"}
	if summed {
		pr.Note = "the last-level-sum kernel"
	}
	if heavy > spread {
		pr.Note = "the heaviest level-1 subtree, about " + strconv.FormatFloat(heaviest, 'g', 2, 64) + " nodes"
	}
	return pr
}

// leafParents is the level of w's estimated plan whose nodes the kernel prices at
// LeafParentsPerSecond (each counts a set by its size and enters no level below), or -1: for a
// count, the last level when the plan has leaf groups whose products the kernel unrolls under
// options o (Options.unrollsLeaves), the level before the last when it has none (the last level
// is counted: CountedNodesPerSecond).
func leafParents(w *engine.Workload, o Options) int {
	pl, e := w.Plan, w.Estimate
	L := len(pl.Levels)
	if w.Listing || e == nil || len(e.LevelNodes) != L {
		return -1
	}
	if len(pl.Groups) == 0 {
		return L - 2 // -1 for a plan of one level
	}
	single := true
	for _, c := range pl.Classes {
		single = single && len(c.Groups) == 1
	}
	if !o.unrollsLeaves(single) {
		return -1
	}
	return L - 1
}

// ineligible says why the kernels cannot run a plan ("" when they can): they keep a fixed stack
// of levels. A plan without a candidate space (the planner leaves it out above
// plan.DefaultSpaceLimit: R-MAT scale 26) is run on the data graph's adjacency lists, as the
// engine's own plan would be (buildPlan: graph mode, enumerated).
func ineligible(pl *plan.Plan) string {
	switch {
	case pl == nil:
		return "no plan"
	case len(pl.Levels) > MaxLevels:
		return fmt.Sprintf("more than %d levels", MaxLevels)
	}
	return ""
}

// RegisterFlags implements engine.Configurable: --stmatch-kernel, --stmatch-graph-memory.
func (e Engine) RegisterFlags(fs *flag.FlagSet) func() (engine.Engine, error) {
	kernel := fs.String("stmatch-kernel", "tiered", "with --engine stmatch: `KERNEL` tiered (clique patterns on the clique kernel; others on the generic kernel until the per-query kernel, compiled in the background, is ready), generic, query (compile the per-query kernel first; cliques too), or cliques (the same as tiered)")
	place := fs.String("stmatch-graph-memory", "device", "with --engine stmatch: where the data graph and its candidate space live, `WHERE`: device (GPU memory, within --gpu-memory), host (pinned host memory mapped into the GPU, read over the bus: zero-copy) or managed (CUDA unified memory, migrated on demand). host and managed count graphs of any size the host holds, with only the search's buffers within --gpu-memory")
	return func() (engine.Engine, error) {
		k, err := ParseKernelChoice(strings.TrimSpace(*kernel))
		if err != nil {
			return nil, fmt.Errorf("--stmatch-kernel: %w", err)
		}
		g, err := gpu.ParsePlacement(strings.TrimSpace(*place))
		if err != nil {
			return nil, fmt.Errorf("--stmatch-graph-memory: %w", err)
		}
		o := e.Options
		o.Kernel, o.Graph = k, g
		return Engine{Options: o}, nil
	}
}
