package gpu

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// Buffer is device memory allocated through the device's Budget.
type Buffer struct {
	dev  *Device
	ptr  uint64
	size uint64

	outside bool // allocated outside the budget (AllocOutsideBudget)

	mu    sync.Mutex
	freed bool
}

// Alloc allocates bytes of device memory. Over the device's budget it returns a *BudgetError
// (errors.Is ErrBudget) without calling CUDA; CUDA_ERROR_OUT_OF_MEMORY is returned the same way.
// A zero-byte buffer is valid and has a null pointer.
func (d *Device) Alloc(bytes uint64) (*Buffer, error) { return d.alloc(bytes, true) }

// AllocOutsideBudget allocates bytes of device memory that the budget does not account for: for
// tools that take memory away on purpose (scripts/gpuhog); engines use Alloc.
func (d *Device) AllocOutsideBudget(bytes uint64) (*Buffer, error) { return d.alloc(bytes, false) }

func (d *Device) alloc(bytes uint64, budgeted bool) (*Buffer, error) {
	b := &Buffer{dev: d, size: bytes, outside: !budgeted}
	if bytes == 0 {
		return b, nil
	}
	if budgeted {
		if err := d.budget.Reserve(bytes); err != nil {
			return nil, err
		}
	}
	err := d.Do(func() error {
		var p uint64
		r := ccall(drv.cuMemAlloc, uintptr(unsafe.Pointer(&p)), uintptr(bytes))
		if err := drv.check("cuMemAlloc_v2", r); err != nil {
			return err
		}
		b.ptr = p
		return nil
	})
	if err != nil {
		if budgeted {
			d.budget.Release(bytes)
		}
		var ce *CUDAError
		if errors.As(err, &ce) && ce.Code == cudaErrorOutOfMemory {
			return nil, &BudgetError{Device: d.info.Ordinal, Requested: bytes, Available: d.budget.Available(), Limit: d.budget.Limit(), CUDA: err}
		}
		return nil, err
	}
	return b, nil
}

// Ptr returns the device address (for kernel arguments and pointer arithmetic).
func (b *Buffer) Ptr() DevicePtr { return DevicePtr(b.ptr) }

// Size returns the buffer's size in bytes.
func (b *Buffer) Size() uint64 { return b.size }

// Device returns the device the buffer lives on.
func (b *Buffer) Device() *Device { return b.dev }

// Free releases the memory and returns it to the budget. Freeing twice is an error.
func (b *Buffer) Free() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.freed {
		return errFreed
	}
	b.freed = true
	if b.size == 0 {
		return nil
	}
	err := b.dev.Do(func() error {
		return drv.check("cuMemFree_v2", ccall(drv.cuMemFree, uintptr(b.ptr)))
	})
	if !b.outside {
		b.dev.budget.Release(b.size)
	}
	return err
}

// Elem is the element types that can be copied between host slices and buffers.
type Elem interface {
	~uint8 | ~int8 | ~uint16 | ~int16 | ~uint32 | ~int32 | ~uint64 | ~int64 | ~float32 | ~float64
}

func byteLen[T Elem](s []T) uint64 {
	var z T
	return uint64(len(s)) * uint64(unsafe.Sizeof(z))
}

// transfer runs fn (a copy of n bytes at offset) on the device's thread with b locked, once the
// range is checked to lie in b (op names the copy in the error); nothing when n is 0.
func (b *Buffer) transfer(op string, offset, n uint64, fn func() error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.checkRange(op, offset, n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	return b.dev.Do(fn)
}

func (b *Buffer) checkRange(op string, offset, n uint64) error {
	if b.freed {
		return errFreed
	}
	if offset > b.size || n > b.size-offset {
		return fmt.Errorf("gpu: %s of %d bytes at offset %d is outside a %d-byte buffer", op, n, offset, b.size)
	}
	return nil
}

// Upload allocates a buffer holding a copy of s.
func Upload[T Elem](d *Device, s []T) (*Buffer, error) {
	b, err := d.Alloc(byteLen(s))
	if err != nil {
		return nil, err
	}
	if err := CopyToDevice(b, 0, s); err != nil {
		b.Free()
		return nil, err
	}
	return b, nil
}

// CopyToDevice copies s into the buffer at byte offset (synchronous).
func CopyToDevice[T Elem](b *Buffer, offset uint64, s []T) error {
	n := byteLen(s)
	return b.transfer("copy to device", offset, n, func() error {
		var pin runtime.Pinner
		defer pin.Unpin()
		pin.Pin(&s[0])
		return drv.check("cuMemcpyHtoD_v2", ccall(drv.cuMemcpyHtoD, uintptr(b.ptr+offset), uintptr(unsafe.Pointer(&s[0])), uintptr(n)))
	})
}

// CopyToHost fills dst from the buffer at byte offset (synchronous: waits for earlier work).
func CopyToHost[T Elem](dst []T, b *Buffer, offset uint64) error {
	n := byteLen(dst)
	return b.transfer("copy to host", offset, n, func() error {
		var pin runtime.Pinner
		defer pin.Unpin()
		pin.Pin(&dst[0])
		return drv.check("cuMemcpyDtoH_v2", ccall(drv.cuMemcpyDtoH, uintptr(unsafe.Pointer(&dst[0])), uintptr(b.ptr+offset), uintptr(n)))
	})
}

// Download returns the buffer's contents as a new slice of T (the size must be a multiple of T's).
func Download[T Elem](b *Buffer) ([]T, error) {
	var z T
	sz := uint64(unsafe.Sizeof(z))
	if b.size%sz != 0 {
		return nil, fmt.Errorf("gpu: a %d-byte buffer is not a whole number of %d-byte elements", b.size, sz)
	}
	out := make([]T, b.size/sz)
	return out, CopyToHost(out, b, 0)
}

// Memset sets every byte of the buffer to v.
func (b *Buffer) Memset(v byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.freed {
		return errFreed
	}
	if b.size == 0 {
		return nil
	}
	return b.dev.Do(func() error {
		return drv.check("cuMemsetD8_v2", ccall(drv.cuMemsetD8, uintptr(b.ptr), uintptr(v), uintptr(b.size)))
	})
}

// Memset32 sets every 4-byte word of the buffer to v (the size must be a multiple of 4).
func (b *Buffer) Memset32(v uint32) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.freed {
		return errFreed
	}
	if b.size%4 != 0 {
		return fmt.Errorf("gpu: Memset32 on a %d-byte buffer", b.size)
	}
	if b.size == 0 {
		return nil
	}
	return b.dev.Do(func() error {
		return drv.check("cuMemsetD32_v2", ccall(drv.cuMemsetD32, uintptr(b.ptr), uintptr(v), uintptr(b.size/4)))
	})
}
