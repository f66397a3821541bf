package dcsm

import (
	"context"
	_ "embed"
	"fmt"
	"log/slog"
	"math/bits"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/submatch/submatch/csm/internal/gpucsm"
	"github.com/submatch/submatch/gpu"
)

//go:embed kernels/dcsm.cu
var dcsmSource string

// kernelSource returns the kernels as compiled: the source choice shared with gcsm (package
// gpucsm), then kernels/dcsm.cu, built when first asked for (not concatenated at every process
// start).
var kernelSource = sync.OnceValue(func() string {
	return gpucsm.LevelSource + "#line 1 \"dcsm.cu\"\n" + dcsmSource
})

// kernelFile names the kernels in the compile cache and in `submatch gpu-info --compile`.
const kernelFile = "dcsm.cu"

func init() { gpu.RegisterKernelFunc(kernelFile, kernelSource) }

const (
	blockThreads  = 256
	warpsPerBlock = blockThreads / 32
	maxWarps      = 132 * 32 // the executor's persistent warps at most
	levelChunk    = 256      // a level's buffer: candidates a warp holds at a time
)

// device is the GPU backend: the pool and vertex table (grown by copy), the table, and the
// wave's buffer, all within --gpu-memory (Allocs.Limit) and the device's budget.
type device struct {
	d                *gpu.Device
	upd, match, copy *gpu.Function
	lister           *gpu.Function // dcsm_list
	mem              gpu.Allocs

	table          *gpu.Buffer
	key, el, c, dd *gpu.Buffer    // the pool
	voff, vlen     *gpu.Buffer    // the vertex table
	params         *gpu.Buffer    // the pool's pointers
	waves          [2]*gpu.Buffer // a wave's records and results; two, for a wave in flight
	stack          *gpu.Buffer
	next           int // the wave buffer the next wave takes
	poolCap        uint64
	vcap           int
	stage, recv    []byte
	// pinned[k] is wave buffer k's upload in pinned host memory (stageFor); noPinned is set
	// where it cannot be had (the waves are then uploaded from stage).
	pinned       [2]*gpu.HostBuffer
	noPinned     bool
	noQuery      bool // the driver cannot say whether an event is reached (idle is always false)
	flags        [4]uint32
	lbuf         *gpu.Buffer // a listing launch's cursors, listed counts, flags and matches
	cursor, zero []uint64
	lstage       []byte
	// events[k] mark the start and the end of the kernels of the wave in wave buffer k (nil
	// without the driver's event API: no device time is then measured); busy sums the device
	// time of the waves finished.
	events [2][2]*gpu.Event
	busy   time.Duration
}

func openDevice(t *table, limit uint64) (backend, error) {
	devs, err := gpu.Open(context.Background())
	if err != nil {
		return nil, fmt.Errorf("dcsm: %w", err)
	}
	d := devs[0]
	mod, err := d.Compile(kernelSource(), kernelFile, nil)
	if err != nil {
		return nil, fmt.Errorf("dcsm: compiling the kernels: %w", err)
	}
	dv := &device{d: d, mem: gpu.Allocs{Device: d, Limit: limit, Prefix: "dcsm: "}}
	for _, f := range []struct {
		fn   **gpu.Function
		name string
	}{{&dv.upd, "dcsm_update"}, {&dv.match, "dcsm_match"}, {&dv.copy, "dcsm_copy"}, {&dv.lister, "dcsm_list"}} {
		if *f.fn, err = mod.Function(f.name); err != nil {
			return nil, fmt.Errorf("dcsm: %w", err)
		}
	}
	if dv.table, err = gpu.UploadTo(&dv.mem, "table", t.words); err != nil {
		dv.close()
		return nil, err
	}
	dv.newEvents()
	return dv, nil
}

// newEvents creates the waves' event pairs; without them (an old driver), or after an event
// failed, the waves are not timed.
func (dv *device) newEvents() {
	for k := range dv.events {
		for i := range dv.events[k] {
			e, err := dv.d.NewEvent()
			if err != nil {
				dv.closeEvents()
				return
			}
			dv.events[k][i] = e
		}
	}
}

func (dv *device) closeEvents() {
	for k := range dv.events {
		for i := range dv.events[k] {
			dv.events[k][i].Close()
			dv.events[k][i] = nil
		}
	}
}

func (dv *device) close() {
	dv.closeEvents()
	if dv.pinned[0] != nil || dv.pinned[1] != nil {
		_ = dv.d.Synchronize() // no queued copy still reads them (a wave whose start failed)
	}
	for i, p := range dv.pinned {
		if p != nil {
			_ = p.Free()
			dv.pinned[i] = nil
		}
	}
	dv.mem.FreeAll()
}

func (dv *device) gpuTime() time.Duration { return dv.busy }

// idle asks the event after a started wave's kernels whether the device has reached it
// (cuEventQuery, on the caller's thread); false without events or the query.
func (dv *device) idle(w *wave) bool {
	ev := dv.events[w.dev.buf][1]
	if ev == nil || dv.noQuery {
		return false
	}
	var done bool
	err := dv.d.DoHere(func() error {
		var err error
		done, err = ev.Done()
		return err
	})
	if err != nil {
		// A figure for the waves' sizes only: they then fill up as before. A fault of the
		// kernels themselves surfaces again at the wave's finish.
		slog.Debug("dcsm: early waves off: the driver cannot query a wave's event", "err", err)
		dv.noQuery = true
		return false
	}
	return done
}

// listMatches launches dcsm_list over the searches [lo, hi) of the wave just finished (its
// searches are still in its wave buffer, and the pool is as its updater left it: no wave has
// started since) and copies the matches and the listed counts back, on the caller's thread
// (DoHere).
func (dv *device) listMatches(ctx context.Context, w *wave, lo, hi int, skip, limit uint64, buf []uint32) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return dv.d.DoHere(func() error { return dv.list(w, lo, hi, skip, limit, buf) })
}

func (dv *device) list(w *wave, lo, hi int, skip, limit uint64, buf []uint32) error {
	n := hi - lo
	cur := dv.cursor[:0]
	var at uint64
	for i := lo; i < hi; i++ {
		cur = append(cur, at)
		if limit == 0 {
			at += w.tcount[i]
		}
	}
	cur = append(cur, at)
	dv.cursor = cur
	rows := at
	if limit > 0 {
		rows = limit
	}
	if rows*listStride > uint64(len(buf)) {
		return fmt.Errorf("dcsm: internal error: %d matches to list into a buffer of %d", rows, len(buf)/listStride)
	}
	for len(dv.zero) < n {
		dv.zero = append(dv.zero, 0)
	}
	b := dv.lstage[:0]
	oc := gpucsm.Put(&b, cur)
	ol := gpucsm.Put(&b, dv.zero[:n])
	dv.flags = [4]uint32{}
	of := gpucsm.Put(&b, dv.flags[:])
	oo := gpucsm.Put(&b, []uint64{0}) // where the matches start (8-aligned)
	dv.lstage = b
	if err := gpucsm.Ensure(&dv.mem, &dv.lbuf, "listing buffer", oo+4*rows*listStride, true); err != nil {
		return err
	}
	if err := gpu.CopyToDevice(dv.lbuf, 0, b); err != nil {
		return err
	}
	warps := (min(n, maxWarps) + warpsPerBlock - 1) / warpsPerBlock * warpsPerBlock
	if err := gpucsm.Ensure(&dv.mem, &dv.stack, "stacks", uint64(warps)*MaxPatternVertices*levelChunk*4, true); err != nil {
		return err
	}
	base := uint64(dv.lbuf.Ptr())
	tasks := gpu.DevicePtr(uint64(dv.waves[w.dev.buf].Ptr()) + w.dev.tasks)
	if err := dv.lister.Launch(gpu.Dim3{X: uint32(warps / warpsPerBlock)}, gpu.Dim3{X: blockThreads}, 0,
		dv.params, dv.table, tasks, uint32(lo), uint32(hi), gpu.DevicePtr(base+oc), skip, limit,
		gpu.DevicePtr(base+oo), gpu.DevicePtr(base+ol), dv.stack, uint32(levelChunk), gpu.DevicePtr(base+of)); err != nil {
		return fmt.Errorf("dcsm: %w", err)
	}
	w.listed = slices.Grow(w.listed[:0], n)[:n]
	if err := gpu.CopyToHost(w.listed, dv.lbuf, ol); err != nil { // waits for the launch
		return fmt.Errorf("dcsm: %w", err)
	}
	if err := gpu.CopyToHost(dv.flags[:], dv.lbuf, of); err != nil {
		return fmt.Errorf("dcsm: %w", err)
	}
	if dv.flags[1] != 0 {
		return fmt.Errorf("dcsm: %w", errOverflow)
	}
	if rows > 0 {
		if err := gpu.CopyToHost(buf[:rows*listStride], dv.lbuf, oo); err != nil {
			return fmt.Errorf("dcsm: %w", err)
		}
	}
	return nil
}

func (dv *device) bytes() uint64 { return dv.mem.Used() }

// grown allocates a buffer of bytes and copies the first old bytes of *b into it (a multiple of
// 4), freeing *b.
func (dv *device) grown(b **gpu.Buffer, what string, bytes, old uint64) error {
	nb, err := dv.mem.Alloc(what, bytes)
	if err != nil {
		return err
	}
	if err := nb.Memset(0); err != nil {
		return err
	}
	if *b != nil && old > 0 {
		words := old / 4
		grid := uint32(min((words+blockThreads-1)/blockThreads, 65535))
		if err := dv.copy.Launch(gpu.Dim3{X: grid}, gpu.Dim3{X: blockThreads}, 0, nb, *b, words); err != nil {
			return fmt.Errorf("dcsm: %w", err)
		}
		if err := dv.d.Synchronize(); err != nil {
			return fmt.Errorf("dcsm: %w", err)
		}
	}
	if *b != nil {
		dv.mem.Release(*b)
	}
	*b = nb
	return nil
}

func (dv *device) ensure(pool uint64, n int) error {
	changed := false
	if pool > dv.poolCap {
		old := dv.poolCap
		for _, a := range []struct {
			b    **gpu.Buffer
			what string
			size uint64
		}{{&dv.key, "pool keys", 8}, {&dv.el, "pool labels", 4}, {&dv.c, "pool creation times", 4}, {&dv.dd, "pool deletion times", 4}} {
			if err := dv.grown(a.b, a.what, a.size*pool, a.size*old); err != nil {
				return err
			}
		}
		dv.poolCap, changed = pool, true
	}
	if n > dv.vcap {
		nc := max(n+n/2, 1024)
		if err := dv.grown(&dv.voff, "vertex offsets", 8*uint64(nc), 8*uint64(dv.vcap)); err != nil {
			return err
		}
		if err := dv.grown(&dv.vlen, "vertex lengths", 4*uint64(nc), 4*uint64(dv.vcap)); err != nil {
			return err
		}
		dv.vcap, changed = nc, true
	}
	if changed {
		p := []uint64{uint64(dv.key.Ptr()), uint64(dv.el.Ptr()), uint64(dv.c.Ptr()), uint64(dv.dd.Ptr()), uint64(dv.voff.Ptr()), uint64(dv.vlen.Ptr())}
		if dv.params == nil {
			var err error
			if dv.params, err = dv.mem.Alloc("parameters", 8*uint64(len(p))); err != nil {
				return err
			}
		}
		return gpu.CopyToDevice(dv.params, 0, p)
	}
	return nil
}

func (dv *device) load(in initial, s *store, pool uint64) error {
	if err := dv.ensure(pool, len(s.off)); err != nil {
		return err
	}
	if err := dv.dd.Memset32(inf); err != nil {
		return err
	}
	if len(in.keys) > 0 {
		if err := gpu.CopyToDevice(dv.key, 0, in.keys); err != nil {
			return err
		}
		if err := gpu.CopyToDevice(dv.el, 0, in.el); err != nil {
			return err
		}
	}
	if len(s.off) > 0 {
		if err := gpu.CopyToDevice(dv.voff, 0, s.off); err != nil {
			return err
		}
		if err := gpu.CopyToDevice(dv.vlen, 0, s.ln); err != nil {
			return err
		}
	}
	return dv.warm()
}

// warm allocates the executor's stacks and the wave's buffer, and launches both kernels with
// nothing to do, so that the first wave does not pay for the allocation and the module's lazy
// loading.
func (dv *device) warm() error {
	if err := gpucsm.Ensure(&dv.mem, &dv.stack, "stacks", maxWarps*MaxPatternVertices*levelChunk*4, true); err != nil {
		return err
	}
	for i := range dv.waves {
		if err := gpucsm.Ensure(&dv.mem, &dv.waves[i], "wave", 1<<20, true); err != nil {
			return err
		}
		if err := dv.waves[i].Memset(0); err != nil {
			return err
		}
	}
	w := dv.waves[0]
	if err := dv.upd.Launch(gpu.Dim3{X: 1}, gpu.Dim3{X: blockThreads}, 0, dv.params, w, uint32(0), w, w, w, w, w, uint32(0), w); err != nil {
		return fmt.Errorf("dcsm: %w", err)
	}
	if err := dv.match.Launch(gpu.Dim3{X: 1}, gpu.Dim3{X: blockThreads}, 0, dv.params, dv.table, w, uint32(0), w, gpu.DevicePtr(0), dv.stack, uint32(levelChunk), w); err != nil {
		return fmt.Errorf("dcsm: %w", err)
	}
	if err := dv.d.Synchronize(); err != nil {
		return fmt.Errorf("dcsm: %w", err)
	}
	return nil
}

// start uploads the wave and launches both kernels (asynchronously: finish waits). The two
// wave buffers alternate, so that a wave's upload never overwrites the results of the one before,
// still in flight. The wave is packed into pinned host memory of its buffer's own (pinned[k]:
// the wave that used it before is finished, its upload done) and copied asynchronously, so that
// start returns without waiting for the wave before (a copy from pageable memory would); without
// the driver's mapped memory, from dv.stage, synchronously. The device's calls are made on the
// caller's thread (DoHere): a wave costs no thread switch.
func (dv *device) start(ctx context.Context, w *wave) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	k := dv.next
	dv.next ^= 1
	b, pinned := dv.stageFor(k, waveSize(w))
	// The wave in one transfer: the updater's records, the searches, zeroed counters and flags.
	dv.flags = [4]uint32{}
	at := packWave(&b, w, dv.flags[:])
	if pinned != nil && (len(b) == 0 || unsafe.SliceData(b) != unsafe.SliceData(pinned.Bytes())) {
		return fmt.Errorf("dcsm: internal error: a wave of %d bytes outgrew its pinned stage of %d", len(b), pinned.Size())
	}
	if pinned == nil {
		dv.stage = b
	}
	w.dev = waveDev{buf: k, counts: at[7], flag: at[8], tasks: at[6], tcounts: at[9]}
	return dv.d.DoHere(func() error { return dv.submit(w, k, b, pinned, &at) })
}

// packWave appends the wave's upload to *b, each section 8-aligned, and returns where each
// starts: the updater's records (0-5), the searches (6), the counters zeroed (7), the flags (8)
// and, with listing on, the per-search counts zeroed (9; else 0).
func packWave(b *[]byte, w *wave, flags []uint32) (at [10]uint64) {
	at[0], at[1], at[2], at[3] = gpucsm.Put(b, w.vrec), gpucsm.Put(b, w.ikey), gpucsm.Put(b, w.iel), gpucsm.Put(b, w.ic)
	at[4], at[5], at[6] = gpucsm.Put(b, w.dkey), gpucsm.Put(b, w.dt), gpucsm.Put(b, w.tasks)
	clear(w.counts)
	at[7] = gpucsm.Put(b, w.counts)
	at[8] = gpucsm.Put(b, flags)
	if len(w.tcount) > 0 {
		clear(w.tcount)
		at[9] = gpucsm.Put(b, w.tcount)
	}
	return at
}

// waveSize bounds the bytes of w's upload (packWave; each section 8-aligned, 4 flags).
func waveSize(w *wave) int {
	return 4*(len(w.vrec)+len(w.iel)+len(w.ic)+len(w.dt)+len(w.tasks)+4) +
		8*(len(w.ikey)+len(w.dkey)+len(w.counts)+len(w.tcount)) + 8*10
}

// stageFor returns an empty slice of at least n bytes' capacity to pack wave buffer k's upload
// into: the start of pinned[k], grown to a power of two when smaller (pinned non-nil), or
// dv.stage where pinned memory cannot be had.
func (dv *device) stageFor(k, n int) (b []byte, pinned *gpu.HostBuffer) {
	if !dv.noPinned {
		p := dv.pinned[k]
		if p == nil || p.Size() < uint64(n) {
			if p != nil {
				_ = p.Free() // the wave that used it is finished: no copy reads it
				dv.pinned[k] = nil
			}
			np, err := dv.d.AllocHost(1 << bits.Len64(uint64(max(n, 1<<16))-1))
			if err == nil {
				dv.pinned[k] = np
			} else {
				dv.noPinned = true // the waves go on from pageable memory
			}
		}
		if p := dv.pinned[k]; p != nil {
			return p.Bytes()[:0], p
		}
	}
	return dv.stage[:0], nil
}

// submit copies a packed wave b into wave buffer k and launches its updater and executor
// between the buffer's two events; it runs on the device's thread.
func (dv *device) submit(w *wave, k int, b []byte, pinned *gpu.HostBuffer, at *[10]uint64) error {
	if err := gpucsm.Ensure(&dv.mem, &dv.waves[k], "wave", uint64(len(b)), true); err != nil {
		return err
	}
	buf := dv.waves[k]
	var err error
	if pinned != nil {
		err = gpu.CopyToDeviceAsync(buf, 0, pinned, 0, uint64(len(b)))
	} else {
		err = gpu.CopyToDevice(buf, 0, b)
	}
	if err != nil {
		return err
	}
	base := uint64(buf.Ptr())
	tcounts := gpu.DevicePtr(0)
	if len(w.tcount) > 0 {
		tcounts = gpu.DevicePtr(base + at[9])
	}
	ptr := func(i int) gpu.DevicePtr { return gpu.DevicePtr(base + at[i]) }
	ev := dv.events[k]
	if ev[0] != nil && ev[0].Record() != nil {
		dv.closeEvents() // the timing is a figure: the waves go on untimed
		ev = dv.events[k]
	}
	nv := len(w.vrec) / vrecWords
	if nv > 0 {
		grid := uint32(min((nv+warpsPerBlock-1)/warpsPerBlock, 8192))
		if err := dv.upd.Launch(gpu.Dim3{X: grid}, gpu.Dim3{X: blockThreads}, 0, dv.params, ptr(0), uint32(nv),
			ptr(1), ptr(2), ptr(3), ptr(4), ptr(5), w.first, gpu.DevicePtr(base+at[8]+8)); err != nil {
			return fmt.Errorf("dcsm: %w", err)
		}
	}
	nt := len(w.tasks) / taskWords
	if nt > 0 {
		warps := (min(nt, maxWarps) + warpsPerBlock - 1) / warpsPerBlock * warpsPerBlock
		if err := gpucsm.Ensure(&dv.mem, &dv.stack, "stacks", uint64(warps)*MaxPatternVertices*levelChunk*4, true); err != nil {
			return err
		}
		if err := dv.match.Launch(gpu.Dim3{X: uint32(warps / warpsPerBlock)}, gpu.Dim3{X: blockThreads}, 0,
			dv.params, dv.table, ptr(6), uint32(nt), ptr(7), tcounts, dv.stack, uint32(levelChunk), ptr(8)); err != nil {
			return fmt.Errorf("dcsm: %w", err)
		}
	}
	if ev[1] != nil && ev[1].Record() != nil {
		dv.closeEvents()
	}
	return nil
}

// finish copies a started wave's counters and the flags after them back, in one copy, which
// waits for the kernels (and reports their errors); on the caller's thread (DoHere).
func (dv *device) finish(w *wave) error {
	return dv.d.DoHere(func() error { return dv.collect(w) })
}

func (dv *device) collect(w *wave) error {
	n := w.dev.flag + 16 - w.dev.counts
	if uint64(cap(dv.recv)) < n {
		dv.recv = make([]byte, n)
	}
	res := dv.recv[:n]
	if err := gpu.CopyToHost(res, dv.waves[w.dev.buf], w.dev.counts); err != nil {
		return fmt.Errorf("dcsm: %w", err)
	}
	if ev := dv.events[w.dev.buf]; ev[1] != nil {
		if busy, err := ev[1].Since(ev[0]); err == nil {
			dv.busy += busy
		} else {
			dv.closeEvents() // the timing is a figure: the waves go on untimed
		}
	}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w.counts))), 8*len(w.counts)), res)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&dv.flags[0])), 16), res[w.dev.flag-w.dev.counts:])
	if len(w.tcount) > 0 {
		if err := gpu.CopyToHost(w.tcount, dv.waves[w.dev.buf], w.dev.tcounts); err != nil {
			return fmt.Errorf("dcsm: %w", err)
		}
	}
	switch {
	case dv.flags[1] != 0:
		return fmt.Errorf("dcsm: %w", errOverflow)
	case dv.flags[2] != 0:
		return fmt.Errorf("dcsm: internal error: the updater's rewrite differs from the plan (code %d)", dv.flags[2])
	}
	return nil
}

// lists: the device lists signed matches (dcsm_list; TestGPUEmit checks it on a GPU).
func (dv *device) lists() bool { return true }
