//go:build noterms

package main

import (
	"context"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/auto"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/plan"
)

// terms is empty where the CPU engine has no Terms (commits before issue 17's branch autoc:
// build with -tags noterms).
func terms(*engine.Workload) string { return "" }

func runPlan(*auto.Decision) *plan.Plan         { return nil }
func runEstimate(*auto.Decision) *plan.Estimate { return nil }

func estimateAgain(ctx context.Context, pl *plan.Plan, g *graph.Graph, probes, _ int) (plan.Estimate, error) {
	return pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 1, Probes: probes})
}
