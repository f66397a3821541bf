package sgsi

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
)

func init() { gpu.RegisterKernel(kernelFile, kernelSource) }

// KernelSource returns the CUDA source of the kernels.
func KernelSource() string { return kernelSource }

// gpuBackend runs the kernels on one device, in one region allocated within --gpu-memory.
//
// Nothing waits but the copies back: an upload is copied into a pinned staging buffer and queued
// (cuMemcpyHtoDAsync), kernels are queued, all on the default stream, so their order is the
// schedule's and the host prepares the next chunk while the device runs the last. The staging
// buffer is reused from its start once the device has caught up (after a copy back, or by waiting
// when it is full). A count's schedule runs on the device's worker thread (Do), so these calls
// are direct driver calls, not hand-offs between threads.
//
// With Options.Overlap the direct count's blocks run on two streams of their own instead (gp,
// gpupipe.go): uploads on a copy stream from pinned staging buffers, kernels on a compute stream.
//
// Copies and kernels are timed by pairs of events, read when the device has passed them, so
// Stats.Comm and Comp are device times: the first timeAll of each kind every one, then one in
// sampleEvery, weighted by sampleEvery (an estimate: two event records and a read cost a few µs a
// call, as much as a queued copy or launch itself).
type gpuBackend struct {
	d                                           *gpu.Device
	mem                                         gpu.Allocs
	region                                      *gpu.Buffer
	words                                       uint64
	filter, first, intersect, count, link, last *gpu.Function
	tabs                                        map[int]*gpu.HostBuffer

	stage *gpu.HostBuffer // pinned: the uploads queued since the device last caught up
	q     stager          // the staging buffer's use and the copies' and kernels' times

	// gp is the direct count's pipeline on two streams (Options.Overlap; nil until used), and
	// pipeComm and pipeComp the device time of its copies and kernels.
	gp                 *gpuPipe
	pipeComm, pipeComp time.Duration

	// stop is the kernels' stop flag (nil when the driver has no mapped host memory: the kernels
	// then run to their end); its polling words (gpu.StopPollSource's ctl) are the region's last
	// stopWords words, past Words.
	stop *gpu.StopFlag
}

// stopWords is the region's tail that holds the stop polling's two 64-bit words.
const stopWords = 4

// stageBytes is the pinned staging buffer's size; maxMarks bounds the marks between reads.
const (
	stageBytes = 8 << 20
	maxMarks   = 4096
)

// timeAll copies and kernels are timed each; after them one in sampleEvery, picked by a
// pseudo-random sequence (not a period, which a chunk's fixed pattern of calls could alias).
const (
	timeAll     = 2048
	sampleEvery = 8
)

// sampler picks the copies and kernels to time.
type sampler struct {
	ops [2]uint64 // copies and kernels so far
	rng uint64    // xorshift64's state
}

// next returns the weight of the next call of a kind (0: copies, 1: kernels): 0 when it is not
// timed, else how many calls its time stands for.
func (s *sampler) next(kind int) int64 {
	if s.ops[kind]++; s.ops[kind] <= timeAll {
		return 1
	}
	if s.rng == 0 {
		s.rng = 0x9e3779b97f4a7c15
	}
	s.rng ^= s.rng << 13
	s.rng ^= s.rng >> 7
	s.rng ^= s.rng << 17
	if s.rng%sampleEvery != 0 {
		return 0
	}
	return sampleEvery
}

// regionMargin is left free on the device beside the region (the kernels' own needs).
const regionMargin = 64 << 20

// minSqueezedRegion: a region the device's free memory squeezes below this is refused with the
// reason (a busy GPU), rather than failing later on the first table that does not fit. A region
// asked for with --gpu-memory may be smaller (the tests' tiny regions).
const minSqueezedRegion = 1 << 20

func newGPUBackend(ctx context.Context, p *engine.Problem, o Options, st *Stats) (_ Backend, err error) {
	d, err := gpu.OpenFirst(ctx, p.GPUs)
	if err != nil {
		return nil, fmt.Errorf("sgsi: %w", err)
	}
	st.Device = d.String()
	b := &gpuBackend{d: d, mem: gpu.Allocs{Device: d, Limit: p.GPUMemoryLimit, Prefix: "sgsi: "}, tabs: map[int]*gpu.HostBuffer{}}
	defer func() {
		if err != nil {
			b.Close()
		}
	}()
	mod, err := d.CompileContext(ctx, kernelSource, kernelFile, nil)
	if err != nil {
		return nil, fmt.Errorf("sgsi: compiling the kernels: %w", err)
	}
	for _, f := range []struct {
		p    **gpu.Function
		name string
	}{{&b.filter, "sgsi_filter"}, {&b.first, "sgsi_first"}, {&b.intersect, "sgsi_intersect"}, {&b.count, "sgsi_count"}, {&b.link, "sgsi_link"}, {&b.last, "sgsi_last"}} {
		if *f.p, err = mod.Function(f.name); err != nil {
			return nil, err
		}
	}
	size := p.GPUMemoryLimit
	squeezed := false // the region is what the device has left, not what was asked for
	if size == 0 {
		size = o.MaxRegion
		if size == 0 {
			size = DefaultMaxRegion
		}
		if a := b.mem.Available(); a < size+regionMargin {
			size, squeezed = a-min(a, regionMargin), true
		}
	} else if a := b.mem.Available(); a < size {
		// --gpu-memory above what the device has free is a cap, not a demand (as for every
		// engine): the region takes what is free, less the kernels' margin.
		size, squeezed = a-min(a, regionMargin), true
	}
	size &^= 7
	if squeezed && size < minSqueezedRegion {
		return nil, fmt.Errorf("sgsi: the GPU has %s available (its free memory less a margin, within --gpu-memory), which leaves %s for the region after %s for the kernels: %w",
			gpu.FormatBytes(b.mem.Available()), gpu.FormatBytes(size), gpu.FormatBytes(regionMargin), engine.ErrMemory)
	}
	if b.region, err = b.mem.Alloc("region", size); err != nil {
		return nil, fmt.Errorf("%w: %w", engine.ErrMemory, err)
	}
	b.words = size/4 - min(size/4, stopWords) // (size is a multiple of 8: the tail is 8-byte aligned)
	if err := gpu.CopyToDevice(b.region, 4*b.words, make([]uint32, size/4-b.words)); err != nil {
		return nil, fmt.Errorf("sgsi: zeroing the stop polling's words: %w", err)
	}
	if f, err := d.NewStopFlag(); err == nil {
		b.stop = f
	} else {
		p.Logger().Debug("sgsi: no stop flag: a cancelled direct count waits for its kernel", "err", err)
	}
	if b.stage, err = d.AllocHost(stageBytes); err != nil {
		return nil, fmt.Errorf("sgsi: pinned staging buffer: %w", err)
	}
	b.q = stager{q: gpuQueue{d}, buf: words(b.stage)}
	if e, err := b.q.q.NewEvent(); err == nil {
		b.q.timing = true
		b.q.free = append(b.q.free, e)
	} else if !errors.Is(err, gpu.ErrNoEvents) {
		return nil, err
	}
	return b, nil
}

// DeviceTimes waits for the device and returns the device time of the copies and of the kernels
// so far (zero without events).
func (b *gpuBackend) DeviceTimes() (copies, kernels time.Duration, err error) {
	err = b.q.catchUp()
	return b.q.comm + b.pipeComm, b.q.comp + b.pipeComp, err
}

func (b *gpuBackend) Words() uint64 { return b.words }

// Do runs fn on the device's worker thread (worker).
func (b *gpuBackend) Do(fn func() error) error { return b.d.Do(fn) }

func (b *gpuBackend) Put(off uint64, src []uint32) error {
	return b.q.put(src, func(at, n uint64) error { return gpu.CopyToDeviceAsync(b.region, 4*off, b.stage, at, n) },
		func() error { return gpu.CopyToDevice(b.region, 4*off, src) })
}

// Get copies back, after everything queued: the device has then caught up.
func (b *gpuBackend) Get(dst []uint32, off uint64) error {
	return b.q.get(func() error { return gpu.CopyToHost(dst, b.region, 4*off) })
}

func (b *gpuBackend) ptr(off uint64) gpu.DevicePtr { return b.region.Ptr() + gpu.DevicePtr(4*off) }

func blocks(threads uint64) uint32 {
	return uint32(max(1, min((threads+blockThreads-1)/blockThreads, 1<<16)))
}

func (b *gpuBackend) Filter(a filterArgs) error {
	return b.q.launch(func() error {
		return b.filter.Launch(gpu.Dim3{X: blocks(uint64(a.N))}, gpu.Dim3{X: blockThreads}, 0,
			b.ptr(a.Sigs), b.ptr(a.Labels), a.N, a.Base, b.ptr(a.QSigs), b.ptr(a.QLab), a.NQ, b.ptr(a.Bits), a.Words)
	})
}

// grid is the launch of a join kernel: a group of a.Group threads per row, or a.Grid blocks.
func (b *gpuBackend) grid(a joinArgs) gpu.Dim3 {
	if a.Grid > 0 {
		return gpu.Dim3{X: a.Grid}
	}
	return gpu.Dim3{X: blocks(uint64(a.NIdx) * uint64(a.Group))}
}

func (b *gpuBackend) First(a joinArgs) error {
	stop, ctl := b.stopArgs()
	return b.q.launch(func() error {
		return b.first.Launch(b.grid(a), gpu.Dim3{X: blockThreads}, 0,
			b.ptr(a.Rows), a.Width, b.ptr(a.F), b.ptr(a.Idx), a.NIdx, a.Group, a.Col, b.ptr(a.SegOff), b.ptr(a.SegNbr),
			a.Lo, a.Hi, a.NRef, a.Head, a.WinLo, a.WinHi, b.ptr(a.Bits), b.ptr(a.Desc), b.ptr(a.GBA), stop, ctl)
	})
}

func (b *gpuBackend) Intersect(a joinArgs) error {
	stop, ctl := b.stopArgs()
	return b.q.launch(func() error {
		return b.intersect.Launch(b.grid(a), gpu.Dim3{X: blockThreads}, 0,
			b.ptr(a.Rows), a.Width, b.ptr(a.F), b.ptr(a.Idx), a.NIdx, a.Group, a.Col, b.ptr(a.SegOff), b.ptr(a.SegNbr),
			a.Lo, a.Hi, a.NRef, a.Head, a.Prev, a.Tail, a.Negate, b.ptr(a.GBA), stop, ctl)
	})
}

func (b *gpuBackend) Count(a joinArgs) error {
	stop, ctl := b.stopArgs()
	return b.q.launch(func() error {
		return b.count.Launch(b.grid(a), gpu.Dim3{X: blockThreads}, 0,
			b.ptr(a.F), b.ptr(a.Idx), a.NIdx, a.Group, b.ptr(a.GBA), b.ptr(a.Cnt), a.HasCnt, b.ptr(a.Total), stop, ctl)
	})
}

func (b *gpuBackend) Link(a joinArgs) error {
	stop, ctl := b.stopArgs()
	return b.q.launch(func() error {
		return b.link.Launch(b.grid(a), gpu.Dim3{X: blockThreads}, 0,
			b.ptr(a.Rows), a.Width, b.ptr(a.F), b.ptr(a.Idx), a.NIdx, a.Group, b.ptr(a.GBA), b.ptr(a.Cnt), a.A, a.B, b.ptr(a.Out), stop, ctl)
	})
}

func (b *gpuBackend) Last(a lastArgs) error {
	return b.q.launch(func() error { return b.lastOn(nil, a) })
}

// stopOn implements kernelStopper: the stop flag raised when ctx ends.
func (b *gpuBackend) stopOn(ctx context.Context) func() {
	if b.stop == nil {
		return func() {}
	}
	return b.stop.RaiseWhenDone(ctx)
}

// cut implements kernelStopper: once the device has caught up, whether a thread of a join kernel
// or of sgsi_last saw the flag raised (the polling's relay word, which only such a thread sets).
func (b *gpuBackend) cut() (bool, error) {
	if b.stop == nil || !b.stop.IsSet() {
		return false, nil
	}
	var ctl [stopWords]uint32
	if err := b.q.get(func() error { return gpu.CopyToHost(ctl[:], b.region, 4*b.words) }); err != nil {
		return false, err
	}
	return ctl[2] != 0 || ctl[3] != 0, nil
}

// stopArgs are the join kernels' and sgsi_last's last two arguments: the stop flag's device
// address (null: none) and the polling words.
func (b *gpuBackend) stopArgs() (gpu.DevicePtr, gpu.DevicePtr) {
	stop := gpu.DevicePtr(0)
	if b.stop != nil {
		stop = b.stop.Ptr()
	}
	return stop, b.ptr(b.words)
}

// HostTable returns pinned host memory for a level's table, kept per level and grown (by half
// again) when too small.
func (b *gpuBackend) HostTable(level int, n, keep uint64) ([]uint32, error) {
	old := b.tabs[level]
	if old == nil || old.Size() < 4*n {
		hb, err := b.d.AllocHost(max(4*n+4*n/2, 1<<20))
		if err != nil {
			return nil, fmt.Errorf("sgsi: pinned host table of %d bytes: %w", 4*n, err)
		}
		if old != nil {
			copy(words(hb)[:keep], words(old)[:keep])
			old.Free()
		}
		b.tabs[level] = hb
	}
	return words(b.tabs[level])[:n], nil
}

// words is the pinned buffer as 32-bit words.
func words(hb *gpu.HostBuffer) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(&hb.Bytes()[0])), hb.Size()/4)
}

func (b *gpuBackend) Close() {
	if b.gp != nil {
		b.gp.close() // nothing queued on its streams may still read the buffers freed below
	}
	if b.q.q != nil {
		b.q.close() // nothing queued may still read the buffers freed below
	}
	if b.stage != nil {
		b.stage.Free()
	}
	if b.stop != nil {
		b.stop.Free() // (no kernel runs: the streams were waited for above)
	}
	for _, hb := range b.tabs {
		hb.Free()
	}
	b.mem.FreeAll()
}
