package gpu

import (
	"testing"
	"time"
)

const spinSrc = `
// spin waits until *stop is set, or 10 s of the GPU's clock, and writes how it ended: 1 stopped.
extern "C" __global__ void spin(const volatile unsigned* stop, unsigned* out) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    for (;;) {
        if (*stop) { out[0] = 1; return; }
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > 10000000000ull) { out[0] = 2; return; }
    }
}
`

// TestGPUStopFlag: a kernel spinning on a stop flag ends soon after the host sets it from another
// goroutine while the kernel runs.
func TestGPUStopFlag(t *testing.T) {
	d := testDevice(t)
	f, err := d.NewStopFlag()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Free()
	if f.IsSet() {
		t.Fatal("a new flag is set")
	}
	m, err := d.Compile(spinSrc, "spin.cu", nil)
	if err != nil {
		t.Fatal(err)
	}
	fn, err := m.Function("spin")
	if err != nil {
		t.Fatal(err)
	}
	out, err := d.Alloc(4)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Free()
	out.Memset(0)
	time.AfterFunc(100*time.Millisecond, f.Set)
	start := time.Now()
	if _, err := fn.LaunchSync(Dim3{X: 1}, Dim3{X: 1}, 0, f.Ptr(), out); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	got, err := Download[uint32](out)
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != 1 || took > 5*time.Second || !f.IsSet() {
		t.Fatalf("kernel ended with %d after %v (1: stopped by the flag)", got[0], took)
	}
	t.Logf("stopped %v after the launch (flag set at 100 ms)", took)
	if err := f.Free(); err != nil {
		t.Fatal(err)
	}
}
