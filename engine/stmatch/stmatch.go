// Package stmatch is the GPU depth-first engine (--engine stmatch): one persistent kernel, each
// warp runs the plan's nested loops as an explicit stack over the candidate space, with per-level
// candidate sets in the warp's slice of a global buffer, so memory stays fixed whatever the result
// count.
//
// This is the first version (issue 5): a generic kernel that interprets the plan (every level
// intersects the candidate-space lists of all its backward edges; symmetry bounds, injectivity and
// induced non-adjacency per candidate), counting at the last level, on one GPU, all four
// semantics. Not yet: work stealing (a warp owns a root's whole subtree), per-query generated
// kernels, loop-invariant reuse of sets, postponed leaf counting, sets larger than the per-warp
// buffer in pieces (the buffer is sized to the longest list instead), listing, several GPUs, and
// plans without a candidate space.
//
// Counting: each warp keeps a 64-bit count per launch and writes it to its own slot; the host adds
// the slots with carry detection (engine.ErrOverflow). A single warp counting past 2^64 within one
// launch is not detected (it would take months at 10^12 matches per second).
//
// Cancellation: the roots are processed in batches, one kernel launch each, and the context is
// checked between launches; a cancelled count returns the matches of the finished batches with
// Partial set. Batches grow while launches stay short (maxLaunch), so cancellation is prompt unless
// a single batch is slow.
package stmatch

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"iter"
	"math/bits"
	"time"

	"submatch/engine"
	"submatch/gpu"
	"submatch/plan"
)

//go:embed kernels/stmatch.cu
var kernelSource string

// KernelSource returns the CUDA source of the generic kernel.
func KernelSource() string { return kernelSource }

const (
	kernelFile    = "stmatch.cu"
	kernelName    = "stmatch_count"
	threadsBlock  = 128
	warpsPerBlock = threadsBlock / 32
	blocksPerSM   = 16
	// maxLaunch is the kernel time below which the next batch of roots grows (4x).
	maxLaunch = 100 * time.Millisecond
)

var errSpaceTooLarge = errors.New("stmatch: candidate space too large for the stmatch engine v1 (use --engine cpu)")

// ErrListing is returned by Matches.
var ErrListing = errors.New("listing is not implemented on the stmatch engine yet; use --engine cpu")

// Engine is the stmatch engine; the zero value is ready to use.
type Engine struct{}

func init() { engine.Register(Engine{}) }

// Name implements engine.Engine.
func (Engine) Name() string { return "stmatch" }

// Stats reports where the time of a count went and how the kernel ran.
type Stats struct {
	Device      string
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
	Levels      int
	StrideWords uint64 // one warp's buffer, uint32 words
	Roots       uint64
}

// Count implements engine.Engine.
func (e Engine) Count(ctx context.Context, p *engine.Problem) (engine.Result, error) {
	res, _, err := CountStats(ctx, p)
	return res, err
}

// device returns the first GPU (the engine uses one in this version).
func device(ctx context.Context) (*gpu.Device, error) {
	devs, err := gpu.Open(ctx)
	if err != nil {
		return nil, fmt.Errorf("stmatch: %w", err)
	}
	if len(devs) == 0 {
		return nil, fmt.Errorf("stmatch: %w", gpu.ErrNoGPU)
	}
	return devs[0], nil
}

// CountStats is Count that also reports timings and launch shape.
func CountStats(ctx context.Context, p *engine.Problem) (engine.Result, Stats, error) {
	var st Stats
	t0 := time.Now()
	if p.Data == nil || p.Pattern == nil {
		return engine.Result{}, st, fmt.Errorf("stmatch engine: problem needs a data graph and a pattern")
	}
	d, err := device(ctx)
	if err != nil {
		return engine.Result{}, st, err
	}
	st.Device = d.String()
	pl := plan.Build(p.Data, p.Pattern, plan.Options{
		Induced:   p.Semantics.Induced,
		Unique:    p.Semantics.Unique,
		Enumerate: true,
	})
	res := engine.Result{PlanTime: time.Since(t0)}
	if pl.Empty {
		st.Total = time.Since(t0)
		return res, st, ctx.Err()
	}
	fp, err := flatten(pl)
	if err != nil {
		return engine.Result{}, st, err
	}
	st.Levels, st.StrideWords, st.Roots = fp.L, fp.Stride, fp.NumRoots
	count, partial, err := run(ctx, d, p, fp, &st)
	st.Total = time.Since(t0)
	res.Count, res.Partial = count, partial
	if err != nil {
		if partial {
			return res, st, err
		}
		return engine.Result{}, st, err
	}
	return res, st, nil
}

func run(ctx context.Context, d *gpu.Device, p *engine.Problem, fp *flatPlan, st *Stats) (count uint64, partial bool, err error) {
	tc := time.Now()
	mod, err := d.Compile(kernelSource, kernelFile, nil)
	if err != nil {
		return 0, false, fmt.Errorf("stmatch: compiling the kernel: %w", err)
	}
	st.CacheHit = mod.CacheHit
	st.Compile = time.Since(tc)
	fn, err := mod.Function(kernelName)
	if err != nil {
		return 0, false, err
	}

	tu := time.Now()
	var bufs []*gpu.Buffer
	defer func() {
		for _, b := range bufs {
			b.Free()
		}
	}()
	upload := func(what string, f func() (*gpu.Buffer, error)) (*gpu.Buffer, error) {
		b, err := f()
		if err != nil {
			return nil, fmt.Errorf("stmatch: %s: %w", what, err)
		}
		bufs = append(bufs, b)
		st.DeviceBytes += b.Size()
		return b, nil
	}
	dMeta, err := upload("plan", func() (*gpu.Buffer, error) { return gpu.Upload(d, fp.Meta) })
	if err != nil {
		return 0, false, err
	}
	dOff, err := upload("candidate space offsets", func() (*gpu.Buffer, error) { return gpu.Upload(d, fp.Offsets) })
	if err != nil {
		return 0, false, err
	}
	dVal, err := upload("candidate space", func() (*gpu.Buffer, error) { return gpu.Upload(d, fp.Values) })
	if err != nil {
		return 0, false, err
	}
	dCands, err := upload("candidates", func() (*gpu.Buffer, error) { return gpu.Upload(d, fp.Cands) })
	if err != nil {
		return 0, false, err
	}
	var gOff, gAdj gpu.DevicePtr
	if fp.NonAdjacent {
		offs, adj := sortedCSR(p.Data)
		if len(adj) == 0 {
			adj = []uint32{0}
		}
		b, err := upload("graph offsets", func() (*gpu.Buffer, error) { return gpu.Upload(d, offs) })
		if err != nil {
			return 0, false, err
		}
		gOff = b.Ptr()
		b, err = upload("graph adjacency", func() (*gpu.Buffer, error) { return gpu.Upload(d, adj) })
		if err != nil {
			return 0, false, err
		}
		gAdj = b.Ptr()
	}
	dNext, err := upload("root counter", func() (*gpu.Buffer, error) { return d.Alloc(8) })
	if err != nil {
		return 0, false, err
	}

	// Per-warp set buffers and counters: as many warps as fit, down to one block.
	perWarp := fp.Stride*4 + 8
	want := max(1, d.Info().SMs) * blocksPerSM
	blocks := chooseBlocks(want, warpsPerBlock, perWarp, d.Budget().Available())
	warps := blocks * warpsPerBlock
	st.Blocks, st.Warps = blocks, warps
	dBuf, err := upload("per-warp buffers", func() (*gpu.Buffer, error) { return d.Alloc(uint64(warps) * fp.Stride * 4) })
	if err != nil {
		return 0, false, err
	}
	st.BufferBytes = dBuf.Size()
	dCounts, err := upload("per-warp counts", func() (*gpu.Buffer, error) { return d.Alloc(uint64(warps) * 8) })
	if err != nil {
		return 0, false, err
	}
	st.Upload = time.Since(tu)

	counts := make([]uint64, warps)
	batch := uint64(warps) * 2
	var done uint64
	for done < fp.NumRoots {
		if err := ctx.Err(); err != nil {
			return count, true, err
		}
		end := min(fp.NumRoots, done+batch)
		if err := dNext.Memset(0); err != nil {
			return count, false, err
		}
		kt, err := fn.LaunchSync(gpu.Dim3{X: uint32(blocks)}, gpu.Dim3{X: threadsBlock}, 0,
			dMeta, int32(fp.L), dOff, dVal, dCands, gOff, gAdj, dBuf, fp.Stride,
			done, end, dNext, dCounts)
		if err != nil {
			return count, false, fmt.Errorf("stmatch: %w", err)
		}
		st.Kernel += kt
		st.Launches++
		if err := gpu.CopyToHost(counts, dCounts, 0); err != nil {
			return count, false, fmt.Errorf("stmatch: %w", err)
		}
		for _, c := range counts {
			var carry uint64
			count, carry = bits.Add64(count, c, 0)
			if carry != 0 {
				return 0, false, engine.ErrOverflow
			}
		}
		done = end
		if p.Progress != nil {
			p.Progress(float64(done) / float64(fp.NumRoots))
		}
		if kt < maxLaunch {
			batch *= 4
		}
	}
	return count, false, nil
}

// Matches implements engine.Engine: listing is not implemented yet, so the sequence yields
// ErrListing once.
func (Engine) Matches(ctx context.Context, p *engine.Problem) iter.Seq2[[]uint32, error] {
	return func(yield func([]uint32, error) bool) {
		yield(nil, ErrListing)
	}
}
