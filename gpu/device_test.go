package gpu

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests below need a GPU; they skip (saying why) where Open finds none.

func testDevice(t *testing.T) *Device {
	t.Helper()
	devs, err := Open(context.Background())
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	return devs[0]
}

// TestOpenTimes: the first Open's phases add up within its total (NVRTC loads beside the
// devices), with a GPU or without; with one, each device knows NVRTC's version (loaded during
// the devices' start, not before).
func TestOpenTimes(t *testing.T) {
	devs, err := Open(context.Background())
	st, ok := OpenTimes()
	if !ok || st.Began.IsZero() {
		t.Fatalf("after Open: %+v, %v", st, ok)
	}
	if sum := st.Discover + st.Init + st.Devices; sum > st.Total || st.Context > st.Devices || st.NVRTC > st.Total {
		t.Fatalf("phases %+v do not fit the total", st)
	}
	t.Logf("open: %+v (err %v)", st, err)
	if err != nil {
		return
	}
	if st.Context <= 0 {
		t.Errorf("a device started without a context time: %+v", st)
	}
	ver, verr := NVRTCVersion()
	for _, d := range devs {
		if verr == nil && d.Info().NVRTCVersion != ver {
			t.Errorf("%s: NVRTC %q, want %q", d, d.Info().NVRTCVersion, ver)
		}
	}
}

func TestGPUInfo(t *testing.T) {
	d := testDevice(t)
	devs, _ := Open(context.Background())
	for _, x := range devs {
		i := x.Info()
		t.Logf("%s: %d SMs, %s total, %s free at open, budget %s, shared/block %d (opt-in %d), L2 %d, driver CUDA %s, NVRTC %s, bus %s",
			x, i.SMs, FormatBytes(i.TotalMem), FormatBytes(i.FreeMem), FormatBytes(i.BudgetLimit),
			i.SharedMemPerBlock, i.SharedMemPerBlockOptin, i.L2CacheBytes, CUDAVersionString(i.DriverVersion), i.NVRTCVersion, i.PCIBusID)
	}
	i := d.Info()
	if i.SMs <= 0 || i.TotalMem == 0 || i.ComputeMajor < 3 || i.WarpSize != 32 || !strings.HasPrefix(i.Arch, "sm_") || i.Name == "" {
		t.Fatalf("implausible info: %+v", i)
	}
	if i.BudgetLimit == 0 || i.BudgetLimit > i.FreeMem {
		t.Fatalf("budget %d with %d free", i.BudgetLimit, i.FreeMem)
	}
	free, total, err := d.MemInfo()
	if err != nil || total != i.TotalMem || free == 0 {
		t.Fatalf("MemInfo: %d %d %v", free, total, err)
	}
}

func TestGPUWorkerThread(t *testing.T) {
	d := testDevice(t)
	var tids sync.Map
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 50; k++ {
				if err := d.Do(func() error { tids.Store(threadID(), true); return nil }); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	n := 0
	tids.Range(func(k, v any) bool { n++; return true })
	if n != 1 {
		t.Fatalf("closures ran on %d OS threads, want 1", n)
	}
	// Nested calls run directly instead of deadlocking; panics come back as errors.
	err := d.Do(func() error {
		_, _, err := d.MemInfo()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = d.Do(func() error { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("panic: %v", err)
	}
	if err := d.Do(func() error { return nil }); err != nil {
		t.Fatalf("worker dead after a panic: %v", err)
	}
}

func TestGPUBuffers(t *testing.T) {
	d := testDevice(t)
	used := d.Budget().Used()
	src := make([]uint32, 1<<20+3)
	for i := range src {
		src[i] = uint32(i*2654435761) ^ 0xa5a5a5a5
	}
	b, err := Upload(d, src)
	if err != nil {
		t.Fatal(err)
	}
	if d.Budget().Used() != used+uint64(len(src))*4 {
		t.Fatalf("budget used %d", d.Budget().Used())
	}
	got, err := Download[uint32](b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range src {
		if got[i] != src[i] {
			t.Fatalf("uint32 round trip differs at %d", i)
		}
	}
	if err := b.Memset32(0xdeadbeef); err != nil {
		t.Fatal(err)
	}
	part := make([]uint32, 5)
	if err := CopyToHost(part, b, 4*100); err != nil || part[4] != 0xdeadbeef {
		t.Fatalf("Memset32: %v %x", err, part)
	}
	if err := CopyToHost(part, b, b.Size()-8); err == nil {
		t.Fatal("copy past the end accepted")
	}
	if err := b.Free(); err != nil {
		t.Fatal(err)
	}
	if err := b.Free(); err == nil {
		t.Fatal("double free accepted")
	}
	if d.Budget().Used() != used {
		t.Fatalf("budget not returned: %d", d.Budget().Used())
	}

	src64 := []uint64{1, 1 << 40, ^uint64(0), 42}
	b64, err := Upload(d, src64)
	if err != nil {
		t.Fatal(err)
	}
	defer b64.Free()
	if err := CopyToDevice(b64, 8, []uint64{7}); err != nil {
		t.Fatal(err)
	}
	out := make([]uint64, 4)
	if err := CopyToHost(out, b64, 0); err != nil || out[0] != 1 || out[1] != 7 || out[2] != ^uint64(0) || out[3] != 42 {
		t.Fatalf("uint64: %v %v", out, err)
	}
	if err := b64.Memset(0); err != nil {
		t.Fatal(err)
	}
	CopyToHost(out, b64, 0)
	if out[0]|out[1]|out[2]|out[3] != 0 {
		t.Fatalf("Memset: %v", out)
	}
}

func withBudget(d *Device, b *Budget, fn func()) {
	old := d.budget
	b.device = d.info.Ordinal
	d.budget = b
	defer func() { d.budget = old }()
	fn()
}

func TestGPUBudgetRefusesBeforeCUDA(t *testing.T) {
	d := testDevice(t)
	withBudget(d, NewBudget(1<<20), func() {
		a, err := d.Alloc(600 << 10)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Free()
		_, err = d.Alloc(600 << 10)
		var be *BudgetError
		if !errors.Is(err, ErrBudget) || !errors.As(err, &be) || be.CUDA != nil {
			t.Fatalf("over budget: %v", err)
		}
		t.Logf("refused: %v", err)
		// A kernel launch that needs more than the budget fails the same way.
		o, nb := randomGraph(3, 100000, 400000)
		_, err = CountTriangles(d, o, nb)
		if !errors.Is(err, ErrBudget) {
			t.Fatalf("CountTriangles over budget: %v", err)
		}
		t.Logf("CountTriangles over budget: %v", err)
	})
}

func TestGPUOutOfMemoryIsBudgetError(t *testing.T) {
	d := testDevice(t)
	withBudget(d, NewBudget(1<<62), func() {
		_, err := d.Alloc(2 * d.info.TotalMem) // twice the device's memory
		var be *BudgetError
		if !errors.Is(err, ErrBudget) || !errors.As(err, &be) || be.CUDA == nil {
			t.Fatalf("CUDA out of memory: %v", err)
		}
		if !strings.Contains(err.Error(), "CUDA_ERROR_OUT_OF_MEMORY") || !strings.Contains(err.Error(), "cuMemAlloc_v2") {
			t.Fatalf("error does not name the CUDA error and call: %v", err)
		}
		t.Logf("CUDA refused: %v", err)
		if d.budget.Used() != 0 {
			t.Fatal("failed allocation kept its reservation")
		}
	})
	// The device still works afterwards.
	if _, _, err := d.MemInfo(); err != nil {
		t.Fatal(err)
	}
}

const iotaSrc = `
extern "C" __global__ void iota(unsigned int* out, unsigned long long n, unsigned int k) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (unsigned int)i * k;
}
`

func TestGPUCompileCacheAndLaunch(t *testing.T) {
	d := testDevice(t)
	t.Setenv(EnvKernelCache, t.TempDir())
	src := iotaSrc + fmt.Sprintf("// %d\n", time.Now().UnixNano()) // fresh for this run
	if c, err := d.Cached(src, "iota.cu", nil); c != nil || err != nil {
		t.Fatalf("Cached on a fresh cache: %v, %v (want nil, nil: no compile)", c, err)
	}
	m, err := d.Compile(src, "iota.cu", nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.CacheHit {
		t.Fatal("cache hit on a fresh cache")
	}
	m2, err := d.Compile(src, "iota.cu", nil)
	if err != nil || m2 != m {
		t.Fatalf("second Compile did not reuse the module: %v", err)
	}
	d.modMu.Lock()
	delete(d.modules, m.Key)
	d.modMu.Unlock()
	m3, err := d.Cached(src, "iota.cu", nil)
	if err != nil || m3 == nil || !m3.CacheHit {
		t.Fatalf("Cached missed the disk cache: %v", err)
	}
	t.Logf("compile %v (cold), load %v; from the disk cache: load %v; %d-byte cubin", m.CompileTime, m.LoadTime, m3.LoadTime, m.ImageBytes)

	f, err := m3.Function("iota")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m3.Function("no_such_kernel"); err == nil || !strings.Contains(err.Error(), "CUDA_ERROR_NOT_FOUND") {
		t.Fatalf("missing kernel: %v", err)
	}
	const n = 1000003
	buf, err := d.Alloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	buf.Memset(0xff) // poison: every element must be written
	el, err := f.LaunchSync(Dim3{X: (n + 255) / 256}, Dim3{X: 256}, 0, buf, uint64(n), uint32(3))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Download[uint32](buf)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range out {
		if v != uint32(i)*3 {
			t.Fatalf("out[%d] = %d", i, v)
		}
	}
	t.Logf("iota over %d elements: %v", n, el)
	// A bad launch is reported, not a crash.
	if err := f.Launch(Dim3{X: 1}, Dim3{X: 4096}, 0, buf, uint64(n), uint32(3)); err == nil {
		t.Fatal("4096-thread block accepted")
	} else {
		t.Logf("bad launch: %v", err)
	}
	if err := d.Synchronize(); err != nil {
		t.Fatal(err)
	}
}

func TestGPUCompileError(t *testing.T) {
	d := testDevice(t)
	_, err := d.Compile("extern \"C\" __global__ void k() { undeclared_thing(); }", "broken.cu", nil)
	var ne *NVRTCError
	if !errors.As(err, &ne) || !strings.Contains(ne.Log, "undeclared_thing") {
		t.Fatalf("compile error: %v", err)
	}
	t.Logf("compile error: %v", err)
}

func checkTriangles(t *testing.T, d *Device, name string, o []uint64, nb []uint32) {
	t.Helper()
	t0 := time.Now()
	want := CountTrianglesCPU(o, nb)
	cpuT := time.Since(t0)
	for _, k := range []TriangleKernel{TrianglesPerEdge, TrianglesPerVertex} {
		if _, _, err := CountTrianglesWith(d, o, nb, k); err != nil { // warm-up: compile, load
			t.Fatalf("%s: %v", name, err)
		}
		got, st, err := CountTrianglesWith(d, o, nb, k)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		record(t, name+" "+k.String(), o, nb, want, got, cpuT, st.Kernel, st.Total)
		if got != want {
			t.Errorf("%s (%s): GPU %d triangles, CPU %d", name, k, got, want)
		}
	}
}

func TestGPUTrianglesSmall(t *testing.T) {
	d := testDevice(t)
	if c, err := CountTriangles(d, []uint64{0}, nil); err != nil || c != 0 {
		t.Fatalf("empty graph: %d %v", c, err)
	}
	if c, err := CountTriangles(d, []uint64{0, 0, 0}, nil); err != nil || c != 0 {
		t.Fatalf("no edges: %d %v", c, err)
	}
	if _, err := CountTriangles(d, []uint64{0, 2, 3, 4}, []uint32{2, 1, 0, 0}); err == nil {
		t.Fatal("unsorted lists accepted")
	}
	for n := 3; n <= 70; n += 67 {
		var e [][2]uint32
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				e = append(e, [2]uint32{uint32(i), uint32(j)})
			}
		}
		o, nb, _ := BuildCSR(n, e)
		checkTriangles(t, d, fmt.Sprintf("K%d", n), o, nb)
	}
	// Isolated vertices at both ends and in the middle (empty lists share offsets).
	o, nb, _ := BuildCSR(9, [][2]uint32{{1, 2}, {2, 3}, {1, 3}, {3, 5}, {5, 6}, {3, 6}, {6, 7}})
	if got, want := bruteForceGPU(t, d, o, nb); got != want || got != 2 {
		t.Fatalf("sparse ids: GPU %d, brute force %d, want 2", got, want)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		o, nb := randomGraph(seed, 60, 500)
		if got, want := bruteForceGPU(t, d, o, nb); got != want {
			t.Fatalf("seed %d: GPU %d, brute force %d", seed, got, want)
		}
	}
}

func bruteForceGPU(t *testing.T, d *Device, o []uint64, nb []uint32) (uint64, uint64) {
	got, err := CountTriangles(d, o, nb)
	if err != nil {
		t.Fatal(err)
	}
	got2, _, err := CountTrianglesWith(d, o, nb, TrianglesPerVertex)
	if err != nil {
		t.Fatal(err)
	}
	if got2 != got {
		t.Fatalf("per-edge %d, per-vertex %d", got, got2)
	}
	return got, bruteTriangles(o, nb)
}

func TestGPUTrianglesWikiVote(t *testing.T) {
	d := testDevice(t)
	o, nb := loadWikiVote(t)
	checkTriangles(t, d, "wiki-Vote", o, nb)
	if c, _ := CountTriangles(d, o, nb); c != 608389 {
		t.Fatalf("wiki-Vote: %d triangles, want 608,389", c)
	}
}

func TestGPUTrianglesRandom(t *testing.T) {
	d := testDevice(t)
	o, nb := randomGraph(42, 1<<17, 4<<20)
	checkTriangles(t, d, "random n=2^17 m=4M", o, nb)
	o, nb = skewedGraph(7, 16, 1<<20)
	checkTriangles(t, d, "rmat scale 16 m=1M", o, nb)
}

// TestGPUCompileOnce: callers compiling the same fresh source at once share one NVRTC run and
// get the same module (the next part of a pbe count, another worker, while the first compiles).
func TestGPUCompileOnce(t *testing.T) {
	d := testDevice(t)
	t.Setenv(EnvKernelCache, t.TempDir())
	src := iotaSrc + fmt.Sprintf("// once %d\n", time.Now().UnixNano())
	before := d.nvrtcRuns.Load()
	const callers = 4
	mods := make([]*Module, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for k := range callers {
		wg.Go(func() { mods[k], errs[k] = d.Compile(src, "iota.cu", nil) })
	}
	wg.Wait()
	for k := range callers {
		if errs[k] != nil || mods[k] != mods[0] {
			t.Fatalf("caller %d: %v, module %p against %p", k, errs[k], mods[k], mods[0])
		}
	}
	if n := d.nvrtcRuns.Load() - before; n != 1 {
		t.Fatalf("%d NVRTC runs for %d callers of one source, want 1", n, callers)
	}
}
