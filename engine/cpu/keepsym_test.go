package cpu

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/plan"
)

// TestKeepsSymmetry: where keepsSymmetry says a plan keeps none of its pattern's symmetry (so
// symmetryBroken builds no other plan), the plan that breaks all of it multiplies by no more,
// which symmetryBroken would have rejected; where it says the plan keeps some, that plan
// multiplies by more. Both happen among the random cases (else the test checks nothing).
func TestKeepsSymmetry(t *testing.T) {
	seeds, _ := proptest.Seeds(t, 150, 40)
	ctx := context.Background()
	var kept, none int
	check := func(o proptest.Oracled) {
		if o.Sem.Unique || o.Sem.Induced {
			return
		}
		prob := &engine.Problem{Data: o.G, Pattern: o.P, Semantics: o.Sem, Threads: 1}
		opts, err := PlanOptions(prob, false)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := plan.BuildContext(ctx, o.G, o.P, opts)
		if err != nil || pl.Empty {
			return
		}
		opts.Symmetry, opts.GroupWindows = plan.SymmetryBreak, true
		alt, err := plan.Rebuild(ctx, o.G, pl, opts)
		if err != nil {
			t.Fatal(err)
		}
		if keepsSymmetry(pl) {
			kept++
			if alt.Multiplier <= pl.Multiplier {
				t.Errorf("plan x%d said to keep symmetry, the broken plan multiplies by %d\n%s", pl.Multiplier, alt.Multiplier, pl.Describe())
			}
			return
		}
		none++
		if alt.Multiplier > pl.Multiplier {
			t.Errorf("plan x%d said to keep no symmetry, the broken plan multiplies by %d\n%s", pl.Multiplier, alt.Multiplier, pl.Describe())
		}
	}
	for o := range proptest.WithOracleDense(seeds, nil) {
		check(o)
	}
	for o := range proptest.WithOracle(seeds, nil) {
		check(o)
	}
	t.Logf("%d plans keep some symmetry, %d none", kept, none)
	if kept == 0 || none == 0 {
		t.Error("the cases do not cover both answers: the test checks nothing")
	}
}
