//go:build !unix

package pbe

import "time"

// cpuTime is 0 where getrusage is missing: the measurement that reads it reports no CPU time.
func cpuTime() time.Duration { return 0 }
