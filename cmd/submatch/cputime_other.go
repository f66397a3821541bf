//go:build !unix

package main

import "time"

// processCPU is the process's CPU time so far: unknown (-1) here.
func processCPU() time.Duration { return -1 }
