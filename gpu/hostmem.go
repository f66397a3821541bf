package gpu

import (
	"fmt"
	"sync"
	"unsafe"
)

// HostBuffer is host memory that kernels on a device address: pinned host memory mapped into
// the device's address space (AllocHost), which kernels read through Ptr, zero-copy, over the
// bus; or managed memory (AllocManaged), which the driver migrates page by page to whichever
// side touches it. The host reads and writes it as a byte slice. It does not count against the
// device's memory budget (managed pages resident on the device take device memory the budget
// does not see). The host must not touch it while a kernel that reads it runs.
type HostBuffer struct {
	dev     *Device
	host    unsafe.Pointer
	ptr     uint64
	size    uint64
	bytes   []byte
	managed bool
	once    sync.Once
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

// memAttachGlobal is CU_MEM_ATTACH_GLOBAL: managed memory any stream may access.
const memAttachGlobal = 0x1

// AllocManaged allocates bytes (> 0) of zeroed managed (unified) memory for kernels on d
// (cuMemAllocManaged, CU_MEM_ATTACH_GLOBAL; no advice, no prefetch): one address for the host and
// the kernels, its pages on the host until a kernel faults them over to the device and back when
// the host touches them again. The memory is zeroed on the host, so it starts there.
func (d *Device) AllocManaged(bytes uint64) (*HostBuffer, error) {
	if drv.cuMemAllocManaged == 0 {
		return nil, drv.missing("cuMemAllocManaged")
	}
	if bytes == 0 {
		bytes = 8
	}
	b := &HostBuffer{dev: d, size: bytes, managed: true}
	// The CUdeviceptr is written into host: a managed address is the host's too.
	err := d.Do(func() error {
		return drv.check("cuMemAllocManaged", ccall(drv.cuMemAllocManaged, uintptr(unsafe.Pointer(&b.host)), uintptr(bytes), memAttachGlobal))
	})
	if err != nil {
		return nil, err
	}
	b.ptr = uint64(uintptr(b.host))
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
		if b.managed {
			err = b.dev.Do(func() error { return drv.check("cuMemFree_v2", ccall(drv.cuMemFree, uintptr(b.ptr))) })
			return
		}
		err = b.dev.Do(func() error { return drv.check("cuMemFreeHost", ccall(drv.cuMemFreeHost, uintptr(b.host))) })
	})
	return err
}

// CopyToDeviceAsync queues a copy of n bytes of the pinned buffer src, from byte srcOff, into dst
// at byte offset on the default stream and returns without waiting for it: the copy runs after
// the work queued before it and before the work queued after it (kernels, copies). The host must
// not write those bytes of src until the copy has run: until a synchronous copy back, Synchronize,
// or an event recorded after the copy has been reached. Without the driver's asynchronous copy
// it copies synchronously. A src already freed is refused.
func CopyToDeviceAsync(dst *Buffer, offset uint64, src *HostBuffer, srcOff, n uint64) error {
	from, err := src.span(srcOff, n)
	if err != nil {
		return err
	}
	return dst.transfer("copy to device", offset, n, func() error {
		if drv.cuMemcpyHtoDAsync == 0 {
			return drv.check("cuMemcpyHtoD_v2", ccall(drv.cuMemcpyHtoD, uintptr(dst.ptr+offset), from, uintptr(n)))
		}
		return drv.check("cuMemcpyHtoDAsync_v2", ccall(drv.cuMemcpyHtoDAsync, uintptr(dst.ptr+offset), from, uintptr(n), 0))
	})
}

// span returns the host address of n bytes of b from byte off, refusing a range outside b or a
// freed b (whose pinned memory is the driver's again).
func (b *HostBuffer) span(off, n uint64) (uintptr, error) {
	if b.bytes == nil {
		return 0, fmt.Errorf("gpu: an asynchronous copy from a freed host buffer")
	}
	if off > b.size || n > b.size-off {
		return 0, fmt.Errorf("gpu: an asynchronous copy of %d bytes from offset %d is outside a %d-byte host buffer", n, off, b.size)
	}
	return uintptr(b.host) + uintptr(off), nil
}
