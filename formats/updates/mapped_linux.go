//go:build linux

package updates

import (
	"os"
	"syscall"
)

// mapped returns the contents of the regular file f of size bytes mapped read-only, with its
// pages mapped in at once (MAP_POPULATE: one system call instead of a fault per page, and no
// copy of the file into fresh memory, which on a virtual machine costs more than the read), and
// the function that unmaps it; ok false when the system refuses (the caller reads instead).
func mapped(f *os.File, size int) (data []byte, unmap func(), ok bool) {
	data, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		return nil, nil, false
	}
	return data, func() { _ = syscall.Munmap(data) }, true
}
