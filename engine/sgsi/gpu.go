package sgsi

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
)

func init() { gpu.RegisterKernel(kernelFile, kernelSource) }

// KernelSource returns the CUDA source of the kernels.
func KernelSource() string { return kernelSource }

// gpuBackend runs the kernels on one device, in one region allocated within --gpu-memory.
type gpuBackend struct {
	d                                     *gpu.Device
	mem                                   gpu.Allocs
	region                                *gpu.Buffer
	words                                 uint64
	filter, first, intersect, count, link *gpu.Function
	tabs                                  map[int]*gpu.HostBuffer
	zero                                  [2]uint32
}

// regionMargin is left free on the device beside the region (the kernels' own needs).
const regionMargin = 64 << 20

func newGPUBackend(ctx context.Context, p *engine.Problem, o Options, st *Stats) (_ Backend, err error) {
	devs, err := gpu.Open(ctx)
	if err != nil {
		return nil, fmt.Errorf("sgsi: %w", err)
	}
	if len(devs) == 0 {
		return nil, fmt.Errorf("sgsi: %w", gpu.ErrNoGPU)
	}
	d := devs[0]
	if len(p.GPUs) > 0 {
		if k := p.GPUs[0]; k < 0 || k >= len(devs) {
			return nil, fmt.Errorf("sgsi: GPU %d asked for, %d available", k, len(devs))
		}
		d = devs[p.GPUs[0]]
	}
	st.Device = d.String()
	b := &gpuBackend{d: d, mem: gpu.Allocs{Device: d, Limit: p.GPUMemoryLimit, Prefix: "sgsi: "}, tabs: map[int]*gpu.HostBuffer{}}
	defer func() {
		if err != nil {
			b.Close()
		}
	}()
	mod, err := d.Compile(kernelSource, kernelFile, nil)
	if err != nil {
		return nil, fmt.Errorf("sgsi: compiling the kernels: %w", err)
	}
	for _, f := range []struct {
		p    **gpu.Function
		name string
	}{{&b.filter, "sgsi_filter"}, {&b.first, "sgsi_first"}, {&b.intersect, "sgsi_intersect"}, {&b.count, "sgsi_count"}, {&b.link, "sgsi_link"}} {
		if *f.p, err = mod.Function(f.name); err != nil {
			return nil, err
		}
	}
	size := p.GPUMemoryLimit
	if size == 0 {
		size = o.MaxRegion
		if size == 0 {
			size = DefaultMaxRegion
		}
		if a := b.mem.Available(); a < size+regionMargin {
			size = a - min(a, regionMargin)
		}
	} else if a := b.mem.Available(); a < size {
		// --gpu-memory above what the device has free is a cap, not a demand (as for every
		// engine): the region takes what is free, less the kernels' margin.
		size = a - min(a, regionMargin)
	}
	size &^= 7
	if b.region, err = b.mem.Alloc("region", size); err != nil {
		return nil, fmt.Errorf("%w: %w", engine.ErrMemory, err)
	}
	b.words = size / 4
	return b, nil
}

func (b *gpuBackend) Words() uint64 { return b.words }

func (b *gpuBackend) Put(off uint64, src []uint32) error {
	return gpu.CopyToDevice(b.region, 4*off, src)
}

func (b *gpuBackend) Get(dst []uint32, off uint64) error {
	return gpu.CopyToHost(dst, b.region, 4*off)
}

func (b *gpuBackend) ptr(off uint64) gpu.DevicePtr { return b.region.Ptr() + gpu.DevicePtr(4*off) }

func blocks(threads uint64) uint32 {
	return uint32(max(1, min((threads+blockThreads-1)/blockThreads, 1<<16)))
}

func (b *gpuBackend) Filter(a filterArgs) error {
	_, err := b.filter.LaunchSync(gpu.Dim3{X: blocks(uint64(a.N))}, gpu.Dim3{X: blockThreads}, 0,
		b.ptr(a.Sigs), b.ptr(a.Labels), a.N, a.Base, b.ptr(a.QSigs), b.ptr(a.QLab), a.NQ, b.ptr(a.Bits), a.Words)
	return err
}

// grid is the launch of a join kernel: a group of a.Group threads per row.
func (b *gpuBackend) grid(a joinArgs) gpu.Dim3 {
	return gpu.Dim3{X: blocks(uint64(a.NIdx) * uint64(a.Group))}
}

func (b *gpuBackend) First(a joinArgs) error {
	_, err := b.first.LaunchSync(b.grid(a), gpu.Dim3{X: blockThreads}, 0,
		b.ptr(a.Rows), a.Width, b.ptr(a.F), b.ptr(a.Idx), a.NIdx, a.Group, a.Col, b.ptr(a.SegOff), b.ptr(a.SegNbr),
		a.Lo, a.Hi, a.Head, a.WinLo, a.WinHi, b.ptr(a.Bits), b.ptr(a.Desc), b.ptr(a.GBA))
	return err
}

func (b *gpuBackend) Intersect(a joinArgs) error {
	_, err := b.intersect.LaunchSync(b.grid(a), gpu.Dim3{X: blockThreads}, 0,
		b.ptr(a.Rows), a.Width, b.ptr(a.F), b.ptr(a.Idx), a.NIdx, a.Group, a.Col, b.ptr(a.SegOff), b.ptr(a.SegNbr),
		a.Lo, a.Hi, a.Head, a.Prev, a.Tail, a.Negate, b.ptr(a.GBA))
	return err
}

func (b *gpuBackend) Count(a joinArgs) (uint64, error) {
	if err := b.Put(a.Total, b.zero[:]); err != nil {
		return 0, err
	}
	_, err := b.count.LaunchSync(b.grid(a), gpu.Dim3{X: blockThreads}, 0,
		b.ptr(a.F), b.ptr(a.Idx), a.NIdx, a.Group, b.ptr(a.GBA), b.ptr(a.Cnt), a.HasCnt, b.ptr(a.Total))
	if err != nil {
		return 0, err
	}
	var t [2]uint32
	if err := b.Get(t[:], a.Total); err != nil {
		return 0, err
	}
	return uint64(t[0]) | uint64(t[1])<<32, nil
}

func (b *gpuBackend) Link(a joinArgs) error {
	_, err := b.link.LaunchSync(b.grid(a), gpu.Dim3{X: blockThreads}, 0,
		b.ptr(a.Rows), a.Width, b.ptr(a.F), b.ptr(a.Idx), a.NIdx, a.Group, b.ptr(a.GBA), b.ptr(a.Cnt), a.A, a.B, b.ptr(a.Out))
	return err
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
	for _, hb := range b.tabs {
		hb.Free()
	}
	b.mem.FreeAll()
}
