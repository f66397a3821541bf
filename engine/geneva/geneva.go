// Package geneva is the GENEVA engine (--engine geneva): breadth-first parallel vertex
// matching on the GPU over interval-PCSR (package geneva holds the layout, GENMATCHORDER and the
// chunked executor; this package holds the kernels and the GPU backend that runs them).
//
// A count prepares the query (candidate filters, phases, steps), uploads the ELPs its steps
// search (plus the all-edge partition for wildcard edge labels and induced checks), the vertex
// labels and the candidate bitmaps, and lets core.Executor run the steps depth-first over
// chunks within the device's memory budget (--gpu-memory lowers it). Each Run launches a kernel
// over sub-ranges of its rows, growing while launches stay short, so cancellation is prompt.
// Counts (not listing, not induced, not the paper's plan) can count the query's closing vertices
// in a final step (geneva_count) from the sizes of their candidate sets instead of matching them
// (Options.NoTailCount turns it off).
//
// Options.Host runs the same executor on core.HostBackend instead of the GPU: the tests use it
// to check the whole engine path (and listing) against the oracle on machines without a GPU.
package geneva

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/geneva/core"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/seqs"
	"github.com/submatch/submatch/plan"
)

//go:embed kernels/geneva.cu
var kernelSource string

// kernelFile is the phase kernels' name in the kernel cache and in NVRTC messages.
const kernelFile = "geneva.cu"

// KernelSource returns the CUDA source of the phase kernels.
func KernelSource() string { return kernelSource }

// Options select variants; the zero value is the default engine (cost-aware order, fused
// eliminations, multi-vertex phases on the GPU).
type Options struct {
	// SingleVertex splits every phase into single-vertex steps (--geneva-sv).
	SingleVertex bool
	// PaperOrder runs the paper's plan (--geneva-order paper): structural GENMATCHORDER,
	// separate elimination steps and every vertex matched, instead of the cost-aware choice with
	// eliminations fused into the extensions and closing vertices counted.
	PaperOrder bool
	// NoTailCount (--geneva-no-tail) matches the closing vertices of counts too, instead of
	// counting them from the sizes of their candidate sets in a final step (core.PlanCounting,
	// kernel geneva_count; checked against the CPU engine on an H100 by scripts/gpu-check.sh).
	NoTailCount bool
	// Host runs on core.HostBackend (no GPU) with HostBudget bytes of tables (0: 1 GiB).
	Host       bool
	HostBudget uint64
	// MaxTableRows caps every intermediate table (0: the budget decides); tests use it to force
	// chunking.
	MaxTableRows uint64
	// FirstTableRows overrides the size tables start at (core.DefaultFirstTableRows); tests
	// set it small so that tables grow.
	FirstTableRows uint64
	// TableBudget bounds the device bytes of the tables (0: the budget decides); tests use it
	// to force chunking with real device memory.
	TableBudget uint64
}

// Engine is the GENEVA engine; the zero value is ready to use.
type Engine struct{ Options Options }

func init() {
	engine.Register(Engine{})
	gpu.RegisterKernel(kernelFile, kernelSource) // for `submatch gpu-info --compile`
}

// Name implements engine.Engine.
func (Engine) Name() string { return "geneva" }

// Stats reports where a count's time went.
type Stats struct {
	Device    string
	Layout    time.Duration // interval-PCSR build (cached per graph)
	Prepare   time.Duration // filters, phases, steps
	Compile   time.Duration
	Upload    time.Duration
	Kernel    time.Duration
	Total     time.Duration
	Launches  int
	Steps     int
	Counted   int // query vertices counted by a final Counting step, not matched
	Chunks    uint64
	Retries   uint64
	Windows   uint64
	PeakBytes uint64 // device (or host tables') peak
}

// Count implements engine.Engine.
func (e Engine) Count(ctx context.Context, p *engine.Problem) (engine.Result, error) {
	res, _, err := e.CountStats(ctx, p)
	return res, err
}

// CountFrom is Count reusing the filtered candidates of base, a plan another engine built for
// the same data graph and pattern: --engine auto decides with the CPU plan and then delegates.
func (e Engine) CountFrom(ctx context.Context, p *engine.Problem, base *plan.Plan) (engine.Result, error) {
	res, _, err := e.countStats(ctx, p, base)
	return res, err
}

// CountStats is Count that also reports timings.
func (e Engine) CountStats(ctx context.Context, p *engine.Problem) (engine.Result, Stats, error) {
	return e.countStats(ctx, p, nil)
}

// countStats is CountStats starting from base's candidates when base is set (CountFrom).
func (e Engine) countStats(ctx context.Context, p *engine.Problem, base *plan.Plan) (engine.Result, Stats, error) {
	var st Stats
	t0 := time.Now()
	var count uint64
	err := e.run(ctx, p, &st, true, base, func(x *core.Executor, job *core.Job) error {
		var err error
		count, err = x.Count(ctx, job.Program)
		return err
	})
	st.Total = time.Since(t0)
	res := engine.Result{Count: count, PlanTime: st.Layout + st.Prepare, DeviceTime: st.Kernel}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			res.Partial = true
			return res, st, err
		}
		return engine.Result{}, st, err
	}
	return res, st, nil
}

// Matches implements engine.Engine: the last step's rows are materialised in batches and
// streamed.
func (e Engine) Matches(ctx context.Context, p *engine.Problem) iter.Seq2[[]uint32, error] {
	return seqs.Emitted(func(emit func([]uint32) bool) error {
		var st Stats
		return e.run(ctx, p, &st, false, nil, func(x *core.Executor, job *core.Job) error {
			if x.MaxTableRows == 0 || x.MaxTableRows > listBatch {
				x.MaxTableRows = listBatch
			}
			m := make([]uint32, p.Pattern.NumVertices())
			w := len(job.Program.Columns)
			return x.List(ctx, job.Program, func(rows []uint32) bool {
				for i := 0; i+w <= len(rows); i += w {
					job.Match(rows[i:i+w], m)
					if !emit(m) {
						return false
					}
				}
				return true
			})
		})
	})
}

// listBatch is the most rows a listing table holds (what one batch copies to the host).
const listBatch = 1 << 16

// run prepares the problem (for a count, or for listing; from base's candidates when base is
// set), builds the backend and calls body with an executor for it.
func (e Engine) run(ctx context.Context, p *engine.Problem, st *Stats, count bool, base *plan.Plan, body func(*core.Executor, *core.Job) error) error {
	if p.Data == nil || p.Pattern == nil {
		return fmt.Errorf("geneva engine: problem needs a data graph and a pattern")
	}
	var dev *gpu.Device
	if !e.Options.Host {
		var err error
		if dev, err = gpu.OpenFirst(ctx, p.GPUs); err != nil { // the first GPU listed (--gpus)
			return fmt.Errorf("geneva: %w", err)
		}
		st.Device = dev.String()
	}
	tl := time.Now()
	pc, err := layout(p.Data)
	if err != nil {
		return err
	}
	st.Layout = time.Since(tl)
	tp := time.Now()
	job, err := core.PrepareFrom(ctx, p.Data, pc, p.Pattern, core.CompileOptions{
		Induced: p.Semantics.Induced, Unique: p.Semantics.Unique, SingleVertex: e.Options.SingleVertex,
		PaperOrder: e.Options.PaperOrder, Fuse: !e.Options.PaperOrder,
		CountTail: count && !e.Options.PaperOrder && !e.Options.NoTailCount}, base)
	if err != nil {
		return err
	}
	st.Prepare = time.Since(tp)
	st.Steps = len(job.Program.Steps)
	for _, c := range job.Plan.Counted {
		for _, set := range c.Sets {
			st.Counted += len(set)
		}
	}
	if job.Program.Empty {
		return ctx.Err()
	}
	var backend core.Backend
	if e.Options.Host {
		hb := &core.HostBackend{In: job.Inputs, Budget: e.Options.HostBudget}
		if hb.Budget == 0 {
			hb.Budget = 1 << 30
		}
		defer func() { st.PeakBytes = hb.Peak }()
		backend = hb
	} else {
		gb, err := newGPUBackend(ctx, dev, job, st, p.GPUMemoryLimit, e.Options.TableBudget)
		if err != nil {
			return engineError(err)
		}
		defer gb.close()
		backend = gb
	}
	x := job.Executor(backend)
	x.MaxTableRows = e.Options.MaxTableRows
	if e.Options.FirstTableRows > 0 {
		x.FirstTableRows = e.Options.FirstTableRows
	}
	x.Progress = p.Progress
	defer x.Close()
	err = body(x, job)
	st.Chunks, st.Retries, st.Windows = x.Chunks, x.Retries, x.Windows
	return engineError(err)
}

// engineError maps the executor's and the GPU runtime's errors onto the engine package's:
// overflow to engine.ErrOverflow, any exhausted memory budget to engine.ErrMemory.
func engineError(err error) error {
	switch {
	case errors.Is(err, core.ErrOverflow):
		return fmt.Errorf("geneva: %w", engine.ErrOverflow)
	case errors.Is(err, core.ErrBudget), errors.Is(err, gpu.ErrBudget):
		return fmt.Errorf("%w: %w", engine.ErrMemory, err)
	}
	return err
}

// The interval-PCSR of the last graph counted, so that a batch of queries builds it once.
var (
	layoutMu    sync.Mutex
	layoutGraph *graph.Graph
	layoutPCSR  *core.PCSR
)

func layout(g *graph.Graph) (*core.PCSR, error) {
	layoutMu.Lock()
	defer layoutMu.Unlock()
	if layoutGraph == g {
		return layoutPCSR, nil
	}
	pc, err := core.Build(g)
	if err != nil {
		return nil, err
	}
	layoutGraph, layoutPCSR = g, pc
	return pc, nil
}
