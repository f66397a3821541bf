//go:build !unix

package testenv

import "time"

// CPUTime is the process's CPU time so far: unknown here (0).
func CPUTime() time.Duration { return 0 }
