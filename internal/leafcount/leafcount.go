// Package leafcount is the arithmetic of counting leaf groups combinatorially, shared by the
// engines that count a pattern's postponed vertices (plan.LeafGroup) instead of enumerating them
// (engine/cpu's leaf counter, engine/sgsi's leaf step): given, for one complete assignment of
// the other vertices, the sizes of the groups' admissible sets and of their intersections (the
// data vertices already used taken out), the number of injective placements of the groups'
// vertices. Groups in different collision classes (plan.LeafClass) never share a data vertex,
// so a count is the product of its classes' counts; Counter counts one class.
package leafcount

import (
	"math/bits"

	"github.com/submatch/submatch/internal/checked"
	"github.com/submatch/submatch/plan"
)

// Group is a leaf group as the arithmetic sees it: its number of vertices and whether symmetry
// breaking orders them totally (plan.LeafGroup.Ordered: a set of data vertices, not a placement).
type Group struct {
	N       int
	Ordered bool
}

// Of returns lg's Group.
func Of(lg *plan.LeafGroup) Group { return Group{N: len(lg.Vertices), Ordered: lg.Ordered} }

// Placements returns the number of ways to place g's vertices on s admissible data vertices:
// C(s, N) when ordered, else the falling factorial (s)_N; 0 for s < 0. ok is false on uint64
// overflow.
func Placements(g Group, s int64) (uint64, bool) {
	if s < 0 {
		return 0, true
	}
	if g.Ordered {
		return checked.Binomial(uint64(s), g.N)
	}
	return checked.Falling(uint64(s), g.N)
}

// Counter counts one collision class; its buffers are reused from one count to the next (no
// allocation once they have grown to the largest class).
type Counter struct {
	region           [1 << plan.MaxClassGroups]int64 // per subset mask: Venn region size
	dp, ndp          []uint64                        // DP over remaining-vertex vectors
	radix, rem, pick [plan.MaxClassGroups]int
}

// SupersetSums turns h[mask], the number of elements in exactly the groups of mask, into the
// number of elements in at least the groups of mask (h's length a power of two).
func SupersetSums(h []int64) {
	for b := 1; b < len(h); b <<= 1 {
		for i := range h {
			if i&b == 0 {
				h[i] += h[i|b]
			}
		}
	}
}

// UsedIn fills used, of length 2^k for a class of k groups, with the number of the assigned
// data vertices (one a bit of cols: a column of the row or a level of the match) that lie in
// every group of each mask: a histogram of each vertex's memberships (in reports whether the
// vertex of bit j lies in the class's group b), then its sums over supersets (SupersetSums).
func UsedIn(used []int64, cols uint64, in func(b, j int) bool) {
	clear(used)
	k := bits.Len(uint(len(used))) - 1
	for ; cols != 0; cols &= cols - 1 {
		j := bits.TrailingZeros64(cols)
		mask := 0
		for b := range k {
			if in(b, j) {
				mask |= 1 << b
			}
		}
		used[mask]++
	}
	SupersetSums(used)
}

// Class returns the number of injective placements of the vertices of groups (one collision
// class, at most plan.MaxClassGroups groups) given inter[mask], for every mask in 1..2^k-1 over
// the groups, the number of admissible data vertices that lie in every group of mask, the data
// vertices already used taken out. ok is false on uint64 overflow.
func (c *Counter) Class(groups []Group, inter []int64) (uint64, bool) {
	k := len(groups)
	full := 1<<k - 1
	switch {
	case k == 1:
		return Placements(groups[0], inter[1])
	case k == 2 && groups[0].N == 1 && groups[1].N == 1:
		// Two vertices, one a group: |A| |B| minus the pairs that take one vertex twice.
		a, b := inter[1], inter[2]
		if a <= 0 || b <= 0 {
			return 0, true
		}
		n, ok := checked.Mul(uint64(a), uint64(b))
		return n - uint64(inter[3]), ok
	case k == 2:
		if n, ok, done := nestedPair(groups, inter); done {
			return n, ok
		}
	}
	// Venn regions: elements in exactly the groups of mask.
	for mask := 1; mask <= full; mask++ {
		var r int64
		for sup := mask; sup <= full; sup = (sup + 1) | mask {
			if bits.OnesCount(uint(sup^mask))%2 == 0 {
				r += inter[sup]
			} else {
				r -= inter[sup]
			}
		}
		c.region[mask] = r
	}
	return c.distribute(groups)
}

// nestedPair counts a class of two groups without the region DP when one's admissible set lies
// within the other's or the two are disjoint: the inner group's vertices are placed first, the
// outer group's on what its set has left (STMatch's q9 counts a vertex on three parents and two
// on two of them, 5x faster than by the DP). done is false otherwise.
func nestedPair(groups []Group, inter []int64) (n uint64, ok, done bool) {
	a, b := groups[0], groups[1]
	sa, sb, both := inter[1], inter[2], inter[3]
	switch {
	case both == 0:
	case both == sa:
		sb -= int64(a.N)
	case both == sb:
		sa -= int64(b.N)
	default:
		return 0, false, false
	}
	na, ok := Placements(a, sa)
	if !ok || na == 0 {
		return 0, ok, true
	}
	nb, ok := Placements(b, sb)
	if !ok {
		return 0, false, true
	}
	n, ok = checked.Mul(na, nb)
	return n, ok, true
}

// distribute runs the region DP. State: the number of still-unassigned vertices of each group,
// in mixed radix. Processing a region with size r whose elements are admissible for the groups
// in its mask, choose j_g vertices of each such group to place there: ordered groups pick a set
// (C(r', j)), unordered ones pick which of their vertices (C(rem, j)) and an injective placement
// ((r')_j).
func (c *Counter) distribute(groups []Group) (uint64, bool) {
	k := len(groups)
	radix, rem, pick := c.radix[:k], c.rem[:k], c.pick[:k]
	states := 1
	for b := 0; b < k; b++ {
		radix[b] = groups[b].N + 1
		states *= radix[b]
	}
	if len(c.dp) < states {
		c.dp, c.ndp = make([]uint64, states), make([]uint64, states)
	}
	dp, ndp := c.dp[:states], c.ndp[:states]
	clear(dp)
	dp[states-1] = 1 // all vertices unassigned
	for mask := 1; mask < 1<<k; mask++ {
		r := c.region[mask]
		if r <= 0 {
			continue
		}
		clear(ndp)
		for s := 0; s < states; s++ {
			if dp[s] == 0 {
				continue
			}
			decode(s, radix, rem)
			// Enumerate pick vectors with pick[b] <= rem[b] for b in mask, 0 elsewhere.
			clear(pick)
			for {
				ways, ok := placeWays(groups, r, rem, pick)
				if !ok {
					return 0, false
				}
				if ways > 0 {
					t := 0
					for b := k - 1; b >= 0; b-- {
						t = t*radix[b] + rem[b] - pick[b]
					}
					prod, ok := checked.Mul(dp[s], ways)
					if !ok {
						return 0, false
					}
					if ndp[t], ok = checked.Add(ndp[t], prod); !ok {
						return 0, false
					}
				}
				if !nextPick(mask, rem, pick) {
					break
				}
			}
		}
		dp, ndp = ndp, dp
	}
	return dp[0], true
}

// placeWays is the number of ways to place pick[b] vertices of each group b into a region of
// size r.
func placeWays(groups []Group, r int64, rem, pick []int) (uint64, bool) {
	ways := uint64(1)
	left := r
	for b, g := range groups {
		j := pick[b]
		if j == 0 {
			continue
		}
		var f uint64
		var ok bool
		if g.Ordered {
			f, ok = Placements(Group{N: j, Ordered: true}, left)
		} else {
			var choose, place uint64
			if choose, ok = checked.Binomial(uint64(rem[b]), j); ok {
				if place, ok = Placements(Group{N: j}, left); ok {
					f, ok = checked.Mul(choose, place)
				}
			}
		}
		if !ok {
			return 0, false
		}
		if f == 0 {
			return 0, true
		}
		if ways, ok = checked.Mul(ways, f); !ok {
			return 0, false
		}
		left -= int64(j)
	}
	return ways, true
}

func decode(s int, radix, out []int) {
	for b := range radix {
		out[b] = s % radix[b]
		s /= radix[b]
	}
}

// nextPick advances pick like an odometer over the groups in mask.
func nextPick(mask int, rem, pick []int) bool {
	for b := range pick {
		if mask&(1<<b) == 0 {
			continue
		}
		if pick[b] < rem[b] {
			pick[b]++
			return true
		}
		pick[b] = 0
	}
	return false
}
