package huge

import (
	"runtime"
	"unsafe"
)

// Bytes is the memory of s as bytes.
func Bytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// PopulateAsync asks the kernel, on a goroutine of its own, to back the whole pages of each of
// mems with memory now, in order, as first writes would, but without writing (Linux's
// MADV_POPULATE_WRITE; elsewhere, on kernels before 5.14 or with one core, nothing): on a virtual
// machine a first touch of a page costs microseconds, and a loader whose next steps run on one
// core leaves another to take those faults ahead of it. It changes no byte, so the caller may
// write to mems meanwhile; a page already there costs nothing.
func PopulateAsync(mems ...[]byte) {
	if !canPopulate || runtime.GOMAXPROCS(0) < 2 {
		return
	}
	go func() {
		for _, m := range mems {
			if !populate(pageAligned(m)) {
				return // (the kernel does not know the advice)
			}
		}
	}()
}

// pageAligned is the part of m made of whole pages.
func pageAligned(m []byte) []byte {
	const page = 4096
	p := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
	start := (p + page - 1) &^ (page - 1)
	end := (p + uintptr(len(m))) &^ (page - 1)
	if len(m) == 0 || end <= start {
		return nil
	}
	return m[start-p : end-p]
}
