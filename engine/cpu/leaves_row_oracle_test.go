package cpu_test

import (
	"testing"

	"github.com/submatch/submatch/internal/proptest"
)

// countByRowPatterns end in one class of one group whose last parent's hub row counts it without
// writing its set out (countByRow): STMatch's q7 and q15 (two vertices on a triangle, on a
// 4-clique), and a 4-clique with a vertex on one of its edges, whose unique plans enumerate the
// two clique vertices off that edge (a restriction demotes one), and those lie in the group's set.
var countByRowPatterns = []string{
	"(a)-(b), (a)-(c), (a)-(d), (a)-(e), (b)-(c), (b)-(d), (b)-(e), (c)-(d), (c)-(e)",
	"(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (b)-(c), (b)-(d), (b)-(e), (b)-(f), (c)-(d), (c)-(e), (c)-(f), (d)-(e), (d)-(f)",
	"(a)-(b), (a)-(c), (a)-(x), (b)-(c), (b)-(x), (c)-(x), (a)-(d), (b)-(d)",
	"(a)-(b), (a)-(c:1), (a)-(x), (b)-(c), (b)-(x), (c)-(x), (a)-[:1]-(d), (b)-(d)",
}

// TestOracleCountByRow checks countByRowPatterns against the oracle on dense random graphs, under
// every convention and every setting (hub rows for every vertex among them).
func TestOracleCountByRow(t *testing.T) {
	seeds, repeat := proptest.Seeds(t, 120, 16)
	var ost proptest.OracleStats
	cases := denseCases(t, seeds, countByRowPatterns, proptest.AllSemantics, func(seed uint64) (int, float64, int, int) {
		return 8 + int(seed%6), []float64{0.5, 0.7, 0.9}[seed%3], 1 + int(seed/3%2), 1 + int(seed/6%2)
	}, &ost)
	checkOracle(t, cases, len(seeds), repeat, &ost, "TestOracleCountByRow")
}
