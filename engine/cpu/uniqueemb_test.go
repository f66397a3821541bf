package cpu_test

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/internal/proptest"
)

// symmetricPatterns are the patterns of the forced-path oracle tests below: the last-level sum's
// shapes, cycles, stars, a wheel, labelled (vertex, edge and wildcard labels) and disconnected
// ones, one with an isolated vertex, and dense ones whose default embeddings plan keeps the
// symmetry to count postponed vertices (STMatch's q5, q9, q14 and q17 shapes, two cliques of
// four sharing an edge).
var symmetricPatterns = append(append([]string(nil), cpu.LastSumPatterns...),
	"(a)-(b)-(c)-(d)-(a)", "(a)-(b), (a)-(c), (a)-(d)", "(a)-(b), (c)-(d)", "(a:1)-(b:1)-(c:0)-(a)",
	"(a)-(b)-(c)-(a), (d)", "(h)-(a), (h)-(b), (h)-(c), (h)-(d), (a)-(b)-(c)-(d)-(a)",
	"(a)-[:1]-(b)-[:1]-(c)-(d)-(a)", "(a)-(b)-(c)-(a), (c)-(d)-(e)-(c)",
	"(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (b)-(c), (b)-(d), (b)-(e), (b)-(f), (c)-(d)",
	"(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (a)-(g), (b)-(c), (b)-(d), (b)-(e), (b)-(f), (b)-(g), (c)-(d), (c)-(e), (c)-(f), (c)-(g), (e)-(f), (e)-(g), (f)-(g)",
	"(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d), (c)-(e)-(f)-(c), (d)-(e), (d)-(f)",
	"(a:*)-(b:1), (a)-(c:1), (b)-(c), (b)-(d), (c)-(d:*), (a)-(d)",
	"(a)-(b), (a)-(c), (b)-(c), (a)-(d), (b)-(d), (e)-(f)")

// checkForcedPath counts symmetricPatterns under sems on random dense graphs with vertex and edge
// labels, with a count's alternative plan forced wherever it applies (force(1)), on one and two
// threads, against the oracle; used is how many counts have taken that plan, which some must.
func checkForcedPath(t *testing.T, force func(int) func(), used func() int64, sems []engine.Semantics) {
	restore := force(1)
	defer restore()
	e := cpu.Engine{}
	seeds, _ := proptest.Seeds(t, 60, 12)
	before := used()
	var ost proptest.OracleStats
	checked := 0
	for o := range denseCases(t, seeds, symmetricPatterns, sems, func(seed uint64) (int, float64, int, int) {
		return 8 + int(seed%6), []float64{0.35, 0.5, 0.7}[seed%3], 1 + int(seed/3%2), 1 + int(seed/6%2)
	}, &ost) {
		for _, threads := range []int{1, 2} {
			res, err := e.Count(context.Background(), &engine.Problem{Data: o.G, Pattern: o.P, Semantics: o.Sem, Threads: threads})
			if err != nil || res.Partial || res.Count != o.Want {
				t.Fatalf("%s: Count = %d (partial %v, err %v), oracle %d\n%s\n%d threads", o.Sem, res.Count, res.Partial, err, o.Want, o.Recipe, threads)
			}
			checked++
		}
	}
	n := used() - before
	t.Logf("%d counts checked, %d by the alternative plan", checked, n)
	if n == 0 {
		t.Fatal("no count took the alternative plan")
	}
}

// TestOracleUniqueByEmbeddings: unique counts taken as embeddings / |Aut(p)| (forced wherever the
// pattern is symmetric) equal the oracle's unique counts. Induced unique counts never take the
// path and are checked beside them.
func TestOracleUniqueByEmbeddings(t *testing.T) {
	checkForcedPath(t, cpu.UniqueByEmbeddings, cpu.UniqueByEmbeddingsUsed,
		[]engine.Semantics{{Unique: true}, {Unique: true, Induced: true}})
}

// TestOracleSymmetryBreak: embedding counts taken as the matches of the symmetry-breaking plan,
// its counted vertices in their symmetry windows, x |Aut(p)| (forced wherever the default plan
// keeps the symmetry of a symmetric pattern) equal the oracle's (a wrong multiplier or window
// fails it). Induced plans always break symmetry and are checked beside them.
func TestOracleSymmetryBreak(t *testing.T) {
	checkForcedPath(t, cpu.SymmetryBreak, cpu.SymmetryBreakUsed,
		[]engine.Semantics{{}, {Induced: true}})
}
