package stmatch

// One device's share of a count or a listing (deviceRun): compiling the kernel, uploading the
// plan, sizing the grid, and the launches of time slices; the dispenser of work units that
// several devices share.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
)

// mergeStats folds the devices' statistics into st (see Stats.merge).
func mergeStats(st *Stats, runs []*deviceRun) {
	for _, r := range runs {
		st.merge(&r.st)
	}
}

// merge folds one device's statistics s into st: times of the slowest, sums of the counters.
func (st *Stats) merge(s *Stats) {
	st.CacheHit = st.CacheHit || s.CacheHit
	st.Compile = max(st.Compile, s.Compile)
	st.Upload = max(st.Upload, s.Upload)
	st.Kernel = max(st.Kernel, s.Kernel)
	st.Run = max(st.Run, s.Run)
	st.Free = max(st.Free, s.Free)
	st.Launches += s.Launches
	st.Blocks += s.Blocks
	st.Warps += s.Warps
	st.BufferBytes += s.BufferBytes
	st.DeviceBytes += s.DeviceBytes
	st.HostBytes += s.HostBytes
	st.PerWarpBytes = max(st.PerWarpBytes, s.PerWarpBytes)
	st.QueueSlots = max(st.QueueSlots, s.QueueSlots)
	st.Donated += s.Donated
	st.Pieces += s.Pieces
	st.Spilled += s.Spilled
	st.Taken += s.Taken
	st.QueryKernel = st.QueryKernel || s.QueryKernel
	st.QueryCompile = max(st.QueryCompile, s.QueryCompile)
	st.QueryLaunches += s.QueryLaunches
	st.QuerySource = cmp.Or(st.QuerySource, s.QuerySource)
	st.HubRows += s.HubRows
	st.HubBytes += s.HubBytes
	st.MaxLaunch = max(st.MaxLaunch, s.MaxLaunch)
	st.MaxQueued = max(st.MaxQueued, s.MaxQueued)
	st.QueueGrown += s.QueueGrown
}

// log writes where the count's time went, at debug level (submatch count -v).
func (st *Stats) log(l *slog.Logger) {
	l.Debug("stmatch: count", "gpus", st.GPUs, "cliques", st.Cliques, "last_sum", st.LastSum, "open", st.Open, "prepare", st.Prepare,
		"compile", st.Compile, "cache_hit", st.CacheHit, "upload", st.Upload, "kernel", st.Kernel, "run", st.Run, "free", st.Free,
		"query_kernel", st.QueryKernel, "query_source", st.QuerySource, "query_compile", st.QueryCompile, "query_launches", st.QueryLaunches,
		"levels", st.Levels, "wide_tasks", st.WideTasks, "host_roots", st.HeavyRoots, "host_time", st.HostTime, "launches", st.Launches, "warps", st.Warps,
		"units", st.Units, "max_launch", st.MaxLaunch, "spilled", st.Spilled, "max_queued", st.MaxQueued, "queue_slots", st.QueueSlots,
		"queue_grown", st.QueueGrown, "hub_rows", st.HubRows, "hub_bytes", st.HubBytes, "device_bytes", st.DeviceBytes, "host_bytes", st.HostBytes, "total", st.Total)
}

// runBase is what every kernel's share of a count on one device has: the device, the kernel,
// the count's buffers there, the grid and the statistics.
type runBase struct {
	d      *gpu.Device
	fn     *gpu.Function
	mem    gpu.Allocs // the count's buffers, within its --gpu-memory (Limit 0: the device budget alone)
	blocks int
	warps  int
	counts *gpu.Buffer // one uint64 a warp: what it counted in the last launch
	st     Stats
	// place is where what the kernel reads from the data graph goes (Options.Graph).
	place gpu.Placement
}

// newRunBase starts d's share of a count that may allocate limit bytes there (0: no limit but
// the device budget), the data graph's buffers placed as o.Graph says.
func newRunBase(d *gpu.Device, limit uint64, o Options) runBase {
	return runBase{d: d, mem: gpu.Allocs{Device: d, Limit: limit, Prefix: "stmatch: "}, place: o.Graph}
}

// free releases the run's device memory, recording in its statistics how much it held.
func (r *runBase) free() {
	t := time.Now()
	r.st.DeviceBytes, r.st.HostBytes = r.mem.Used(), r.mem.HostUsed()
	r.mem.FreeAll()
	r.st.Free = time.Since(t)
}

// residentBlocks is how many blocks of f the device runs at once with shared bytes of dynamic
// shared memory each (the occupancy calculator's count per SM; blocksPerSM per SM when it
// cannot say): the grid of a launch, before memory limits it.
func (r *runBase) residentBlocks(f *gpu.Function, shared uint32) int {
	perSM := blocksPerSM
	if n, err := f.ActiveBlocksPerSM(threadsBlock, shared); err == nil && n > 0 {
		perSM = n
	}
	return max(1, r.d.Info().SMs) * perSM
}

// deviceRun is one GPU's share of a count on the plan kernels: the compiled kernel, the
// uploaded plan and buffers.
type deviceRun struct {
	runBase

	meta, buf, ctl, tasks, seq *gpu.Buffer
	// off, val, cands and units are the candidate space, the root candidates and the work
	// units, and gOff, gAdj the data graph's CSR (0: not needed): placed as Options.Graph says.
	off, val, cands, units, gOff, gAdj gpu.DevicePtr
	queueCap                           uint64
	// hubRow and hubBits are the hub bitmaps (hubs.go; 0: none), hubWords a row's words.
	hubRow, hubBits gpu.DevicePtr
	hubWords        uint64

	// querySrc is the per-query kernel's source while KernelTiered has not switched to it yet;
	// tier delivers its background compile.
	querySrc string
	tier     chan tierResult
	shared   uint32 // dynamic shared memory per block (the plan metadata), set by prepare
}

type tierResult struct {
	mod *gpu.Module
	err error
}

// tierUp runs before every launch of a KernelTiered count: before the second launch it starts
// compiling the per-query kernel in the background (a count that ends in one launch never pays
// for it), and at the first launch after the compile is done it switches to that kernel. Both
// kernels read and write the same buffers and leave nothing on the device between launches but
// the work queue, so the switch is free. A failed compile leaves the generic kernel running.
func (r *deviceRun) tierUp() {
	if r.querySrc == "" || r.st.Launches == 0 {
		return
	}
	if r.tier == nil {
		r.tier = make(chan tierResult, 1)
		go func(src string) {
			m, err := r.d.Compile(src, queryFile, nil)
			r.tier <- tierResult{m, err}
		}(r.querySrc)
		return
	}
	var t tierResult
	select {
	case t = <-r.tier:
	default:
		return
	}
	r.querySrc = ""
	err := t.err
	var f *gpu.Function
	if err == nil {
		f, err = t.mod.Function(kernelName)
	}
	if err == nil {
		// The grid stays as large as the buffers, unless the per-query kernel fits fewer blocks
		// at once: the warps of blocks no longer launched then count 0 from here on.
		if resident := r.residentBlocks(f, r.shared); resident < r.blocks {
			if err = r.counts.Memset(0); err == nil {
				r.blocks = resident
			}
		}
	}
	if err != nil {
		slog.Warn("stmatch: the per-query kernel is not used; the generic kernel goes on", "err", err)
		return
	}
	r.fn = f
	r.st.QueryKernel, r.st.QueryCompile = true, t.mod.CompileTime
}

// compileCtx is d.CompileContext: a cold NVRTC compile (about 12 s for the generic kernel on the
// H100 host) goes on in the background while a cancelled count returns at once (a 5 s --timeout
// used to end a count after 16 s), with a *gpu.CompileStopped error that says so.
func compileCtx(ctx context.Context, d *gpu.Device, src, file string) (*gpu.Module, error) {
	return d.CompileContext(ctx, src, file, nil)
}

// cancelled reports whether err says that a context ended (the count is then partial, not failed).
func cancelled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// newDeviceRun starts d's share of a count that may allocate limit bytes there (0: no limit but
// the device budget), the data graph's buffers placed as o.Graph says.
func newDeviceRun(d *gpu.Device, limit uint64, o Options) *deviceRun {
	return &deviceRun{runBase: newRunBase(d, limit, o)}
}

// taskBytes is one queue slot: the task's words and the slot's sequence number.
const taskBytes = taskWords*4 + 8

// queueSlots is the work queue's capacity for warps warps and L levels: room for every warp to
// spill one task per level at the end of a slice, plus donations (at most about one per warp
// outstanding), rounded up to a power of two.
func queueSlots(warps, L int) uint64 {
	need := uint64(warps) * uint64(L+2)
	c := uint64(1)
	for c < need {
		c <<= 1
	}
	return c
}

// prepare compiles the kernel and uploads everything a count needs on r.d; the grid is as large
// as both the kernel's occupancy and the memory left allow.
func (r *deviceRun) prepare(ctx context.Context, p *engine.Problem, fp *flatPlan, o Options, units []uint64) error {
	tc := time.Now()
	src, file, name := kernelSource, kernelFile, kernelName
	if o.V1 {
		src, file, name = kernelSourceV1, kernelFileV1, kernelNameV1
	}
	var mod *gpu.Module
	var err error
	if !o.V1 && o.Kernel != KernelGeneric {
		if r.querySrc, err = specialise(kernelSource, fp); err != nil {
			return err
		}
		r.st.QuerySource = sourceID(r.querySrc)
		if o.Kernel == KernelQuery {
			mod, err = compileCtx(ctx, r.d, r.querySrc, queryFile)
		} else {
			mod, err = r.d.Cached(r.querySrc, queryFile, nil)
		}
		if err != nil {
			return fmt.Errorf("stmatch: compiling the per-query kernel: %w", err)
		}
		if mod != nil {
			r.querySrc = ""
			r.st.QueryKernel, r.st.QueryCompile = true, mod.CompileTime
		}
	}
	if mod == nil {
		if mod, err = compileCtx(ctx, r.d, src, file); err != nil {
			return fmt.Errorf("stmatch: compiling the kernel: %w", err)
		}
	}
	r.st.CacheHit = mod.CacheHit
	r.st.Compile = time.Since(tc)
	if r.fn, err = mod.Function(name); err != nil {
		return err
	}

	tu := time.Now()
	if r.meta, r.off, r.val, r.cands, err = r.uploadSpace(fp); err != nil {
		return err
	}
	if fp.NonAdjacent || fp.Graph {
		offs, adj := fp.sortedCSR(p.Data)
		if r.gOff, err = gpu.UploadPlaced(&r.mem, r.place, "graph offsets", offs); err != nil {
			return err
		}
		if r.gAdj, err = gpu.UploadPlaced(&r.mem, r.place, "graph adjacency", adj); err != nil {
			return err
		}
	}
	if !o.V1 && !o.NoHubs && p.Data != nil {
		if err := r.uploadHubs(p, fp, o); err != nil {
			return err
		}
	}
	if r.ctl, err = r.mem.Alloc("control words", ctlWords*8); err != nil {
		return err
	}
	if err := r.ctl.Memset(0); err != nil {
		return err
	}
	if !o.V1 {
		if len(units) == 0 {
			units = []uint64{0}
		}
		if r.units, err = gpu.UploadPlaced(&r.mem, r.place, "work units", units); err != nil {
			return err
		}
	}

	// Per-warp set buffers, counts and (v2) queue slots: as many warps as the occupancy allows
	// and the memory left holds, down to one block.
	r.shared = uint32((fp.L + fp.G) * metaStride * 8)
	want := r.residentBlocks(r.fn, r.shared)
	perWarp := fp.Stride*4 + 8
	if !o.V1 {
		perWarp += 2 * uint64(fp.L+2) * taskBytes // queueSlots rounds up by less than 2x
	}
	r.blocks = chooseBlocks(want, warpsPerBlock, perWarp, r.mem.Available())
	r.warps = r.blocks * warpsPerBlock
	r.st.Blocks, r.st.Warps, r.st.PerWarpBytes = r.blocks, r.warps, perWarp
	if r.buf, err = r.mem.Alloc("per-warp buffers", uint64(r.warps)*fp.Stride*4); err != nil {
		return err
	}
	r.st.BufferBytes = r.buf.Size()
	if r.counts, err = r.mem.Alloc("per-warp counts", uint64(r.warps)*8); err != nil {
		return err
	}
	if !o.V1 {
		r.queueCap = queueSlots(r.warps, fp.L)
		if o.queueSlots > 0 {
			r.queueCap = o.queueSlots
		}
		r.st.QueueSlots = r.queueCap
		if r.tasks, err = r.mem.Alloc("work queue", r.queueCap*taskWords*4); err != nil {
			return err
		}
		seq := make([]uint64, r.queueCap)
		for k := range seq {
			seq[k] = uint64(k)
		}
		if r.seq, err = gpu.UploadTo(&r.mem, "work queue sequence numbers", seq); err != nil {
			return err
		}
	}
	r.st.Upload = time.Since(tu)
	return nil
}

// uploadHubs builds and uploads the hub bitmaps of fp's lists (hubs.go) within a share of the
// memory left; when none qualifies or fits, the kernel searches every list.
func (r *deviceRun) uploadHubs(p *engine.Problem, fp *flatPlan, o Options) error {
	budget := min(r.mem.Available()/hubMemShare, hubMaxBytes)
	h := fp.hubsWithin(p.Data, budget, o.hubMin)
	if h == nil {
		return nil
	}
	// The bitmaps are optional: when the budget refuses them, the kernel searches every list.
	rows, err := gpu.UploadTo(&r.mem, "hub bitmap rows", h.Rows)
	if errors.Is(err, gpu.ErrBudget) {
		slog.Debug("stmatch: no hub bitmaps", "err", err)
		return nil
	}
	if err != nil {
		return err
	}
	bits, err := gpu.UploadTo(&r.mem, "hub bitmaps", h.Bits)
	if err != nil {
		r.mem.Release(rows)
		if errors.Is(err, gpu.ErrBudget) {
			slog.Debug("stmatch: no hub bitmaps", "err", err)
			return nil
		}
		return err
	}
	r.hubRow, r.hubBits, r.hubWords = rows.Ptr(), bits.Ptr(), h.Words
	r.st.HubRows, r.st.HubBytes = h.N, h.bytes()
	return nil
}

// growQueue makes the work queue large enough for the queued tasks plus a spill of every warp's
// whole stack and a donation each (queueSlots' room), relaying the queued tasks into a queue
// twice as large or more; the kernel's ring counters in ctl are set for the new queue. When
// the memory budget does not allow it, the queue stays as it is: the slice-end spills that find
// no room then work on past the slice, as before.
func (r *deviceRun) growQueue(ctl []uint64, L int) error {
	queued := ctl[cHead] - ctl[cTail]
	need := queued + uint64(r.warps)*uint64(L+2)
	if need <= r.queueCap {
		return nil
	}
	newCap := r.queueCap
	for newCap < 2*need {
		newCap <<= 1
	}
	tasks := make([]uint32, r.queueCap*taskWords)
	seq := make([]uint64, r.queueCap)
	if err := gpu.CopyToHost(tasks, r.tasks, 0); err != nil {
		return fmt.Errorf("stmatch: %w", err)
	}
	if err := gpu.CopyToHost(seq, r.seq, 0); err != nil {
		return fmt.Errorf("stmatch: %w", err)
	}
	nt, ns, err := relayQueue(tasks, seq, ctl[cTail], ctl[cHead], newCap)
	if err != nil {
		return err
	}
	bt, err := gpu.UploadTo(&r.mem, "work queue", nt)
	if err != nil {
		return r.keepQueue(newCap, err)
	}
	bs, err := gpu.UploadTo(&r.mem, "work queue sequence numbers", ns)
	if err != nil {
		r.mem.Release(bt)
		return r.keepQueue(newCap, err)
	}
	r.mem.Release(r.tasks)
	r.mem.Release(r.seq)
	r.tasks, r.seq, r.queueCap = bt, bs, newCap
	ctl[cTail], ctl[cHead] = 0, queued
	r.st.QueueGrown++
	r.st.QueueSlots = newCap
	return nil
}

// relayQueue lays the published tasks of tickets tail..head-1 of the ring (tasks, seq; its
// capacity is len(seq)) out in a new ring of newCap slots (a power of two) as tickets 0..n-1,
// with the sequence numbers the kernel's protocol expects (a published slot k: k + 1; a free
// one: k).
func relayQueue(tasks []uint32, seq []uint64, tail, head, newCap uint64) ([]uint32, []uint64, error) {
	oldCap := uint64(len(seq))
	n := head - tail
	if head < tail || n > oldCap || n > newCap || newCap&(newCap-1) != 0 || uint64(len(tasks)) != oldCap*taskWords {
		return nil, nil, fmt.Errorf("stmatch: work queue of %d slots with tickets %d..%d cannot move to %d slots", oldCap, tail, head, newCap)
	}
	nt := make([]uint32, newCap*taskWords)
	ns := make([]uint64, newCap)
	for k := range ns {
		ns[k] = uint64(k)
	}
	for k := range n {
		t := tail + k
		slot := t & (oldCap - 1)
		if seq[slot] != t+1 {
			return nil, nil, fmt.Errorf("stmatch: work queue slot %d of ticket %d is not published (sequence %d)", slot, t, seq[slot])
		}
		copy(nt[k*taskWords:(k+1)*taskWords], tasks[slot*taskWords:(slot+1)*taskWords])
		ns[k] = k + 1
	}
	return nt, ns, nil
}

// Control words of the v2 kernel (the C_* defines of kernels/stmatch.cu), each on a 128-byte
// line of its own.
const (
	ctlLine   = 16
	ctlWords  = 15 * ctlLine
	cNext     = 0 * ctlLine
	cOverflow = 1 * ctlLine
	cWork     = 2 * ctlLine
	cIdle     = 3 * ctlLine
	cHead     = 4 * ctlLine
	cTail     = 5 * ctlLine
	cQSize    = 6 * ctlLine
	cDonated  = 7 * ctlLine
	cSpilled  = 8 * ctlLine
	cTaken    = 9 * ctlLine
	cOut      = 10 * ctlLine
	cStop     = 11 * ctlLine
	cPieces   = 12 * ctlLine
	cCancel   = 13 * ctlLine
	cPoll     = 14 * ctlLine
)

const (
	taskWords = 6 + 2*maxLevels
	optSteal  = 1
	optList   = 2
	optUnroll = 4
	// optUnrollLeaves: unless Options.NoUnrollLeaves, for plans whose leaf classes are single
	// groups (with Options.UnrollClasses, for every plan with leaf groups).
	optUnrollLeaves = 8
	sliceFloor      = time.Millisecond
	// defaultDonateAfter: see Options.DonateAfter.
	defaultDonateAfter = 500 * time.Microsecond
)

// uploadSpace uploads what the plan kernels and the last-level-sum kernel read of fp: its records
// (device memory), and the candidate space and candidate lists (placed as Options.Graph says).
func (r *runBase) uploadSpace(fp *flatPlan) (meta *gpu.Buffer, off, val, cands gpu.DevicePtr, err error) {
	if meta, err = gpu.UploadTo(&r.mem, "plan", fp.Meta); err != nil {
		return
	}
	if off, err = gpu.UploadPlaced(&r.mem, r.place, "candidate space offsets", fp.Offsets); err != nil {
		return
	}
	if val, err = gpu.UploadPlaced(&r.mem, r.place, "candidate space", fp.ValueParts...); err != nil {
		return
	}
	cands, err = gpu.UploadPlaced(&r.mem, r.place, "candidates", fp.Cands)
	return
}

// addCounts adds the warps' counts of the last launch to *count, reporting overflow.
func (r *runBase) addCounts(count *uint64, scratch []uint64) error {
	if err := gpu.CopyToHost(scratch, r.counts, 0); err != nil {
		return fmt.Errorf("stmatch: %w", err)
	}
	for _, c := range scratch {
		var carry uint64
		*count, carry = bits.Add64(*count, c, 0)
		if carry != 0 {
			return engine.ErrOverflow
		}
	}
	return nil
}

// runV1 runs the first version's kernel over every root in batches, one launch each.
func (r *deviceRun) runV1(ctx context.Context, p *engine.Problem, fp *flatPlan) (count uint64, partial bool, err error) {
	counts := make([]uint64, r.warps)
	batch := uint64(r.warps) * 2
	total := fp.NumRoots
	var done uint64
	for done < total {
		if err := ctx.Err(); err != nil {
			return count, true, err
		}
		end := min(total, done+batch)
		if err := r.ctl.Memset(0); err != nil {
			return count, false, err
		}
		kt, err := r.fn.LaunchSync(gpu.Dim3{X: uint32(r.blocks)}, gpu.Dim3{X: threadsBlock}, 0,
			r.meta, int32(fp.L), r.off, r.val, r.cands, r.gOff, r.gAdj, r.buf, fp.Stride,
			done, end, r.ctl, r.counts)
		if err != nil {
			return count, false, fmt.Errorf("stmatch: %w", err)
		}
		r.st.Kernel += kt
		r.st.Launches++
		if err := r.addCounts(&count, counts); err != nil {
			return 0, false, err
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

// unitDispenser hands out ranges of work units to the devices of a count.
type unitDispenser struct {
	mu          sync.Mutex
	next, total uint64
	chunk       uint64
	done        atomic.Uint64 // units finished or turned into queued tasks, all devices
}

// gridWarps estimates the warps of the devices' grids together (for the number of work units).
func gridWarps(devs []*gpu.Device) int {
	n := 0
	for _, d := range devs {
		n += max(1, d.Info().SMs) * blocksPerSM * warpsPerBlock
	}
	return n
}

// newDispenser hands total units out to devs: all at once to a single device; to several, in
// ranges small enough that the last ones even out the devices' load, large enough that a launch
// has work for every warp.
func newDispenser(total uint64, devs []*gpu.Device) *unitDispenser {
	u := &unitDispenser{total: total, chunk: total}
	if len(devs) > 1 {
		u.chunk = max(uint64(4*blocksPerSM*warpsPerBlock*max(1, devs[0].Info().SMs)), total/uint64(16*len(devs)))
	}
	return u
}

func (u *unitDispenser) take() (lo, hi uint64, ok bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.next >= u.total {
		return 0, 0, false
	}
	lo = u.next
	u.next = min(u.total, lo+u.chunk)
	return lo, u.next, true
}

// run drives the v2 kernel on one device: each launch takes host units from the range it was
// given and tasks from the device's queue until its time slice ends (the warps then spill what
// they hold into the queue) or the work runs out; the next launch resumes from the queue. The
// context is checked between launches, so a cancelled count stops within about one slice.
//
// With rows set (listing), the kernel writes the matches into rows' buffer instead of counting
// them; a launch also ends when the buffer is full, and after each launch rows.drain hands the
// rows written to the consumer (false: the consumer stopped, and so does the run).
func (r *deviceRun) run(ctx context.Context, p *engine.Problem, fp *flatPlan, o Options, disp *unitDispenser, rows *rowSink) (count uint64, partial bool, err error) {
	counts := make([]uint64, r.warps)
	slice := o.Slice
	if slice <= 0 {
		slice = maxLaunch
	}
	slice = max(slice, sliceFloor)
	opts := uint32(optSteal)
	if o.NoSteal {
		opts = 0
	}
	if !o.NoUnroll {
		opts |= optUnroll
	}
	if o.unrollsLeaves(fp.singleGroupClasses()) {
		opts |= optUnrollLeaves
	}
	var out gpu.DevicePtr
	var outCap uint64
	if rows != nil {
		opts |= optList
		out, outCap = rows.buf.Ptr(), rows.cap
	}
	donate := o.DonateAfter
	if donate <= 0 {
		donate = defaultDonateAfter
	}
	// A cancelled count raises the stop flag, and the warps leave their work within about
	// POLL_NS of it (without one, the launch ends with its slice, unless a spill found the work
	// queue full).
	stop := gpu.DevicePtr(0)
	if flag, err := r.d.NewStopFlag(); err == nil {
		defer flag.Free()
		defer flag.RaiseWhenDone(ctx)()
		stop = flag.Ptr()
	}
	var lo, hi, queued uint64
	ctl := make([]uint64, ctlWords)
	for {
		if lo >= hi && queued == 0 {
			var ok bool
			if lo, hi, ok = disp.take(); !ok {
				return count, false, nil
			}
		}
		if err := ctx.Err(); err != nil {
			return count, true, err
		}
		// The queue's words (head, tail, size) carry over; ctl holds what the last launch left.
		ctl[cNext], ctl[cWork], ctl[cIdle], ctl[cOut], ctl[cStop], ctl[cCancel], ctl[cPoll] = 0, queued, 0, 0, 0, 0, 0
		if err := gpu.CopyToDevice(r.ctl, 0, ctl); err != nil {
			return count, false, fmt.Errorf("stmatch: %w", err)
		}
		r.tierUp()
		if r.st.QueryKernel {
			r.st.QueryLaunches++
		}
		kt, err := r.fn.LaunchSync(gpu.Dim3{X: uint32(r.blocks)}, gpu.Dim3{X: threadsBlock}, r.shared,
			r.meta, int32(fp.L), r.off, r.val, r.cands, r.gOff, r.gAdj, r.buf, fp.Stride,
			r.units, lo, hi, r.ctl, r.counts, int32(fp.G), r.tasks, r.seq, r.queueCap, uint64(slice.Nanoseconds()), opts, uint64(donate.Nanoseconds()),
			out, outCap, stop, r.hubRow, r.hubBits, r.hubWords)
		if err != nil {
			return count, false, fmt.Errorf("stmatch: %w", err)
		}
		r.st.Kernel += kt
		r.st.Launches++
		r.st.MaxLaunch = max(r.st.MaxLaunch, kt)
		if err := gpu.CopyToHost(ctl, r.ctl, 0); err != nil {
			return count, false, fmt.Errorf("stmatch: %w", err)
		}
		if ctl[cCancel] != 0 {
			// The warps dropped their stacks: the queue is not in step, and the count is partial.
			if err := r.addCounts(&count, counts); err != nil {
				return 0, false, err
			}
			return count, true, ctx.Err()
		}
		switch ctl[cOverflow] {
		case 0:
		case 2:
			return count, false, errors.New("stmatch: a listing task found no room in the work queue")
		default:
			return 0, false, engine.ErrOverflow
		}
		if rows != nil && ctl[cOut] > 0 {
			if ctl[cOut] > outCap {
				return count, false, fmt.Errorf("stmatch: %d rows written to a buffer of %d", ctl[cOut], outCap)
			}
			if !rows.drain(ctl[cOut]) {
				return count, false, rows.err
			}
		}
		if err := r.addCounts(&count, counts); err != nil {
			return 0, false, err
		}
		queued = ctl[cWork]
		if queued != ctl[cQSize] || ctl[cIdle] != 0 || ctl[cHead]-ctl[cTail] != queued {
			return count, false, fmt.Errorf("stmatch: work queue out of step after a launch: %d tasks counted, %d slots reserved, %d published, %d warps idle",
				queued, ctl[cQSize], ctl[cHead]-ctl[cTail], ctl[cIdle])
		}
		r.st.MaxQueued = max(r.st.MaxQueued, queued)
		if queued > 0 {
			if err := r.growQueue(ctl, fp.L); err != nil {
				return count, false, err
			}
		}
		taken := min(ctl[cNext], hi-lo)
		lo += taken
		r.st.Donated, r.st.Spilled, r.st.Taken, r.st.Pieces = ctl[cDonated], ctl[cSpilled], ctl[cTaken], ctl[cPieces]
		if p.Progress != nil && disp.total > 0 {
			p.Progress(float64(disp.done.Add(taken)) / float64(disp.total))
		}
	}
}

// keepQueue is growQueue's answer when a larger queue could not be uploaded: a refusal of the
// memory budget keeps the queue as it is (nil), any other error ends the count.
func (r *deviceRun) keepQueue(wanted uint64, err error) error {
	if !errors.Is(err, gpu.ErrBudget) {
		return fmt.Errorf("stmatch: growing the work queue: %w", err)
	}
	slog.Debug("stmatch: the work queue stays as it is", "slots", r.queueCap, "wanted", wanted, "err", err)
	return nil
}
