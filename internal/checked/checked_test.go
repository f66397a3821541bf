package checked

import (
	"math"
	"math/big"
	"testing"
)

// TestAgainstBig checks Falling and Binomial against math/big on every n, k up to 70 and near
// the overflow boundary, and Mul and Add at their edges.
func TestAgainstBig(t *testing.T) {
	limit := new(big.Int).SetUint64(math.MaxUint64)
	check := func(name string, n uint64, k int, got uint64, ok bool, want *big.Int) {
		t.Helper()
		fits := want.Cmp(limit) <= 0
		if ok != fits || (fits && got != want.Uint64()) {
			t.Fatalf("%s(%d, %d) = %d, %v; want %s", name, n, k, got, ok, want)
		}
	}
	ns := []uint64{}
	for n := uint64(0); n <= 70; n++ {
		ns = append(ns, n)
	}
	ns = append(ns, 1<<20, 1<<32, 1<<32+1, 3_037_000_499, 3_037_000_500, math.MaxUint64)
	for _, n := range ns {
		for k := -1; k <= 70; k++ {
			want := big.NewInt(1)
			if k > 0 && n < uint64(k) {
				want.SetInt64(0)
			}
			for i := range max(k, 0) {
				if n < uint64(k) {
					break
				}
				want.Mul(want, new(big.Int).SetUint64(n-uint64(i)))
			}
			got, ok := Falling(n, k)
			check("Falling", n, k, got, ok, want)
			wantB := big.NewInt(0)
			if k >= 0 {
				wantB.Binomial(int64(min(n, math.MaxInt64)), int64(k))
				if n > math.MaxInt64 { // big.Binomial takes int64: compute it by hand
					wantB.Set(want)
					for i := 2; i <= k; i++ {
						wantB.Quo(wantB, big.NewInt(int64(i)))
					}
				}
			}
			got, ok = Binomial(n, k)
			check("Binomial", n, k, got, ok, wantB)
		}
	}
	if _, ok := Mul(1<<32, 1<<32); ok {
		t.Error("Mul(2^32, 2^32) did not overflow")
	}
	if p, ok := Mul(1<<32, 1<<31); !ok || p != 1<<63 {
		t.Errorf("Mul(2^32, 2^31) = %d, %v", p, ok)
	}
	if _, ok := Add(math.MaxUint64, 1); ok {
		t.Error("Add(max, 1) did not overflow")
	}
}
