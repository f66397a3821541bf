package gpu

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestGPUEvents: two events around a launch (not waited for at launch) time the kernel, the
// second Done once waited for; an event pair around nothing gives about zero; Close twice is
// harmless.
func TestGPUEvents(t *testing.T) {
	d := testDevice(t)
	const n = 1 << 24
	f, buf := iotaKernel(t, d, 4*n)
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
	if done, err := stop.Done(); err != ErrNoEvents && (err != nil || !done) {
		t.Errorf("Done after Since: %v, %v; want true", done, err)
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

// TestGPUCopyToDeviceAsync: copies queued from pinned memory land in order with a kernel queued
// between them (the kernel sees the first copy, the second overwrites its output), and a range
// outside the host buffer is refused.
func TestGPUCopyToDeviceAsync(t *testing.T) {
	d := testDevice(t)
	const n = 1 << 20
	f, buf := iotaKernel(t, d, 8*n)
	hb, err := d.AllocHost(8 * n)
	if err != nil {
		t.Skipf("no mapped pinned memory: %v", err)
	}
	defer hb.Free()
	b := hb.Bytes()
	for i := range b {
		b[i] = 7
	}
	// Words [0, n) from the host, then iota over the first n/2, then the host's bytes again over
	// words [n/4, n/2) from the second half of the staging buffer.
	if err := CopyToDeviceAsync(buf, 0, hb, 0, 4*n); err != nil {
		t.Fatal(err)
	}
	if err := f.Launch(Dim3{X: (n/2 + 255) / 256}, Dim3{X: 256}, 0, buf, uint64(n/2), uint32(1)); err != nil {
		t.Fatal(err)
	}
	if err := CopyToDeviceAsync(buf, 4*(n/4), hb, 4*n, 4*(n/4)); err != nil {
		t.Fatal(err)
	}
	out := make([]uint32, n)
	if err := CopyToHost(out, buf, 0); err != nil {
		t.Fatal(err)
	}
	const sevens = 0x07070707
	if out[1] != 1 || out[n/4-1] != n/4-1 || out[n/4] != sevens || out[n/2-1] != sevens || out[n/2] != sevens {
		t.Fatalf("out[1], out[n/4-1], out[n/4], out[n/2-1], out[n/2] = %#x %#x %#x %#x %#x", out[1], out[n/4-1], out[n/4], out[n/2-1], out[n/2])
	}
	if err := CopyToDeviceAsync(buf, 0, hb, 8*n-4, 8); err == nil {
		t.Fatal("a copy past the host buffer's end was accepted")
	}
}

// iotaKernel compiles iotaSrc on d and returns its function with a device buffer of bytes,
// freed when the test ends.
func iotaKernel(t *testing.T, d *Device, bytes uint64) (*Function, *Buffer) {
	t.Helper()
	m, err := d.Compile(iotaSrc, "iota.cu", nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.Function("iota")
	if err != nil {
		t.Fatal(err)
	}
	buf, err := d.Alloc(bytes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { buf.Free() })
	return f, buf
}

// TestGPUDoHere: inside DoHere the device's calls run on the calling thread (Do runs inline: a
// Do from the worker's queue would deadlock a closure waiting for it), a launch and a copy back
// there see each other in order, a Do from another goroutine meanwhile still goes through the
// worker, and after DoHere the thread is an ordinary one again.
func TestGPUDoHere(t *testing.T) {
	d := testDevice(t)
	const n = 1 << 20
	f, buf := iotaKernel(t, d, 4*n)
	out := make([]uint32, n)
	other := make(chan error, 1)
	err := d.DoHere(func() error {
		if !d.onWorker() {
			t.Error("inside DoHere the thread is not the device's")
		}
		go func() { other <- d.Do(func() error { return nil }) }()
		if err := f.Launch(Dim3{X: (n + 255) / 256}, Dim3{X: 256}, 0, buf, uint64(n), uint32(5)); err != nil {
			return err
		}
		if err := CopyToHost(out, buf, 0); err != nil {
			return err
		}
		return d.DoHere(func() error { return nil }) // nested: runs directly
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-other; err != nil {
		t.Fatalf("a Do from another goroutine during DoHere: %v", err)
	}
	for i := range out {
		if out[i] != uint32(i)*5 {
			t.Fatalf("out[%d] = %d, want %d", i, out[i], i*5)
		}
	}
	if d.onWorker() {
		t.Error("after DoHere the calling goroutine's thread still counts as the device's")
	}
	if err := d.DoHere(func() error { panic("boom") }); err == nil {
		t.Error("a panic inside DoHere returned no error")
	}

	// The thread's context on return is the one it had on entry. (Its own bookkeeping allocates
	// nothing, TestThreadSet; each driver call through purego.SyscallN allocates its arguments.)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	current := func() uintptr {
		var c uintptr
		if err := drv.check("cuCtxGetCurrent", ccall(drv.cuCtxGetCurrent, uintptr(unsafe.Pointer(&c)))); err != nil {
			t.Fatal(err)
		}
		return c
	}
	before := current()
	if err := d.DoHere(func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	if after := current(); after != before {
		t.Errorf("after DoHere the thread's context is %#x, want the one it had (%#x)", after, before)
	}
}
