package gpu

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// Module is a compiled kernel image loaded on one device.
type Module struct {
	dev         *Device
	h           uintptr // CUmodule
	Name        string
	Key         string        // cache key (CacheKey)
	CacheHit    bool          // the image came from the disk cache
	CompileTime time.Duration // NVRTC time (0 on a cache hit)
	LoadTime    time.Duration // cuModuleLoadData time
	ImageBytes  int

	mu    sync.Mutex
	funcs map[string]*Function
}

// Compile compiles CUDA C++ source with NVRTC for the device's architecture (with
// --gpu-architecture=sm_XY, -std=c++17, -default-device, then opts), caching the cubin on disk
// (CacheDir) under CacheKey(src, opts, arch, NVRTC version), and loads it on the device. The same
// source and options compiled again on the same device return the same *Module. A compile error
// is an *NVRTCError carrying the compiler's log.
func (d *Device) Compile(src, name string, opts []string) (*Module, error) {
	return d.compile(src, name, opts, true)
}

// Cached is Compile without NVRTC: the module of src when it is loaded already or in the disk
// cache, else nil (no error). A caller that has a working kernel can use it to take a specialised
// one only when it costs nothing to get, and compile it in the background otherwise.
func (d *Device) Cached(src, name string, opts []string) (*Module, error) {
	return d.compile(src, name, opts, false)
}

// compile looks src up in the loaded modules and the disk cache and, with compile set, runs NVRTC
// when it is in neither, or waits for the NVRTC run of the same source and options under way. NVRTC runs without the module lock, so a long compile of one kernel does
// not hold up the cached kernels of other counts on the device.
func (d *Device) compile(src, name string, opts []string, compile bool) (*Module, error) {
	ver, err := NVRTCVersion()
	if err != nil {
		return nil, err
	}
	key := CacheKey(src, opts, d.info.Arch, ver)
	if m := d.cachedModule(key, name); m != nil || !compile {
		return m, nil
	}
	// One NVRTC run per key at a time: a second caller (the next part of a pbe count, another
	// worker, a count after a cancelled one) waits for the compile under way.
	m, _, err := d.compiles.do(key, func() (*Module, error) { return d.compileNew(key, src, name, opts) })
	return m, err
}

// compileNew runs NVRTC on src (key is its CacheKey) and loads, caches and records the image;
// compile calls it once at a time for a key.
func (d *Device) compileNew(key, src, name string, opts []string) (*Module, error) {
	if m := d.cachedModule(key, name); m != nil { // a call of key finished since compile looked
		return m, nil
	}
	d.nvrtcRuns.Add(1)
	t0 := time.Now()
	img, err := CompileSource(src, name, d.info.Arch, opts)
	if err != nil {
		return nil, err
	}
	elapsed := time.Since(t0)
	d.modMu.Lock()
	defer d.modMu.Unlock()
	if m := d.modules[key]; m != nil { // compiled meanwhile by another caller
		return m, nil
	}
	m := &Module{dev: d, Name: name, Key: key, funcs: map[string]*Function{}, CompileTime: elapsed}
	if err := m.load(img); err != nil {
		return nil, fmt.Errorf("%s: loading the compiled image: %w", name, err)
	}
	cacheStore(CacheDir(), key, img)
	d.modules[key] = m
	return m, nil
}

// cachedModule returns the loaded module of key, or loads it from the disk cache; nil when it
// is in neither (a corrupt or stale cache entry counts as absent).
func (d *Device) cachedModule(key, name string) *Module {
	d.modMu.Lock()
	defer d.modMu.Unlock()
	if m := d.modules[key]; m != nil {
		return m
	}
	img := cacheLoad(CacheDir(), key)
	if img == nil {
		return nil
	}
	m := &Module{dev: d, Name: name, Key: key, funcs: map[string]*Function{}, CacheHit: true}
	if err := m.load(img); err != nil {
		return nil
	}
	d.modules[key] = m
	return m
}

// CompileKernel compiles the registered kernel file (see KernelSource).
func (d *Device) CompileKernel(file string, opts []string) (*Module, error) {
	src, err := KernelSource(file)
	if err != nil {
		return nil, err
	}
	return d.Compile(src, file, opts)
}

func (m *Module) load(img []byte) error {
	m.ImageBytes = len(img)
	t0 := time.Now()
	err := m.dev.Do(func() error {
		var pin runtime.Pinner
		defer pin.Unpin()
		pin.Pin(&img[0])
		var h uintptr
		if err := drv.check("cuModuleLoadData", ccall(drv.cuModuleLoadData, uintptr(unsafe.Pointer(&h)), uintptr(unsafe.Pointer(&img[0])))); err != nil {
			return err
		}
		m.h = h
		return nil
	})
	m.LoadTime = time.Since(t0)
	return err
}

// Function is a kernel entry point of a module.
type Function struct {
	mod  *Module
	h    uintptr // CUfunction
	Name string
	// LocalBytes is the local memory one thread of the kernel uses (spilled registers, stack
	// arrays), as the driver reports it; 0 when it cannot say.
	LocalBytes int
}

// Function looks up an extern "C" kernel by name.
func (m *Module) Function(name string) (*Function, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if f := m.funcs[name]; f != nil {
		return f, nil
	}
	f := &Function{mod: m, Name: name}
	cname := cBytes(name)
	err := m.dev.Do(func() error {
		var pin runtime.Pinner
		defer pin.Unpin()
		pin.Pin(&cname[0])
		return drv.check("cuModuleGetFunction", ccall(drv.cuModuleGetFunction, uintptr(unsafe.Pointer(&f.h)), m.h, uintptr(unsafe.Pointer(&cname[0]))))
	})
	if err != nil {
		return nil, fmt.Errorf("kernel %s in %s: %w", name, m.Name, err)
	}
	if drv.cuFuncGetAttribute != 0 {
		var v int32
		if m.dev.Do(func() error {
			return drv.check("cuFuncGetAttribute", ccall(drv.cuFuncGetAttribute, uintptr(unsafe.Pointer(&v)), funcAttrLocalSizeBytes, f.h))
		}) == nil {
			f.LocalBytes = int(v)
			m.dev.accountLocal(f.LocalBytes)
		}
	}
	m.funcs[name] = f
	return f, nil
}

// SetMaxDynamicSharedMemory allows launches with more than 48 KiB of dynamic shared memory
// (up to Info.SharedMemPerBlockOptin).
func (f *Function) SetMaxDynamicSharedMemory(bytes int) error {
	if drv.cuFuncSetAttribute == 0 {
		return drv.missing("cuFuncSetAttribute")
	}
	return f.mod.dev.Do(func() error {
		return drv.check("cuFuncSetAttribute", ccall(drv.cuFuncSetAttribute, f.h, funcAttrMaxDynamicSharedSize, uintptr(bytes)))
	})
}

// ActiveBlocksPerSM returns how many blocks of blockSize threads with dynamicShared bytes of
// dynamic shared memory can be resident on one multiprocessor at once (the occupancy
// calculator's answer for this kernel's registers and shared memory). Persistent kernels size
// their grid from it so that every block runs at the same time.
func (f *Function) ActiveBlocksPerSM(blockSize int, dynamicShared uint32) (int, error) {
	if drv.cuOccupancyMaxActiveBlocksPerMultiprocessor == 0 {
		return 0, drv.missing("cuOccupancyMaxActiveBlocksPerMultiprocessor")
	}
	var n int32
	err := f.mod.dev.Do(func() error {
		return drv.check("cuOccupancyMaxActiveBlocksPerMultiprocessor", ccall(drv.cuOccupancyMaxActiveBlocksPerMultiprocessor,
			uintptr(unsafe.Pointer(&n)), f.h, uintptr(blockSize), uintptr(dynamicShared)))
	})
	return int(n), err
}

// Dim3 is a grid or block shape; zero components count as 1.
type Dim3 struct{ X, Y, Z uint32 }

func (d Dim3) norm() Dim3 {
	if d.X == 0 {
		d.X = 1
	}
	if d.Y == 0 {
		d.Y = 1
	}
	if d.Z == 0 {
		d.Z = 1
	}
	return d
}

// kernelArgs packs launch arguments: each is stored in its own 8-byte slot (little-endian, so a
// 4-byte argument is the slot's first bytes) and params[i] points at slot i.
func kernelArgs(args []any) ([]uint64, error) {
	vals := make([]uint64, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case *Buffer:
			if v == nil {
				return nil, fmt.Errorf("gpu: kernel argument %d is a nil *Buffer", i)
			}
			vals[i] = v.ptr
		case DevicePtr:
			vals[i] = uint64(v)
		case uint64:
			vals[i] = v
		case int64:
			vals[i] = uint64(v)
		case uint32:
			vals[i] = uint64(v)
		case int32:
			vals[i] = uint64(uint32(v))
		case uint16:
			vals[i] = uint64(v)
		case int16:
			vals[i] = uint64(uint16(v))
		case uint8:
			vals[i] = uint64(v)
		case int8:
			vals[i] = uint64(uint8(v))
		case bool:
			if v {
				vals[i] = 1
			}
		case float32:
			vals[i] = uint64(*(*uint32)(unsafe.Pointer(&v)))
		case float64:
			vals[i] = *(*uint64)(unsafe.Pointer(&v))
		default:
			return nil, fmt.Errorf("gpu: kernel argument %d has unsupported type %T (use sized integers, floats, *Buffer or DevicePtr)", i, a)
		}
	}
	return vals, nil
}

// DevicePtr is a raw device address (a CUdeviceptr), e.g. an offset into a Buffer.
type DevicePtr uint64

// Launch starts the kernel on the device's default stream. Arguments must match the kernel's
// parameters in order and size: *Buffer or DevicePtr for pointers, sized integers (uint32 for
// unsigned int, uint64 for unsigned long long...), float32, float64, bool. Launch does not wait for
// the kernel: call Device.Synchronize (which also reports errors raised while it ran).
func (f *Function) Launch(grid, block Dim3, sharedMem uint32, args ...any) error {
	vals, err := kernelArgs(args)
	if err != nil {
		return err
	}
	grid, block = grid.norm(), block.norm()
	return f.mod.dev.Do(func() error {
		return f.launch(0, grid, block, sharedMem, vals)
	})
}

// launch runs on the worker thread; stream is the CUstream (0: the default stream).
func (f *Function) launch(stream uintptr, grid, block Dim3, sharedMem uint32, vals []uint64) error {
	var pin runtime.Pinner
	defer pin.Unpin()
	var paramsPtr uintptr
	if len(vals) > 0 {
		params := make([]unsafe.Pointer, len(vals))
		pin.Pin(&vals[0])
		for i := range vals {
			params[i] = unsafe.Pointer(&vals[i])
		}
		pin.Pin(&params[0])
		paramsPtr = uintptr(unsafe.Pointer(&params[0]))
	}
	err := drv.check("cuLaunchKernel", ccall(drv.cuLaunchKernel, f.h,
		uintptr(grid.X), uintptr(grid.Y), uintptr(grid.Z),
		uintptr(block.X), uintptr(block.Y), uintptr(block.Z),
		uintptr(sharedMem), stream, paramsPtr, 0))
	if err != nil {
		var ce *CUDAError
		if errors.As(err, &ce) && ce.Code == cudaErrorOutOfMemory {
			// The launch itself needs memory: the local memory of every thread the GPU can hold
			// (LocalReserve), taken from what is free, outside the budget. Callers that fall
			// back on a refused allocation (errors.Is ErrBudget) do so here too.
			info := f.mod.dev.info
			return fmt.Errorf("kernel %s (grid %dx%dx%d, block %dx%dx%d, %d B shared, %d B local a thread): the GPU's free memory cannot hold the launch (about %s of local memory for its resident threads; other processes may hold most of the GPU): %w: %w",
				f.Name, grid.X, grid.Y, grid.Z, block.X, block.Y, block.Z, sharedMem, f.LocalBytes,
				FormatBytes(uint64(max(f.LocalBytes, contextStackBytes))*uint64(info.SMs)*uint64(info.MaxThreadsPerSM)), ErrBudget, err)
		}
		return fmt.Errorf("kernel %s (grid %dx%dx%d, block %dx%dx%d, %d B shared): %w",
			f.Name, grid.X, grid.Y, grid.Z, block.X, block.Y, block.Z, sharedMem, err)
	}
	return nil
}

// LaunchSync launches the kernel, waits for it, and returns the kernel's time measured with CUDA
// events around the launch (the host clock when the driver has no events).
func (f *Function) LaunchSync(grid, block Dim3, sharedMem uint32, args ...any) (time.Duration, error) {
	vals, err := kernelArgs(args)
	if err != nil {
		return 0, err
	}
	grid, block = grid.norm(), block.norm()
	var elapsed time.Duration
	err = f.mod.dev.Do(func() error {
		if !haveEvents() {
			t0 := time.Now()
			if err := f.launch(0, grid, block, sharedMem, vals); err != nil {
				return err
			}
			err := drv.check("cuCtxSynchronize", ccall(drv.cuCtxSynchronize))
			elapsed = time.Since(t0)
			return err
		}
		start, err := f.mod.dev.NewEvent()
		if err != nil {
			return err
		}
		defer start.Close()
		stop, err := f.mod.dev.NewEvent()
		if err != nil {
			return err
		}
		defer stop.Close()
		if err := start.Record(); err != nil {
			return err
		}
		if err := f.launch(0, grid, block, sharedMem, vals); err != nil {
			return err
		}
		if err := stop.Record(); err != nil {
			return err
		}
		if elapsed, err = stop.Since(start); err != nil {
			return err
		}
		return drv.check("cuCtxSynchronize", ccall(drv.cuCtxSynchronize))
	})
	return elapsed, err
}
