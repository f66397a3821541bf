package testenv

import "testing"

// TestSweep: the short size by default and under SUBMATCH_LONG=0, the long one under
// SUBMATCH_LONG=1.
func TestSweep(t *testing.T) {
	for v, want := range map[string]int{"": 3, "0": 3, "1": 30} {
		t.Setenv(EnvLong, v)
		if got := Sweep(3, 30); got != want {
			t.Errorf("%s=%q: Sweep(3, 30) = %d, want %d", EnvLong, v, got, want)
		}
	}
}
