package leafcount

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/submatch/submatch/plan"
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

// TestUsedIn checks UsedIn on random memberships of up to 64 columns in classes of up to
// plan.MaxClassGroups groups (the buffer dirty beforehand) against a direct count: for every
// mask, the columns of cols in every group of mask (mask 0: every column of cols).
func TestUsedIn(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		k := 1 + rng.IntN(plan.MaxClassGroups)
		cols := rng.Uint64() & rng.Uint64()
		member := make([]uint64, k) // member[b]: the columns whose vertex lies in group b
		for b := range member {
			member[b] = rng.Uint64()
		}
		used := make([]int64, 1<<k)
		for i := range used {
			used[i] = int64(rng.IntN(100)) // (cleared by UsedIn)
		}
		UsedIn(used, cols, func(b, j int) bool {
			if cols>>j&1 == 0 {
				t.Fatalf("asked for column %d, not in %b", j, cols)
			}
			return member[b]>>j&1 != 0
		})
		for mask := range used {
			in := cols
			for b := range k {
				if mask>>b&1 != 0 {
					in &= member[b]
				}
			}
			if want := int64(bits.OnesCount64(in)); used[mask] != want {
				t.Fatalf("k %d, cols %b, mask %b: %d used, want %d", k, cols, mask, used[mask], want)
			}
		}
	}
}
