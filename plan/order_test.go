package plan_test

import (
	"context"
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/plan"
)

// TestSearchOrdersOracle (12 seeds; 150 with SUBMATCH_LONG=1): plans whose matching order and symmetry breaking were chosen by
// estimate (Options.SearchOrders at its lowest, so that every plan of four or more vertices
// compares orders) count what the brute-force oracle counts, through the CPU engine, on the
// dense cases (chains of reused sets under symmetry windows) and the general random ones, in
// every convention, with and without Enumerate (or EnumerateSingle) and a candidate space.
func TestSearchOrdersOracle(t *testing.T) {
	n := 12 // each plan's search takes up to orderSearchBudget: a few seconds in all by default
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
