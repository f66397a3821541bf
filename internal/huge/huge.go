// Package huge owns large short-lived arrays backed by transparent huge pages: the loaders of
// graph files allocate a few arrays of megabytes that they fill at once, and on a virtual machine
// every 4 KiB page first touched costs a fault of a few microseconds (measured here: 25 ms for
// 40 MiB), a 2 MiB page one fault for 512. PopulateAsync takes the faults of smaller arrays on
// another core, ahead of their first writes.
package huge

import "unsafe"

// Page is the size of a huge page.
const Page = 2 << 20

// Make returns a zeroed slice of n elements. From one huge page up, its storage starts on a huge
// page boundary (the allocation is up to Page larger; the part never touched costs no memory)
// and the kernel is asked to back its whole huge pages with huge pages before they are first
// written (Linux, where transparent huge pages are enabled for advised memory; elsewhere, or
// if the kernel says no, ordinary pages).
func Make[T any](n int) []T {
	var zero T
	es := int(unsafe.Sizeof(zero))
	if es == 0 || n*es < Page {
		return make([]T, n)
	}
	b := make([]T, n+Page/es)
	p := unsafe.Pointer(unsafe.SliceData(b))
	skip := int((uintptr(p)+Page-1)&^(Page-1)-uintptr(p)) / es
	b = b[skip : skip+n : skip+n]
	if whole := uintptr(n*es) &^ (Page - 1); whole > 0 {
		advise(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), whole))
	}
	return b
}
