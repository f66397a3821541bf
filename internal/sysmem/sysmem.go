// Package sysmem says how much memory the host can still give this process. Engines whose
// tables grow with the count (sgsi's spilled join tables) take a share of it as their bound when
// --memory sets none, so that a count too large for the machine stops with a clear error
// instead of being killed by the operating system.
package sysmem

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
)

// root is prefixed to every file read ("": the host's own; tests set a directory laid out as
// / is).
var root = ""

// Available returns the bytes this process may still allocate: the kernel's MemAvailable
// (/proc/meminfo), lowered to what the memory cgroups of the process leave (its own, read from
// /proc/self/cgroup, and their ancestors; v2: memory.max minus memory.current, v1:
// memory.limit_in_bytes minus memory.usage_in_bytes, the page cache, which the kernel reclaims
// before it kills, taken out of the usage). It returns 0 when neither is known (not Linux, or
// /proc unreadable), and at least 1 when a cgroup is known but full.
func Available() uint64 {
	avail := meminfoAvailable(readFile("/proc/meminfo"))
	if left, ok := cgroupLeft(); ok && (avail == 0 || left < avail) {
		avail = max(left, 1) // (0 would read as unknown: no bound at all)
	}
	return avail
}

// Share returns num/den of Available (0 when it is unknown, at least 1 when it is known).
func Share(num, den uint64) uint64 {
	a := Available()
	if a == 0 {
		return 0
	}
	return max(1, a/den*num)
}

func readFile(p string) []byte {
	b, err := os.ReadFile(root + p)
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

// hierarchy is one cgroup version's memory controller: where it is mounted, its files, and the
// memory.stat keys of the page cache the kernel can reclaim.
type hierarchy struct {
	mount, limit, usage string
	cache               []string
}

var (
	v2 = hierarchy{"/sys/fs/cgroup", "memory.max", "memory.current", []string{"inactive_file", "active_file"}}
	v1 = hierarchy{"/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes", []string{"total_inactive_file", "total_active_file"}}
)

// cgroupLeft is the least that the memory cgroups of the process leave, if one has a limit: the
// process's own cgroup of each hierarchy (/proc/self/cgroup; the mount's root when it is not
// listed, as inside a cgroup namespace) and every ancestor of it that is visible, since a
// parent's limit bounds its children (a systemd slice, a batch job's step).
func cgroupLeft() (uint64, bool) {
	own2, own1 := ownCgroups(readFile("/proc/self/cgroup"))
	var least uint64
	found := false
	for _, h := range []struct {
		hierarchy
		own string
	}{{v2, own2}, {v1, own1}} {
		for dir := h.own; ; dir = path.Dir(dir) {
			d := path.Join(h.mount, dir)
			if left, ok := limitLeft(readFile(d+"/"+h.limit), readFile(d+"/"+h.usage), readFile(d+"/memory.stat"), h.cache); ok && (!found || left < least) {
				least, found = left, true
			}
			if dir == "/" {
				break
			}
		}
	}
	return least, found
}

// ownCgroups returns the process's cgroup paths in the v2 hierarchy ("0::PATH") and in v1's
// memory controller ("N:...memory...:PATH"), "/" for one not listed or outside the namespace.
func ownCgroups(self []byte) (own2, own1 string) {
	own2, own1 = "/", "/"
	clean := func(p string) string {
		p = path.Clean("/" + p)
		if strings.HasPrefix(p, "/..") {
			return "/"
		}
		return p
	}
	for _, line := range strings.Split(string(self), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[0] == "0" && f[1] == "" {
			own2 = clean(f[2])
		} else if strings.Contains(","+f[1]+",", ",memory,") {
			own1 = clean(f[2])
		}
	}
	return own2, own1
}

// limitLeft is limit minus usage, from the files' contents, the page cache (the stat's keys
// cache) taken out of the usage; false when there is no limit ("max", absent, or v1's "no
// limit", a number near 2^63).
func limitLeft(limit, usage, stat []byte, cache []string) (uint64, bool) {
	l, err := strconv.ParseUint(strings.TrimSpace(string(limit)), 10, 64)
	if err != nil || l >= 1<<62 {
		return 0, false
	}
	u, err := strconv.ParseUint(strings.TrimSpace(string(usage)), 10, 64)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(stat), "\n") {
		k, v, ok := strings.Cut(line, " ")
		if ok && slices.Contains(cache, k) {
			if n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64); err == nil {
				u -= min(u, n)
			}
		}
	}
	return l - min(l, u), true
}
