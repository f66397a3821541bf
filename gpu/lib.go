package gpu

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Attempt is one path that library discovery tried, with the dlopen error when it failed.
type Attempt struct {
	Path string `json:"path"`
	Err  string `json:"error,omitempty"`
}

// LibraryReport says where one library was found, or why it was not.
type LibraryReport struct {
	Name  string    `json:"name"`
	Path  string    `json:"path,omitempty"` // empty when not found
	Tried []Attempt `json:"tried,omitempty"`
	Err   string    `json:"error,omitempty"` // why it is unusable (not found, missing symbol...)
}

// Found reports whether the library was loaded.
func (r LibraryReport) Found() bool { return r.Path != "" && r.Err == "" }

// Report is the outcome of library discovery.
type Report struct {
	Driver        LibraryReport `json:"driver"`
	NVRTC         LibraryReport `json:"nvrtc"`
	NVRTCBuiltins LibraryReport `json:"nvrtc_builtins"`
}

// Environment variables that steer discovery.
const (
	EnvLibCUDA = "SUBMATCH_LIBCUDA" // path of libcuda.so.1; when set, the only candidate
	EnvNVRTC   = "SUBMATCH_NVRTC"   // path of libnvrtc.so* or of the folder holding it; tried first
)

// driverDirs are the well-known folders of libcuda.so.1, after the soname (ld.so cache).
var driverDirs = []string{
	"/usr/lib/x86_64-linux-gnu",
	"/usr/lib64",
	"/usr/local/nvidia/lib64",
	"/usr/local/nvidia/lib",
	"/usr/lib/wsl/lib",
	"/usr/lib/aarch64-linux-gnu",
	"/usr/lib",
}

func driverCandidates(getenv func(string) string) []string {
	if p := getenv(EnvLibCUDA); p != "" {
		return []string{p}
	}
	c := []string{"libcuda.so.1"}
	for _, d := range driverDirs {
		c = append(c, filepath.Join(d, "libcuda.so.1"))
	}
	return c
}

// nvrtcDirs lists the folders to search for libnvrtc, in order.
func nvrtcDirs(getenv func(string) string, glob func(string) ([]string, error)) []string {
	var dirs []string
	add := func(d string) {
		if d != "" && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	if h := getenv("CUDA_HOME"); h != "" {
		add(filepath.Join(h, "lib64"))
		add(filepath.Join(h, "targets", "x86_64-linux", "lib"))
		add(filepath.Join(h, "lib"))
	}
	if h := getenv("CUDA_PATH"); h != "" {
		add(filepath.Join(h, "lib64"))
	}
	add("/usr/local/cuda/lib64")
	add("/usr/local/cuda/targets/x86_64-linux/lib")
	add("/usr/local/cuda/targets/sbsa-linux/lib")
	// Versioned toolkits (/usr/local/cuda-13.0), newest first.
	if m, _ := glob("/usr/local/cuda-*"); len(m) > 0 {
		sort.Sort(sort.Reverse(sort.StringSlice(m)))
		for _, d := range m {
			add(filepath.Join(d, "lib64"))
			add(filepath.Join(d, "targets", "x86_64-linux", "lib"))
		}
	}
	// Only the toolkit's and the distribution's install locations are searched: not Python
	// environments ($VIRTUAL_ENV, ~/.local, /opt/*), whose libraries may be of any version and
	// whose folders a search would walk on every machine, GPU or not. An NVRTC from a Python
	// wheel is used through SUBMATCH_NVRTC.
	// Distribution packages (Debian's libnvrtc11.2 and the like).
	add("/usr/lib/x86_64-linux-gnu")
	add("/usr/lib64")
	return dirs
}

// libsIn returns the files in dir matching prefix+".so*", best first: the unversioned name, then
// versions in descending order. Names containing "alt" or "static" are skipped.
func libsIn(dir, prefix string, glob func(string) ([]string, error)) []string {
	m, _ := glob(filepath.Join(dir, prefix+".so*"))
	var out []string
	for _, p := range m {
		b := filepath.Base(p)
		if strings.Contains(b, "alt") || strings.Contains(b, "static") {
			continue
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := filepath.Base(out[i]), filepath.Base(out[j])
		if len(a) != len(b) {
			return len(a) < len(b) // "libnvrtc.so" < "libnvrtc.so.13" < "libnvrtc.so.13.0.88"
		}
		return a > b
	})
	return out
}

// symbol is one entry of a binding table.
type symbol struct {
	names    []string // first that resolves wins
	dst      *uintptr
	optional bool
}

// resolve fills a table from a library handle; the error names the first missing required symbol.
func resolve(h uintptr, table []symbol) error {
	for _, s := range table {
		for _, n := range s.names {
			if p, err := dlsym(h, n); err == nil && p != 0 {
				*s.dst = p
				break
			}
		}
		if *s.dst == 0 && !s.optional {
			return fmt.Errorf("symbol %s not found", strings.Join(s.names, " or "))
		}
	}
	return nil
}

// loadFirst dlopens the first candidate that loads and resolves; the report lists every attempt.
func loadFirst(name string, candidates []string, table []symbol) (uintptr, LibraryReport) {
	rep := LibraryReport{Name: name}
	if !dlSupported {
		rep.Err = "dynamic loading is not supported on " + runtime.GOOS
		return 0, rep
	}
	for _, c := range candidates {
		if strings.ContainsRune(c, '/') {
			if _, err := os.Stat(c); err != nil {
				rep.Tried = append(rep.Tried, Attempt{Path: c, Err: "not present"})
				continue
			}
		}
		h, err := dlopen(c)
		if err != nil {
			rep.Tried = append(rep.Tried, Attempt{Path: c, Err: err.Error()})
			continue
		}
		for _, s := range table {
			*s.dst = 0
		}
		if err := resolve(h, table); err != nil {
			rep.Tried = append(rep.Tried, Attempt{Path: c, Err: err.Error()})
			continue
		}
		rep.Tried = append(rep.Tried, Attempt{Path: c})
		rep.Path = c
		if !strings.ContainsRune(c, '/') {
			rep.Path = c + " (ld.so search path)"
			if p := mappedPath(c); p != "" {
				rep.Path = p + " (as " + c + ", ld.so search path)"
			}
		}
		return h, rep
	}
	rep.Err = fmt.Sprintf("%s not found (%d paths tried)", name, len(rep.Tried))
	return 0, rep
}

var (
	discoverOnce sync.Once
	report       Report
	drv          driverLib
	rtc          nvrtcLib
)

// Discover loads the CUDA driver library and NVRTC (once per process) and reports where each was
// found or why not. It never fails: missing libraries are described in the report.
func Discover() Report {
	discoverDriver()
	nvrtcOnce.Do(func() { loadNVRTC(os.Getenv, filepath.Glob) })
	return report
}

var nvrtcOnce sync.Once

// discoverDriver loads the CUDA driver library only (once per process): opening the GPUs needs
// nothing more until a device is known to exist, so that a machine without a GPU never has
// NVRTC searched for.
func discoverDriver() Report {
	discoverOnce.Do(func() {
		_, report.Driver = loadFirst("libcuda", driverCandidates(os.Getenv), drv.table())
		drv.ok = report.Driver.Found()
	})
	return report
}

func loadNVRTC(getenv func(string) string, glob func(string) ([]string, error)) {
	report.NVRTC = LibraryReport{Name: "libnvrtc"}
	report.NVRTCBuiltins = LibraryReport{Name: "libnvrtc-builtins"}
	var dirs []string
	if p := getenv(EnvNVRTC); p != "" {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			// A file: its folder holds the builtins; try the file itself first.
			if _, ok := tryNVRTCDir(filepath.Dir(p), []string{p}, glob); ok {
				return
			}
		} else {
			dirs = append(dirs, p)
		}
	}
	dirs = append(dirs, nvrtcDirs(getenv, glob)...)
	for _, d := range dirs {
		libs := libsIn(d, "libnvrtc", glob)
		if len(libs) == 0 {
			report.NVRTC.Tried = append(report.NVRTC.Tried, Attempt{Path: filepath.Join(d, "libnvrtc.so*"), Err: "not present"})
			continue
		}
		if _, ok := tryNVRTCDir(d, libs, glob); ok {
			return
		}
	}
	// Last resort: the ld.so search path.
	if _, ok := tryNVRTCDir("", []string{"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"}, glob); ok {
		return
	}
	report.NVRTC.Err = fmt.Sprintf("libnvrtc not found (%d paths tried); set %s to its path", len(report.NVRTC.Tried), EnvNVRTC)
}

// tryNVRTCDir loads libnvrtc-builtins from dir (if any), then the first of libs that works.
func tryNVRTCDir(dir string, libs []string, glob func(string) ([]string, error)) (uintptr, bool) {
	if dir != "" {
		for _, b := range libsIn(dir, "libnvrtc-builtins", glob) {
			if _, err := dlopen(b); err != nil {
				report.NVRTCBuiltins.Tried = append(report.NVRTCBuiltins.Tried, Attempt{Path: b, Err: err.Error()})
				continue
			}
			report.NVRTCBuiltins.Tried = append(report.NVRTCBuiltins.Tried, Attempt{Path: b})
			report.NVRTCBuiltins.Path = b
			report.NVRTCBuiltins.Err = ""
			break
		}
	}
	h, r := loadFirst("libnvrtc", libs, rtc.table())
	report.NVRTC.Tried = append(report.NVRTC.Tried, r.Tried...)
	if h == 0 {
		return 0, false
	}
	report.NVRTC.Path = r.Path
	report.NVRTC.Err = ""
	if report.NVRTCBuiltins.Path == "" {
		report.NVRTCBuiltins.Err = "not found beside libnvrtc; NVRTC will look it up by name when compiling"
	}
	rtc.ok = true
	rtc.path = r.Path
	rtc.bind()
	return h, true
}

// errNoDriver describes why the driver library is unusable, for wrapping in ErrNoGPU: the
// attempts that failed with a real error, and how many candidate paths were not present.
func errNoDriver(r LibraryReport) error {
	var b strings.Builder
	b.WriteString(r.Err)
	absent := 0
	for _, a := range r.Tried {
		switch a.Err {
		case "":
		case "not present":
			absent++
		default:
			fmt.Fprintf(&b, "; %s: %s", a.Path, a.Err)
		}
	}
	if absent > 0 {
		fmt.Fprintf(&b, "; %d other paths not present", absent)
	}
	return errors.New(b.String())
}

// mappedPath returns the file that the dynamic loader mapped for a library opened by soname, read
// from /proc/self/maps ("" when unknown).
func mappedPath(soname string) string {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return ""
	}
	base := soname
	if i := strings.Index(base, ".so"); i >= 0 {
		base = base[:i+3] // "libcuda.so"
	}
	for _, line := range strings.Split(string(b), "\n") {
		i := strings.IndexByte(line, '/')
		if i < 0 {
			continue
		}
		p := line[i:]
		if strings.HasPrefix(filepath.Base(p), base) {
			return p
		}
	}
	return ""
}
