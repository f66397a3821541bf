package cpu

import (
	"context"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// PairSumPatterns are patterns whose plans on some random graphs (see TestPairSumApplies) end in
// two non-adjacent levels and a vertex adjacent to both, counted by the pair sum: STMatch's q4
// (two triangles on an edge joined by a fifth vertex), with an edge label that makes the sets of
// c and d differ (no symmetry between them) and with labelled edges to e; q6 (a wheel: the rim
// vertex opposite the first is the last level, with a symmetry window against it); q4 with e
// adjacent to a too (S_E a list); a 4-cycle with one labelled vertex (e's only parents are v1
// and v2). TestOraclePairSum counts them against the oracle.
var PairSumPatterns = []string{
	"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(d), (c)-(e), (d)-(e)",
	"(a)-(b), (a)-[:1]-(c), (a)-(d), (b)-(c), (b)-(d), (c)-(e), (d)-(e)",
	"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(d), (c)-[:1]-(e), (d)-[:1]-(e)",
	"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(e), (c)-(d), (c)-(e), (d)-(e)",
	"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(d), (c)-(e), (d)-(e), (a)-(e)",
	"(a:1)-(b)-(c)-(d)-(a)",
}

// TestPairSumApplies checks that the embedding plans of PairSumPatterns take the pair sum on
// some of eight random graphs, so that the oracle test exercises it (the order, and so the
// plan's shape, depends on the graph).
func TestPairSumApplies(t *testing.T) {
	for _, src := range PairSumPatterns {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		applies := false
		for seed := uint64(1); seed <= 8 && !applies; seed++ {
			g := gen.RandomGraph(seed, 12, 0.6, 3, 2)
			pl := plan.Build(g, p, plan.Options{MultiplyAutomorphisms: true})
			applies = pairSumFor(g, pl) != nil
		}
		if !applies {
			t.Errorf("%s: no plan counts its last two levels by pairSum", src)
		}
	}
}

// pairSumOrders are patterns with matching orders that end in the pair sum's shape where the
// planner's own orders may not: the key holds a vertex not adjacent to v1 and v2 (x, whose data
// vertex may lie in their sets), a 4-cycle (e, its last level, counted over every vertex in a
// symmetry window), q4 with c and d of different sets, q6, and q4 with e adjacent to a (S_E
// then depends on a, which stays while b changes: the local lists), also with c's and d's sets
// different. (A separate component cannot come
// first: its last vertex is postponed, or demoted to the end of the order by a restriction.)
var pairSumOrders = []struct {
	src   string
	order string
}{
	{"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(d), (c)-(e), (d)-(e), (a)-(x), (x)-(e)", "abxcde"},
	{"(a)-(b)-(c)-(d)-(a)", "abdc"},
	{"(a)-(b), (a)-[:1]-(c), (a)-(d), (b)-(c), (b)-(d), (c)-(e), (d)-(e)", "abcde"},
	{"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(e), (c)-(d), (c)-(e), (d)-(e)", "cabde"},
	{"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(d), (c)-(e), (d)-(e), (a)-(e)", "abcde"},
	{"(a)-(b), (a)-[:1]-(c), (a)-(d), (b)-(c), (b)-(d), (c)-(e), (d)-(e), (a)-(e)", "abcde"},
}

// TestOraclePairSumOrders counts pairSumOrders with their orders against the oracle on random
// graphs under every convention, with and without hub rows for every vertex, with symPairs and
// with the two-pass count where the two sets are equal, with and without the local lists, and
// checks that
// each pattern's plans took the pair sum.
func TestOraclePairSumOrders(t *testing.T) {
	seeds, _ := proptest.Seeds(t, 120, 24)
	ctx := context.Background()
	for _, tc := range pairSumOrders {
		p, err := pattern.Parse(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		var order []int
		for _, r := range tc.order {
			for u := range p.NumVertices() {
				if p.Name(u) == string(r) {
					order = append(order, u)
				}
			}
		}
		applied := 0
		for _, seed := range seeds {
			g := gen.RandomGraph(seed, 7+int(seed%4), []float64{0.4, 0.6, 0.8}[seed%3], 1+int(seed/3%3), 1+int(seed/9%2))
			for _, sem := range proptest.AllSemantics {
				want, ok := oracle.CountWithin(g, p, sem, proptest.DenseOracleBudget)
				if !ok {
					continue
				}
				prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 1}
				opts, err := PlanOptions(prob, false)
				if err != nil {
					t.Fatal(err)
				}
				opts.Order = order
				pl := plan.Build(g, p, opts)
				if pairSumFor(g, pl) != nil {
					applied++
				}
				for variant := range 8 {
					hubs, twoPass, local := variant&1 != 0, variant&2 != 0, variant&4 == 0
					restore := EveryVertexAHub(hubs)
					if twoPass {
						pairSumSymLimit = 0
					}
					pairSumLocal = local
					res, err := Engine{}.CountPlan(ctx, prob, pl, 0)
					pairSumSymLimit, pairSumLocal = 1<<62, true
					restore()
					if err != nil || res.Count != want {
						t.Errorf("%s, order %s, seed %d, %+v, hub rows %v, two passes %v, local lists %v: count %d (err %v), oracle %d", tc.src, tc.order, seed, sem, hubs, twoPass, local, res.Count, err, want)
					}
				}
			}
		}
		if applied == 0 {
			t.Errorf("%s, order %s: no plan took the pair sum", tc.src, tc.order)
		}
	}
}

// TestPredictPairSum: where the pair sum applies (STMatch's q4), Predict leaves the levels after
// v1's out (and says so); where the sum is off, it keeps them.
func TestPredictPairSum(t *testing.T) {
	p, err := pattern.Parse(PairSumPatterns[0])
	if err != nil {
		t.Fatal(err)
	}
	g := gen.RandomGraph(3, 200, 0.2, 1, 1)
	pl := plan.Build(g, p, plan.Options{MultiplyAutomorphisms: true})
	if pairSumFor(g, pl) == nil {
		t.Skip("this plan does not end in the pair sum's shape")
	}
	est, err := pl.Estimate(context.Background(), g, plan.EstimateOptions{Seed: 1, Probes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	w := &engine.Workload{Problem: &engine.Problem{Data: g, Pattern: p}, Plan: pl, Estimate: &est, Threads: 1}
	summed := predict(w)
	restore := PairSum(false)
	looped := predict(w)
	restore()
	if !strings.Contains(summed.Note, "summed by pairs") || strings.Contains(looped.Note, "summed by pairs") {
		t.Errorf("notes %q (sum on) and %q (off)", summed.Note, looped.Note)
	}
	if !(summed.Seconds < looped.Seconds) {
		t.Errorf("predicted %g s with the sum, %g s without", summed.Seconds, looped.Seconds)
	}
}
