package geneva

import (
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/internal/predicttest"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestPredictStops: a prediction stops once its context ends (it reads the workload's figures:
// one check before them), with a plan and without one (not eligible).
func TestPredictStops(t *testing.T) {
	g := gen.RandomGraphM(3, 150, 900, 1, 1)
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(a)")
	if err != nil {
		t.Fatal(err)
	}
	pl := plan.Build(g, p, plan.Options{})
	w := &engine.Workload{Problem: &engine.Problem{Data: g, Pattern: p}, Plan: pl, Bound: pl.NodeBound(), Threads: 2}
	if pr := predicttest.Must(t, Engine{}, w); !pr.Eligible() || pr.Seconds < startSeconds {
		t.Errorf("with a plan: %+v", pr)
	}
	predicttest.Stops(t, Engine{}, w)
	w.Plan = nil
	predicttest.Stops(t, Engine{}, w)
}
