// Package stmatch is the GPU depth-first engine (--engine stmatch): one persistent kernel, each
// warp runs the plan's nested loops as an explicit stack over the candidate space, with per-level
// candidate sets in the warp's slice of a global buffer, so memory stays fixed whatever the result
// count.
//
// Second version (issue 5): a generic kernel that interprets the plan, on one GPU, all four
// semantics, counting only. Work units are roots, heavy roots split over their level-1 candidates
// and ordered heaviest first (load balance); a level starts from the stored set of the level its
// plan reuses (Reuse/Extra); postponed leaf groups are counted combinatorially when every leaf
// class is one group with parents (else the Enumerate plan; the last level is then counted). The
// first version's kernel is kept (Options.V1) for comparison. Not yet: stealing inside a subtree,
// per-query generated kernels, multi-group leaf classes and isolated groups on the device, sets
// larger than the per-warp buffer in pieces (the buffer is sized to the longest list instead),
// listing, several GPUs, and plans without a candidate space.
//
// Counting: each warp keeps a 64-bit count per launch and writes it to its own slot; the host adds
// the slots with carry detection (engine.ErrOverflow). In v2 the leaf groups' products and the
// additions to a warp's count are checked on the device too (a flag the host reads after each
// launch), except a two-level plan's per-root counts (bounded by the list lengths); v1 does not
// check a single warp passing 2^64 within one launch.
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
	kernelNameV1  = "stmatch_count_v1"
	threadsBlock  = 128
	warpsPerBlock = threadsBlock / 32
	blocksPerSM   = 16
	// maxLaunch is the kernel time below which the next batch of roots grows (4x).
	maxLaunch = 100 * time.Millisecond
)

var errSpaceTooLarge = errors.New("stmatch: candidate space too large for the stmatch engine v1 (use --engine cpu)")

// ErrListing is returned by Matches.
var ErrListing = errors.New("listing is not implemented on the stmatch engine yet; use --engine cpu")

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
}

// buildPlan builds the plan the options call for: without Enumerate (postponed leaf groups
// counted by the kernel) when the v2 kernel can count its groups and counting them saves work,
// else with Enumerate. A single group of one vertex saves nothing: the Enumerate plan counts that
// vertex as its last level, and can start it from a reused set (on the H100, wiki-Vote 4-clique
// embeddings: 14.4 ms with the closing vertex as a leaf group, 6.2 ms enumerated).
func buildPlan(g *graph.Graph, pat *pattern.Pattern, sem engine.Semantics, o Options) *plan.Plan {
	opts := plan.Options{Induced: sem.Induced, Unique: sem.Unique, Enumerate: o.V1 || o.NoLeaves}
	pl := plan.Build(g, pat, opts)
	single := len(pl.Groups) == 1 && len(pl.Groups[0].Vertices) == 1
	if !opts.Enumerate && (!leafCountable(pl) || single) {
		opts.Enumerate = true
		pl = plan.Build(g, pat, opts)
	}
	return pl
}

// Engine is the stmatch engine; the zero value is ready to use.
type Engine struct{ Options Options }

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
	Units       uint64 // work units (roots, or parts of split roots)
	Version     int    // 1: the v1 kernel, 2: the current one
	Groups      int    // postponed leaf groups counted by the kernel
}

// Count implements engine.Engine.
func (e Engine) Count(ctx context.Context, p *engine.Problem) (engine.Result, error) {
	res, _, err := CountOptions(ctx, p, e.Options)
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
	return CountOptions(ctx, p, Options{})
}

// CountOptions is CountStats with the kernel's features selected by o.
func CountOptions(ctx context.Context, p *engine.Problem, o Options) (engine.Result, Stats, error) {
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
	pl := buildPlan(p.Data, p.Pattern, p.Semantics, o)
	res := engine.Result{PlanTime: time.Since(t0)}
	if pl.Empty {
		st.Total = time.Since(t0)
		return res, st, ctx.Err()
	}
	fp, err := flatten(pl, !o.V1 && !o.NoReuse)
	if err != nil {
		return engine.Result{}, st, err
	}
	st.Levels, st.StrideWords, st.Roots, st.Groups = fp.L, fp.Stride, fp.NumRoots, fp.G
	count, partial, err := run(ctx, d, p, fp, o, &st)
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

func run(ctx context.Context, d *gpu.Device, p *engine.Problem, fp *flatPlan, o Options, st *Stats) (count uint64, partial bool, err error) {
	tc := time.Now()
	src, file, name := kernelSource, kernelFile, kernelName
	st.Version = 2
	if o.V1 {
		src, file, name = kernelSourceV1, kernelFileV1, kernelNameV1
		st.Version = 1
	}
	mod, err := d.Compile(src, file, nil)
	if err != nil {
		return 0, false, fmt.Errorf("stmatch: compiling the kernel: %w", err)
	}
	st.CacheHit = mod.CacheHit
	st.Compile = time.Since(tc)
	fn, err := mod.Function(name)
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
	dNext, err := upload("root counter and overflow flag", func() (*gpu.Buffer, error) { return d.Alloc(16) })
	if err != nil {
		return 0, false, err
	}

	// Per-warp set buffers and counters: as many warps as fit, down to one block.
	perWarp := fp.Stride*4 + 8
	want := max(1, d.Info().SMs) * blocksPerSM
	// Work units (v2): roots, heavy ones split over their level-1 candidates (sized for the
	// full grid and allocated first, so the grid's size depends on the budget alone).
	var dUnits *gpu.Buffer
	total := fp.NumRoots
	if !o.V1 {
		units := fp.makeUnits(want*warpsPerBlock, !o.NoSplit)
		total = uint64(len(units))
		if len(units) == 0 {
			units = []uint64{0}
		}
		if dUnits, err = upload("work units", func() (*gpu.Buffer, error) { return gpu.Upload(d, units) }); err != nil {
			return 0, false, err
		}
	}
	st.Units = total

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
	for done < total {
		if err := ctx.Err(); err != nil {
			return count, true, err
		}
		end := min(total, done+batch)
		if err := dNext.Memset(0); err != nil {
			return count, false, err
		}
		var kt time.Duration
		if o.V1 {
			kt, err = fn.LaunchSync(gpu.Dim3{X: uint32(blocks)}, gpu.Dim3{X: threadsBlock}, 0,
				dMeta, int32(fp.L), dOff, dVal, dCands, gOff, gAdj, dBuf, fp.Stride,
				done, end, dNext, dCounts)
		} else {
			kt, err = fn.LaunchSync(gpu.Dim3{X: uint32(blocks)}, gpu.Dim3{X: threadsBlock}, uint32((fp.L+fp.G)*metaStride*8),
				dMeta, int32(fp.L), dOff, dVal, dCands, gOff, gAdj, dBuf, fp.Stride,
				dUnits, done, end, dNext, dCounts, int32(fp.G), dNext.Ptr()+8)
		}
		if err != nil {
			return count, false, fmt.Errorf("stmatch: %w", err)
		}
		st.Kernel += kt
		st.Launches++
		if err := gpu.CopyToHost(counts, dCounts, 0); err != nil {
			return count, false, fmt.Errorf("stmatch: %w", err)
		}
		if !o.V1 {
			var flag [2]uint64
			if err := gpu.CopyToHost(flag[:], dNext, 0); err != nil {
				return count, false, fmt.Errorf("stmatch: %w", err)
			}
			if flag[1] != 0 {
				return 0, false, engine.ErrOverflow
			}
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
			p.Progress(float64(done) / float64(total))
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
