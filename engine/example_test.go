package engine_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// A Predictor predicts an engine's time for a workload (what --engine auto decides on); its
// context stops it: once the context has ended, Predict returns an error wrapping the context's.
func ExamplePredictor() {
	g := gen.RandomGraphM(1, 200, 1000, 1, 1)
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(a)")
	if err != nil {
		panic(err)
	}
	pl := plan.Build(g, p, plan.Options{})
	w := &engine.Workload{Problem: &engine.Problem{Data: g, Pattern: p}, Plan: pl, Bound: pl.NodeBound(), Threads: 1}
	var pr engine.Predictor = cpu.Engine{}
	ctx, cancel := context.WithCancel(context.Background())
	if pred, err := pr.Predict(ctx, w); err == nil {
		fmt.Println("eligible:", pred.Eligible())
	}
	cancel() // (Ctrl-C, or --timeout's deadline)
	_, err = pr.Predict(ctx, w)
	fmt.Println("stopped:", errors.Is(err, context.Canceled))
	// Output:
	// eligible: true
	// stopped: true
}
