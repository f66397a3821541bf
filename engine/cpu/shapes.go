package cpu

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/internal/shapes"
	"github.com/submatch/submatch/graph"
)

// Small patterns other than cliques are counted without the general search where package
// engine/internal/shapes counts them (diamonds, tailed triangles, 4-paths, 4-cycles, houses and
// tailed 4-cycles with uniform labels; induced diamonds, 4-paths and 4-cycles): passes over the
// edges' common neighbours and over the wedges, whole-graph sums in closed form. The general
// search enumerated a house's 4-paths under its roof (R-MAT 14 with 8 labels: over 60 s, against
// 3.5 CPU s for pbe's spanning count: docs/benchmarks.md, wildshape). Listing keeps the search.

// countShapesApart turns the shape counters on; tests turn it off to check them against the
// general search.
var countShapesApart = true

// shapeCountsUsed counts the counts that took a shape counter (tests).
var shapeCountsUsed atomic.Int64

// shapeFor returns the shape p's count takes (shapes.Of, within p.MemoryLimit: smaller clique
// matrices, then fewer workers), false when p is none, a clique (cliques.go counts those), or
// the shape does not fit the limit (the search, which may take less, then counts it).
func shapeFor(p *engine.Problem) (shapes.Shape, bool) {
	if !countShapesApart || p == nil || p.Data == nil || p.Pattern == nil {
		return shapes.Shape{}, false
	}
	sh, ok := shapes.Of(p, p.MemoryLimit)
	if !ok || sh.IsClique() {
		return shapes.Shape{}, false
	}
	return sh, true
}

// countShape counts p's matches as the shape sh over the whole graph, reporting p.Progress: a
// partial result and ctx's error when ctx ends (its count what the shape counted so far, a
// lower bound, or 0 where the shape's count is a difference of passes: Shape.Count),
// engine.ErrOverflow when the count does not fit a uint64.
func countShape(ctx context.Context, p *engine.Problem, sh shapes.Shape, planTime time.Duration) (engine.Result, error) {
	shapeCountsUsed.Add(1)
	p.Logger().Debug("cpu: counting as a shape", "shape", sh.Name(), "bytes", sh.Bytes, "threads", sh.Threads)
	n, err := sh.Count(ctx, p, nil)
	switch {
	case err == nil:
		return engine.Result{Count: n, PlanTime: planTime}, nil
	case ctx.Err() != nil && !errors.Is(err, engine.ErrOverflow):
		return engine.Result{Count: n, Partial: true, PlanTime: planTime}, err
	case errors.Is(err, engine.ErrOverflow):
		return engine.Result{}, err
	}
	return engine.Result{}, fmt.Errorf("cpu engine: the %s count: %w", sh.Name(), err)
}

// ShapeRates are a shape count's times over the CPU engine's prices of what it shares: Pass,
// Wedge and House over the price of one pass over the edges' common neighbours
// (SupportPassSeconds, whose list entries also bound the wedges the wedge pass walks) for an
// edges' pass (diamonds, tailed triangles, 4-paths), a 4-cycle's wedge pass, and a house's or a
// tailed 4-cycle's passes (an edges' pass, then the wedge pass summing its supports or degrees);
// Clique over the clique counter's (CliqueSeconds) for the 4-cliques of an induced shape.
type ShapeRates struct{ Pass, Wedge, House, Clique float64 }

// WholeShapeRates are this engine's, for its whole counts (shapes.Shape.Count without parts).
// Fitted (2-core VM at load 8-12, 2026-12-06, branch cpushapes, docs/benchmarks.md): whole
// processes' CPU seconds (2 threads, the graph's load included) over those prices on R-MAT 16
// (edge factor 16), unlabelled and with 8 vertex labels (wildcards: the lists copied first):
// diamonds 1.03 and 1.29, tailed triangles 1.19 and 1.24, 4-paths 1.09 and 1.29; 4-cycles 2.79
// and 3.41; tailed 4-cycles 6.0 and 6.7, houses 6.1. The induced shapes' sums are not fitted
// (each pass at its own price, the 4-cliques at the clique counter's).
var WholeShapeRates = ShapeRates{Pass: 1.2, Wedge: 3, House: 6, Clique: 1}

// ShapeSeconds is the predicted time of a shape count that makes work's passes on g on threads
// threads, at rates; upwardSquares (plan.UpwardSquares) is read for the clique counter only.
func ShapeSeconds(work shapes.Work, rates ShapeRates, g *graph.Graph, upwardSquares func() float64, threads int) float64 {
	pass := SupportPassSeconds(g, threads)
	s := rates.Pass * float64(work.EdgePasses) * pass
	switch work.Wedge {
	case shapes.WedgeCycle:
		s += rates.Wedge * pass
	case shapes.WedgeHouse, shapes.WedgeTailedCycle:
		s += rates.House * pass
	}
	if work.CliqueK >= 4 {
		s += rates.Clique * CliqueSeconds(work.CliqueK, upwardSquares(), threads)
	}
	return s
}

// shapePrediction is the prediction of w's count where it takes a shape counter (shapeFor, at
// w's memory limit), false where it does not (a listing, or no shape).
func shapePrediction(w *engine.Workload, threads int) (engine.Prediction, bool) {
	if w.Listing {
		return engine.Prediction{}, false
	}
	sh, ok := shapeFor(w.Problem)
	if !ok {
		return engine.Prediction{}, false
	}
	threads = min(threads, sh.Threads)
	return engine.Prediction{Seconds: ShapeSeconds(sh.Work(), WholeShapeRates, w.Problem.Data, w.UpwardSquares, threads),
		Note: fmt.Sprintf("the %s counter on %d thread(s)", sh.Name(), threads)}, true
}
