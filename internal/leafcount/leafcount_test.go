package leafcount

import (
	"math/rand/v2"
	"testing"
)

// TestClassAgainstBruteForce checks Counter.Class on random classes of up to four groups of up
// to three vertices over a universe of up to nine elements (random subsets, some nested or
// equal, some ordered) against the placements enumerated one by one: injective, each vertex in
// its group's set, an ordered group's vertices in increasing order.
func TestClassAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var c Counter
	for trial := range 3000 {
		k := 1 + rng.IntN(4)
		n := 1 + rng.IntN(9)
		groups := make([]Group, k)
		sets := make([]uint32, k)
		for b := range groups {
			groups[b] = Group{N: 1 + rng.IntN(3), Ordered: rng.IntN(2) == 0}
			sets[b] = rng.Uint32() & (1<<n - 1)
			if b > 0 && rng.IntN(3) == 0 { // nested in, or equal to, an earlier set
				sets[b] = sets[rng.IntN(b)] & (rng.Uint32() | uint32(rng.IntN(2))*^uint32(0))
			}
		}
		inter := make([]int64, 1<<k)
		for mask := 1; mask < 1<<k; mask++ {
			all := uint32(1<<n - 1)
			for b := range k {
				if mask>>b&1 != 0 {
					all &= sets[b]
				}
			}
			for ; all != 0; all &= all - 1 {
				inter[mask]++
			}
		}
		var slots []int // each vertex's group
		for b, g := range groups {
			for range g.N {
				slots = append(slots, b)
			}
		}
		want := brute(slots, groups, sets, n, make([]int, len(slots)), 0, 0)
		got, ok := c.Class(groups, inter)
		if !ok || got != want {
			t.Fatalf("trial %d: groups %v sets %b: Class %d (ok %v), brute force %d", trial, groups, sets, got, ok, want)
		}
	}
}

// brute counts the placements of slots[i:] given the elements used and the elements of the
// slots before (at).
func brute(slots []int, groups []Group, sets []uint32, n int, at []int, i int, used uint32) uint64 {
	if i == len(slots) {
		return 1
	}
	b := slots[i]
	var total uint64
	for x := range n {
		if used>>x&1 != 0 || sets[b]>>x&1 == 0 {
			continue
		}
		if groups[b].Ordered && i > 0 && slots[i-1] == b && at[i-1] > x {
			continue
		}
		at[i] = x
		total += brute(slots, groups, sets, n, at, i+1, used|1<<x)
	}
	return total
}
