package huge

import "syscall"

const (
	canPopulate       = true
	madvPopulateWrite = 23 // MADV_POPULATE_WRITE (Linux 5.14)
)

// populate prefaults mem writable; false when the kernel refuses the advice itself.
func populate(mem []byte) bool {
	if len(mem) == 0 {
		return true
	}
	return syscall.Madvise(mem, madvPopulateWrite) != syscall.EINVAL
}
