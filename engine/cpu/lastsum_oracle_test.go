package cpu_test

import (
	"testing"

	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/internal/proptest"
)

// lastSumOthers are shapes near cpu.LastSumPatterns where the last-level sum does not apply (a
// third postponed vertex, a group of two, a key that changes with every assignment, an isolated
// vertex), counted by the same test so that a wrong eligibility check shows.
var lastSumOthers = []string{
	"(a)-(b)-(c)-(a), (c)-(d)-(e)-(c), (f)",
	"(a)-(b)-(c)-(a), (c)-(d)-(e)-(c), (a)-(f)-(c)",
	"(a)-(b)-(c)-(a), (c)-(d)-(e)-(c), (e)-(f)",
	"(x)-(a)-(b)-(x), (x)-(c)-(d)-(x), (a)-(c)",
	"(a)-(b), (b)-(c)-(d)-(b)",
	"(a)-(b)-(c)-(a), (a)-(d)-(e)-(a), (b)-(d)",
}

// TestOracleLastSum checks the patterns whose last level is counted with the postponed vertex
// below it (see lastSum in lastsum.go) against the oracle on dense random graphs with one to three
// vertex labels and one or two edge labels, under every convention and every setting (one and
// two threads, with and without a candidate space, hub rows for every vertex).
func TestOracleLastSum(t *testing.T) {
	seeds, repeat := proptest.Seeds(t, 120, 16)
	var ost proptest.OracleStats
	srcs := append(append([]string(nil), cpu.LastSumPatterns...), lastSumOthers...)
	cases := denseCases(t, seeds, srcs, proptest.AllSemantics, func(seed uint64) (int, float64, int, int) {
		return 8 + int(seed%7), []float64{0.35, 0.5, 0.7, 0.9}[seed%4], 1 + int(seed/4%3), 1 + int(seed/12%2)
	}, &ost)
	checkOracle(t, cases, len(seeds), repeat, &ost, "TestOracleLastSum")
}
