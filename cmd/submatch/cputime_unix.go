//go:build unix

package main

import (
	"syscall"
	"time"
)

// processCPU is the process's CPU time so far (user and system, all threads), or -1.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
