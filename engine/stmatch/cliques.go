package stmatch

// The clique kernel (kernels/cliques.cu): clique patterns (plan.AsClique) counted from bit
// matrices of each root's upward neighbourhood, without a plan or candidate space. Its matrices
// hold up to cliqueMatrixMax members (one word a lane) or, when some root needs it, up to
// cliqueWideMax (two words a lane; then every warp's matrix takes four times the memory). Roots
// larger still are counted by the CPU engine's clique counter at the same time.

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/internal/cliques"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/plan"
)

//go:embed kernels/cliques.cu
var cliqueSource string

const (
	cliqueFile   = "stmatch_cliques.cu"
	cliqueKernel = "stmatch_cliques"
	// cliqueMatrixMax is the kernel's BMAX: the largest upward neighbourhood it lays out (its
	// rows are one 32-bit word a lane).
	cliqueMatrixMax = 1024
	// cliqueWideMax is the kernel's largest bmax (two words a lane). At R-MAT scale 24, 8,394
	// roots have 1,025 to 1,760 upward neighbours and hold 58% of the 4-cliques: on the host (16
	// cores) they took 3 s, against 1 s of kernel for all the others.
	cliqueWideMax = 2 * cliqueMatrixMax
	// cliqueCtlWords: C_NEXT, C_OVERFLOW, C_STOP and C_POLL on lines of their own.
	cliqueCtlWords = 4 * ctlLine
	cliqueOverflow = ctlLine
	// cliqueBatchPerWarp is the units a warp of a device's first range (see cliqueRun.run).
	// Ranges are never made small to keep launches short (the kernel's time slice does that): a
	// launch lasts as long as its slowest unit, so with fewer units than warps most of the GPU
	// idles. Ranges of 64 units (the old floor, with the largest roots first) made R-MAT 20's
	// 5-cliques ten times slower on one GPU (H200).
	cliqueBatchPerWarp = 8
	// cliqueSlice is the clique kernel's time slice when it has a stop flag: a warp takes no unit
	// after this much of a launch. A launch lasts as long as its slowest unit, and units of large
	// roots take seconds, so with short slices most warps idled while a few finished such units.
	// R-MAT 22's 5-cliques took 6.1 s of kernel with slices of 100 ms, 3.6 s with 1 s, 2.8 s with
	// 30 s (H200); on the H100 6.2 s with 100 ms, 3.33 s with 3 s, 3.25 s with 10 s and 3.24 s
	// with a minute. The stop flag ends a launch when the count is cancelled; progress is
	// reported between launches, so at least every 10 s or so.
	cliqueSlice = 10 * time.Second
)

// upward is the oriented graph as the clique kernel reads it (every vertex's upward clique
// neighbours: the data graph's CSR with each vertex's upward run) and how its roots are handed
// out.
type upward struct {
	o *plan.Oriented
	// heavy are the roots with more upward neighbours than the kernel lays out (bmax).
	heavy []uint32
	// bmax is the largest upward list the kernel takes: cliqueMatrixMax, or cliqueWideMax when
	// some root has more than cliqueMatrixMax upward neighbours and the wide matrices are allowed.
	bmax int
	// tasks are the pieces of the roots with more than split (and at most bmax) upward
	// neighbours, largest roots first (see splitRoots); the kernel takes them before the other
	// roots. wide counts those of roots over cliqueMatrixMax.
	tasks []uint64
	wide  int
	split uint32
	// groups, after dealTasks, bounds the groups of tasks that devices take whole: group g is
	// tasks[groups[g]:groups[g+1]].
	groups []int
}

// splitRoots fills u.tasks for k-cliques: every root whose upward list S has more than
// cliqueSplit(k) members, and no more than the kernel's matrices hold, becomes one task
// or a few pieces, each the cliques whose second-smallest vertex is one of S[a:b]. The pieces are
// cut for about equal work, taking the cliques from S[j] to grow as (|S|-j)^3 (the members above
// j to choose from), so the first pieces are short. The largest roots, listed first, thus start
// first, and spread over several warps, instead of ending a count on one warp each (the graph
// builder numbers vertices by degree, so as roots they would come last).
func (u *upward) splitRoots(k int) { u.cutRoots(cliqueSplit(k)) }

// cutRoots is splitRoots with the size above which roots are split and the members a piece
// spans on average given.
func (u *upward) cutRoots(split, span int) {
	u.split, u.groups = uint32(split), nil
	size := func(v uint32) int { return len(u.o.Above(v)) }
	var roots []uint32
	for v := range uint32(u.o.NumVertices()) {
		if d := size(v); d > split && d <= u.bmax {
			roots = append(roots, v)
		}
	}
	slices.SortStableFunc(roots, func(a, b uint32) int { return cmp.Compare(size(b), size(a)) })
	tasks := u.tasks[:0]
	u.wide = 0
	for _, r := range roots {
		d := size(r)
		pieces := (d + span - 1) / span
		a := 0
		for i := 1; i <= pieces; i++ {
			b := d - int(float64(d)*math.Cbrt(1-float64(i)/float64(pieces)))
			b = min(d, max(b, a+1))
			if i == pieces {
				b = d
			}
			tasks = append(tasks, cliqueTask(r, a, b))
			if d > cliqueMatrixMax {
				u.wide++
			}
			if a = b; a == d {
				break
			}
		}
	}
	u.tasks = tasks
}

// dealTasks deals the tasks (largest roots first) round-robin into n groups of about equal
// work, each still largest first, and lays them out one after the other (see u.groups). A
// device takes a group at a time: handed out in contiguous ranges, the first range held every
// large root, and two GPUs counted R-MAT 22's 5-cliques in 6.3 s against 7.1 s on one (H200).
func (u *upward) dealTasks(n int) {
	n = max(1, min(n, len(u.tasks)))
	dealt := make([]uint64, 0, len(u.tasks))
	u.groups = make([]int, 0, n+1)
	for g := range n {
		u.groups = append(u.groups, len(dealt))
		for i := g; i < len(u.tasks); i += n {
			dealt = append(dealt, u.tasks[i])
		}
	}
	u.groups = append(u.groups, len(dealt))
	u.tasks = dealt
}

// cliqueSplit returns the upward-list size above which a root of a k-clique count becomes
// tasks, and the members a piece spans on average. Each piece lays out the root's whole matrix
// again, on the order of |S|^2 log|S| memory reads: pieces of 32 members made R-MAT 22's
// 5-cliques seven times slower (H200). So the large roots are only taken first (whole, for
// 4-cliques, whose count is about the work of the layout) or cut in a few pieces.
func cliqueSplit(k int) (split, span int) {
	if k <= 4 {
		return 256, cliqueWideMax
	}
	return 128, 256
}

// The tasks' a and b (at most cliqueWideMax) have 16 bits each.
var _ [1<<16 - cliqueWideMax]struct{}

// cliqueTask packs a task as the kernel reads it (TASK_ROOT, TASK_A, TASK_B).
func cliqueTask(root uint32, a, b int) uint64 {
	return uint64(root) | uint64(a)<<32 | uint64(b)<<48
}

// newUpward returns o as the kernel reads it, with the matrix size (bmax: cliqueMatrixMax, or
// up to maxMatrix when a root has more upward neighbours) and the heavy roots, those above it.
// Nothing is copied: the kernel reads the data graph's CSR and o's upward runs as they are (a
// copy of the upward lists took 0.8 s at R-MAT scale 24, on 16 cores, most of it page faults).
func newUpward(o *plan.Oriented, maxMatrix int) upward {
	n := o.NumVertices()
	u := upward{o: o, bmax: cliqueMatrixMax}
	largest := 0
	for v := range uint32(n) {
		largest = max(largest, len(o.Above(v)))
	}
	if largest > cliqueMatrixMax {
		u.bmax = max(cliqueMatrixMax, maxMatrix)
	}
	if largest > u.bmax {
		for v := range uint32(n) {
			if len(o.Above(v)) > u.bmax {
				u.heavy = append(u.heavy, v)
			}
		}
	}
	return u
}

// cliqueRun is one device's share of a clique count.
type cliqueRun struct {
	runBase
	rows, ctl *gpu.Buffer
	// off, adj, from and to are the data graph's CSR and its upward runs, tasks the split
	// roots' pieces: placed as Options.Graph says.
	off, adj, from, to, tasks gpu.DevicePtr
	ntasks                    uint64
	split, bmax               uint32
	shared                    uint32        // dynamic shared memory a block: the warps' candidate sets
	slice                     time.Duration // a warp takes no unit after this much of a launch
	// stop, raised when the count's context ends, makes the kernel's warps leave their units:
	// one unit of a large root can take seconds. Nil where the driver cannot map host memory
	// (the kernel then stops between units only).
	stop *gpu.StopFlag
	log  *slog.Logger
}

// release frees the stop flag and the run's device memory.
func (r *cliqueRun) release() {
	if r.stop != nil {
		r.stop.Free()
	}
	r.free()
}

// start compiles the kernel and uploads the data graph's CSR: what needs no orientation, so
// that it overlaps with orienting the graph on the host.
func (r *cliqueRun) start(ctx context.Context, g *graph.Graph) error {
	tc := time.Now()
	mod, err := compileCtx(ctx, r.d, cliqueSource, cliqueFile)
	if err != nil {
		return fmt.Errorf("stmatch: compiling the clique kernel: %w", err)
	}
	r.st.CacheHit, r.st.Compile = mod.CacheHit, time.Since(tc)
	if r.fn, err = mod.Function(cliqueKernel); err != nil {
		return err
	}
	if r.stop, err = r.d.NewStopFlag(); err != nil {
		r.log.Debug("stmatch: no stop flag: the clique kernel stops between units only", "device", r.d.String(), "err", err)
		r.stop = nil
	}
	if r.slice <= 0 {
		r.slice = cliqueSlice
		if r.stop == nil || r.d.Info().KernelTimeout {
			// Launches end often enough to notice a cancellation, or before a display's
			// watchdog kills them.
			r.slice = maxLaunch
		}
	}
	tu := time.Now()
	raw := g.Raw()
	if r.off, err = gpu.UploadPlaced(&r.mem, r.place, "graph offsets", raw.Offsets); err != nil {
		return err
	}
	if r.adj, err = gpu.UploadPlaced(&r.mem, r.place, "graph adjacency", raw.Neighbors); err != nil {
		return err
	}
	r.st.Upload = time.Since(tu)
	return nil
}

// finish uploads the upward runs and the tasks and sizes the grid to the memory left (one bit
// matrix a warp) for k-cliques.
func (r *cliqueRun) finish(u upward, k int) (err error) {
	tu := time.Now()
	_, _, from, to := u.o.CSR()
	if r.from, err = gpu.UploadPlaced(&r.mem, r.place, "upward runs", from); err != nil {
		return err
	}
	if r.to, err = gpu.UploadPlaced(&r.mem, r.place, "upward runs", to); err != nil {
		return err
	}
	if r.tasks, err = gpu.UploadPlaced(&r.mem, r.place, "clique tasks", u.tasks); err != nil {
		return err
	}
	r.ntasks, r.split, r.bmax = uint64(len(u.tasks)), u.split, uint32(u.bmax)
	if r.ctl, err = r.mem.Alloc("control words", cliqueCtlWords*8); err != nil {
		return err
	}
	matrix := uint64(u.bmax) * uint64(u.bmax) / 8
	r.shared = uint32(warpsPerBlock * k * u.bmax / 32 * 4)
	r.blocks = chooseBlocks(r.residentBlocks(r.fn, r.shared), warpsPerBlock, matrix+8, r.mem.Available())
	r.warps = r.blocks * warpsPerBlock
	r.st.Blocks, r.st.Warps, r.st.PerWarpBytes = r.blocks, r.warps, matrix+8
	if r.rows, err = r.mem.Alloc("bit matrices", uint64(r.warps)*matrix); err != nil {
		return err
	}
	r.st.BufferBytes = r.rows.Size()
	if r.counts, err = r.mem.Alloc("per-warp counts", uint64(r.warps)*8); err != nil {
		return err
	}
	r.st.Upload += time.Since(tu)
	return nil
}

// run launches the kernel on ranges of units until there are none left or ctx ends: first the
// groups of tasks (see dealTasks), taken whole from nextGroup, then ranges of roots taken from
// nextRoot (roots counts them; unit ntasks+i is root i). A launch's warps stop taking
// units after r.slice (the kernel's time slice: cliqueSlice, or maxLaunch without a stop flag);
// the next launch goes on with the rest of the range. The ranges of roots start at
// cliqueBatchPerWarp units a warp and double while a launch ends within maxLaunch/2. When ctx
// ends, the stop flag makes the warps leave their units at once (a unit of a large root can take
// seconds), and the count so far is returned with ctx's error.
func (r *cliqueRun) run(ctx context.Context, k int, groups []int, roots uint64, nextGroup, nextRoot *atomic.Uint64, progress func(uint64)) (count uint64, err error) {
	counts := make([]uint64, r.warps)
	ctl := make([]uint64, cliqueCtlWords)
	batch := uint64(cliqueBatchPerWarp * r.warps)
	var lo, hi uint64  // the range in hand: units lo..hi-1 are left
	rootRange := false // whether it is a range of roots (they alone grow)
	stop := gpu.DevicePtr(0)
	if r.stop != nil {
		stop = r.stop.Ptr()
		// The flag is freed after run returns: wait for a Set already under way.
		defer r.stop.RaiseWhenDone(ctx)()
	}
	for {
		if err := ctx.Err(); err != nil {
			return count, err
		}
		if lo >= hi {
			if g := nextGroup.Add(1) - 1; g+1 < uint64(len(groups)) {
				lo, hi, rootRange = uint64(groups[g]), uint64(groups[g+1]), false
				continue
			}
			rootRange = true
			if lo = nextRoot.Add(batch) - batch; lo >= roots {
				return count, nil
			}
			lo, hi = r.ntasks+lo, r.ntasks+min(roots, lo+batch)
		}
		if err := r.ctl.Memset(0); err != nil {
			return count, fmt.Errorf("stmatch: %w", err)
		}
		kt, err := r.fn.LaunchSync(gpu.Dim3{X: uint32(r.blocks)}, gpu.Dim3{X: threadsBlock}, r.shared,
			r.off, r.adj, r.from, r.to, r.tasks, r.ntasks, r.split, r.bmax, lo, hi, int32(k), uint64(r.slice.Nanoseconds()),
			stop, r.rows, r.ctl, r.counts)
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
		if err := r.addCounts(&count, counts); err != nil {
			if errors.Is(err, engine.ErrOverflow) {
				return 0, err
			}
			return count, err
		}
		// C_NEXT counts the units taken, and one more for each warp that found none left.
		taken := min(ctl[0], hi-lo)
		progress(taken)
		lo += taken
		if rootRange && lo >= hi && kt < maxLaunch/2 {
			batch *= 2
		}
	}
}

// countCliques counts the clique pattern c on devs, with the CPU engine's clique counter taking
// the roots too large for the kernels at the same time. It returns the number of cliques (one
// per clique: the caller applies the convention) and whether the count is partial.
func countCliques(ctx context.Context, devs []*gpu.Device, p *engine.Problem, c plan.Clique, opts Options, st *Stats) (uint64, bool, error) {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		u                         upward
		n                         uint64                // units: tasks and roots
		ready                     = make(chan struct{}) // closed once u and n are set
		nextGroup, nextRoot, done atomic.Uint64
		roots                     = uint64(p.Data.NumVertices())
		runs                      = make([]*cliqueRun, len(devs))
		counts                    = make([]uint64, len(devs)+1)
		errs                      = make([]error, len(devs)+1)
		wg                        sync.WaitGroup
	)
	progress := func(units uint64) {
		if d := done.Add(units); p.Progress != nil {
			p.Progress(float64(d) / float64(n))
		}
	}
	// The devices compile and upload the graph while the host orients it: the graph of the
	// clique's labels (a copy of the lists without them, for a clique of wildcards on a labelled
	// graph), whose runs the orientation points into. The copy takes seconds on a large graph:
	// it stops with the count.
	g, err := c.GraphContext(ctx, p.Data)
	if err != nil {
		return 0, true, err
	}
	for i, d := range devs {
		runs[i] = &cliqueRun{runBase: newRunBase(d, p.GPUMemoryLimit, opts), log: p.Logger(), slice: opts.cliqueSlice}
		wg.Go(func() {
			r := runs[i]
			defer r.release()
			errs[i] = r.start(ctx, g)
			<-ready
			if errs[i] == nil {
				if errs[i] = r.finish(u, c.K); errs[i] == nil {
					tr := time.Now()
					counts[i], errs[i] = r.run(ctx, c.K, u.groups, roots, &nextGroup, &nextRoot, progress)
					r.st.Run = time.Since(tr)
				}
			}
			if errs[i] != nil {
				cancel()
			}
		})
	}
	tp := time.Now()
	o := c.Orient(g, 0)
	maxMatrix := cliqueWideMax
	if opts.cliqueNarrow {
		maxMatrix = cliqueMatrixMax
	}
	u = newUpward(o, maxMatrix)
	if cut := opts.cliqueCut; cut.split > 0 {
		u.cutRoots(cut.split, cut.span)
	} else {
		u.splitRoots(c.K)
	}
	// One group a device: more would run the largest roots one group after the other on one
	// GPU, and a launch lasts as long as its slowest unit.
	u.dealTasks(len(devs))
	n = uint64(len(u.tasks)) + roots
	st.Prepare = time.Since(tp)
	st.Roots, st.Units, st.HeavyRoots, st.WideTasks = roots, n, len(u.heavy), u.wide
	close(ready)
	wg.Go(func() {
		start := time.Now()
		counts[len(devs)], errs[len(devs)] = cliques.CountRoots(ctx, o, c.K, u.heavy, p.Threads)
		st.HostTime = time.Since(start)
		if errs[len(devs)] != nil {
			cancel()
		}
	})
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
