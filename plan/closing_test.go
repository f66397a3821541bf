package plan_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/plan"
)

// TestClosingVertices: on random patterns and orders, ClosingVertices splits the order into the
// vertices whose neighbours all come before them (closing, at least one neighbour) and the rest,
// each in order; the closing vertices are pairwise non-adjacent, and every vertex of the rest
// with an earlier neighbour in the order has one in the rest (the joins of the rest stay
// connected wherever the order's were).
func TestClosingVertices(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	found := 0
	for seed := uint64(0); seed < 300; seed++ {
		n := 2 + int(seed%9)
		p := gen.RandomPattern(seed, n, gen.PatternOptions{EdgeProb: []float64{0, 0.2, 0.5}[seed%3], Components: int(seed % 2 * 2)})
		order := r.Perm(n)
		rest, closing := plan.ClosingVertices(p, order)
		if len(rest)+len(closing) != n {
			t.Fatalf("seed %d order %v: rest %v closing %v", seed, order, rest, closing)
		}
		pos := map[int]int{}
		for i, u := range order {
			pos[u] = i
		}
		isClosing := func(u int) bool {
			m := p.NeighborMask(u)
			for w := range n {
				if m>>w&1 != 0 && pos[w] > pos[u] {
					return false
				}
			}
			return m != 0
		}
		for _, part := range [][]int{rest, closing} {
			if !slices.IsSortedFunc(part, func(a, b int) int { return pos[a] - pos[b] }) {
				t.Fatalf("seed %d order %v: %v out of order", seed, order, part)
			}
		}
		for _, u := range closing {
			if !isClosing(u) {
				t.Errorf("seed %d order %v: %d is not closing", seed, order, u)
			}
			for _, w := range closing {
				if p.Adjacent(u, w) {
					t.Errorf("seed %d order %v: closing %d and %d adjacent", seed, order, u, w)
				}
			}
		}
		before := uint32(0)
		orderBefore := map[int]uint32{}
		var ob uint32
		for _, u := range order {
			orderBefore[u] = ob
			ob |= 1 << u
		}
		for _, u := range rest {
			if isClosing(u) {
				t.Errorf("seed %d order %v: %d closing but kept", seed, order, u)
			}
			if p.NeighborMask(u)&orderBefore[u] != 0 && p.NeighborMask(u)&before == 0 {
				t.Errorf("seed %d order %v: %d lost its earlier neighbours", seed, order, u)
			}
			before |= 1 << u
		}
		found += len(closing)
	}
	if found == 0 {
		t.Fatal("no closing vertex")
	}
}
