package cpu

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestPairSumFactorOverflow counts STMatch's q11 wheel with eight pendants on its hub in a graph
// where a hub of 1,106 neighbours has a 6-cycle for its rim: no 4-cycle in the rim, so no match,
// but every hub and rim vertex passes the filters and the search reaches the pair sum with
// D1 and D2 not empty. The factor group's placements, C(1,102, 8), overflow 64 bits; the count
// is 0 and must be reported as 0, not as an overflow (the pairs are summed before the factor).
func TestPairSumFactorOverflow(t *testing.T) {
	b := graph.NewBuilder(graph.BuilderOptions{})
	const rim, leaves = 6, 1100
	for r := range rim {
		must(t, b.AddEdge(0, int64(1+r), 0))
		must(t, b.AddEdge(int64(1+r), int64(1+(r+1)%rim), 0))
	}
	for l := range leaves {
		must(t, b.AddEdge(0, int64(1+rim+l), 0))
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	src := "(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(e), (c)-(d), (c)-(e), (d)-(e)"
	for _, f := range []string{"f", "g", "h", "i", "j", "k", "l", "m"} {
		src += ", (c)-(" + f + ")"
	}
	p, err := pattern.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, sem := range []engine.Semantics{{}, {Unique: true}} {
		prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 1}
		opts, err := PlanOptions(prob, false)
		if err != nil {
			t.Fatal(err)
		}
		pl := plan.Build(g, p, opts)
		if ps := pairSumFor(g, pl); ps == nil || ps.cg == nil {
			t.Fatalf("%+v: the plan takes no pair sum with a factor group", sem)
		}
		before := pairSumUsed.Load()
		res, err := Engine{}.Count(context.Background(), prob)
		if err != nil || res.Count != 0 {
			t.Errorf("%+v: Count = %d, %v; want 0", sem, res.Count, err)
		}
		if pairSumUsed.Load() == before {
			t.Errorf("%+v: the count did not apply the pair sum", sem)
		}
	}
}
