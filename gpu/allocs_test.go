package gpu

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestAllocsLimit: past the limit, Alloc and UploadTo refuse without touching the device (none
// here), with an error that wraps ErrBudget and says what, how much, what is left and the limit.
func TestAllocsLimit(t *testing.T) {
	a := &Allocs{Limit: 1 << 10, Prefix: "eng: "}
	_, err := a.Alloc("table", 2<<10)
	if !errors.Is(err, ErrBudget) {
		t.Fatalf("over the limit: %v, want ErrBudget", err)
	}
	if want := "eng: table: 2.0 KiB wanted, 1.0 KiB of --gpu-memory 1.0 KiB left: "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q, want it to start %q", err, want)
	}
	if _, err := UploadTo(a, "words", make([]uint64, 129)); !errors.Is(err, ErrBudget) || !strings.HasPrefix(err.Error(), "eng: words: ") {
		t.Errorf("upload over the limit: %v", err)
	}
	a.Prefix = ""
	if _, err := a.Alloc("", 2<<10); !errors.Is(err, ErrBudget) || !strings.HasPrefix(err.Error(), "2.0 KiB wanted") {
		t.Errorf("unnamed, unprefixed: %v", err)
	}
	if a.Used() != 0 {
		t.Errorf("%d bytes used after refusals", a.Used())
	}
}

// TestGPUAllocs: buffers are counted against the limit and the device budget, Release and
// FreeAll give them back.
func TestGPUAllocs(t *testing.T) {
	d := testDevice(t)
	base := d.Budget().Used()
	a := &Allocs{Device: d, Limit: 1 << 20}
	if got := a.Available(); got != min(d.Budget().Available(), 1<<20) {
		t.Errorf("available %d before allocating", got)
	}
	b1, err := a.Alloc("one", 256<<10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := UploadTo(a, "two", make([]uint32, 64<<10)); err != nil {
		t.Fatal(err)
	}
	if a.Used() != 512<<10 || a.Available() > 512<<10 || d.Budget().Used() != base+512<<10 {
		t.Errorf("used %d, available %d, device %d", a.Used(), a.Available(), d.Budget().Used()-base)
	}
	if _, err := a.Alloc("three", 768<<10); !errors.Is(err, ErrBudget) {
		t.Errorf("past the limit: %v", err)
	}
	a.Release(b1)
	if a.Used() != 256<<10 || d.Budget().Used() != base+256<<10 {
		t.Errorf("after Release: used %d, device %d", a.Used(), d.Budget().Used()-base)
	}
	if _, err := a.Alloc("three", 768<<10); err != nil {
		t.Errorf("within the limit after Release: %v", err)
	}
	a.FreeAll()
	if a.Used() != 0 || d.Budget().Used() != base {
		t.Errorf("after FreeAll: used %d, device %d", a.Used(), d.Budget().Used()-base)
	}
}

// TestPlacement: the names --stmatch-graph-memory takes, and a device placement over the limit
// refused as Alloc refuses (host placements need a device: TestGPUUploadPlaced).
func TestPlacement(t *testing.T) {
	for _, p := range []Placement{OnDevice, OnHost, OnManaged} {
		if q, err := ParsePlacement(p.String()); err != nil || q != p {
			t.Errorf("%v: parsed %v, %v", p, q, err)
		}
	}
	if p, err := ParsePlacement(""); err != nil || p != OnDevice {
		t.Errorf("empty: %v, %v", p, err)
	}
	if _, err := ParsePlacement("disk"); err == nil {
		t.Error("disk accepted")
	}
	a := &Allocs{Limit: 1 << 10, Prefix: "eng: "}
	if _, err := UploadPlaced(a, OnDevice, "graph", make([]uint32, 200), make([]uint32, 200)); !errors.Is(err, ErrBudget) ||
		!strings.HasPrefix(err.Error(), "eng: graph: 1.6 KiB wanted") {
		t.Errorf("over the limit: %v", err)
	}
	if a.Used() != 0 || a.HostUsed() != 0 {
		t.Errorf("used %d, host %d after a refusal", a.Used(), a.HostUsed())
	}
	// An empty upload takes PlacedBytes(0) = 8 bytes: refused by a limit of 7.
	if PlacedBytes(0) != 8 || PlacedBytes(12) != 12 {
		t.Errorf("PlacedBytes(0) %d, PlacedBytes(12) %d", PlacedBytes(0), PlacedBytes(12))
	}
	a = &Allocs{Limit: 7}
	if _, err := UploadPlaced(a, OnDevice, "none", []uint32(nil)); !errors.Is(err, ErrBudget) || !strings.HasPrefix(err.Error(), "none: 8 B wanted") {
		t.Errorf("empty upload over a limit of 7: %v", err)
	}
}

// TestGPUUploadPlaced: each placement holds the parts in order at an address a kernel reads
// (copied back through a device buffer); host placements take nothing from the limit, and
// FreeAll releases them.
func TestGPUUploadPlaced(t *testing.T) {
	d := testDevice(t)
	mod, err := d.Compile(`extern "C" __global__ void cp(const unsigned *src, unsigned *dst, unsigned long long n) {
	for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) dst[i] = src[i];
}`, "placed_test.cu", nil)
	if err != nil {
		t.Fatal(err)
	}
	fn, err := mod.Function("cp")
	if err != nil {
		t.Fatal(err)
	}
	parts := [][]uint32{{1, 2, 3}, nil, {4, 5}}
	for _, place := range []Placement{OnDevice, OnHost, OnManaged} {
		a := &Allocs{Device: d, Limit: 1 << 20}
		src, err := UploadPlaced(a, place, "parts", parts...)
		if err != nil {
			t.Fatalf("%v: %v", place, err)
		}
		if onHost := place != OnDevice; onHost != (a.HostUsed() > 0) || onHost == (a.Used() > 0) {
			t.Errorf("%v: device %d bytes, host %d", place, a.Used(), a.HostUsed())
		}
		dst, err := a.Alloc("out", 5*4)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fn.LaunchSync(Dim3{X: 1}, Dim3{X: 32}, 0, src, dst, uint64(5)); err != nil {
			t.Fatalf("%v: %v", place, err)
		}
		got, err := Download[uint32](dst)
		if err != nil {
			t.Fatal(err)
		}
		if want := []uint32{1, 2, 3, 4, 5}; !slices.Equal(got, want) {
			t.Errorf("%v: read %v, want %v", place, got, want)
		}
		a.FreeAll()
		if a.Used() != 0 || a.HostUsed() != 0 {
			t.Errorf("%v: after FreeAll %d, %d", place, a.Used(), a.HostUsed())
		}
	}
}
