package gpu

// Whether a kernel is compiled on this machine, asked before CUDA starts (--engine auto decides
// whether to start it at all) and after. An image's cache key holds the device's architecture and
// NVRTC's version, which only Open learns; so each Open writes them to a small index beside the
// cache (targets/<host name>: one "arch nvrtc-version" line per kind of device it started), and
// before Open the cache is looked up for the targets the index names for this host.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// KernelState is what the kernel cache says of a kernel on this machine.
type KernelState int

const (
	// KernelUnknown: the cache cannot say (no device was opened on this host with this cache
	// yet, no GPU or no NVRTC, or the kernel is not registered). Callers treat it as compiled:
	// it costs what it did before anyone asked.
	KernelUnknown KernelState = iota
	// KernelCached: an image is loaded, or in the disk cache, for every target of this host.
	KernelCached
	// KernelNotCached: some target of this host has no image: the next use compiles it (NVRTC,
	// seconds for the engines' kernels).
	KernelNotCached
)

// String names the state: "unknown", "cached" or "not cached".
func (s KernelState) String() string {
	switch s {
	case KernelCached:
		return "cached"
	case KernelNotCached:
		return "not cached"
	}
	return "unknown"
}

// Target is what a cached image is compiled for: the device architecture ("sm_90") and NVRTC's
// version ("12.8").
type Target struct{ Arch, NVRTC string }

// targetsFolder is the index's folder inside the cache folder.
const targetsFolder = "targets"

// opened holds the devices of the process's Open once it has finished (empty when it failed), so
// that KernelCacheState never waits behind an Open in progress (it reads the index meanwhile).
var opened atomic.Pointer[[]*Device]

// KernelCacheState reports whether the registered kernel file (RegisterKernel), compiled without
// options as the engines do, is compiled for the GPUs of this machine. It never starts CUDA or
// NVRTC and costs a few file lookups. Once Open has found the devices the answer is exact (their
// architectures and NVRTC's version; a module loaded in this process counts, and a compile in
// progress does not). Before, it rests on the targets the last Open on this host recorded beside
// the cache (CacheDir); without that record it is KernelUnknown, except that an absent, empty or
// disabled cache is KernelNotCached (nothing is compiled yet). A stale record (another GPU
// or NVRTC since) misleads only until the next Open rewrites it.
func KernelCacheState(file string) KernelState {
	src, err := KernelSource(file)
	if err != nil {
		return KernelUnknown
	}
	key := func(arch, nvrtc string) string {
		k := [3]string{file, arch, nvrtc}
		if v, ok := keyMemo.Load(k); ok {
			return v.(string)
		}
		v := CacheKey(src, nil, arch, nvrtc)
		keyMemo.Store(k, v)
		return v
	}
	if devs := opened.Load(); devs != nil {
		return devicesState(*devs, key)
	}
	return cacheState(CacheDir(), thisHost(), key)
}

// keyMemo holds the cache keys of registered kernels by file, architecture and NVRTC version
// (a registered file's source never changes), so that asking again costs no hashing.
var keyMemo sync.Map

// devicesState is the state on the opened devices devs of the kernel whose cache key for an
// architecture and NVRTC version is key's.
func devicesState(devs []*Device, key func(arch, nvrtc string) string) KernelState {
	if len(devs) == 0 {
		return KernelUnknown
	}
	state := KernelCached
	for _, d := range devs {
		if d.info.NVRTCVersion == "" {
			return KernelUnknown
		}
		if !d.holds(key(d.info.Arch, d.info.NVRTCVersion)) {
			state = KernelNotCached
		}
	}
	return state
}

// holds reports whether the module of key is loaded on d or in the disk cache (without reading
// it: a corrupt entry counts as present here, and is compiled again when loaded).
func (d *Device) holds(key string) bool {
	d.modMu.Lock()
	loaded := d.modules[key] != nil
	d.modMu.Unlock()
	return loaded || cacheHas(CacheDir(), key)
}

// cacheHas reports whether the disk cache in dir has a non-empty image under key.
func cacheHas(dir, key string) bool {
	if dir == "" {
		return false
	}
	st, err := os.Stat(filepath.Join(dir, key+".bin"))
	return err == nil && st.Mode().IsRegular() && st.Size() > 0
}

// cacheState is the state in the disk cache dir, for the targets recorded there for host, of the
// kernel whose cache key for an architecture and NVRTC version is key's.
func cacheState(dir, host string, key func(arch, nvrtc string) string) KernelState {
	if dir == "" {
		return KernelNotCached // no cache: nothing outlives a process, and none is open here
	}
	targets := readTargets(dir, host)
	if len(targets) == 0 {
		if empty(dir) {
			return KernelNotCached // a fresh machine
		}
		return KernelUnknown // a cache without this host's record (an older binary, a shared home)
	}
	for _, t := range targets {
		if !cacheHas(dir, key(t.Arch, t.NVRTC)) {
			return KernelNotCached
		}
	}
	return KernelCached
}

// empty reports whether the folder dir is absent, unreadable or empty (reading one name of it).
func empty(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return true
	}
	defer f.Close()
	names, _ := f.Readdirnames(1)
	return len(names) == 0
}

// thisHost is hostName, asked once per process.
var thisHost = sync.OnceValue(hostName)

// hostName names this host in the index ("localhost" when the system does not say), with no
// path separators.
func hostName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "localhost"
	}
	return strings.NewReplacer("/", "_", "\\", "_", "..", "_").Replace(h)
}

// readTargets returns the targets recorded in dir for host (nil when none).
func readTargets(dir, host string) []Target {
	b, err := os.ReadFile(filepath.Join(dir, targetsFolder, host))
	if err != nil {
		return nil
	}
	var out []Target
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			out = append(out, Target{Arch: f[0], NVRTC: f[1]})
		}
	}
	return out
}

// recordTargets writes the targets of the devices an Open started to dir's index for host,
// replacing the previous record, when they differ from it (atomically; errors are ignored:
// the index only spares a start-up, like the cache itself).
func recordTargets(dir, host string, targets []Target) {
	if dir == "" || len(targets) == 0 {
		return
	}
	var lines []string
	for _, t := range targets {
		if t.Arch == "" || t.NVRTC == "" || strings.ContainsAny(t.Arch+t.NVRTC, " \t\n") {
			return
		}
		lines = append(lines, t.Arch+" "+t.NVRTC)
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	var old []string
	for _, t := range readTargets(dir, host) {
		old = append(old, t.Arch+" "+t.NVRTC)
	}
	slices.Sort(old)
	if slices.Equal(old, lines) {
		return
	}
	folder := filepath.Join(dir, targetsFolder)
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return
	}
	f, err := os.CreateTemp(folder, host+".tmp*")
	if err != nil {
		return
	}
	_, werr := f.WriteString(strings.Join(lines, "\n") + "\n")
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(f.Name())
		return
	}
	if err := os.Rename(f.Name(), filepath.Join(folder, host)); err != nil {
		os.Remove(f.Name())
	}
}

// noteOpened publishes the outcome of the process's Open to KernelCacheState and records the
// targets of its devices in the index.
func noteOpened(devs []*Device) {
	list := slices.Clone(devs)
	if list == nil {
		list = []*Device{}
	}
	var targets []Target
	for _, d := range devs {
		if d.info.NVRTCVersion != "" {
			targets = append(targets, Target{Arch: d.info.Arch, NVRTC: d.info.NVRTCVersion})
		}
	}
	if len(targets) == len(devs) {
		recordTargets(CacheDir(), thisHost(), targets)
	}
	opened.Store(&list)
}
