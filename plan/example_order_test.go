package plan_test

import (
	"context"
	"fmt"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// Options.SearchOrders lets the plan pick its matching order (and whether to break symmetry) by
// estimated cost when the default plan's search is estimated above the threshold; the count is
// the same whatever the order.
func ExampleOptions_searchOrders() {
	ctx := context.Background()
	g := gen.RandomGraphM(1, 60, 900, 1, 1)
	p, _ := pattern.Parse("(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(d), (c)-(d), (c)-(e), (d)-(e)")
	prob := &engine.Problem{Data: g, Pattern: p, Threads: 1}
	opts := plan.Options{MultiplyAutomorphisms: true}
	def, _ := plan.BuildContext(ctx, g, p, opts)
	opts.SearchOrders = 1 // compare orders for any search of more than one node
	searched, _ := plan.BuildContext(ctx, g, p, opts)
	a, _ := cpu.Engine{}.CountPlan(ctx, prob, def, 0)
	b, _ := cpu.Engine{}.CountPlan(ctx, prob, searched, 0)
	fmt.Println("same count:", a.Count == b.Count && a.Count > 0)
	// Output: same count: true
}

// SameSearch tells two plans apart only when they search differently: orders an automorphism of
// the pattern apart (here the diamond's two triangles swapped) run the same search, so an engine
// comparing plans by estimate need not estimate both.
func ExampleSameSearch() {
	ctx := context.Background()
	g := gen.RandomGraphM(2, 100, 800, 1, 1)
	p, _ := pattern.Parse("(a)-(b)-(c)-(d)-(a), (a)-(c)")
	build := func(order ...int) *plan.Plan {
		pl, _ := plan.BuildContext(ctx, g, p, plan.Options{Order: order, Enumerate: true, MultiplyAutomorphisms: true})
		return pl
	}
	fmt.Println(plan.SameSearch(build(0, 2, 1, 3), build(2, 0, 3, 1)))
	fmt.Println(plan.SameSearch(build(0, 2, 1, 3), build(1, 0, 2, 3)))
	// Output:
	// true
	// false
}

// EstimateOptions.Threads spreads the probes over goroutines in blocks with their own random
// streams: the estimate is the same for any number of threads above one. CostAbove stops an
// estimate as soon as it is sure to end above a given cost.
func ExampleEstimateOptions_threads() {
	ctx := context.Background()
	g := gen.RandomGraphM(3, 200, 2000, 1, 1)
	p, _ := pattern.Parse("(a)-(b)-(c)-(d)-(a), (a)-(c)")
	pl, _ := plan.BuildContext(ctx, g, p, plan.Options{MultiplyAutomorphisms: true})
	two, _ := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 1, Probes: 2000, Threads: 2})
	eight, _ := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 1, Probes: 2000, Threads: 8})
	fmt.Println(two.Cost == eight.Cost, two.Probes)
	cut, _ := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 1, Probes: 2000, Threads: 2, CostAbove: two.Cost / 10})
	fmt.Println(cut.Above, cut.Probes < 2000)
	// Output:
	// true 2000
	// true true
}
