//go:build !unix

package gcsm

import "time"

// cpuTime is the process's CPU time so far: unknown here (0).
func cpuTime() time.Duration { return 0 }
