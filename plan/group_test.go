package plan

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
)

// TestRestrictionsFromGroup: the order search's restrictions from the enumerated group equal
// SymmetryRestrictions' on random patterns (dense, sparse, labelled, with wildcards) and random
// orders, and the group has AutomorphismCount elements.
func TestRestrictionsFromGroup(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	checked := 0
	for seed := uint64(0); seed < 300; seed++ {
		n := 2 + int(seed%7)
		opts := gen.PatternOptions{EdgeProb: []float64{0.2, 0.6, 1}[seed%3], VertexLabels: int(1 + seed%3/2),
			EdgeLabels: int(1 + seed%5/4), Wildcard: 0.1 * float64(seed%2), Components: int(seed % 2 * 2)}
		p := gen.RandomPattern(seed, n, opts)
		aut := autGroup(p, 1<<14)
		if uint64(len(aut)) != AutomorphismCount(p) {
			t.Fatalf("seed %d: group of %d, AutomorphismCount %d", seed, len(aut), AutomorphismCount(p))
		}
		for range 4 {
			order := r.Perm(n)
			want := SymmetryRestrictions(p, order)
			if got := restrictionsFromGroup(aut, order); !slices.Equal(got, want) {
				t.Fatalf("seed %d order %v: from the group %v, SymmetryRestrictions %v", seed, order, got, want)
			}
			if len(want) > 0 {
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no order had restrictions")
	}
	if autGroup(gen.RandomPattern(1, 6, gen.PatternOptions{EdgeProb: 1}), 100) != nil {
		t.Error("the 6-clique's 720 automorphisms fit a limit of 100")
	}
}
