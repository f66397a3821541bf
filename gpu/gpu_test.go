package gpu

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// These tests need no GPU and no CUDA (CI has neither).

func TestOpenWithoutGPUFailsCleanly(t *testing.T) {
	devs, err := Open(context.Background())
	if err == nil {
		t.Skipf("a GPU is present here (%d devices): nothing to check", len(devs))
	}
	if !errors.Is(err, ErrNoGPU) {
		t.Fatalf("Open: %v, want an error wrapping ErrNoGPU", err)
	}
	if len(strings.TrimSpace(strings.TrimPrefix(err.Error(), ErrNoGPU.Error()))) < 3 {
		t.Fatalf("Open: %q gives no reason", err)
	}
	// A second call returns the same answer and still does not panic.
	if _, err2 := Open(context.Background()); err2 == nil || err2.Error() != err.Error() {
		t.Fatalf("second Open: %v, want %v", err2, err)
	}
	t.Logf("Open: %v", err)
}

// TestOpenFirst: the first GPU a problem lists, device 0 when it lists none, an index past the
// devices refused; without a GPU, Open's error.
func TestOpenFirst(t *testing.T) {
	devs, err := Open(context.Background())
	if err != nil {
		if _, ferr := OpenFirst(context.Background(), []int{0}); !errors.Is(ferr, ErrNoGPU) {
			t.Fatalf("OpenFirst without a GPU: %v, want ErrNoGPU", ferr)
		}
		return
	}
	last := len(devs) - 1
	for _, c := range []struct {
		gpus []int
		want *Device
	}{{nil, devs[0]}, {[]int{last, 0}, devs[last]}} {
		if d, err := OpenFirst(context.Background(), c.gpus); err != nil || d != c.want {
			t.Errorf("OpenFirst(%v) = %v, %v; want %v", c.gpus, d, err, c.want)
		}
	}
	for _, k := range []int{-1, len(devs)} {
		if d, err := OpenFirst(context.Background(), []int{k}); err == nil {
			t.Errorf("OpenFirst([%d]) = %v with %d devices, want an error", k, d, len(devs))
		}
	}
}

func TestOpenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Open(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Open(cancelled): %v", err)
	}
}

func TestDiscoverReportsEveryAttempt(t *testing.T) {
	rep := Discover()
	if !rep.Driver.Found() {
		if rep.Driver.Err == "" || len(rep.Driver.Tried) == 0 {
			t.Fatalf("driver not found but the report says nothing: %+v", rep.Driver)
		}
		for _, a := range rep.Driver.Tried {
			if a.Err == "" {
				t.Fatalf("attempt %s has no error but the driver was not found", a.Path)
			}
		}
	}
	if !rep.NVRTC.Found() && rep.NVRTC.Err == "" {
		t.Fatalf("NVRTC not found but no reason: %+v", rep.NVRTC)
	}
	if _, err := NVRTCVersion(); err != nil && rep.NVRTC.Found() {
		t.Fatalf("NVRTC found at %s but version fails: %v", rep.NVRTC.Path, err)
	} else if err != nil && !errors.Is(err, ErrNoNVRTC) {
		t.Fatalf("NVRTCVersion: %v, want ErrNoNVRTC", err)
	}
}

func TestLoadFirstMissing(t *testing.T) {
	var fn uintptr
	dir := t.TempDir()
	bogus := filepath.Join(dir, "libcuda.so.1")
	os.WriteFile(bogus, []byte("not an ELF file"), 0o644)
	h, rep := loadFirst("libcuda", []string{filepath.Join(dir, "absent.so"), bogus, "libsubmatch-does-not-exist.so.9"},
		[]symbol{{names: []string{"cuInit"}, dst: &fn}})
	if h != 0 || rep.Found() {
		t.Fatalf("loaded something: %+v", rep)
	}
	if len(rep.Tried) != 3 || rep.Err == "" {
		t.Fatalf("report: %+v", rep)
	}
	if rep.Tried[0].Err != "not present" || rep.Tried[1].Err == "" || rep.Tried[2].Err == "" {
		t.Fatalf("attempts: %+v", rep.Tried)
	}
	err := errNoDriver(rep)
	for _, a := range rep.Tried[1:] {
		if !strings.Contains(err.Error(), a.Path) {
			t.Fatalf("reason %q does not name %s", err, a.Path)
		}
	}
	if !strings.Contains(err.Error(), "1 other paths not present") {
		t.Fatalf("reason %q does not count the absent paths", err)
	}
}

func TestDriverCandidates(t *testing.T) {
	c := driverCandidates(func(string) string { return "" })
	if c[0] != "libcuda.so.1" || len(c) < 4 {
		t.Fatalf("candidates: %v", c)
	}
	c = driverCandidates(func(k string) string {
		if k == EnvLibCUDA {
			return "/x/libcuda.so.1"
		}
		return ""
	})
	if len(c) != 1 || c[0] != "/x/libcuda.so.1" {
		t.Fatalf("override: %v", c)
	}
}

func TestNVRTCSearchOrder(t *testing.T) {
	env := map[string]string{"CUDA_HOME": "/opt/cuda", "HOME": "/home/u"}
	glob := func(p string) ([]string, error) {
		switch p {
		case "/usr/local/cuda-*":
			return []string{"/usr/local/cuda-12.4", "/usr/local/cuda-13.0"}, nil
		}
		if strings.Contains(p, "python") || strings.HasPrefix(p, "/home/") || strings.HasPrefix(p, "/venv") {
			t.Errorf("searched %s: Python environments and home folders are not install locations", p)
		}
		return nil, nil
	}
	env["VIRTUAL_ENV"] = "/venv"
	dirs := nvrtcDirs(func(k string) string { return env[k] }, glob)
	for _, d := range dirs {
		if strings.Contains(d, "python") || strings.HasPrefix(d, "/home/") || strings.HasPrefix(d, "/venv") {
			t.Errorf("NVRTC search lists %s", d)
		}
	}
	want := []string{"/opt/cuda/lib64", "/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
		"/usr/local/cuda-13.0/lib64", "/usr/local/cuda-12.4/lib64", "/usr/lib/x86_64-linux-gnu"}
	last := -1
	for _, w := range want {
		i := indexOf(dirs, w)
		if i < 0 || i <= last {
			t.Fatalf("%s missing or out of order in %v", w, dirs)
		}
		last = i
	}
}

func indexOf(s []string, x string) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return -1
}

func TestLibsInOrder(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"libnvrtc.so.13.0.88", "libnvrtc.so.13", "libnvrtc.so", "libnvrtc-builtins.so.13.0", "libnvrtc.alt.so.13", "libnvrtc_static.a"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	got := libsIn(dir, "libnvrtc", filepath.Glob)
	want := []string{"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.13.0.88"}
	if len(got) != len(want) {
		t.Fatalf("libsIn: %v", got)
	}
	for i := range want {
		if filepath.Base(got[i]) != want[i] {
			t.Fatalf("libsIn: %v, want %v", got, want)
		}
	}
	if b := libsIn(dir, "libnvrtc-builtins", filepath.Glob); len(b) != 1 {
		t.Fatalf("builtins: %v", b)
	}
}

func TestCacheKey(t *testing.T) {
	k := CacheKey("src", []string{"-O3"}, "sm_90", "13.0")
	// Stable across runs, machines and releases of this package (bump the version field to change).
	const golden = "d54aeba68ee875c1a0347d0a8eba364c9ae3d1d326bb4724f4f714ae0f317ef1"
	if k != golden {
		t.Errorf("CacheKey changed: %s, golden %s", k, golden)
	}
	if k != CacheKey("src", []string{"-O3"}, "sm_90", "13.0") {
		t.Fatal("CacheKey is not deterministic")
	}
	others := []string{
		CacheKey("src ", []string{"-O3"}, "sm_90", "13.0"),
		CacheKey("src", []string{"-O2"}, "sm_90", "13.0"),
		CacheKey("src", nil, "sm_90", "13.0"),
		CacheKey("src", []string{"-O3"}, "sm_80", "13.0"),
		CacheKey("src", []string{"-O3"}, "sm_90", "12.8"),
		CacheKey("src", []string{"-O", "3"}, "sm_90", "13.0"),
		CacheKey("src-O3", nil, "sm_90", "13.0"),
	}
	seen := map[string]bool{k: true}
	for i, o := range others {
		if seen[o] {
			t.Fatalf("variant %d collides", i)
		}
		seen[o] = true
	}
}

func TestCacheStoreLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	if cacheLoad(dir, "k") != nil {
		t.Fatal("empty cache returned something")
	}
	cacheStore(dir, "k", []byte("image"))
	if got := string(cacheLoad(dir, "k")); got != "image" {
		t.Fatalf("cacheLoad: %q", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("temporary files left behind: %v", ents)
	}
	cacheStore("", "k", []byte("x")) // off: a no-op
	t.Setenv(EnvKernelCache, "off")
	if CacheDir() != "" {
		t.Fatal("cache not off")
	}
	t.Setenv(EnvKernelCache, dir)
	if CacheDir() != dir {
		t.Fatal("override ignored")
	}
}

func TestBudget(t *testing.T) {
	b := NewBudget(1000)
	if err := b.Reserve(600); err != nil {
		t.Fatal(err)
	}
	err := b.Reserve(500)
	if !errors.Is(err, ErrBudget) {
		t.Fatalf("over budget: %v", err)
	}
	var be *BudgetError
	if !errors.As(err, &be) || be.Requested != 500 || be.Available != 400 || be.Limit != 1000 || be.CUDA != nil {
		t.Fatalf("BudgetError: %+v", be)
	}
	for _, s := range []string{"500 B", "400 B", "1000 B"} {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("%q does not say %s", err, s)
		}
	}
	if b.Used() != 600 || b.Available() != 400 {
		t.Fatalf("a refused reservation changed the budget: %v", b)
	}
	if err := b.Reserve(400); err != nil {
		t.Fatal(err)
	}
	if b.Available() != 0 || b.Peak() != 1000 {
		t.Fatal(b)
	}
	b.Release(1000)
	if b.Used() != 0 || b.Peak() != 1000 {
		t.Fatal(b)
	}
	if got := b.Lower(2000); got != 1000 {
		t.Fatalf("Lower raised the limit to %d", got)
	}
	b.Reserve(800)
	if got := b.Lower(500); got != 500 || b.Available() != 0 {
		t.Fatalf("Lower(500): %d, available %d", got, b.Available())
	}
	b.Release(800)
	if b.Available() != 500 {
		t.Fatal(b)
	}
	if err := b.Reserve(0); err != nil {
		t.Fatal(err)
	}
	b.Release(1 << 40) // more than reserved: clamps
	if b.Used() != 0 {
		t.Fatal(b)
	}
	cuda := &CUDAError{Call: "cuMemAlloc_v2", Code: 2, Name: "CUDA_ERROR_OUT_OF_MEMORY"}
	e := &BudgetError{Device: 0, Requested: 1 << 30, Limit: 1 << 30, Available: 1 << 30, CUDA: cuda}
	var ce *CUDAError
	if !errors.Is(e, ErrBudget) || !errors.As(e, &ce) || !strings.Contains(e.Error(), "CUDA_ERROR_OUT_OF_MEMORY") {
		t.Fatalf("CUDA OOM as budget error: %v", e)
	}
}

func TestBudgetConcurrent(t *testing.T) {
	b := NewBudget(1 << 20)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				if b.Reserve(1024) == nil {
					mu.Lock()
					ok++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if ok != 1024 || b.Used() != 1<<20 {
		t.Fatalf("%d reservations granted, %d bytes used", ok, b.Used())
	}
}

func TestDefaultLimit(t *testing.T) {
	const gib = 1 << 30
	cases := []struct{ free, total, want uint64 }{
		{80 * gib, 80 * gib, 76 * gib},        // 5% of 80 GiB = 4 GiB margin
		{60 * gib, 80 * gib, 56 * gib},        // margin from total, not free
		{4 * gib, 4 * gib, 4*gib - 512<<20},   // 5% < 512 MiB: the floor
		{256 << 20, 8 * gib, 0},               // less free than the margin
		{3 * gib, 141 * gib, 3 * gib / 4 * 3}, // a GPU others fill: a quarter of free, not 7 GiB
		{2 * gib, 141 * gib, 2*gib - 512<<20}, // ... and never under the floor
		{0, 0, 0},
	}
	for _, c := range cases {
		if got := DefaultLimit(c.free, c.total); got != c.want {
			t.Errorf("DefaultLimit(%d, %d) = %d, want %d", c.free, c.total, got, c.want)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	if FormatBytes(1023) != "1023 B" || FormatBytes(1536) != "1.5 KiB" || FormatBytes(80<<30) != "80.0 GiB" {
		t.Errorf("FormatBytes: %s %s %s", FormatBytes(1023), FormatBytes(1536), FormatBytes(80<<30))
	}
}

func TestEmbeddedKernels(t *testing.T) {
	files := KernelFiles()
	if indexOf(files, "triangles.cu") < 0 {
		t.Fatalf("embedded kernels: %v", files)
	}
	for _, f := range files {
		src, err := KernelSource(f)
		if err != nil || len(src) == 0 {
			t.Fatalf("%s: %v", f, err)
		}
		if !strings.Contains(src, `extern "C" __global__`) {
			t.Errorf("%s has no extern \"C\" kernel", f)
		}
	}
	src, _ := KernelSource("triangles.cu")
	if !strings.Contains(src, "count_triangles(") {
		t.Fatal("triangles.cu lacks count_triangles")
	}
	if _, err := KernelSource("nope.cu"); err == nil {
		t.Fatal("missing kernel found")
	}
}

// TestCompileKernels compiles every embedded kernel with NVRTC (no GPU needed) where NVRTC is
// present; it is skipped, visibly, elsewhere.
func TestCompileKernels(t *testing.T) {
	ver, err := NVRTCVersion()
	if err != nil {
		t.Skipf("NVRTC absent: %v", err)
	}
	arch := os.Getenv("SUBMATCH_TEST_ARCH")
	if arch == "" {
		arch = "sm_90"
	}
	for _, f := range KernelFiles() {
		src, _ := KernelSource(f)
		img, err := CompileSource(src, f, arch, nil)
		if err != nil {
			t.Errorf("%s for %s with NVRTC %s: %v", f, arch, ver, err)
			continue
		}
		t.Logf("%s: %d-byte %s image (NVRTC %s)", f, len(img), arch, ver)
	}
	_, err = CompileSource("extern \"C\" __global__ void k() { undeclared_thing(); }", "broken.cu", arch, nil)
	var ne *NVRTCError
	if !errors.As(err, &ne) || !strings.Contains(ne.Log, "undeclared_thing") || !strings.Contains(err.Error(), "broken.cu") {
		t.Fatalf("compile error: %v", err)
	}
}

func TestKernelArgs(t *testing.T) {
	vals, err := kernelArgs([]any{uint32(7), int32(-1), uint64(1 << 40), float32(1.5), DevicePtr(0xdead), true, int8(-2)})
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{7, 0xffffffff, 1 << 40, 0x3fc00000, 0xdead, 1, 0xfe}
	for i := range want {
		if vals[i] != want[i] {
			t.Fatalf("arg %d: %#x, want %#x", i, vals[i], want[i])
		}
	}
	if _, err := kernelArgs([]any{7}); err == nil {
		t.Fatal("plain int accepted")
	}
	if _, err := kernelArgs([]any{(*Buffer)(nil)}); err == nil {
		t.Fatal("nil buffer accepted")
	}
}

func TestCPUTriangles(t *testing.T) {
	k := func(n int) ([]uint64, []uint32) {
		var e [][2]uint32
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				e = append(e, [2]uint32{uint32(i), uint32(j)})
			}
		}
		o, nb, _ := BuildCSR(n, e)
		return o, nb
	}
	for n, want := range map[int]uint64{0: 0, 1: 0, 3: 1, 4: 4, 5: 10, 10: 120} {
		o, nb := k(n)
		if err := CheckCSR(o, nb); err != nil {
			t.Fatal(err)
		}
		if got := CountTrianglesCPU(o, nb); got != want {
			t.Errorf("K%d: %d triangles, want %d", n, got, want)
		}
	}
	for seed := uint64(1); seed <= 5; seed++ {
		o, nb := randomGraph(seed, 40, 300)
		if err := CheckCSR(o, nb); err != nil {
			t.Fatal(err)
		}
		if got, want := CountTrianglesCPU(o, nb), bruteTriangles(o, nb); got != want {
			t.Errorf("random seed %d: %d, brute force %d", seed, got, want)
		}
	}
}

func TestWikiVoteCPU(t *testing.T) {
	o, nb := loadWikiVote(t)
	if got := CountTrianglesCPU(o, nb); got != 608389 {
		t.Fatalf("wiki-Vote: %d triangles, want 608,389", got)
	}
}

func TestBuildAndCheckCSR(t *testing.T) {
	o, nb, err := BuildCSR(4, [][2]uint32{{0, 1}, {1, 0}, {1, 2}, {2, 2}, {3, 1}})
	if err != nil {
		t.Fatal(err)
	}
	wantO := []uint64{0, 1, 4, 5, 6}
	wantN := []uint32{1, 0, 2, 3, 1, 1}
	for i := range wantO {
		if o[i] != wantO[i] {
			t.Fatalf("offsets %v", o)
		}
	}
	for i := range wantN {
		if nb[i] != wantN[i] {
			t.Fatalf("neighbours %v", nb)
		}
	}
	if _, _, err := BuildCSR(2, [][2]uint32{{0, 5}}); err == nil {
		t.Fatal("out-of-range edge accepted")
	}
	bad := []struct {
		o  []uint64
		nb []uint32
	}{
		{nil, nil},
		{[]uint64{0, 2}, []uint32{1}},
		{[]uint64{0, 1, 2}, []uint32{1, 5}},
		{[]uint64{0, 1, 2}, []uint32{0, 0}},
		{[]uint64{0, 2, 2, 2}, []uint32{2, 1}},
		{[]uint64{0, 2, 1, 2}, []uint32{1, 2}},
	}
	for i, c := range bad {
		if err := CheckCSR(c.o, c.nb); err == nil {
			t.Errorf("bad CSR %d accepted", i)
		}
	}
	sorted := SortAdjacency([]uint64{0, 3, 3}, []uint32{2, 0, 1})
	if sorted[0] != 0 || sorted[1] != 1 || sorted[2] != 2 {
		t.Fatalf("SortAdjacency: %v", sorted)
	}
}

func TestMappedPath(t *testing.T) {
	if _, err := os.Stat("/proc/self/maps"); err != nil {
		t.Skip("no /proc/self/maps")
	}
	// The C library is mapped into every dynamically linked process; a static test binary has none.
	if p := mappedPath("libc.so.6"); p != "" && !strings.HasPrefix(filepath.Base(p), "libc.so") {
		t.Fatalf("mappedPath(libc.so.6) = %q", p)
	}
	if p := mappedPath("libsubmatch-none.so.1"); p != "" {
		t.Fatalf("found %q", p)
	}
}

// emulateEdgeKernel runs count_triangles_edge's index logic (chunks, binary search for the first
// vertex, walking across list ends) on the host, lanes folded into one loop.
func emulateEdgeKernel(offsets []uint64, nbrs []uint32, nwarps uint64) uint64 {
	n := uint64(len(offsets) - 1)
	entries := offsets[n]
	chunks := (entries + edgeChunk - 1) / edgeChunk
	var total uint64
	for w := uint64(0); w < nwarps; w++ {
		for c := w; c < chunks; c += nwarps {
			e0 := c * edgeChunk
			e1 := min(e0+edgeChunk, entries)
			lo, hi := uint64(0), n-1
			for lo < hi {
				mid := lo + (hi-lo+1)/2
				if offsets[mid] <= e0 {
					lo = mid
				} else {
					hi = mid - 1
				}
			}
			u, uend := lo, offsets[lo+1]
			for e := e0; e < e1; e++ {
				for uend <= e {
					u++
					uend = offsets[u+1]
				}
				v := nbrs[e]
				if uint64(v) <= u {
					continue
				}
				a := nbrs[e+1 : uend]
				nv := nbrs[offsets[v]:offsets[v+1]]
				j := 0
				for j < len(nv) && nv[j] <= v {
					j++
				}
				total += intersectCount(a, nv[j:])
			}
		}
	}
	return total
}

func TestEdgeKernelIndexing(t *testing.T) {
	o, nb, _ := BuildCSR(9, [][2]uint32{{1, 2}, {2, 3}, {1, 3}, {3, 5}, {5, 6}, {3, 6}, {6, 7}})
	if got := emulateEdgeKernel(o, nb, 3); got != 2 {
		t.Fatalf("sparse ids: %d", got)
	}
	for seed := uint64(1); seed <= 4; seed++ {
		o, nb := randomGraph(seed, 300, 3000+int(seed)*500)
		want := CountTrianglesCPU(o, nb)
		for _, w := range []uint64{1, 7, 1000} {
			if got := emulateEdgeKernel(o, nb, w); got != want {
				t.Fatalf("seed %d, %d warps: %d, want %d", seed, w, got, want)
			}
		}
	}
	o, nb = skewedGraph(3, 10, 20000)
	if got, want := emulateEdgeKernel(o, nb, 33), CountTrianglesCPU(o, nb); got != want {
		t.Fatalf("skewed: %d, want %d", got, want)
	}
}

func TestRegisterKernel(t *testing.T) {
	const src = `extern "C" __global__ void registered_test_kernel() {}`
	RegisterKernel("registered_test.cu", src)
	t.Cleanup(func() { // so that -count=N can register it again
		registered.Lock()
		delete(registered.src, "registered_test.cu")
		registered.Unlock()
	})
	if got, err := KernelSource("registered_test.cu"); err != nil || got != src {
		t.Fatalf("registered kernel: %q, %v", got, err)
	}
	if files := KernelFiles(); indexOf(files, "registered_test.cu") < 0 || indexOf(files, "triangles.cu") < 0 {
		t.Fatalf("kernel files: %v", files)
	}
	for _, file := range []string{"registered_test.cu", "triangles.cu"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("registering %s again did not panic", file)
				}
			}()
			RegisterKernel(file, src)
		}()
	}
}

// RegisterKernelFunc builds the source when it is first asked for, not when it is registered.
func TestRegisterKernelFunc(t *testing.T) {
	const src = `extern "C" __global__ void registered_func_test_kernel() {}`
	calls := 0
	RegisterKernelFunc("registered_func_test.cu", func() string { calls++; return src })
	t.Cleanup(func() {
		registered.Lock()
		delete(registered.src, "registered_func_test.cu")
		registered.Unlock()
	})
	if calls != 0 {
		t.Fatalf("the source was built at registration (%d calls)", calls)
	}
	if indexOf(KernelFiles(), "registered_func_test.cu") < 0 || calls != 0 {
		t.Fatalf("kernel files: %v (%d calls)", KernelFiles(), calls)
	}
	if got, err := KernelSource("registered_func_test.cu"); err != nil || got != src || calls != 1 {
		t.Fatalf("registered kernel: %q, %v (%d calls)", got, err, calls)
	}
}

// A failed dlopen always carries a reason: the report counts an attempt without one as a
// success. dlerror is per OS thread, so goroutines that move between threads must not lose it.
func TestDlopenFailureHasReason(t *testing.T) {
	if !dlSupported {
		t.Skip("no dynamic loading here")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*50)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if _, err := dlopen("libsubmatch-does-not-exist.so.9"); err == nil || err.Error() == "" {
					errs <- fmt.Errorf("dlopen of a missing library: %v (%q)", err, fmt.Sprint(err))
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestLocalReserve(t *testing.T) {
	const sms, threads = 132, 2048 // an H200
	cases := []struct {
		perThread int
		want      uint64
	}{
		{0, 0},
		{1024, 0}, // within the context's default stack
		{1025, 256 * sms * threads},
		{4000, 3072 * sms * threads}, // 4096 - 1024 a thread
	}
	for _, c := range cases {
		if got := LocalReserve(c.perThread, sms, threads); got != c.want {
			t.Errorf("LocalReserve(%d) = %d, want %d", c.perThread, got, c.want)
		}
	}
	// The budget's default comes down by the largest reservation so far, and a lower limit (a
	// --gpu-memory) stays.
	d := &Device{info: Info{SMs: sms, MaxThreadsPerSM: threads}, defaultLimit: 10 << 30}
	d.budget = &Budget{limit: d.defaultLimit}
	d.accountLocal(2048)
	want := uint64(10<<30) - 1024*sms*threads
	if d.budget.Limit() != want {
		t.Fatalf("after a 2 KiB kernel the limit is %d, want %d", d.budget.Limit(), want)
	}
	d.accountLocal(1536) // smaller: no change
	if d.budget.Limit() != want {
		t.Fatalf("a smaller kernel changed the limit to %d", d.budget.Limit())
	}
	d.budget.Lower(1 << 20)
	d.accountLocal(3072)
	if d.budget.Limit() != 1<<20 {
		t.Fatalf("a --gpu-memory under the reservation moved to %d", d.budget.Limit())
	}
}
