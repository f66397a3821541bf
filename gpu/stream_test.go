package gpu

import (
	"errors"
	"testing"
)

// TestGPUStream: an upload on a copy stream and a kernel on a compute stream, ordered by events
// alone: the kernel (queued after a WaitEvent on the copy's event) sees the copy, a second copy
// queued behind a WaitEvent on the kernel's event overwrites part of its output, and the host's
// Wait on the last event sees everything; a copy outside the host buffer is refused, a nil
// stream is the default stream, and Close twice is harmless.
func TestGPUStream(t *testing.T) {
	d := testDevice(t)
	const n = 1 << 22
	f, buf := iotaKernel(t, d, 4*n)
	copyS, err := d.NewStream()
	if errors.Is(err, ErrNoStreams) {
		t.Skipf("no streams: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer copyS.Close()
	compute, err := d.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer compute.Close()
	hb, err := d.AllocHost(8 * n)
	if err != nil {
		t.Skipf("no pinned memory: %v", err)
	}
	defer hb.Free()
	b := hb.Bytes()
	for i := range b {
		b[i] = 7
	}
	events := make([]*Event, 3)
	for i := range events {
		if events[i], err = d.NewEvent(); err != nil {
			t.Fatal(err)
		}
		defer events[i].Close()
	}
	uploaded, counted, done := events[0], events[1], events[2]
	// Words [0, n) from the host (sevens); the kernel writes i*3 over [0, n/2) once the copy is
	// done; then words [n/4, n/2) get sevens again from the second half of the host buffer.
	err = d.DoHere(func() error {
		if err := CopyToDeviceOn(copyS, buf, 0, hb, 0, 4*n); err != nil {
			return err
		}
		if err := uploaded.RecordOn(copyS); err != nil {
			return err
		}
		if err := compute.WaitEvent(uploaded); err != nil {
			return err
		}
		if err := f.LaunchOn(compute, Dim3{X: (n/2 + 255) / 256}, Dim3{X: 256}, 0, buf, uint64(n/2), uint32(3)); err != nil {
			return err
		}
		if err := counted.RecordOn(compute); err != nil {
			return err
		}
		if err := copyS.WaitEvent(counted); err != nil {
			return err
		}
		if err := CopyToDeviceOn(copyS, buf, 4*(n/4), hb, 4*n, 4*(n/4)); err != nil {
			return err
		}
		return done.RecordOn(copyS)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := done.Wait(); err != nil {
		t.Fatal(err)
	}
	out := make([]uint32, n)
	if err := CopyToHost(out, buf, 0); err != nil {
		t.Fatal(err)
	}
	const sevens = 0x07070707
	for i, want := range map[int]uint32{1: 3, n/4 - 1: (n/4 - 1) * 3, n / 4: sevens, n/2 - 1: sevens, n / 2: sevens, n - 1: sevens} {
		if out[i] != want {
			t.Errorf("out[%d] = %#x, want %#x", i, out[i], want)
		}
	}
	if err := CopyToDeviceOn(copyS, buf, 0, hb, 8*n-4, 8); err == nil {
		t.Error("a copy past the host buffer's end was accepted")
	}
	// A nil stream is the default stream.
	if err := CopyToDeviceOn(nil, buf, 0, hb, 0, 4); err != nil {
		t.Fatal(err)
	}
	if err := f.LaunchOn(nil, Dim3{X: 1}, Dim3{X: 32}, 0, buf, uint64(1), uint32(9)); err != nil {
		t.Fatal(err)
	}
	if err := d.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if err := copyS.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if err := copyS.Close(); err != nil {
		t.Fatal(err)
	}
	if err := copyS.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

// TestNilStream: a nil stream is the default stream's handle, and closing it does nothing.
func TestNilStream(t *testing.T) {
	var s *Stream
	if h := s.handle(); h != 0 {
		t.Errorf("nil stream's handle %#x, want 0", h)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close of a nil stream: %v", err)
	}
}
