package sgsi

import "testing"

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
