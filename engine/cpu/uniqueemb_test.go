package cpu_test

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/internal/proptest"
)

// TestOracleUniqueByEmbeddings: unique counts taken as embeddings / |Aut(p)| (forced wherever the
// pattern is symmetric) equal the oracle's unique counts, on random graphs with vertex and edge
// labels, for symmetric patterns: the last-level sum's shapes, cycles, stars, a wheel, labelled
// and disconnected ones, and with an isolated vertex. Induced unique counts never take the path
// and are checked beside them.
func TestOracleUniqueByEmbeddings(t *testing.T) {
	restore := cpu.UniqueByEmbeddings(1)
	defer restore()
	srcs := append(append([]string(nil), cpu.LastSumPatterns...),
		"(a)-(b)-(c)-(d)-(a)", "(a)-(b), (a)-(c), (a)-(d)", "(a)-(b), (c)-(d)", "(a:1)-(b:1)-(c:0)-(a)",
		"(a)-(b)-(c)-(a), (d)", "(h)-(a), (h)-(b), (h)-(c), (h)-(d), (a)-(b)-(c)-(d)-(a)",
		"(a)-[:1]-(b)-[:1]-(c)-(d)-(a)", "(a)-(b)-(c)-(a), (c)-(d)-(e)-(c)")
	e := cpu.Engine{}
	seeds, _ := proptest.Seeds(t, 60, 12)
	before := cpu.UniqueByEmbeddingsUsed()
	var ost proptest.OracleStats
	checked := 0
	sems := []engine.Semantics{{Unique: true}, {Unique: true, Induced: true}}
	for o := range denseCases(t, seeds, srcs, sems, func(seed uint64) (int, float64, int, int) {
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
	used := cpu.UniqueByEmbeddingsUsed() - before
	t.Logf("%d counts checked, %d by embeddings / |Aut|", checked, used)
	if used == 0 {
		t.Fatal("no count took the embeddings plan")
	}
}
