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
