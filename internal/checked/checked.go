// Package checked owns the project's overflow-checked uint64 arithmetic and combinatorics: every
// count that an engine multiplies or adds goes through these, and each reports overflow (false)
// instead of wrapping, so that a count that does not fit is an error (engine.ErrOverflow), never a
// wrong number.
package checked

import "math/bits"

// Mul returns a*b; ok is false when the product overflows.
func Mul(a, b uint64) (product uint64, ok bool) {
	hi, lo := bits.Mul64(a, b)
	return lo, hi == 0
}

// Add returns a+b; ok is false when the sum overflows.
func Add(a, b uint64) (sum uint64, ok bool) {
	s, carry := bits.Add64(a, b, 0)
	return s, carry == 0
}

// Falling returns the falling factorial n(n-1)...(n-k+1), the number of injective maps of k
// labelled items into n (0 when k > n, 1 when k <= 0); ok is false when it overflows.
func Falling(n uint64, k int) (uint64, bool) {
	if k > 0 && n < uint64(k) {
		return 0, true
	}
	r := uint64(1)
	for i := range max(k, 0) {
		hi, lo := bits.Mul64(r, n-uint64(i))
		if hi != 0 {
			return 0, false
		}
		r = lo
	}
	return r, true
}

// Binomial returns C(n, k) (0 when k < 0 or k > n); ok is false when it overflows. The
// intermediate C(n, i)(n-i)/(i+1) is computed in 128 bits and is exact at every step; the
// smaller of k and n-k is used, so the sequence only grows and an intermediate overflow is an
// overflow of the result.
func Binomial(n uint64, k int) (uint64, bool) {
	if k < 0 || n < uint64(k) {
		return 0, true
	}
	kk := min(uint64(k), n-uint64(k))
	r := uint64(1)
	for i := range kk {
		hi, lo := bits.Mul64(r, n-i)
		if hi >= i+1 {
			return 0, false
		}
		r, _ = bits.Div64(hi, lo, i+1)
	}
	return r, true
}
