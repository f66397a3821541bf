package cpu_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/internal/proptest"
)

// densePattern draws a dense, often symmetric pattern of 5 to 7 vertices: a clique less a random
// matching (STMatch's q20 and q22: twins in pairs) or less a few random edges, now and then a
// pendant vertex, with vertex labels (up to vl) and edge labels (up to el) here and there.
func densePattern(r *rand.Rand, vl, el int) string {
	k := 5 + r.IntN(3)
	names := make([]string, k)
	for i := range names {
		names[i] = fmt.Sprintf("(v%d)", i)
		if r.IntN(8) == 0 {
			names[i] = fmt.Sprintf("(v%d:%d)", i, r.IntN(vl))
		}
	}
	missing := map[[2]int]bool{}
	perm := r.Perm(k)
	if r.IntN(2) == 0 {
		for i := 0; i+1 < len(perm) && i < 2*(1+r.IntN(3)); i += 2 {
			missing[[2]int{min(perm[i], perm[i+1]), max(perm[i], perm[i+1])}] = true
		}
	} else {
		for range 1 + r.IntN(5) {
			i, j := r.IntN(k), r.IntN(k)
			if i != j {
				missing[[2]int{min(i, j), max(i, j)}] = true
			}
		}
	}
	var edges []string
	for i := range k {
		for j := i + 1; j < k; j++ {
			if !missing[[2]int{i, j}] {
				edges = append(edges, randomEdge(r, names[i], names[j], 0.05, el))
			}
		}
	}
	if r.IntN(5) == 0 {
		edges = append(edges, randomEdge(r, names[r.IntN(k)], "(x)", 0.1, el))
	}
	return strings.Join(edges, ", ")
}

// TestOracleTailOrderRandom checks dense random patterns (densePattern) counted with tail orders
// (tailorder.go: every candidate order in turn, with and without all symmetry broken; unique
// counts by their embeddings) against the oracle under every convention and setting (300 seeds
// with SUBMATCH_LONG, 12 by default), and that some counts took a tail order.
func TestOracleTailOrderRandom(t *testing.T) {
	defer cpu.TailOrder(1)()
	defer cpu.UniqueByEmbeddings(1)()
	seeds, repeat := proptest.Seeds(t, 300, 12)
	var ost proptest.OracleStats
	before := cpu.TailOrderUsed()
	hits := 0
	checkOracle(t, randomCases(t, seeds, densePattern, &ost, func(*engine.Problem) bool { return false }, &hits), len(seeds), repeat, &ost, "TestOracleTailOrderRandom")
	used := cpu.TailOrderUsed() - before
	t.Logf("%d counts took a tail order", used)
	if len(seeds) >= 12 && used == 0 {
		t.Error("no count took a tail order")
	}
}
