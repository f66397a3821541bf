//go:build linux

package formats

import (
	"os"
	"syscall"
	"unsafe"
)

// mapFile maps size bytes of f read-only and shared. The pages are mapped at once
// (MAP_POPULATE: the file is in the page cache, and the checksum reads every page anyway), not
// one fault at a time.
func mapFile(f *os.File, size int) ([]byte, func(), error) {
	data, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { syscall.Munmap(data) }, nil
}

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14), missing from package syscall.
const madvPopulateWrite = 23

// populate asks the kernel to back b's whole pages with private pages now, in one call, instead
// of one page fault each at the first write: for a large buffer about to be written in full (a
// file read into it), whose faults in the kernel's copy were about 5% of the CPU time of a small
// text graph's count on a virtual machine (wiki-Vote, 1.3 MB: 315 faults, a trap each). Its
// contents are unchanged. It is only a hint: an older kernel refuses it and the pages fault as
// before.
func populate(b []byte) {
	const page = 4096
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	skip := int((page - start%page) % page) // madvise takes a page-aligned start
	if len(b)-skip < page {
		return
	}
	syscall.Madvise(b[skip:], madvPopulateWrite)
}
