//go:build linux

package mmapfile

import (
	"os"
	"syscall"
)

// Map maps the first size bytes of f read-only and shared and returns the bytes and the function
// that unmaps them. populate faults every page in at once (MAP_POPULATE: one system call instead
// of a fault per page, worth it for a file read whole right away).
func Map(f *os.File, size int, populate bool) ([]byte, func(), error) {
	flags := syscall.MAP_SHARED
	if populate {
		flags |= syscall.MAP_POPULATE
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, flags)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { _ = syscall.Munmap(data) }, nil
}
