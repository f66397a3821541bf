package plan

import (
	"math/rand/v2"
	"testing"
)

// TestBitsetCountRange checks CountRange against a member-by-member count on random sets and
// every range of a few words, word boundaries included.
func TestBitsetCountRange(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 63, 64, 65, 200} {
		b := NewBitset(n)
		for v := range n {
			if r.IntN(3) == 0 {
				b.Set(uint32(v))
			}
		}
		if got := BitsetBytes(n); got != 8*uint64(len(b)) {
			t.Fatalf("BitsetBytes(%d) = %d, the set takes %d", n, got, 8*len(b))
		}
		for lo := 0; lo <= n; lo++ {
			want := uint64(0)
			for hi := lo; hi <= n; hi++ {
				if hi > lo && b.Has(uint32(hi-1)) {
					want++
				}
				if got := b.CountRange(uint64(lo), uint64(hi)); got != want {
					t.Fatalf("n %d: CountRange(%d, %d) = %d, want %d", n, lo, hi, got, want)
				}
			}
		}
	}
}
