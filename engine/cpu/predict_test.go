package cpu

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/internal/predicttest"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestPredictStops: a prediction stops once its context ends (its passes over the graph are
// sampled or a few milliseconds: one check before them), for an estimated search, a bounded one
// and a clique; the prediction is the one a count's own choice of plan makes (predict).
func TestPredictStops(t *testing.T) {
	g := gen.RandomGraphM(3, 300, 3000, 1, 1)
	for _, q := range []string{"(a)-(b)-(c)-(d)-(a)", "(a)-(b)-(c)-(a), (c)-(d)", "(a)-(b)-(c)-(a), (a)-(d), (b)-(d), (c)-(d)"} {
		p, err := pattern.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		prob := &engine.Problem{Data: g, Pattern: p, Threads: 2}
		opts, err := PlanOptions(prob, false)
		if err != nil {
			t.Fatal(err)
		}
		pl := plan.Build(g, p, opts)
		w := &engine.Workload{Problem: prob, Plan: pl, Bound: pl.NodeBound(), Threads: 2}
		predicttest.Stops(t, Engine{}, w)
		est, err := pl.Estimate(context.Background(), g, plan.EstimateOptions{Seed: 1, Probes: 500})
		if err != nil {
			t.Fatal(err)
		}
		w.Estimate = &est
		if pr := predicttest.Must(t, Engine{}, w); pr != predict(w) {
			t.Errorf("%s: Predict %+v, predict %+v", q, pr, predict(w))
		}
		predicttest.Stops(t, Engine{}, w)
		if cl, ok := plan.AsClique(g, p); ok {
			predicttest.Stops(t, Engine{}, &engine.Workload{Problem: prob, Clique: &cl, Threads: 2})
		}
	}
}
