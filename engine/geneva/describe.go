package geneva

import (
	"context"
	"flag"
	"fmt"
	"strconv"

	"github.com/submatch/submatch/engine"
)

// The GENEVA engine's measured rate and cost, from which it predicts its time
// (engine.Predictor) for --engine auto; re-tune them here after device runs.
const (
	// startSeconds is what a count's whole process spends besides its kernels, the driver's
	// teardown at exit included (docs/benchmarks.md: 0.35-0.4 s whole process for the small
	// github queries, H100; as stmatch's).
	startSeconds = 0.35
	// RowsPerSecond is the engine's rate in rows of its tables, taken as search nodes plus
	// embeddings (it enumerates every embedding breadth-first). The bound comes from the only
	// measured job large enough for the choice to matter: github Q_18, 1.2e9 embeddings,
	// unfinished after 10 s on the H100 (docs/benchmarks.md; Q_14 and Q_20 ran at 2e10 rows/s,
	// but the CPU engine does those in 14-50 ms). It predates the counting step (closing
	// vertices counted, not enumerated), so it under-rates the engine.
	RowsPerSecond = 1e8
)

// coldCompileSeconds is the kernel's cold NVRTC compile, paid by the first count on a machine
// whose kernel cache does not hold it (engine.KernelUser): 1,163 ms with `submatch gpu-info
// --compile` on a fresh H200 host (2026-12-02), taken 1.5x (hosts differ), on the side of the CPU.
const coldCompileSeconds = 1.75

// Kernels implements engine.KernelUser.
func (Engine) Kernels(*engine.Workload) []engine.Kernel {
	return []engine.Kernel{{File: kernelFile, ColdSeconds: coldCompileSeconds}}
}

// Capabilities implements engine.Describer. GENEVA lists, but --engine auto does not send
// listings to it (it lists only when named).
func (Engine) Capabilities() engine.Capabilities {
	return engine.Capabilities{Device: engine.GPU, Lists: false,
		Summary: "GPU breadth-first parallel vertex matching on interval-PCSR (GENEVA); lists when named"}
}

// StartSeconds implements engine.Predictor.
func (Engine) StartSeconds() float64 { return startSeconds }

// Predict implements engine.Predictor: start-up plus the rows of its tables at RowsPerSecond.
// The planner's plan breaks symmetry where GENEVA does not, so its tree is taken as the plan's
// times Multiplier. It reads w's figures only (ctx is checked once).
func (Engine) Predict(ctx context.Context, w *engine.Workload) (engine.Prediction, error) {
	if err := engine.PredictionStopped(ctx, "geneva"); err != nil {
		return engine.Prediction{}, err
	}
	return predict(w), nil
}

// predict is Predict's prediction.
func predict(w *engine.Workload) engine.Prediction {
	if w.Clique != nil || w.Plan == nil {
		return engine.Prediction{Seconds: -1, Note: "no cost model without a plan"}
	}
	if w.Problem != nil && w.Problem.Data != nil && !w.InCore(8*uint64(w.Problem.Data.NumVertices()+1)+8*w.Problem.Data.NumEdges()) {
		return engine.Prediction{Seconds: -1, Note: "the data graph does not fit the GPU"}
	}
	mult := float64(w.Plan.Multiplier)
	rows := w.Bound * mult
	if w.Estimate != nil {
		rows = (w.Estimate.Nodes + w.Estimate.Matches) * mult
	}
	return engine.Prediction{Seconds: startSeconds + rows/RowsPerSecond,
		Note: "about " + strconv.FormatFloat(rows, 'g', 2, 64) + " table rows"}
}

// RegisterFlags implements engine.Configurable: --geneva-sv, --geneva-no-tail, --geneva-order.
func (e Engine) RegisterFlags(fs *flag.FlagSet) func() (engine.Engine, error) {
	sv := fs.Bool("geneva-sv", false, "with --engine geneva: match one vertex per phase (the paper's SV-match variant)")
	noTail := fs.Bool("geneva-no-tail", false, "with --engine geneva: match the closing vertices too instead of counting them in a final step")
	order := fs.String("geneva-order", "cost", "with --engine geneva: phase order `ORDER`, cost (GENMATCHORDER choosing by estimated growth) or paper (its structural priorities alone)")
	return func() (engine.Engine, error) {
		if *order != "cost" && *order != "paper" {
			return nil, fmt.Errorf("--geneva-order must be cost or paper, not %q", *order)
		}
		o := e.Options
		o.SingleVertex, o.NoTailCount, o.PaperOrder = *sv, *noTail, *order == "paper"
		return Engine{Options: o}, nil
	}
}
