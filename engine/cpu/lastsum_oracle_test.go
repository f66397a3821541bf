package cpu_test

import (
	"fmt"
	"iter"
	"testing"

	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
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
	cases := func(yield func(proptest.Oracled) bool) {
		for _, seed := range seeds {
			n := 8 + int(seed%7)
			density := []float64{0.35, 0.5, 0.7, 0.9}[seed%4]
			vl, el := 1+int(seed/4%3), 1+int(seed/12%2)
			g := gen.RandomGraph(seed, n, density, vl, el)
			for _, src := range srcs {
				p, err := pattern.Parse(src)
				if err != nil {
					t.Fatal(err)
				}
				c := proptest.Case{Seed: seed, G: g, P: p, Recipe: fmt.Sprintf("g := gen.RandomGraph(%d, %d, %v, %d, %d)\np := %q", seed, n, density, vl, el, src)}
				for _, sem := range proptest.AllSemantics {
					want, ok := oracle.CountWithin(g, p, sem, proptest.DenseOracleBudget)
					if !ok {
						ost.Skipped++
						continue
					}
					if !yield(proptest.Oracled{Case: c, Sem: sem, Want: want}) {
						return
					}
				}
			}
		}
	}
	checkOracle(t, iter.Seq[proptest.Oracled](cases), len(seeds), repeat, &ost, "TestOracleLastSum")
}
