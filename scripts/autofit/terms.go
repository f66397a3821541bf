//go:build !noterms

package main

import (
	"context"
	"fmt"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/auto"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/plan"
)

// terms renders the CPU engine's predicted work for w (cpu.Engine.Terms): nodes, level steps,
// group steps, pair-sum pass.
func terms(w *engine.Workload) string {
	t := cpu.Engine{}.Terms(w)
	return fmt.Sprintf("%.3g,%.3g,%.3g,%.3g", t.Nodes, t.LevelSteps, t.GroupSteps, t.PassSteps)
}

// runPlan is the plan the CPU engine counts with when auto estimated it apart (nil: the plan
// built), and runEstimate its estimate.
func runPlan(d *auto.Decision) *plan.Plan         { return d.RunPlan }
func runEstimate(d *auto.Decision) *plan.Estimate { return &d.RunEstimate }

// estimateAgain estimates pl with probes probes and no work limit, the lists of vertices of
// degree rowDegree or more priced as hub rows (0: none).
func estimateAgain(ctx context.Context, pl *plan.Plan, g *graph.Graph, probes, rowDegree int) (plan.Estimate, error) {
	return pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 1, Probes: probes, RowDegree: rowDegree})
}
