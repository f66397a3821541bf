package cpu

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/plan"
)

// TestPairSumGroupWindow: plans that break all symmetry with their counted vertices in windows
// (plan.SymmetryBreak with GroupWindows, as symmetryBroken builds them), in random matching
// orders, count what the oracle counts; among them are pair sums whose postponed vertex has a
// window (against levels before the pair: applied to its set; against the pair: the sum is not
// taken). The sum once ignored that window (dense seed 11 in the order 1 3 4 0 2 6 5: 768 for
// 624).
func TestPairSumGroupWindow(t *testing.T) {
	seeds, _ := proptest.Seeds(t, 60, 20)
	ctx := context.Background()
	windowed := 0
	for o := range proptest.WithOracleDense(append([]uint64{11}, seeds...), nil) {
		if o.Sem.Unique || o.Sem.Induced {
			continue
		}
		prob := &engine.Problem{Data: o.G, Pattern: o.P, Semantics: o.Sem, Threads: 1}
		r := rand.New(rand.NewPCG(o.Seed, 17))
		for k := range 4 {
			opts, err := PlanOptions(prob, false)
			if err != nil {
				t.Fatal(err)
			}
			opts.Symmetry, opts.GroupWindows = plan.SymmetryBreak, true
			if k > 0 || o.Seed != 11 {
				opts.Order = r.Perm(o.P.NumVertices())
			} else {
				opts.Order = []int{1, 3, 4, 0, 2, 6, 5}
			}
			pl, err := plan.BuildContext(ctx, o.G, o.P, opts)
			if err != nil {
				t.Fatal(err)
			}
			if ps := pairSumFor(o.G, pl); ps != nil && ps.eg >= 0 {
				if pl.Groups[0].Bounded() {
					windowed++
				}
			}
			res, err := searchPlan(ctx, prob, pl, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Count != o.Want {
				t.Errorf("order %v (x%d): cpu %d, oracle %d\n%s\n%s", opts.Order, pl.Multiplier, res.Count, o.Want,
					pl.Describe(), o.Describe(o.Sem, "", "./engine/cpu -run TestPairSumGroupWindow"))
			}
		}
	}
	t.Logf("%d pair sums with a windowed postponed vertex", windowed)
	if windowed == 0 {
		t.Error("no pair sum had a windowed postponed vertex: the test checks nothing")
	}
}
