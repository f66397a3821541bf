package gpu

import (
	"errors"
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
