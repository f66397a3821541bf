// Package sysmem says how much memory the host can still give this process. Engines whose
// tables grow with the count (sgsi's spilled join tables) take a share of it as their bound when
// --memory sets none, so that a count too large for the machine stops with a clear error
// instead of being killed by the operating system.
package sysmem

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Available returns the bytes this process may still allocate: the kernel's MemAvailable
// (/proc/meminfo), lowered to what the process's cgroup leaves (v2: memory.max minus
// memory.current; v1: memory.limit_in_bytes minus memory.usage_in_bytes). It returns 0 when
// neither is known (not Linux, or /proc unreadable).
func Available() uint64 {
	avail := meminfoAvailable(readFile("/proc/meminfo"))
	if left, ok := cgroupLeft(); ok && (avail == 0 || left < avail) {
		avail = left
	}
	return avail
}

// Share returns num/den of Available (0 when it is unknown).
func Share(num, den uint64) uint64 {
	a := Available()
	return a / den * num
}

func readFile(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return b
}

// meminfoAvailable parses the "MemAvailable:  N kB" line of /proc/meminfo (0: absent).
func meminfoAvailable(meminfo []byte) uint64 {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != "MemAvailable" {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0
		}
		if len(f) > 1 && f[1] == "kB" {
			n *= 1024
		}
		return n
	}
	return 0
}

// cgroupLeft is what the process's memory cgroup leaves, if it has a limit.
func cgroupLeft() (uint64, bool) {
	for _, p := range [][2]string{
		{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
		{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"},
	} {
		if left, ok := limitLeft(readFile(p[0]), readFile(p[1])); ok {
			return left, true
		}
	}
	return 0, false
}

// limitLeft is limit minus usage, from the two files' contents; false when there is no limit
// ("max", absent, or v1's "no limit", a number near 2^63).
func limitLeft(limit, usage []byte) (uint64, bool) {
	l, err := strconv.ParseUint(strings.TrimSpace(string(limit)), 10, 64)
	if err != nil || l >= 1<<62 {
		return 0, false
	}
	u, err := strconv.ParseUint(strings.TrimSpace(string(usage)), 10, 64)
	if err != nil {
		return 0, false
	}
	return l - min(l, u), true
}
