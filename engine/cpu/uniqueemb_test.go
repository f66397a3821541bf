package cpu_test

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
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
	checked := 0
	for _, seed := range seeds {
		n := 8 + int(seed%6)
		density := []float64{0.35, 0.5, 0.7}[seed%3]
		vl, el := 1+int(seed/3%2), 1+int(seed/6%2)
		g := gen.RandomGraph(seed, n, density, vl, el)
		for _, src := range srcs {
			p, err := pattern.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			for _, sem := range []engine.Semantics{{Unique: true}, {Unique: true, Induced: true}} {
				want, ok := oracle.CountWithin(g, p, sem, proptest.DenseOracleBudget)
				if !ok {
					continue
				}
				for _, threads := range []int{1, 2} {
					res, err := e.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: threads})
					if err != nil || res.Partial || res.Count != want {
						t.Fatalf("%s: Count = %d (partial %v, err %v), oracle %d\ng := gen.RandomGraph(%d, %d, %v, %d, %d)\np := %q, %d threads",
							sem, res.Count, res.Partial, err, want, seed, n, density, vl, el, src, threads)
					}
					checked++
				}
			}
		}
	}
	used := cpu.UniqueByEmbeddingsUsed() - before
	t.Logf("%d counts checked, %d by embeddings / |Aut|", checked, used)
	if used == 0 {
		t.Fatal("no count took the embeddings plan")
	}
}
