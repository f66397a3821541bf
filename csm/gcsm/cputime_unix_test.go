//go:build unix

package gcsm

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system CPU time so far (0 where unknown).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
