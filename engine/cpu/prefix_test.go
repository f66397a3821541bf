package cpu_test

import (
	"testing"

	"github.com/submatch/submatch/internal/proptest"
)

// prefixPatterns have a level of three parents or more that reuses no earlier set, so the
// search keeps the intersection of all but its deepest parent's lists (levelPrefix) and, when it
// is the last, counts it against the deepest parent's hub row: wheels (STMatch's q6 is the
// first) with and without labels that break their symmetry, and dense patterns whose last level's
// sets may hold the data vertex of an earlier level that its symmetry window does not exclude
// (the count takes it out); and patterns whose leaf classes hold two parented groups, of which
// the leaf counter memoises the one with the deeper parent (see memoPosition).
var prefixPatterns = []string{
	"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(e), (c)-(d), (c)-(e), (d)-(e)",
	"(c)-(a:1), (c)-(b), (c)-(d), (c)-(e), (a)-(b), (b)-(e), (e)-(d), (d)-(a)",
	"(c:0)-(a:1), (c)-(b:0), (c)-(d), (c)-(e:1), (a)-(b)-(e)-(d)-(a)",
	"(c)-[:1]-(a), (c)-(b), (c)-(d), (c)-(e), (a)-(b), (b)-(e), (e)-(d), (d)-(a)",
	"(h)-(a), (h)-(b), (h)-(c), (h)-(d), (h)-(e), (a)-(b)-(c)-(d)-(e)-(a)",
	"(h)-(a), (h)-(b), (h)-(c), (h)-(d), (a)-(b)-(c)-(d)-(a), (f)-(a), (f)-(h), (f)-(c)",
	// Two parented leaf groups in one class, the deeper one memoised: STMatch's q1, q3, q5.
	"(a)-(b)-(c)-(a), (c)-(d)-(e)-(c)",
	"(a)-(b), (a)-(c), (a)-(e), (b)-(c), (b)-(d), (c)-(d), (c)-(e)",
	"(a)-(b), (a)-(c), (a)-(d), (a)-(e), (b)-(c), (b)-(d), (b)-(e), (d)-(e)",
	// The last level's set may hold the data vertex of an earlier level outside its window.
	"(a)-(b), (b)-(c), (a)-(d), (b)-(d), (c)-(d), (a)-(e), (b)-(e), (c)-(e), (d)-(e), (b)-(f), (c)-(f), (e)-(f)",
	"(a)-(b), (a)-(c), (b)-(c), (a)-(d), (c)-(d), (a)-(e), (b)-(e), (c)-(e), (d)-(e), (a)-(f), (c)-(f), (d)-(f)",
	"(a)-(b), (b)-(c), (a)-(d), (a)-(e), (b)-(e), (c)-(e), (d)-(e), (a)-(f), (d)-(f), (e)-(f), (c)-(g), (d)-(g), (e)-(g), (f)-(g)",
}

// TestOracleLevelPrefix checks the prefixPatterns against the oracle on dense random graphs
// with one or two vertex and edge labels, under every convention and every setting.
func TestOracleLevelPrefix(t *testing.T) {
	seeds, repeat := proptest.Seeds(t, 120, 30)
	var ost proptest.OracleStats
	cases := denseCases(t, seeds, prefixPatterns, proptest.AllSemantics, func(seed uint64) (int, float64, int, int) {
		return 9 + int(seed%6), []float64{0.4, 0.6, 0.8}[seed%3], 1 + int(seed/3%2), 1 + int(seed/6%2)
	}, &ost)
	checkOracle(t, cases, len(seeds), repeat, &ost, "TestOracleLevelPrefix")
}
