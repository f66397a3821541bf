package stmatch

// The last-level-sum kernel (kernels/lastsum.cu): plans whose last level v and the postponed
// vertex e hanging on it are counted, for all of v's data vertices at once, from tables of their
// key (the levels v's set and e's other parents depend on), where some level after the key is
// enumerated under the same tables (STMatch's q1: two triangles sharing a vertex). The CPU
// engine's last-level sum (engine/cpu/lastsum.go) is the same formula; the plan kernels loop over
// v instead, one intersection per assignment of the levels above and data vertex of v.

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/plan"
)

//go:embed kernels/lastsum.cu
var lastSumSource string

const (
	lastSumFile   = "stmatch_lastsum.cu"
	lastSumKernel = "stmatch_lastsum"
	// lastSumCtlWords: C_NEXT, C_OVERFLOW, C_STOP and C_POLL on lines of their own.
	lastSumCtlWords = 4 * ctlLine
	lastSumOverflow = ctlLine
	lastSumStop     = 2 * ctlLine
	// lastSumMaxSplit is the most units a root is cut into (lastSumUnits), lastSumUnitsPerWarp
	// the units a warp about.
	lastSumMaxSplit     = 8
	lastSumUnitsPerWarp = 1
	// lastSumBatchPerWarp is the units a warp of a launch's first range; ranges double while
	// launches end within maxLaunch/2.
	lastSumBatchPerWarp = 8
)

// The descriptor words the kernel reads (the D_* of kernels/lastsum.cu).
const (
	dL = iota
	dT
	dERec
	dBRec
	dStride
	dSizeE
	dSE
	dCountD
	dVE
	dEOther
	dDPos
	descWords
)

// lastSumShape is a plan's shape for the kernel: its key is levels 0..t-1 (t <= L-2, so that a
// level below the key shares its tables), e and b the postponed groups (b: -1 when none).
type lastSumShape struct {
	t, e, b int
}

// lastSumFor returns pl's shape for the last-level-sum kernel, or why it does not apply. The
// conditions are the CPU engine's (lastSumFor there): the last level has backward edges, no
// symmetry window and no induced checks; the postponed vertices are e alone (one vertex, v among
// its parents and at least one other) or e and one other single vertex b whose parents are
// earlier levels; neither has a window. The kernel also needs a candidate space (its lists), no
// induced check on any level, and a level between the key and v (else the tables change with
// every assignment and the plan kernels' loop does the same intersections).
func lastSumFor(pl *plan.Plan) (lastSumShape, string) {
	if pl == nil || pl.Empty || pl.Space == nil {
		return lastSumShape{e: -1, b: -1}, "no candidate space"
	}
	return lastSumShapeOf(pl)
}

// lastSumShapeOf is lastSumFor but for the candidate space (a plan built without one, to see
// its shape).
func lastSumShapeOf(pl *plan.Plan) (lastSumShape, string) {
	ls := lastSumShape{e: -1, b: -1}
	L := len(pl.Levels)
	if L < 3 || L > maxLevels || len(pl.Groups) == 0 || len(pl.Groups) > 2 {
		return ls, "not a last level with one or two postponed vertices below"
	}
	for i := range pl.Levels {
		if len(pl.Levels[i].NonAdjacent) > 0 {
			return ls, "induced checks"
		}
	}
	v := &pl.Levels[L-1]
	if len(v.Backward) == 0 || v.Bounded() {
		return ls, "the last level has a symmetry window or no parent"
	}
	for gi := range pl.Groups {
		lg := &pl.Groups[gi]
		if len(lg.Vertices) != 1 || len(lg.Parents) == 0 || lg.Bounded() {
			return ls, "a postponed group is not one vertex with parents and no window"
		}
		onV := false
		for _, pe := range lg.Parents {
			onV = onV || pe.Level == L-1
		}
		switch {
		case onV && ls.e < 0:
			ls.e = gi
		case !onV && ls.b < 0:
			ls.b = gi
		default:
			return ls, "two postponed vertices on the same side of the last level"
		}
	}
	if ls.e < 0 || len(pl.Groups[ls.e].Parents) < 2 {
		return ls, "no postponed vertex on the last level and another"
	}
	for _, be := range v.Backward {
		ls.t = max(ls.t, be.Level+1)
	}
	for _, pe := range pl.Groups[ls.e].Parents {
		if pe.Level != L-1 {
			ls.t = max(ls.t, pe.Level+1)
		}
	}
	if ls.t > L-2 {
		return ls, "the key is every level above the last"
	}
	return ls, ""
}

// uniqueByEmbeddings returns, for a count of unique non-induced matches whose embeddings plan
// (without an order search) the last-level-sum kernel takes, that plan and |Aut(p)| to divide its
// count by (unique = embeddings / |Aut(p)| exactly, as the CPU engine's uniqueByEmbeddings
// counts); else nil. A unique plan keeps symmetry windows that the kernel cannot take (q1's on
// its last level: every vertex enumerated, 4.8e15 nodes bound on wiki-Vote, against the
// embeddings plan's 4.3e9 with the last level summed). The embeddings plan is first built
// without a candidate space, from base when given, to see its shape, and returned as built,
// the base of the plan that follows (the filtering is done once, the space only for the plan
// that runs).
func uniqueByEmbeddings(ctx context.Context, p *engine.Problem, o Options, base *plan.Plan) (taken *plan.Plan, aut uint64, built *plan.Plan) {
	if !p.Semantics.Unique || p.Semantics.Induced || !o.lastSumKernel() {
		return nil, 0, nil
	}
	probe, err := plan.BuildFrom(ctx, p.Data, p.Pattern, base, plan.Options{MultiplyAutomorphisms: !o.NoMultiply, Order: o.order, SpaceLimit: -1})
	if err != nil || probe.Empty {
		return nil, 0, nil
	}
	if _, why := lastSumShapeOf(probe); why != "" || !leafCountable(probe) {
		return nil, 0, probe
	}
	aut, ok := plan.RestrictionsAutomorphisms(plan.SymmetryRestrictions(probe.Pattern, fullOrder(probe)))
	eo := o
	eo.NoOrderSearch = true
	alt, err := buildPlan(ctx, p.Data, p.Pattern, engine.Semantics{}, eo, probe)
	if err != nil || !ok {
		return nil, 0, probe
	}
	if _, why := lastSumFor(alt); why != "" {
		return nil, 0, alt
	}
	return alt, aut, alt
}

// lastSumKernel says whether the options count plans of the last-level-sum shape with its
// kernel: as the clique kernel, unless the plan kernels are named (KernelGeneric, KernelQuery),
// v1 runs or Options.NoLastSum.
func (o Options) lastSumKernel() bool {
	return !o.NoLastSum && !o.V1 && !o.NoLeaves && (o.Kernel == KernelTiered || o.Kernel == KernelCliques)
}

// lastSumPlan is a plan flattened for the last-level-sum kernel: the plan kernels' records
// (without reuse or pieces: every level intersects all its lists, into a buffer as long as its
// longest list) and the descriptor of the shape.
type lastSumPlan struct {
	fp   *flatPlan
	desc []uint64
}

// flattenLastSum lays pl out for the kernel. A warp's slice holds the levels' buffers (v's holds
// D), then |E_x| (as long as D's), S_E and |D ∩ N(y)| (as long as e's shortest other list's
// longest entry), and D's positions in v's candidate list (as long as D's).
func flattenLastSum(g *graph.Graph, pl *plan.Plan, ls lastSumShape) (*lastSumPlan, error) {
	fp, err := flattenOn(g, pl, flatOptions{})
	if err != nil {
		return nil, err
	}
	L := fp.L
	desc := make([]uint64, descWords)
	desc[dL], desc[dT] = uint64(L), uint64(ls.t)
	// The groups' records follow the levels', class by class: e's is the one with v as a parent.
	for r := L; r < L+fp.G; r++ {
		rec := fp.Meta[r*metaStride : (r+1)*metaStride]
		if rec[mBack]>>(L-1)&1 != 0 {
			desc[dERec], desc[dVE], desc[dEOther] = uint64(r), rec[mEBase+L-1], rec[mBack]&^(1<<(L-1))
		} else {
			desc[dBRec] = uint64(r)
		}
	}
	if desc[dERec] == 0 || (ls.b >= 0) != (desc[dBRec] != 0) {
		return nil, fmt.Errorf("stmatch: the last-level sum's groups are not in the flattened plan")
	}
	capSE := ^uint64(0)
	e := pl.Groups[ls.e]
	for _, pe := range e.Parents {
		if pe.Level == L-1 {
			continue
		}
		off, _ := pl.Space[[2]int{pl.Levels[pe.Level].Vertex, e.Vertices[0]}].Arrays()
		var longest uint64
		for k := 1; k < len(off); k++ {
			longest = max(longest, off[k]-off[k-1])
		}
		capSE = min(capSE, longest)
	}
	capD := fp.Cap[L-1]
	desc[dSizeE] = fp.Stride
	desc[dSE] = desc[dSizeE] + capD
	desc[dCountD] = desc[dSE] + capSE
	desc[dDPos] = desc[dCountD] + capSE
	desc[dStride] = desc[dDPos] + capD
	return &lastSumPlan{fp: fp, desc: desc}, nil
}

// lastSumUnits returns the kernel's work units: the plan kernels' (a root and a stride over its
// level-1 set), a root cut into as many as its weight (its level-1 list) over a warp's share of
// the whole, at most lastSumMaxSplit, heaviest roots first. Every unit builds its key's tables
// again when the key is the root alone (STMatch's q1: |N(c)| intersections a unit), so roots are
// cut far less than for the plan kernels (about 16 units a warp, as many as the weight asks).
func (fp *flatPlan) lastSumUnits(warps int, split bool) []uint64 {
	return fp.cutUnits(warps, split, lastSumUnitsPerWarp, lastSumMaxSplit)
}

// lastSumMaxWarpBytes bounds a warp's slice for the kernel (its buffers are as long as the
// longest lists, without the plan kernels' pieces): 1 MiB, lists of about 40,000 entries. Longer
// slices, or a --gpu-memory whose half holds fewer than an eighth of a full grid of them, leave
// the count to the plan kernels, which keep their grid by computing long sets in pieces.
const lastSumMaxWarpBytes = 1 << 20

// fits reports whether the kernel's slices suit a count within limit bytes of GPU memory (0:
// none); see lastSumMaxWarpBytes.
func (lp *lastSumPlan) fits(limit uint64) bool {
	perWarp := lp.desc[dStride]*4 + 8
	return perWarp <= lastSumMaxWarpBytes && (limit == 0 || perWarp*fullGridWarps/8 <= limit/2)
}

// lastSumRun is one device's share of a last-level-sum count.
type lastSumRun struct {
	runBase
	buf, ctl, meta, desc *gpu.Buffer
	off, val, cands, uns gpu.DevicePtr
	// stop, raised when the count's context ends, makes the kernel's warps leave their units
	// (one unit of a hub root can take seconds). Nil where the driver cannot map host memory:
	// the count then stops between launches only.
	stop *gpu.StopFlag
}

// release frees the stop flag and the run's device memory.
func (r *lastSumRun) release() {
	if r.stop != nil {
		r.stop.Free()
	}
	r.free()
}

// prepare compiles the kernel, uploads the plan and the work units and sizes the grid to the
// memory left (a slice of desc[dStride] words a warp).
func (r *lastSumRun) prepare(ctx context.Context, lp *lastSumPlan, units []uint64) (err error) {
	tc := time.Now()
	mod, err := compileCtx(ctx, r.d, lastSumSource, lastSumFile)
	if err != nil {
		return fmt.Errorf("stmatch: compiling the last-level-sum kernel: %w", err)
	}
	r.st.CacheHit, r.st.Compile = mod.CacheHit, time.Since(tc)
	if r.fn, err = mod.Function(lastSumKernel); err != nil {
		return fmt.Errorf("stmatch: %w", err)
	}
	if r.stop, err = r.d.NewStopFlag(); err != nil {
		r.stop = nil
	}
	tu := time.Now()
	if r.meta, r.off, r.val, r.cands, err = r.uploadSpace(lp.fp); err != nil {
		return err
	}
	if r.desc, err = gpu.UploadTo(&r.mem, "plan", lp.desc); err != nil {
		return err
	}
	if len(units) == 0 {
		units = []uint64{0}
	}
	if r.uns, err = gpu.UploadPlaced(&r.mem, r.place, "work units", units); err != nil {
		return err
	}
	if r.ctl, err = r.mem.Alloc("control words", lastSumCtlWords*8); err != nil {
		return err
	}
	perWarp := lp.desc[dStride]*4 + 8
	r.blocks = chooseBlocks(r.residentBlocks(r.fn, 0), warpsPerBlock, perWarp, r.mem.Available())
	r.warps = r.blocks * warpsPerBlock
	r.st.Blocks, r.st.Warps, r.st.PerWarpBytes = r.blocks, r.warps, perWarp
	if r.buf, err = r.mem.Alloc("set buffers", uint64(r.warps)*lp.desc[dStride]*4); err != nil {
		return err
	}
	r.st.BufferBytes = r.buf.Size()
	if r.counts, err = r.mem.Alloc("per-warp counts", uint64(r.warps)*8); err != nil {
		return err
	}
	r.st.Upload = time.Since(tu)
	return nil
}

// run launches the kernel on the ranges of units disp hands out, each in launches of
// lastSumBatchPerWarp units a warp at first, doubling while a launch finishes its range within
// maxLaunch/2, until there are none left or ctx ends: the stop flag then makes the warps leave
// their units, and the count so far (a lower bound) is returned with ctx's error. The warps take
// no unit after maxLaunch of a launch (a display's watchdog, a cancellation without a stop flag):
// the next launch goes on with the rest of the range.
func (r *lastSumRun) run(ctx context.Context, disp *unitDispenser, progress func(uint64)) (count uint64, err error) {
	counts := make([]uint64, r.warps)
	ctl := make([]uint64, lastSumCtlWords)
	batch := uint64(lastSumBatchPerWarp * r.warps)
	stop := gpu.DevicePtr(0)
	if r.stop != nil {
		stop = r.stop.Ptr()
		// The flag is freed after run returns: wait for a Set already under way.
		defer r.stop.RaiseWhenDone(ctx)()
	}
	for {
		lo, end, ok := disp.take()
		if !ok {
			return count, nil
		}
		for lo < end {
			if err := ctx.Err(); err != nil {
				return count, err
			}
			hi := min(end, lo+batch)
			if err := r.ctl.Memset(0); err != nil {
				return count, fmt.Errorf("stmatch: %w", err)
			}
			kt, err := r.fn.LaunchSync(gpu.Dim3{X: uint32(r.blocks)}, gpu.Dim3{X: threadsBlock}, 0,
				r.meta, r.off, r.val, r.cands, r.desc, r.uns, lo, hi, uint64(maxLaunch.Nanoseconds()), stop, r.buf, r.ctl, r.counts)
			if err != nil {
				return count, fmt.Errorf("stmatch: %w", err)
			}
			r.st.Kernel += kt
			r.st.MaxLaunch = max(r.st.MaxLaunch, kt)
			r.st.Launches++
			if err := gpu.CopyToHost(ctl, r.ctl, 0); err != nil {
				return count, fmt.Errorf("stmatch: %w", err)
			}
			if ctl[lastSumOverflow] != 0 {
				return 0, engine.ErrOverflow
			}
			if err := r.addCounts(&count, counts); err != nil {
				return 0, err
			}
			if ctl[lastSumStop] != 0 {
				// The warps left their units: the count is partial.
				return count, cmp.Or(ctx.Err(), context.Canceled)
			}
			// C_NEXT counts the units taken, and one more for each warp that found none left.
			taken := min(ctl[0], hi-lo)
			progress(taken)
			lo += taken
			if lo >= hi && kt < maxLaunch/2 {
				batch *= 2
			}
		}
	}
}

// countLastSum counts the plan lp on devs with the last-level-sum kernel and returns the
// matches of the plan (the caller multiplies by its Multiplier) and whether the count is partial.
func countLastSum(ctx context.Context, devs []*gpu.Device, p *engine.Problem, lp *lastSumPlan, o Options, st *Stats) (uint64, bool, error) {
	fp := lp.fp
	units := fp.lastSumUnits(gridWarps(devs), !o.NoSplit)
	st.Units, st.LastSum = uint64(len(units)), true
	disp := newDispenser(uint64(len(units)), devs)
	runs := make([]*lastSumRun, len(devs))
	counts := make([]uint64, len(devs))
	errs := make([]error, len(devs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	progress := func(n uint64) {
		if d := disp.done.Add(n); p.Progress != nil {
			p.Progress(float64(d) / float64(max(1, len(units))))
		}
	}
	done := make(chan struct{})
	for k, d := range devs {
		runs[k] = &lastSumRun{runBase: newRunBase(d, p.GPUMemoryLimit, o)}
		go func(r *lastSumRun, k int) {
			defer func() { done <- struct{}{} }()
			defer r.release()
			if errs[k] = r.prepare(ctx, lp, units); errs[k] == nil {
				tr := time.Now()
				counts[k], errs[k] = r.run(ctx, disp, progress)
				r.st.Run = time.Since(tr)
			}
			if errs[k] != nil {
				cancel()
			}
		}(runs[k], k)
	}
	for range devs {
		<-done
	}
	for _, r := range runs {
		st.merge(&r.st)
	}
	return sumDevices(ctx, counts, errs)
}

// sumDevices adds the devices' counts: a device's own failure wins over the cancellations it
// caused, then overflow; a cancelled count returns what was counted, partial, with ctx's error.
func sumDevices(ctx context.Context, counts []uint64, errs []error) (uint64, bool, error) {
	var ctxErr error
	for _, err := range errs {
		switch {
		case err == nil:
		case cancelled(err):
			ctxErr = err
		default:
			return 0, false, err
		}
	}
	var total uint64
	for _, c := range counts {
		if total+c < total {
			return 0, false, engine.ErrOverflow
		}
		total += c
	}
	if ctxErr == nil {
		ctxErr = ctx.Err()
	}
	if ctxErr != nil {
		return total, true, ctxErr
	}
	return total, false, nil
}
