package cpu_test

import (
	"testing"

	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/internal/proptest"
)

// pairSumOthers are shapes near cpu.PairSumPatterns where the pair sum does not apply (the two
// levels adjacent, a second postponed vertex, e's group of two, a separate component, a 4-cycle
// and K(2,3) whose orders end otherwise), counted by the same test so
// that a wrong eligibility check shows.
var pairSumOthers = []string{
	"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(d), (c)-(d), (c)-(e), (d)-(e)",
	"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(d), (c)-(e), (d)-(e), (c)-(f)",
	"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(d), (c)-(e), (d)-(e), (c)-(f), (d)-(f)",
	"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(d), (c)-(e), (d)-(e), (f)-(g)",
	"(a)-(b)-(c)-(d)-(a), (x)-(y)",
	"(a)-(b)-(c)-(d)-(a)",
	"(a)-(c), (a)-(d), (a)-(e), (b)-(c), (b)-(d), (b)-(e)",
}

// TestOraclePairSum checks the patterns whose last two levels are counted with the vertex below
// them (see pairSum in pairsum.go) against the oracle on dense random graphs with one to three
// vertex labels and one or two edge labels, under every convention and every setting, and that
// the sweep applied the sum.
func TestOraclePairSum(t *testing.T) {
	seeds, repeat := proptest.Seeds(t, 120, 16)
	var ost proptest.OracleStats
	srcs := append(append([]string(nil), cpu.PairSumPatterns...), pairSumOthers...)
	before := cpu.PairSumUsed()
	cases := denseCases(t, seeds, srcs, proptest.AllSemantics, func(seed uint64) (int, float64, int, int) {
		return 8 + int(seed%6), []float64{0.4, 0.55, 0.7, 0.9}[seed%4], 1 + int(seed/4%3), 1 + int(seed/12%2)
	}, &ost)
	checkOracle(t, cases, len(seeds), repeat, &ost, "TestOraclePairSum")
	if cpu.PairSumUsed() == before {
		t.Error("no count applied the pair sum")
	}
}

// pairSumFactorPatterns have a postponed group beside the pair sum's vertices whose placements
// are one factor per assignment (factorGroup in pairsum.go): STMatch's q11 (a wheel and a
// pendant vertex on its hub), the wheel with two pendants on the hub (a group of two), and
// shapes near them where the group is no factor (a vertex label or an edge label on the
// pendant, a pendant on a vertex that is not adjacent to every other, an isolated vertex too).
var pairSumFactorPatterns = []string{
	"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(e), (c)-(d), (c)-(e), (c)-(f), (d)-(e)",
	"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(e), (c)-(d), (c)-(e), (c)-(f), (c)-(g), (d)-(e)",
	"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(e), (c)-(d), (c)-(e), (c)-(f:1), (d)-(e)",
	"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(e), (c)-(d), (c)-(e), (c)-[:1]-(f), (d)-(e)",
	"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(d), (c)-(e), (d)-(e), (a)-(f)",
	"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(e), (c)-(d), (c)-(e), (c)-(f), (d)-(e), (x)",
}

// TestOraclePairSumFactor checks pairSumFactorPatterns against the oracle as TestOraclePairSum
// does, and that the sweep applied the pair sum (with the factor: q11's plans have no other
// shape it applies to).
func TestOraclePairSumFactor(t *testing.T) {
	seeds, repeat := proptest.Seeds(t, 100, 14)
	var ost proptest.OracleStats
	before := cpu.PairSumUsed()
	cases := denseCases(t, seeds, pairSumFactorPatterns, proptest.AllSemantics, func(seed uint64) (int, float64, int, int) {
		return 8 + int(seed%6), []float64{0.5, 0.7, 0.9}[seed%3], 1 + int(seed/3%3), 1 + int(seed/9%2)
	}, &ost)
	checkOracle(t, cases, len(seeds), repeat, &ost, "TestOraclePairSumFactor")
	if cpu.PairSumUsed() == before {
		t.Error("no count applied the pair sum")
	}
}
