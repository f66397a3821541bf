package cpu

import "math/bits"

// Checked uint64 arithmetic: every helper reports overflow instead of wrapping.

func mulChecked(a, b uint64) (uint64, bool) {
	hi, lo := bits.Mul64(a, b)
	return lo, hi == 0
}

func addChecked(a, b uint64) (uint64, bool) {
	s, carry := bits.Add64(a, b, 0)
	return s, carry == 0
}

// falling returns n (n-1) ... (n-k+1), the number of injective maps of k labelled items into n.
func falling(n int64, k int) (uint64, bool) {
	if int64(k) > n {
		return 0, true
	}
	r := uint64(1)
	for i := 0; i < k; i++ {
		var ok bool
		if r, ok = mulChecked(r, uint64(n-int64(i))); !ok {
			return 0, false
		}
	}
	return r, true
}

// binomial returns C(n, k).
func binomial(n int64, k int) (uint64, bool) {
	if k < 0 || int64(k) > n {
		return 0, true
	}
	if int64(k) > n-int64(k) {
		k = int(n - int64(k))
	}
	r := uint64(1)
	for i := 0; i < k; i++ {
		// r * (n-i) / (i+1) is exact at every step; do it in 128 bits.
		hi, lo := bits.Mul64(r, uint64(n-int64(i)))
		d := uint64(i + 1)
		if hi >= d {
			return 0, false
		}
		r, _ = bits.Div64(hi, lo, d)
	}
	return r, true
}
