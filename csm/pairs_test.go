package csm

import (
	"fmt"
	"testing"

	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// pairOps are the updates of TestBatchPairs over vertices 0..3 and a new vertex 4: every edge
// inserted with label 0 or 1, deleted without a label or naming label 1, every vertex added with
// label 0 or 1 and deleted, edges to the new vertex, a self-loop.
func pairOps() []updates.Update {
	var ops []updates.Update
	for u := int64(0); u < 4; u++ {
		for v := u + 1; v < 4; v++ {
			for l := range uint32(2) {
				ops = append(ops, updates.Update{Kind: updates.InsertEdge, U: v, V: u, Label: l, HasLabel: true})
			}
			ops = append(ops, updates.Update{Kind: updates.DeleteEdge, U: u, V: v},
				updates.Update{Kind: updates.DeleteEdge, U: u, V: v, Label: 1, HasLabel: true})
		}
	}
	for u := int64(0); u <= 4; u++ {
		for l := range uint32(2) {
			ops = append(ops, updates.Update{Kind: updates.InsertVertex, U: u, Label: l, HasLabel: true})
		}
		ops = append(ops, updates.Update{Kind: updates.DeleteVertex, U: u})
	}
	return append(ops, updates.Update{Kind: updates.InsertEdge, U: 0, V: 4, HasLabel: true},
		updates.Update{Kind: updates.InsertEdge, U: 4, V: 2, Label: 1, HasLabel: true},
		updates.Update{Kind: updates.InsertEdge, U: 1, V: 1, HasLabel: true})
}

// TestBatchPairs: every batch of two updates (each of pairOps, valid or not, in both orders: an
// edge inserted then deleted, deleted then inserted with another label, a vertex deleted then
// added again with another label, an edge to a vertex the batch adds or deletes, the same update
// twice) applied to small labelled graphs lists exactly the brute-force difference of the match
// sets, in every convention. The deep sweep adds batches of three on one graph.
func TestBatchPairs(t *testing.T) {
	type start struct {
		labels []uint32
		edges  [][3]int64 // u, v, label
	}
	starts := []start{
		{[]uint32{0, 1, 0, 1}, [][3]int64{{0, 1, 0}, {1, 2, 1}, {0, 2, 0}}},
		{[]uint32{1, 0, 0, 0}, [][3]int64{{0, 1, 1}, {1, 2, 0}, {2, 3, 0}, {0, 3, 0}}},
	}
	pats := []string{"(a)-(b)-(c)-(a)", "(a:0)-(b)-(c:1)", "(a)-[:1]-(b)", "(a:1), (b:0)"}
	ops := pairOps()
	index := func(id int64) uint32 { return uint32(id) }
	signed := 0
	for si, s := range starts {
		b := graph.NewBuilder(graph.BuilderOptions{})
		for v, l := range s.labels {
			if err := b.SetVertexLabel(int64(v), l); err != nil {
				t.Fatal(err)
			}
		}
		for _, e := range s.edges {
			if err := b.AddEdge(e[0], e[1], uint32(e[2])); err != nil {
				t.Fatal(err)
			}
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
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
