package plan_test

import (
	"context"
	"math"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestNarrowCost: without symmetry windows (every embedding enumerated) the levels' cost with the
// lists clipped is the levels' Cost exactly, serially and on several threads; with the triangle's
// windows on a power-law graph (ids in degree order) it is far below, since the hubs' lists are
// clipped to their few neighbours above.
func TestNarrowCost(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 12, EdgeFactor: 16, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, q := range []string{"(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a)", "(a)-(b)-(c)-(d)-(a), (a)-(c)"} {
		p, err := pattern.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, threads := range []int{1, 3} {
			opts := plan.EstimateOptions{Seed: 1, Probes: 2000, Threads: threads}
			all := plan.Build(g, p, plan.Options{Enumerate: true})
			est, err := all.Estimate(ctx, g, opts)
			if err != nil {
				t.Fatal(err)
			}
			levels := est.Cost - est.GroupCost
			if math.Abs(est.NarrowCost-levels) > 1e-9*levels {
				t.Errorf("%s, %d thread(s), no windows: NarrowCost %.6g, levels' Cost %.6g", q, threads, est.NarrowCost, levels)
			}
		}
	}
	p, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	pl := plan.Build(g, p, plan.Options{MultiplyAutomorphisms: true})
	est, err := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 1, Probes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if levels := est.Cost - est.GroupCost; est.NarrowCost <= 0 || est.NarrowCost > levels/1.5 {
		t.Errorf("triangles in their windows: NarrowCost %.4g, levels' Cost %.4g", est.NarrowCost, levels)
	}
}
