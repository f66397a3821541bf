package csm

import (
	"fmt"
	"testing"

	"github.com/submatch/submatch/csm/internal/csmtest"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// TestBatchPairs: every batch of two updates (each of csmtest.PairOps, valid or not, in both
// orders: an edge inserted then deleted, deleted then inserted with another label, a vertex
// deleted then added again with another label, an edge to a vertex the batch adds or deletes,
// the same update twice) applied to csmtest.PairGraphs lists exactly the brute-force difference
// of the match sets, in every convention. The deep sweep adds batches of three on one graph.
func TestBatchPairs(t *testing.T) {
	pats := []string{"(a)-(b)-(c)-(a)", "(a:0)-(b)-(c:1)", "(a)-[:1]-(b)", "(a:1), (b:0)"}
	ops := csmtest.PairOps()
	index := func(id int64) uint32 { return uint32(id) }
	signed := 0
	for si, g := range csmtest.PairGraphs(t) {
		for pi, ps := range pats {
			p, err := pattern.Parse(ps)
			if err != nil {
				t.Fatal(err)
			}
			sem := conventions[(si+pi)%4]
			lens := []int{2}
			if testenv.Long() && si == 0 {
				lens = append(lens, 3)
			}
			for _, n := range lens {
				idx := make([]int, n)
				for {
					batch := make([]updates.Update, n)
					for i, k := range idx {
						batch[i] = ops[k]
						batch[i].Line = i + 1
					}
					c := newBatchChecker(t, g, p, sem, 1, index)
					c.apply(t, batch, fmt.Sprintf("graph %d", si))
					signed += c.signed
					i := n - 1
					for ; i >= 0 && idx[i] == len(ops)-1; i-- {
						idx[i] = 0
					}
					if i < 0 {
						break
					}
					idx[i]++
				}
			}
		}
	}
	if signed < 5000 {
		t.Fatalf("only %d signed matches checked", signed)
	}
}
