package stmatch

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/plan"
)

// The stmatch engine's measured rates and costs, from which it predicts its time
// (engine.Predictor) for --engine auto; re-tune them here after device runs.
const (
	// StartSeconds is what a count spends in a fresh process before its kernels run: CUDA
	// context, kernel cache, uploads (docs/benchmarks.md: 0.2-0.24 s for the small github
	// queries on the H100).
	startSeconds = 0.3
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
	// cliqueCPUSecondsPerEdge is the CPU clique counter's one-thread time for 4-cliques per
	// data edge (engine/cpu's CliqueSecondsPerEdge, repeated so as not to import that engine).
	cliqueCPUSecondsPerEdge = 3e-7
)

// MaxLevels is the most enumerated levels the kernels run.
const MaxLevels = 32

// Capabilities implements engine.Describer.
func (Engine) Capabilities() engine.Capabilities {
	return engine.Capabilities{Device: engine.GPU, Lists: true,
		Summary: "GPU depth-first search with work stealing (STMatch); a clique kernel; one or several GPUs"}
}

// StartSeconds implements engine.Predictor.
func (Engine) StartSeconds() float64 { return startSeconds }

// Predict implements engine.Predictor: start-up, plus the whole tree at NodesPerSecond and the
// heaviest level-1 subtree at WarpNodesPerSecond (one warp starts it alone); cliques on the
// clique kernel.
func (Engine) Predict(w *engine.Workload) engine.Prediction {
	if w.Clique != nil {
		if w.Listing {
			return engine.Prediction{Seconds: -1, Note: "cliques are listed by the plan kernels"}
		}
		s := cliqueCPUSecondsPerEdge * float64(w.Clique.K-3) * float64(w.Problem.Data.NumEdges()) / CliqueSpeedup
		return engine.Prediction{Seconds: startSeconds + s, Note: "the clique kernel"}
	}
	if why := ineligible(w.Plan); why != "" {
		return engine.Prediction{Seconds: -1, Note: why}
	}
	nodes, heaviest := w.Bound, 0.0
	if w.Estimate != nil {
		nodes, heaviest = w.Estimate.Nodes, w.Estimate.HeaviestSubtree
	}
	spread := nodes / NodesPerSecond
	heavy := heaviest / WarpNodesPerSecond
	pr := engine.Prediction{Seconds: startSeconds + spread + heavy, Note: "throughput"}
	if heavy > spread {
		pr.Note = "the heaviest level-1 subtree, about " + strconv.FormatFloat(heaviest, 'g', 2, 64) + " nodes"
	}
	return pr
}

// ineligible says why the kernels cannot run a plan ("" when they can): they walk the candidate
// space and keep a fixed stack of levels.
func ineligible(pl *plan.Plan) string {
	switch {
	case pl == nil:
		return "no plan"
	case pl.Space == nil:
		return "needs a candidate space"
	case len(pl.Levels) > MaxLevels:
		return fmt.Sprintf("more than %d levels", MaxLevels)
	}
	return ""
}

// RegisterFlags implements engine.Configurable: --stmatch-kernel.
func (e Engine) RegisterFlags(fs *flag.FlagSet) func() (engine.Engine, error) {
	kernel := fs.String("stmatch-kernel", "tiered", "with --engine stmatch: `KERNEL` tiered (clique patterns on the clique kernel; others on the generic kernel until the per-query kernel, compiled in the background, is ready), generic, query (compile the per-query kernel first; cliques too), or cliques (the same as tiered)")
	return func() (engine.Engine, error) {
		k, err := ParseKernelChoice(strings.TrimSpace(*kernel))
		if err != nil {
			return nil, fmt.Errorf("--stmatch-kernel: %w", err)
		}
		o := e.Options
		o.Kernel = k
		return Engine{Options: o}, nil
	}
}
