package cpu

import (
	"context"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// LastSumPatterns are patterns whose embedding plans on some random graphs (see TestLastSumApplies) end in a level counted with
// the postponed vertex below it (lastSum): two triangles sharing a vertex (STMatch's q1) with and
// without vertex and edge labels, a diamond and a chain of triangles with a triangle hanging on
// one vertex (the key leaves out two levels), and a triangle with a path of two on its shared
// vertex. TestOracleLastSum counts them, and others where the sum does not apply, against the
// oracle.
var LastSumPatterns = []string{
	"(a)-(b)-(c)-(a), (c)-(d)-(e)-(c)",
	"(a)-[:1]-(b)-(c)-(a), (c)-(d)-[:1]-(e)-(c)",
	"(a)-(b)-(c)-(a), (c)-(d)-[:1]-(e)-(c)",
	"(a)-(b)-(c:1)-(a), (c)-(d)-(e)-(c)",
	"(a:0)-(b:0), (a)-(c:1), (b)-(c), (c)-(d:0), (c)-(e:0), (d)-(e)",
	"(a)-(b)-(c)-(d)-(a), (b)-(d), (c)-(e)-(f)-(c)",
	"(a)-(b)-(c)-(a), (b)-(c)-(d)-(b), (c)-(e)-(f)-(c)",
	"(c)-(a), (c)-(d)-(e)-(c), (a)-(b)-(c)",
	// The key is every earlier level (e's parents are all of them): STMatch's q5, q14 and q21,
	// and q5 with an edge label.
	"(a)-(b), (a)-(c), (a)-(d), (a)-(e), (b)-(c), (b)-(d), (b)-(e), (d)-(e)",
	"(a)-(b), (a)-(c), (a)-(d), (a)-(e), (b)-(c), (b)-(d), (b)-(e), (c)-(d), (c)-(e), (c)-(f), (d)-(e), (d)-(f), (e)-(f)",
	"(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (b)-(c), (b)-(d), (b)-(e), (b)-(f), (c)-(d), (c)-(e), (c)-(f), (c)-(g), (d)-(e), (d)-(f), (d)-(g), (e)-(f), (e)-(g), (f)-(g)",
	"(a)-(b), (a)-(c), (a)-(d), (a)-(e), (b)-(c), (b)-(d), (b)-(e), (d)-[:1]-(e)",
}

// TestLastSumApplies checks that the embedding plans of LastSumPatterns take the last-level sum
// on some of six random graphs, so that the oracle test exercises it (the order, and so the
// plan's shape, depends on the graph).
func TestLastSumApplies(t *testing.T) {
	for _, src := range LastSumPatterns {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		applies := false
		for seed := uint64(1); seed <= 6 && !applies; seed++ {
			g := gen.RandomGraph(seed, 14, 0.5, 2, 2)
			pl := plan.Build(g, p, plan.Options{MultiplyAutomorphisms: true})
			applies = lastSumFor(g, pl, newLC(g, pl)) != nil
		}
		if !applies {
			t.Errorf("%s: no plan counts its last level by lastSum", src)
		}
	}
}

func newLC(g *graph.Graph, pl *plan.Plan) *leafCounter {
	lc := &leafCounter{}
	lc.init(g, pl)
	return lc
}

// TestPredictLastSum: where the last level is summed with a shared key (q1's shape), Predict
// leaves the last level's nodes out (and says so); where the sum is off, it keeps them.
func TestPredictLastSum(t *testing.T) {
	p, err := pattern.Parse("(a)-(b), (a)-(c), (b)-(c), (c)-(d), (c)-(e), (d)-(e)")
	if err != nil {
		t.Fatal(err)
	}
	g := gen.RandomGraph(3, 200, 0.2, 1, 1)
	pl := plan.Build(g, p, plan.Options{MultiplyAutomorphisms: true})
	if !lastSumSkipsLevel(g, pl) {
		t.Skip("this plan does not sum its last level with a shared key")
	}
	est, err := pl.Estimate(context.Background(), g, plan.EstimateOptions{Seed: 1, Probes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	w := &engine.Workload{Problem: &engine.Problem{Data: g, Pattern: p}, Plan: pl, Estimate: &est, Threads: 1}
	summed := predict(w)
	restore := LastSum(false)
	looped := predict(w)
	restore()
	if !strings.Contains(summed.Note, "last level summed") || strings.Contains(looped.Note, "last level summed") {
		t.Errorf("notes %q (sum on) and %q (off)", summed.Note, looped.Note)
	}
	if !(summed.Seconds < looped.Seconds) {
		t.Errorf("predicted %g s with the sum, %g s without", summed.Seconds, looped.Seconds)
	}
}
