package gpu

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"unsafe"
)

// cuMemHostAlloc flags: the memory is mapped into the device's address space.
const memHostAllocDeviceMap = 0x02

// StopFlag is one word of pinned host memory mapped into a device's address space: the host sets
// it while a kernel runs, and the kernel, reading it (volatile) every so often, stops. It is how
// a cancelled count stops a kernel whose units of work are too long to wait for.
type StopFlag struct {
	dev  *Device
	host unsafe.Pointer // the word, in pinned host memory
	ptr  uint64         // its device address

	once sync.Once
}

// errNoMappedMemory: the driver lacks the pinned-memory entry points (they are optional).
var errNoMappedMemory = errors.New("gpu: the CUDA driver has no mapped host memory (cuMemHostAlloc)")

// NewStopFlag allocates a cleared stop flag for kernels on d.
func (d *Device) NewStopFlag() (*StopFlag, error) {
	if drv.cuMemHostAlloc == 0 || drv.cuMemHostGetDevicePointer == 0 || drv.cuMemFreeHost == 0 {
		return nil, errNoMappedMemory
	}
	f := &StopFlag{dev: d}
	err := d.Do(func() error {
		if err := drv.check("cuMemHostAlloc", ccall(drv.cuMemHostAlloc, uintptr(unsafe.Pointer(&f.host)), 8, memHostAllocDeviceMap)); err != nil {
			return err
		}
		atomic.StoreUint32((*uint32)(f.host), 0)
		if err := drv.check("cuMemHostGetDevicePointer_v2", ccall(drv.cuMemHostGetDevicePointer, uintptr(unsafe.Pointer(&f.ptr)), uintptr(f.host), 0)); err != nil {
			ccall(drv.cuMemFreeHost, uintptr(f.host))
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Set raises the flag; any goroutine may call it, also while a kernel runs.
func (f *StopFlag) Set() { atomic.StoreUint32((*uint32)(f.host), 1) }

// IsSet reports whether the flag is raised.
func (f *StopFlag) IsSet() bool { return atomic.LoadUint32((*uint32)(f.host)) != 0 }

// Ptr is the flag's device address, a kernel argument (const volatile unsigned*).
func (f *StopFlag) Ptr() DevicePtr { return DevicePtr(f.ptr) }

// Free releases the pinned memory; later calls do nothing. No kernel may be running with it.
func (f *StopFlag) Free() error {
	var err error
	f.once.Do(func() {
		err = f.dev.Do(func() error { return drv.check("cuMemFreeHost", ccall(drv.cuMemFreeHost, uintptr(f.host))) })
	})
	return err
}

// RaiseWhenDone raises the flag when ctx ends, until the function it returns is called; that
// function waits for a Set already under way, so the flag may be freed once it returned.
func (f *StopFlag) RaiseWhenDone(ctx context.Context) (stop func()) { return AfterDone(ctx, f.Set) }

// AfterDone calls raise when ctx ends, until the function it returns is called; that function
// waits for a call of raise already under way, so that raise cannot land after it returned (in
// the next count of a flag that is reused: a host emulation's flag, or one about to be freed).
func AfterDone(ctx context.Context, raise func()) (release func()) {
	raised := make(chan struct{})
	cancel := context.AfterFunc(ctx, func() { raise(); close(raised) })
	return func() {
		if !cancel() {
			<-raised
		}
	}
}
