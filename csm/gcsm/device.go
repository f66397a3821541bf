package gcsm

import (
	"context"
	_ "embed"
	"fmt"
	"math/bits"
	"sync"
	"time"
	"unsafe"

	"github.com/submatch/submatch/csm/internal/gpucsm"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
)

//go:embed kernels/gcsm.cu
var gcsmSource string

// kernelSource returns the kernel as compiled: package gpu's stop polling, the source choice
// shared with dcsm (package gpucsm), then kernels/gcsm.cu, built when first asked for (not
// concatenated at every process start).
var kernelSource = sync.OnceValue(func() string {
	return gpu.StopPollSource + gpucsm.LevelSource + "#line 1 \"gcsm.cu\"\n" + gcsmSource
})

// kernelFile names the kernel in the compile cache and in `submatch gpu-info --compile`.
const kernelFile = "gcsm.cu"

func init() { gpu.RegisterKernelFunc(kernelFile, kernelSource) }

const (
	blockThreads  = 256
	warpsPerBlock = blockThreads / 32
	maxWarps      = 132 * 32 // persistent warps at most
	levelChunk    = 256      // a level's buffer: candidates a warp holds at a time
	paramWords    = 20
	spillWords    = 16 // a spilled search (kernels/gcsm.cu's SPILL_WORDS)
	maxRounds     = 64 // launches of a phase after which no search spills (each spill is progress)
)

// The spill policy (variables: the bench tries others): the warps look for idle warps (and the
// stop flag) every spillMask+1 steps, and a search spills once it has run minSpill times the
// launch's round (from 1).
var (
	spillMask uint32 = 3
	minSpill         = 10 * time.Microsecond
)

// The control words at the start of the small buffer (kernels/gcsm.cu's C_* constants).
const (
	cReads = iota
	cHits
	cOvf
	cNext
	cBusy
	cBusyMax
	cTaskMax
	cIdle
	cSpills
	cRefused
	cPoll
	cStop
	cListErr
	ctlWords
)

// forceSpill (tests) makes the warps spill their searches at every look in a phase's first
// launches, so that the spilled searches' decomposition is exercised on small graphs.
var forceSpill bool

// device is the GPU backend: the kernel, the table, and the phase's buffers (grown as needed),
// all within the matcher's --gpu-memory (Allocs.Limit) and the device's budget.
type device struct {
	d   *gpu.Device
	fn  *gpu.Function
	mem gpu.Allocs

	table                      *gpu.Buffer
	tasks, counts, small, freq *gpu.Buffer
	stack, cache               *gpu.Buffer
	spill                      [2]*gpu.Buffer // spilled searches: one launch's input, the other's output
	spillCap                   uint64         // records each spill buffer holds
	stop                       *gpu.StopFlag  // nil: the driver has none (the context is polled between launches)
	listing                    bool           // the phases list: a listing buffer counts in cacheBudget
	listN                      uint64         // matches the listing buffer holds
	listOut, cursor            *gpu.Buffer
	cursors                    []uint64
	small8                     []byte
	gather                     *gpu.Function // gcsm_gather: the cache's entries from the mapped host graph
	slotBuf                    *gpu.Buffer   // per vertex: its cache row, or ^0
	warps, stride              int
	levels                     int    // a warp's stack: buffers of stride candidates (stackLevels)
	maxCache                   uint64 // tests: a cap on the cache (0: none)
	maxList                    uint64 // tests: a cap on the matches a listing launch holds (0: none)
	params                     [paramWords]uint64
	lastFixed                  uint64 // cacheBudget's fixed buffers at the last phase
	paramsAt                   uint64 // the parameters' offset in small
}

var zeroCtl [ctlWords]uint64

func openDevice(t *table, limit uint64) (backend, error) {
	devs, err := gpu.Open(context.Background())
	if err != nil {
		return nil, fmt.Errorf("gcsm: %w", err)
	}
	d := devs[0]
	mod, err := d.Compile(kernelSource(), kernelFile, nil)
	if err != nil {
		return nil, fmt.Errorf("gcsm: compiling the kernel: %w", err)
	}
	fn, err := mod.Function("gcsm_match")
	if err != nil {
		return nil, fmt.Errorf("gcsm: %w", err)
	}
	gather, err := mod.Function("gcsm_gather")
	if err != nil {
		return nil, fmt.Errorf("gcsm: %w", err)
	}
	dv := &device{d: d, fn: fn, gather: gather, levels: stackLevels(t), mem: gpu.Allocs{Device: d, Limit: limit, Prefix: "gcsm: "}}
	if dv.table, err = gpu.UploadTo(&dv.mem, "table", t.words); err != nil {
		return nil, err
	}
	return dv, nil
}

func (dv *device) alloc(mode Mode) allocator {
	what, allocHost := "pinned host memory", dv.d.AllocHost
	if mode == ModeUnified {
		what, allocHost = "managed memory", dv.d.AllocManaged
	}
	return func(bytes uint64) (hostMem, error) {
		hb, err := allocHost(max(bytes, 8))
		if err != nil {
			return hostMem{}, fmt.Errorf("gcsm: %s (%d bytes): %w", what, bytes, err)
		}
		return hostMem{buf: hb.Bytes()[:bytes], dev: uint64(hb.Ptr()), free: func() { hb.Free() }}, nil
	}
}

func (dv *device) close() {
	dv.mem.FreeAll()
	if dv.stop != nil {
		dv.stop.Free()
		dv.stop = nil
	}
}

// limit is the bytes the matcher may hold on the device.
func (dv *device) limit() uint64 {
	avail := dv.d.Budget().Available() + dv.mem.Used()
	if dv.mem.Limit > 0 {
		avail = min(avail, dv.mem.Limit)
	}
	return avail
}

// smallBytes is the phase's counters, other-graph tables and kernel parameters.
func smallBytes(ph *phase) uint64 {
	return 16*uint64(len(ph.cpKey)+len(ph.cv)) + 8*(paramWords+ctlWords) + 128
}

// cacheBudget sizes the grid and the warps' stacks for the phase, and returns what is left for
// the cache: the stacks take at most half of the memory. The last phase's cache buffer is kept
// (kept) when the matcher asks for it (keep: its size), the other buffers and the stacks need
// no more memory than they hold and the buffer fits what is left; else it is released, as is
// the stack when its size changes.
func (dv *device) cacheBudget(h *hostGraph, ph *phase, freqBytes uint64, keep uint64) (uint64, bool) {
	tasks := ph.numTasks()
	if dv.freq != nil && freqBytes == 0 {
		dv.mem.Release(dv.freq) // not measuring: give the counters' memory to the cache
		dv.freq = nil
	}
	l := dv.limit()
	// The spilled searches' two buffers: an eighth of the memory, within [4Ki, 256Ki] records each.
	dv.spillCap = min(max(l/16/(4*spillWords), 4<<10), 256<<10)
	// Listing: an eighth of the memory for the matches (at least 4Ki), and the tasks' cursors.
	var listBytes uint64
	if dv.listing {
		dv.listN = max(l/8/(4*listWords), 4<<10)
		listBytes = holds(dv.listOut, dv.listN*4*listWords, false) + holds(dv.cursor, 8*uint64(tasks), true)
	} else {
		dv.release(&dv.listOut)
		dv.release(&dv.cursor)
	}
	// What the other buffers will hold after ensure (grown ones keep their size).
	fixed := dv.table.Size() + holds(dv.tasks, 4*taskWords*uint64(tasks), true) + holds(dv.counts, 8*uint64(tasks), true) +
		holds(dv.small, smallBytes(ph), true) + holds(dv.slotBuf, 4*uint64(len(h.ln)), false) + holds(dv.freq, freqBytes, false) +
		holds(dv.spill[0], dv.spillCap*spillWords*4, false) + holds(dv.spill[1], dv.spillCap*spillWords*4, false) + listBytes + 64<<10
	dv.stride = levelChunk
	perWarp := dv.stackBytes(1)
	// As many warps as fit, also for a phase of few searches: a heavy one spreads over them
	// by spilling.
	dv.warps = maxWarps
	if l > fixed {
		dv.warps = min(dv.warps, int((l-fixed)/2/perWarp))
	} else {
		dv.warps = 0
	}
	dv.warps = (max(dv.warps, 1) + warpsPerBlock - 1) / warpsPerBlock * warpsPerBlock // whole blocks
	stack := dv.stackBytes(dv.warps)
	grows := fixed != dv.lastFixed || (dv.stack != nil && dv.stack.Size() != stack)
	dv.lastFixed = fixed
	if dv.stack != nil && dv.stack.Size() != stack {
		dv.release(&dv.stack)
	}
	used := fixed + stack
	left := uint64(0)
	if used < l {
		left = l - used - min(l-used, 256) // the cache's alignment
	}
	if dv.maxCache > 0 {
		left = min(left, dv.maxCache)
	}
	// Kept: the buffers made before the cache in run allocate nothing, and the cache fits.
	kept := dv.cache != nil && keep > 0 && dv.cache.Size() == keep && !grows && keep <= left
	if !kept {
		dv.release(&dv.cache)
	}
	return left, kept
}

// stackLevels is the number of level buffers a warp's stack needs for the table's patterns: the
// largest pattern's vertices less one (the kernel buffers levels up to n-2 at most: the last is
// counted or listed straight from its source), at least one. Until branch gcsm5 every stack had
// MaxPatternVertices buffers, 8 KiB a warp, which on 4- and 5-vertex patterns left 3/8 to 5/8 of
// the stacks' memory, a third of a small --gpu-memory, unused instead of caching lists.
func stackLevels(t *table) int {
	n := 2
	for _, s := range t.sizes {
		n = max(n, s)
	}
	return n - 1
}

// stackBytes is the stacks' memory for warps warps.
func (dv *device) stackBytes(warps int) uint64 {
	return uint64(warps) * uint64(dv.levels) * uint64(dv.stride) * 4
}

// holds returns the bytes buffer b holds after ensure(b, bytes, grow) (0 for bytes 0).
func holds(b *gpu.Buffer, bytes uint64, grow bool) uint64 {
	if bytes == 0 {
		return 0
	}
	bytes = max(bytes, 256)
	if b != nil && b.Size() >= bytes {
		return b.Size()
	}
	if grow {
		return 1 << bits.Len64(bytes-1)
	}
	return bytes
}

// ensure makes *b hold at least bytes, reallocating it when smaller: to exactly bytes, or with
// grow to the next power of two.
func (dv *device) ensure(b **gpu.Buffer, what string, bytes uint64, grow bool) error {
	return gpucsm.Ensure(&dv.mem, b, what, bytes, grow)
}

func (dv *device) run(ctx context.Context, t *table, h *hostGraph, c *dcsr, ph *phase, counts []uint64, freq []uint32, st *Stats) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	T := ph.numTasks()
	p := &dv.params
	clear(p[:])
	t0 := time.Now()
	// The cache is made last, in what the other buffers leave (cacheBudget).
	if err := dv.ensure(&dv.tasks, "tasks", 4*taskWords*uint64(T), true); err != nil {
		return err
	}
	if err := dv.ensure(&dv.counts, "counts", 8*uint64(T), true); err != nil {
		return err
	}
	if err := dv.ensure(&dv.stack, "stacks", dv.stackBytes(dv.warps), false); err != nil {
		return err
	}
	for i := range dv.spill {
		if err := dv.ensure(&dv.spill[i], "spilled searches", dv.spillCap*spillWords*4, false); err != nil {
			return err
		}
	}
	// The cache: one buffer, the last phase's when cacheBudget kept it (else made again): its
	// row table copied up, its new and changed entries gathered by the GPU from the mapped host
	// graph (fillCache).
	if len(c.rows) > 0 {
		if err := dv.fillCache(h, c, st); err != nil {
			return err
		}
	}
	if err := gpu.CopyToDevice(dv.tasks, 0, ph.tasks); err != nil {
		return err
	}
	// The counters, the other graph's tables and the parameters: one buffer.
	s := dv.small8[:0]
	gpucsm.Put(&s, zeroCtl[:]) // the control words
	var at [6]uint64
	at[0], at[1], at[2] = gpucsm.Put(&s, ph.cv), gpucsm.Put(&s, ph.cvAlive), gpucsm.Put(&s, ph.cvLabel)
	at[3], at[4], at[5] = gpucsm.Put(&s, ph.cpKey), gpucsm.Put(&s, ph.cpPresent), gpucsm.Put(&s, ph.cpLabel)
	paramsAt := gpucsm.Put(&s, p[:])
	dv.paramsAt = paramsAt
	dv.small8 = s
	if err := dv.ensure(&dv.small, "tables", uint64(len(s)), true); err != nil {
		return err
	}
	base := uint64(dv.small.Ptr())
	p[0], p[1], p[2], p[3], p[4] = h.offM.dev, h.lnM.dev, h.labM.dev, h.keyM.dev, h.elM.dev
	p[11], p[12], p[13], p[14] = base+at[0], base+at[1], base+at[2], uint64(len(ph.cv))
	p[15], p[16], p[17], p[18] = base+at[3], base+at[4], base+at[5], uint64(len(ph.cpKey))
	if freq != nil {
		if err := dv.ensure(&dv.freq, "read counters", 4*uint64(len(freq)), false); err != nil {
			return err
		}
		if err := dv.freq.Memset(0); err != nil {
			return err
		}
		p[19] = uint64(dv.freq.Ptr())
	}
	copy(s[paramsAt:], unsafe.Slice((*byte)(unsafe.Pointer(&p[0])), 8*paramWords))
	if err := gpu.CopyToDevice(dv.small, 0, s); err != nil {
		return err
	}
	if err := dv.counts.Memset(0); err != nil {
		return err
	}
	if err := dv.rounds(ctx, uint64(dv.tasks.Ptr()), T, st, listArgs{}); err != nil {
		return err
	}
	if err := gpu.CopyToHost(counts[:T], dv.counts, 0); err != nil {
		return err
	}
	if freq != nil {
		if err := gpu.CopyToHost(freq, dv.freq, 0); err != nil {
			return err
		}
	}
	st.Kernel = time.Since(t0) - st.Copy
	return nil
}

// fillCache does the phase's cache work on the device (c.pending; dcsr.fill is the emulation's):
// in a rebuild, one buffer with the row table (rows, their offsets and lengths: copied up) and
// the entries (keys and edge labels, 8-byte aligned), the slot array set to ~0, every row
// gathered by gcsm_gather from the host graph's mapped arrays (which sets the rows' slots);
// otherwise the kept buffer's row table copied up again and gcsm_gather run over the selected
// rows and the evicted vertices only. It sets the kernel's cache parameters and st.Copy.
func (dv *device) fillCache(h *hostGraph, c *dcsr, st *Stats) error {
	tc := time.Now()
	at, end := layoutOffsets(c.rowCap, c.entryCap)
	var err error
	if c.full {
		dv.release(&dv.cache)
		if dv.cache, err = dv.mem.Alloc("cache", end); err != nil {
			return err
		}
	} else if dv.cache == nil || dv.cache.Size() != end {
		return fmt.Errorf("gcsm: internal error: the cache's update has no buffer of its layout")
	}
	slots := dv.slotBuf
	if err := dv.ensure(&dv.slotBuf, "cache slots", 4*uint64(len(h.ln)), false); err != nil {
		return err
	}
	if !c.full && dv.slotBuf != slots {
		return fmt.Errorf("gcsm: internal error: the cache's slots were made again in an update")
	}
	cb := uint64(dv.cache.Ptr())
	p := &dv.params
	p[5] = uint64(len(c.rows))
	p[6] = uint64(dv.slotBuf.Ptr())
	p[7], p[8], p[9], p[10] = cb+at[atOff], cb+at[atLen], cb+at[atKeys], cb+at[atLabels]
	if !c.pending || (!c.full && len(c.sel) == 0 && len(c.evict) == 0) {
		c.pending = false
		st.Copy = time.Since(tc)
		return nil
	}
	for _, err := range []error{gpu.CopyToDevice(dv.cache, at[atRows], c.rows), gpu.CopyToDevice(dv.cache, at[atOff], c.roff),
		gpu.CopyToDevice(dv.cache, at[atLen], c.rlen)} {
		if err != nil {
			return err
		}
	}
	sel, nsel, evict := gpu.DevicePtr(0), uint32(len(c.rows)), gpu.DevicePtr(0)
	if c.full {
		if err := dv.slotBuf.Memset(0xff); err != nil {
			return err
		}
	} else {
		// The update's lists, in the buffer's region for them (at most rowCap each).
		if len(c.sel) > c.rowCap || len(c.evict) > c.rowCap {
			return fmt.Errorf("gcsm: internal error: a cache update of %d rows and %d evictions for %d rows", len(c.sel), len(c.evict), c.rowCap)
		}
		ops := at[atOps]
		if err := gpu.CopyToDevice(dv.cache, ops, c.sel); err != nil {
			return err
		}
		if err := gpu.CopyToDevice(dv.cache, ops+4*uint64(len(c.sel)), c.evict); err != nil {
			return err
		}
		sel, nsel = gpu.DevicePtr(cb+ops), uint32(len(c.sel))
		evict = gpu.DevicePtr(cb + ops + 4*uint64(len(c.sel)))
	}
	blocks := max(min(uint64(nsel), maxWarps/warpsPerBlock*4), 1) // a block a row
	if _, err := dv.gather.LaunchSync(gpu.Dim3{X: uint32(blocks)}, gpu.Dim3{X: blockThreads}, 0,
		gpu.DevicePtr(h.offM.dev), gpu.DevicePtr(h.keyM.dev), gpu.DevicePtr(h.elM.dev), gpu.DevicePtr(cb+at[atRows]), gpu.DevicePtr(cb+at[atOff]),
		gpu.DevicePtr(cb+at[atLen]), nsel, gpu.DevicePtr(cb+at[atKeys]), gpu.DevicePtr(cb+at[atLabels]), dv.slotBuf, sel, evict, uint32(len(c.evict))); err != nil {
		return fmt.Errorf("gcsm: gathering the cache: %w", err)
	}
	c.pending = false
	st.Copy = time.Since(tc)
	return nil
}

// rounds launches the kernel over the phase's T tasks, then over the searches each launch
// spilled, until none is left; the counts add up in dv.counts per task. A cancelled ctx raises
// the stop flag, and the warps leave their searches within about a poll interval.
func (dv *device) rounds(ctx context.Context, tasks uint64, T int, st *Stats, la listArgs) error {
	if dv.stop == nil {
		if f, err := dv.d.NewStopFlag(); err == nil {
			dv.stop = f
		}
	}
	stop := gpu.DevicePtr(0)
	if dv.stop != nil {
		// A flag raised for a cancelled phase stays raised: the next phase takes a fresh one.
		// (Deferred first, so it runs after RaiseWhenDone's stop has waited for a Set.)
		defer func() {
			if ctx.Err() != nil && dv.stop != nil {
				dv.stop.Free()
				dv.stop = nil
			}
		}()
		defer dv.stop.RaiseWhenDone(ctx)()
		stop = dv.stop.Ptr()
	}
	base := uint64(dv.small.Ptr())
	src, n, spilled := tasks, uint64(T), uint32(0)
	var ctl [ctlWords]uint64
	for round := 0; ; round++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		// The next search, the warps' times, the idle warps, the spill count, the stop relay.
		if err := gpu.CopyToDevice(dv.small, 8*cNext, zeroCtl[cNext:]); err != nil {
			return err
		}
		warps := min(uint64(dv.warps), (n+warpsPerBlock-1)/warpsPerBlock*warpsPerBlock)
		out, outCap := dv.spill[round%2], uint32(dv.spillCap)
		if round >= maxRounds || out == nil {
			out, outCap = nil, 0
		}
		force, mask := uint32(0), spillMask
		if forceSpill && round < 8 {
			force, mask = 1, 0 // at every step
		}
		outPtr := gpu.DevicePtr(0)
		if out != nil {
			outPtr = gpu.DevicePtr(out.Ptr())
		}
		if _, err := dv.fn.LaunchSync(gpu.Dim3{X: uint32(warps / warpsPerBlock)}, gpu.Dim3{X: blockThreads}, 0,
			gpu.DevicePtr(base+dv.paramsAt), dv.table, gpu.DevicePtr(src), uint32(n), spilled, dv.counts, dv.stack, uint32(dv.stride), uint32(dv.levels),
			gpu.DevicePtr(base), outPtr, outCap, uint64(minSpill*time.Duration(round+1)), mask, force, stop,
			la.out, la.cursor, la.cap); err != nil {
			return fmt.Errorf("gcsm: %w", err)
		}
		if err := gpu.CopyToHost(ctl[:], dv.small, 0); err != nil {
			return err
		}
		st.WarpMax += time.Duration(ctl[cBusyMax])
		st.WarpMean += time.Duration(ctl[cBusy] / max(warps, 1))
		st.TaskMax = max(st.TaskMax, time.Duration(ctl[cTaskMax]))
		st.Launches++
		if ctl[cStop] != 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			return fmt.Errorf("gcsm: internal error: the kernel stopped with its context alive")
		}
		if ctl[cOvf] != 0 {
			return engine.ErrOverflow
		}
		if ctl[cListErr] != 0 {
			return fmt.Errorf("gcsm: internal error: a search listed more matches than it counted")
		}
		st.Reads, st.Hits = ctl[cReads], ctl[cHits]
		if ctl[cSpills] == 0 {
			return nil
		}
		st.Spilled += ctl[cSpills]
		src, n, spilled = uint64(out.Ptr()), ctl[cSpills], 1
	}
}

// listArgs are a listing launch's: the matches' buffer, the tasks' cursors in it, its records.
type listArgs struct {
	out, cursor gpu.DevicePtr
	cap         uint64
}

func (dv *device) release(b **gpu.Buffer) {
	if *b != nil {
		dv.mem.Release(*b)
		*b = nil
	}
}

func (dv *device) setListing(on bool) { dv.listing = on }

func (dv *device) listCap() uint64 {
	if dv.maxList > 0 {
		return min(dv.listN, dv.maxList)
	}
	return dv.listN
}

// list runs the tasks [lo, hi) of the phase that run uploaded again, listing: each task's
// matches go to its own range of the listing buffer (from the counts), copied into out.
func (dv *device) list(ctx context.Context, t *table, h *hostGraph, c *dcsr, ph *phase, lo, hi int, counts []uint64, out []uint32) error {
	dv.cursors = dv.cursors[:0]
	var total uint64
	for i := lo; i < hi; i++ {
		dv.cursors = append(dv.cursors, total)
		total += counts[i]
	}
	if uint64(len(out)) != total*listWords {
		return fmt.Errorf("gcsm: internal error: a listing of %d matches into %d words", total, len(out))
	}
	if err := dv.ensure(&dv.listOut, "listed matches", max(dv.listN, total)*4*listWords, false); err != nil {
		return fmt.Errorf("gcsm: listing %d matches of one search: %w", total, err)
	}
	if err := dv.ensure(&dv.cursor, "listing cursors", 8*uint64(hi-lo), true); err != nil {
		return err
	}
	if err := gpu.CopyToDevice(dv.cursor, 0, dv.cursors); err != nil {
		return err
	}
	if err := dv.counts.Memset(0); err != nil {
		return err
	}
	var st Stats
	la := listArgs{out: gpu.DevicePtr(dv.listOut.Ptr()), cursor: gpu.DevicePtr(dv.cursor.Ptr()), cap: dv.listOut.Size() / (4 * listWords)}
	if err := dv.rounds(ctx, uint64(dv.tasks.Ptr())+4*taskWords*uint64(lo), hi-lo, &st, la); err != nil {
		return err
	}
	// The kernel flags a write past the buffer only; each search's cursor tells what it listed.
	if err := gpu.CopyToHost(dv.cursors, dv.cursor, 0); err != nil {
		return err
	}
	if err := checkListed(dv.cursors, counts, lo); err != nil {
		return err
	}
	return gpu.CopyToHost(out, dv.listOut, 0)
}
