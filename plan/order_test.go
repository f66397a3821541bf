package plan_test

import (
	"context"
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestSearchOrdersOracle (12 seeds; 150 with SUBMATCH_LONG=1): plans whose matching order and symmetry breaking were chosen by
// estimate (Options.SearchOrders at its lowest, so that every plan of four or more vertices
// compares orders) count what the brute-force oracle counts, through the CPU engine, on the
// dense cases (chains of reused sets under symmetry windows) and the general random ones, in
// every convention, with and without Enumerate (or EnumerateSingle) and a candidate space.
func TestSearchOrdersOracle(t *testing.T) {
	n := 12 // each plan's search screens up to orderScreenWork a worker: a few seconds in all by default
	if testenv.Long() {
		n = 150
	}
	seeds, _ := proptest.Seeds(t, n, n)
	ctx := context.Background()
	var cases, changed int
	check := func(o proptest.Oracled) {
		prob := &engine.Problem{Data: o.G, Pattern: o.P, Semantics: o.Sem, Threads: 1}
		for _, mode := range []int{0, 1, 2} { // leaf groups, Enumerate, EnumerateSingle
			enumerate := mode == 1
			for _, space := range []int{0, -1} {
				opts, err := cpu.PlanOptions(prob, enumerate)
				if err != nil {
					t.Fatal(err)
				}
				opts.SpaceLimit = space
				opts.EnumerateSingle = mode == 2
				def, err := plan.BuildContext(ctx, o.G, o.P, opts)
				if err != nil {
					t.Fatal(err)
				}
				opts.SearchOrders = 1e-9
				pl, err := plan.Rebuild(ctx, o.G, def, opts)
				if err != nil {
					t.Fatal(err)
				}
				for _, q := range []*plan.Plan{def, pl} {
					if opts.EnumerateSingle && len(q.Groups) == 1 && len(q.Groups[0].Vertices) == 1 && len(q.Groups[0].Parents) > 0 {
						t.Errorf("EnumerateSingle: the plan counts its single vertex %v as a group", q.Groups[0].Vertices)
					}
				}
				if !slices.Equal(pl.Order(), def.Order()) || pl.Multiplier != def.Multiplier {
					changed++
				}
				res, err := cpu.Engine{}.CountPlan(ctx, prob, pl, 0)
				if err != nil || res.Partial {
					t.Fatalf("count: %v (partial %v)", err, res.Partial)
				}
				if res.Count != o.Want {
					t.Errorf("searched order %v (x%d, default %v x%d, enumerate %v, space %v): cpu %d, oracle %d\n%s",
						pl.Order(), pl.Multiplier, def.Order(), def.Multiplier, enumerate, space == 0, res.Count, o.Want,
						o.Describe(o.Sem, "", "./plan -run TestSearchOrdersOracle"))
				}
				cases++
			}
		}
	}
	for o := range proptest.WithOracleDense(seeds, nil) {
		check(o)
	}
	for o := range proptest.WithOracle(seeds, nil) {
		check(o)
	}
	t.Logf("%d plans, %d with another order or symmetry choice than the default", cases, changed)
	if changed == 0 {
		t.Error("the search never chose another order")
	}
}

// TestSameSearch: orders that differ by an automorphism of the pattern run the same search (the
// same estimate, probe for probe); another order, or the same order without symmetry breaking,
// does not.
func TestSameSearch(t *testing.T) {
	g := gen.RandomGraphM(3, 300, 3000, 1, 1)
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(a), (a)-(c)") // a diamond: a and c, b and d swap
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	build := func(order []int, multiply bool) *plan.Plan {
		pl, err := plan.BuildContext(ctx, g, p, plan.Options{Order: order, Enumerate: true, MultiplyAutomorphisms: multiply})
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	est := func(pl *plan.Plan) plan.Estimate {
		e, err := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 5, Probes: 300})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	a, swapped := build([]int{0, 2, 1, 3}, true), build([]int{2, 0, 3, 1}, true)
	if !plan.SameSearch(a, swapped) {
		t.Fatalf("orders %v and %v (an automorphism apart): not the same search", a.Order(), swapped.Order())
	}
	t.Logf("orders %v and %v, x%d", a.Order(), swapped.Order(), a.Multiplier)
	if ea, es := est(a), est(swapped); ea.Cost != es.Cost || ea.Nodes != es.Nodes {
		t.Errorf("the same search, estimated %v/%v and %v/%v", ea.Cost, ea.Nodes, es.Cost, es.Nodes)
	}
	for _, other := range []*plan.Plan{build([]int{1, 0, 2, 3}, true), build([]int{0, 2, 1, 3}, false)} {
		if plan.SameSearch(a, other) {
			t.Errorf("order %v x%d and %v x%d: the same search", a.Order(), a.Multiplier, other.Order(), other.Multiplier)
		}
	}
}
