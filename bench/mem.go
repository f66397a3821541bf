package bench

import (
	"bytes"
	"os"
	"strconv"
)

// resetPeakRSS asks Linux to reset the process's peak resident set size (writing "5" to
// /proc/self/clear_refs), so that the next peakRSS covers only what follows. It reports whether
// the reset worked; elsewhere peakRSS is the peak since the process started.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSS returns the process's peak resident set size in bytes (VmHWM in /proc/self/status),
// or 0 where that is not available.
func peakRSS() uint64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(status) {
		rest, ok := bytes.CutPrefix(line, []byte("VmHWM:"))
		if !ok {
			continue
		}
		kb, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}

// PeakRSS is the process's peak resident set size in bytes (VmHWM), or 0 where Linux's
// /proc/self/status is not available: for commands that report their own peak (gen rmat).
func PeakRSS() uint64 { return peakRSS() }

// ResetPeakRSS resets the peak that PeakRSS reports to the current resident set (Linux), so that
// it covers only what follows; false where that is not available.
func ResetPeakRSS() bool { return resetPeakRSS() }
