package cpu

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/internal/predicttest"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
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

// TestGenericSeconds: the plain search's price (GenericSeconds, which pbe's inter stage is priced
// from) is the engine's own prediction where the engine searches the plan plainly (R-MAT
// triangles with the clique counter off: the last level counted), on 1 and 16 threads, and
// ignores the postponed groups' steps of a plan that has some; nothing to price without an
// estimate.
func TestGenericSeconds(t *testing.T) {
	countCliquesApart = false
	defer func() { countCliquesApart = true }()
	ctx := context.Background()
	g, err := gen.RMAT(gen.RMATOptions{Scale: 11, EdgeFactor: 16, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if GenericSeconds(nil, 2) != 0 || GenericSeconds(&plan.Estimate{}, 2) != 0 {
		t.Error("priced without an estimate")
	}
	for _, q := range []string{"(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a), (a)-(c)"} {
		prob, pl := planned(t, g, q)
		est, err := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, threads := range []int{1, 16} {
			w := &engine.Workload{Problem: prob, Plan: pl, Bound: pl.NodeBound(), Estimate: &est, Threads: threads}
			got := GenericSeconds(&est, threads)
			if len(pl.Groups) == 0 {
				if want, terms := predict(w).Seconds, (Engine{}).Terms(w); got != want || terms.Summed != "last level counted" {
					t.Errorf("%s on %d threads: %v s, the engine's prediction %v s (%s)", q, threads, got, want, terms.Summed)
				}
				continue
			}
			heavier := est
			heavier.GroupStepCost, heavier.GroupKeptCost = 1e15, 1e15
			if est.GroupCost <= 0 || got <= 0 || GenericSeconds(&heavier, threads) != got {
				t.Errorf("%s: the groups' steps (%v) priced: %v s, %v s with more", q, est.GroupCost, got, GenericSeconds(&heavier, threads))
			}
		}
	}
}

// TestTrianglePrediction: a triangle count, which auto plans (plan.AsClique leaves triangles to
// the planner), is priced as the clique counter that counts it (CliqueSeconds, no longer zero at
// k = 3), labels exact or wildcards, on any thread count; a listing, which searches, is not.
func TestTrianglePrediction(t *testing.T) {
	g := gen.RandomGraphM(4, 400, 4000, 3, 1)
	for _, q := range []string{"(a)-(b)-(c)-(a)", "(a:1)-(b:1)-(c:1)-(a)"} {
		prob, pl := planned(t, g, q)
		for _, threads := range []int{1, 16} {
			w := &engine.Workload{Problem: prob, Plan: pl, Bound: pl.NodeBound(), Threads: threads}
			want := CliqueSeconds(3, plan.UpwardSquares(g), threads)
			if got := predict(w).Seconds; got != want || want <= 0 {
				t.Errorf("%s on %d threads: predicted %v s, the clique counter's price %v s", q, threads, got, want)
			}
			w.Listing = true
			if got := predict(w).Seconds; got == want {
				t.Errorf("%s listed on %d threads: priced as the clique counter (%v s)", q, threads, got)
			}
		}
	}
	if CliqueSeconds(3, 1e9, 1) >= CliqueSeconds(4, 1e9, 1) {
		t.Errorf("triangles priced at %v s, 4-cliques at %v s", CliqueSeconds(3, 1e9, 1), CliqueSeconds(4, 1e9, 1))
	}
}

// planned is the count of pattern q in g (on all cores) and the plan the engine builds for it.
func planned(t *testing.T, g *graph.Graph, q string) (*engine.Problem, *plan.Plan) {
	t.Helper()
	p, err := pattern.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	prob := &engine.Problem{Data: g, Pattern: p}
	opts, err := PlanOptions(prob, false)
	if err != nil {
		t.Fatal(err)
	}
	return prob, plan.Build(g, p, opts)
}
