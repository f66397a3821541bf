package sgsi

// Host-side logic of the GPU backend: which calls are timed, and where a schedule runs.

import (
	"errors"
	"testing"
)

// TestSampler checks the GPU backend's timing sample: every call of a kind timed up to timeAll,
// then about one in sampleEvery, whose weights add up to about the calls they stand for, and
// the kinds counted apart.
func TestSampler(t *testing.T) {
	var s sampler
	for i := range timeAll {
		if w := s.next(1); w != 1 {
			t.Fatalf("kernel %d: weight %d, want 1 (all of the first %d timed)", i, w, timeAll)
		}
	}
	if w := s.next(0); w != 1 {
		t.Fatalf("the first copy after %d kernels: weight %d, want 1", timeAll, w)
	}
	const n = 1 << 20
	var sum, timed int64
	for range n {
		w := s.next(1)
		if w != 0 && w != sampleEvery {
			t.Fatalf("weight %d, want 0 or %d", w, sampleEvery)
		}
		if w != 0 {
			timed++
		}
		sum += w
	}
	if d := sum - n; d > n/100 || d < -n/100 {
		t.Errorf("%d calls sampled stand for %d, want within 1%%", n, sum)
	}
	// No period: the calls at each position of a repeating pattern of 6 are sampled alike.
	var byPos [6]int64
	for i := range 6 * n / 8 {
		if s.next(0) != 0 {
			byPos[i%6]++
		}
	}
	for p, c := range byPos {
		if want := int64(n / 8 / sampleEvery); c < want*9/10 || c > want*11/10 {
			t.Errorf("position %d of 6: %d sampled, want about %d", p, c, want)
		}
	}
	t.Logf("%d of %d timed", timed, n)
}

// doCounter is a backend with a worker thread that counts the calls run on it.
type doCounter struct {
	*HostBackend
	calls int
}

func (d *doCounter) Do(fn func() error) error { d.calls++; return fn() }

// TestSchedule checks that a count's schedule runs on the backend's worker (Do), a listing's
// and a backend's without one directly, each once with f's error.
func TestSchedule(t *testing.T) {
	errF := errors.New("f")
	for _, c := range []struct {
		count, withDo bool
		want          int // calls of Do
	}{{true, true, 1}, {false, true, 0}, {true, false, 0}} {
		d := &doCounter{HostBackend: NewHostBackend(8)}
		var be Backend = d.HostBackend
		if c.withDo {
			be = d
		}
		ran := 0
		err := schedule(be, c.count, func() error { ran++; return errF })
		if !errors.Is(err, errF) || ran != 1 || d.calls != c.want {
			t.Errorf("count %v, worker %v: err %v, f ran %d times, Do %d; want f's error, 1, %d", c.count, c.withDo, err, ran, d.calls, c.want)
		}
	}
}
