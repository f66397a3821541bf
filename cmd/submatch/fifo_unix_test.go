//go:build unix

package main

import "syscall"

// mkfifo makes a named pipe at path, for the tests that check FIFOs are refused.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
