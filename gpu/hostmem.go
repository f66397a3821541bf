package gpu

import (
	"fmt"
	"sync"
	"unsafe"
)

// HostBuffer is pinned host memory mapped into a device's address space (cuMemHostAlloc with
// CU_MEMHOSTALLOC_DEVICEMAP): the host reads and writes it as a byte slice, and kernels read it
// through Ptr, zero-copy, over the bus. It does not count against the device's memory budget. The
// host must not write it while a kernel that reads it runs.
type HostBuffer struct {
	dev   *Device
	host  unsafe.Pointer
	ptr   uint64
	size  uint64
	bytes []byte
	once  sync.Once
}

// AllocHost allocates bytes (> 0) of zeroed mapped pinned host memory for kernels on d.
func (d *Device) AllocHost(bytes uint64) (*HostBuffer, error) {
	if drv.cuMemHostAlloc == 0 || drv.cuMemHostGetDevicePointer == 0 || drv.cuMemFreeHost == 0 {
		return nil, errNoMappedMemory
	}
	if bytes == 0 {
		bytes = 8
	}
	b := &HostBuffer{dev: d, size: bytes}
	err := d.Do(func() error {
		if err := drv.check("cuMemHostAlloc", ccall(drv.cuMemHostAlloc, uintptr(unsafe.Pointer(&b.host)), uintptr(bytes), memHostAllocDeviceMap)); err != nil {
			return err
		}
		if err := drv.check("cuMemHostGetDevicePointer_v2", ccall(drv.cuMemHostGetDevicePointer, uintptr(unsafe.Pointer(&b.ptr)), uintptr(b.host), 0)); err != nil {
			ccall(drv.cuMemFreeHost, uintptr(b.host))
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	b.bytes = unsafe.Slice((*byte)(b.host), bytes)
	clear(b.bytes)
	return b, nil
}

// Bytes returns the memory as a byte slice (valid until Free).
func (b *HostBuffer) Bytes() []byte { return b.bytes }

// Ptr is the memory's device address, a kernel argument.
func (b *HostBuffer) Ptr() DevicePtr { return DevicePtr(b.ptr) }

// Size returns the buffer's size in bytes.
func (b *HostBuffer) Size() uint64 { return b.size }

// Free releases the memory; later calls do nothing. No kernel may be reading it.
func (b *HostBuffer) Free() error {
	var err error
	b.once.Do(func() {
		b.bytes = nil
		err = b.dev.Do(func() error { return drv.check("cuMemFreeHost", ccall(drv.cuMemFreeHost, uintptr(b.host))) })
	})
	return err
}

// CopyToDeviceAsync queues a copy of n bytes of the pinned buffer src, from byte srcOff, into dst
// at byte offset on the default stream and returns without waiting for it: the copy runs after
// the work queued before it and before the work queued after it (kernels, copies). The host must
// not write those bytes of src until the copy has run: until a synchronous copy back, Synchronize,
// or an event recorded after the copy has been reached. Without the driver's asynchronous copy
// it copies synchronously.
func CopyToDeviceAsync(dst *Buffer, offset uint64, src *HostBuffer, srcOff, n uint64) error {
	if srcOff > src.size || n > src.size-srcOff {
		return fmt.Errorf("gpu: an asynchronous copy of %d bytes from offset %d is outside a %d-byte host buffer", n, srcOff, src.size)
	}
	dst.mu.Lock()
	defer dst.mu.Unlock()
	if err := dst.checkRange("copy to device", offset, n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	from := uintptr(src.host) + uintptr(srcOff)
	return dst.dev.Do(func() error {
		if drv.cuMemcpyHtoDAsync == 0 {
			return drv.check("cuMemcpyHtoD_v2", ccall(drv.cuMemcpyHtoD, uintptr(dst.ptr+offset), from, uintptr(n)))
		}
		return drv.check("cuMemcpyHtoDAsync_v2", ccall(drv.cuMemcpyHtoDAsync, uintptr(dst.ptr+offset), from, uintptr(n), 0))
	})
}
