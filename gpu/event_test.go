package gpu

import (
	"testing"
)

// TestGPUEvents: two events around a launch (not waited for at launch) time the kernel; an
// event pair around nothing gives about zero; Close twice is harmless.
func TestGPUEvents(t *testing.T) {
	d := testDevice(t)
	m, err := d.Compile(iotaSrc, "iota.cu", nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.Function("iota")
	if err != nil {
		t.Fatal(err)
	}
	const n = 1 << 24
	buf, err := d.Alloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	start, err := d.NewEvent()
	if err != nil {
		t.Fatal(err)
	}
	defer start.Close()
	stop, err := d.NewEvent()
	if err != nil {
		t.Fatal(err)
	}
	defer stop.Close()
	if err := start.Record(); err != nil {
		t.Fatal(err)
	}
	for range 8 {
		if err := f.Launch(Dim3{X: (n + 255) / 256}, Dim3{X: 256}, 0, buf, uint64(n), uint32(3)); err != nil {
			t.Fatal(err)
		}
	}
	if err := stop.Record(); err != nil {
		t.Fatal(err)
	}
	busy, err := stop.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if busy <= 0 {
		t.Fatalf("8 launches over %d elements: %v of device time", n, busy)
	}
	out, err := Download[uint32](buf)
	if err != nil {
		t.Fatal(err)
	}
	if out[n-1] != uint32(n-1)*3 {
		t.Fatalf("out[%d] = %d: Since returned before the kernels ran", n-1, out[n-1])
	}
	if err := start.Record(); err != nil {
		t.Fatal(err)
	}
	if err := stop.Record(); err != nil {
		t.Fatal(err)
	}
	idle, err := stop.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("8 launches: %v; nothing between two events: %v", busy, idle)
	if idle > busy {
		t.Errorf("nothing between two events took %v, more than the launches' %v", idle, busy)
	}
	start.Close()
	start.Close()
}
