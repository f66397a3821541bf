package stmatch

// The clique kernel (kernels/cliques.cu): clique patterns (plan.AsClique) counted from bit
// matrices of each root's upward neighbourhood, without a plan or candidate space. Roots whose
// upward neighbourhood is larger than the kernel's matrices (cliqueMatrixMax) are counted by the
// CPU engine's clique counter at the same time.

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"

	"submatch/engine"
	"submatch/engine/cpu"
	"submatch/gpu"
	"submatch/internal/par"
	"submatch/plan"
)

//go:embed kernels/cliques.cu
var cliqueSource string

const (
	cliqueFile   = "stmatch_cliques.cu"
	cliqueKernel = "stmatch_cliques"
	// cliqueMatrixMax is the kernel's BMAX: the largest upward neighbourhood it lays out (its
	// rows are one 32-bit word a lane).
	cliqueMatrixMax = 1024
	// cliqueMatrixBytes is one warp's matrix.
	cliqueMatrixBytes = cliqueMatrixMax * cliqueMatrixMax / 8
	// cliqueCtlWords: C_NEXT and C_OVERFLOW on lines of their own.
	cliqueCtlWords = 2 * ctlLine
	cliqueOverflow = ctlLine
	// cliqueFirstBatch is the roots of a device's first launch; later launches double while
	// they take less than maxLaunch/2 and halve (down to cliqueMinBatch) when they take more
	// than maxLaunch, so that cancellation, checked between launches, stays prompt.
	cliqueFirstBatch = 1 << 12
	cliqueMinBatch   = 1 << 6
)

// upward is the oriented graph as the clique kernel reads it: every vertex's upward clique
// neighbours, as a CSR of their own.
type upward struct {
	offsets   []uint64
	neighbors []uint32
	heavy     []uint32 // roots with more than cliqueMatrixMax upward neighbours
}

// upwardCSR copies o's upward lists into one CSR (on all cores) and lists the heavy roots.
func upwardCSR(o *plan.Oriented) upward {
	n := o.NumVertices()
	u := upward{offsets: make([]uint64, n+1)}
	for v := range n {
		d := len(o.Above(uint32(v)))
		u.offsets[v+1] = u.offsets[v] + uint64(d)
		if d > cliqueMatrixMax {
			u.heavy = append(u.heavy, uint32(v))
		}
	}
	u.neighbors = make([]uint32, max(1, u.offsets[n]))
	par.For(n, 0, func(v int) { copy(u.neighbors[u.offsets[v]:], o.Above(uint32(v))) })
	return u
}

// cliqueRun is one device's share of a clique count.
type cliqueRun struct {
	runBase
	off, adj, rows, ctl, counts *gpu.Buffer
}

// prepare compiles the kernel, uploads the upward CSR and sizes the grid to the memory left
// (one bit matrix a warp).
func (r *cliqueRun) prepare(u upward) error {
	tc := time.Now()
	mod, err := r.d.Compile(cliqueSource, cliqueFile, nil)
	if err != nil {
		return fmt.Errorf("stmatch: compiling the clique kernel: %w", err)
	}
	r.st.CacheHit, r.st.Compile = mod.CacheHit, time.Since(tc)
	if r.fn, err = mod.Function(cliqueKernel); err != nil {
		return err
	}
	tu := time.Now()
	if r.off, err = gpu.UploadTo(&r.mem, "upward offsets", u.offsets); err != nil {
		return err
	}
	if r.adj, err = gpu.UploadTo(&r.mem, "upward adjacency", u.neighbors); err != nil {
		return err
	}
	if r.ctl, err = r.mem.Alloc("control words", cliqueCtlWords*8); err != nil {
		return err
	}
	r.blocks = chooseBlocks(r.residentBlocks(r.fn, 0), warpsPerBlock, cliqueMatrixBytes+8, r.mem.Available())
	r.warps = r.blocks * warpsPerBlock
	r.st.Blocks, r.st.Warps, r.st.PerWarpBytes = r.blocks, r.warps, cliqueMatrixBytes+8
	if r.rows, err = r.mem.Alloc("bit matrices", uint64(r.warps)*cliqueMatrixBytes); err != nil {
		return err
	}
	r.st.BufferBytes = r.rows.Size()
	if r.counts, err = r.mem.Alloc("per-warp counts", uint64(r.warps)*8); err != nil {
		return err
	}
	r.st.Upload = time.Since(tu)
	return nil
}

// run launches the kernel on ranges of roots taken from next until there are none left or ctx
// ends; the ranges follow the launch times (see cliqueFirstBatch). One root is never split: a
// launch lasts at least as long as its heaviest root.
func (r *cliqueRun) run(ctx context.Context, k int, n uint64, next *atomic.Uint64, progress func(uint64)) (count uint64, err error) {
	counts := make([]uint64, r.warps)
	ctl := make([]uint64, cliqueCtlWords)
	batch := uint64(cliqueFirstBatch)
	for {
		if err := ctx.Err(); err != nil {
			return count, err
		}
		lo := next.Add(batch) - batch
		if lo >= n {
			return count, nil
		}
		hi := min(n, lo+batch)
		if err := r.ctl.Memset(0); err != nil {
			return count, fmt.Errorf("stmatch: %w", err)
		}
		kt, err := r.fn.LaunchSync(gpu.Dim3{X: uint32(r.blocks)}, gpu.Dim3{X: threadsBlock}, 0,
			r.off, r.adj, lo, hi, int32(k), r.rows, r.ctl, r.counts)
		if err != nil {
			return count, fmt.Errorf("stmatch: %w", err)
		}
		r.st.Kernel += kt
		r.st.Launches++
		if err := gpu.CopyToHost(ctl, r.ctl, 0); err != nil {
			return count, fmt.Errorf("stmatch: %w", err)
		}
		if ctl[cliqueOverflow] != 0 {
			return 0, engine.ErrOverflow
		}
		if err := gpu.CopyToHost(counts, r.counts, 0); err != nil {
			return count, fmt.Errorf("stmatch: %w", err)
		}
		for _, c := range counts {
			var carry uint64
			if count, carry = bits.Add64(count, c, 0); carry != 0 {
				return 0, engine.ErrOverflow
			}
		}
		progress(hi - lo)
		switch {
		case kt < maxLaunch/2:
			batch *= 2
		case kt > maxLaunch:
			batch = max(cliqueMinBatch, batch/2)
		}
	}
}

// countCliques counts the clique pattern c on devs, with the CPU engine's clique counter taking
// the roots too large for the kernel at the same time. It returns the number of cliques (one
// per clique: the caller applies the convention) and whether the count is partial.
func countCliques(ctx context.Context, devs []*gpu.Device, p *engine.Problem, c plan.Clique, st *Stats) (uint64, bool, error) {
	o := c.Orient(p.Data, 0)
	u := upwardCSR(o)
	n := uint64(p.Data.NumVertices())
	st.Roots, st.Units, st.HeavyRoots = n, n, len(u.heavy)

	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next, done atomic.Uint64
	progress := func(roots uint64) {
		if d := done.Add(roots); p.Progress != nil {
			p.Progress(float64(d) / float64(n))
		}
	}
	runs := make([]*cliqueRun, len(devs))
	counts := make([]uint64, len(devs)+1)
	errs := make([]error, len(devs)+1)
	var wg sync.WaitGroup
	wg.Go(func() {
		start := time.Now()
		counts[len(devs)], errs[len(devs)] = cpu.CountCliqueRoots(ctx, o, c.K, u.heavy, p.Threads)
		st.HostTime = time.Since(start)
		if errs[len(devs)] != nil {
			cancel()
		}
	})
	for i, d := range devs {
		runs[i] = &cliqueRun{runBase: newRunBase(d, p.GPUMemoryLimit)}
		wg.Go(func() {
			r := runs[i]
			defer r.free()
			if errs[i] = r.prepare(u); errs[i] == nil {
				counts[i], errs[i] = r.run(ctx, c.K, n, &next, progress)
			}
			if errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	for _, r := range runs {
		st.merge(&r.st)
	}
	// A failure wins over the cancellations it caused; then overflow; then the caller's ctx.
	var total uint64
	for i, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			return 0, false, err
		}
		var carry uint64
		if total, carry = bits.Add64(total, counts[i], 0); carry != 0 {
			return 0, false, engine.ErrOverflow
		}
	}
	if err := parent.Err(); err != nil {
		return total, true, err
	}
	return total, false, nil
}
