//go:build linux

package formats

import (
	"os"
	"syscall"
)

// mapFile maps size bytes of f read-only and shared. A file of up to populateMax bytes has its
// pages mapped at once (MAP_POPULATE: its checksum reads every page anyway), rather than a fault
// every 16 pages as they are first read; a larger one (which may exceed memory, or not be cached
// yet) is left to fault in as it is read, on all cores.
func mapFile(f *os.File, size int) ([]byte, func(), error) {
	flags := syscall.MAP_SHARED
	if size <= populateMax {
		flags |= syscall.MAP_POPULATE
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, flags)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { syscall.Munmap(data) }, nil
}

// populateMax is the largest file mapFile populates.
const populateMax = 64 << 20
