package huge

import "syscall"

const madvHugepage = 14 // MADV_HUGEPAGE

func advise(mem []byte) { _ = syscall.Madvise(mem, madvHugepage) }
