//go:build linux

package gpu

import "syscall"

// threadID identifies the calling OS thread (a locked worker keeps its thread for its lifetime).
func threadID() int { return syscall.Gettid() }
