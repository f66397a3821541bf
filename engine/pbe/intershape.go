package pbe

import (
	"context"
	"fmt"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/internal/shapes"
)

// The host inter stage counts small patterns as shapes without its seeded search (branches
// pbeclique, pbetail, pbehouse): cliques of 3 or more vertices, diamonds, tailed triangles,
// 4-paths, 4-cycles, houses and tailed 4-cycles with uniform labels, induced diamonds, 4-paths
// and 4-cycles too, by the counters of package engine/internal/shapes, which count the instances
// that span more than one part of the partitioning directly (the graph's sums less each part's,
// in one pass). Listing keeps the seeded search (interPlan), which lists every instance; so does
// the GPU inter stage, and a shape beyond --memory.

// shapeFor returns how the inter stage of p's count counts it as a shape (shapes.Of, within the
// host memory the inter stage has, interLimit), false when it is none or the engine does not
// count shapes (noShapes, or the inter stage on the GPU).
func (e *Engine) shapeFor(p *engine.Problem, st *Stats) (shapes.Shape, bool) {
	if e.noShapes || e.InterBackend == InterGPU {
		return shapes.Shape{}, false
	}
	return shapes.Of(p, e.interLimit(p, st))
}

// interByShape counts the inter stage of p's count as the shape sh, setting st's InterMatches,
// InterShape and InterHostBytes: ctx's error when ctx ended (the count then partial:
// InterMatches what the shape counted so far, a lower bound, or 0 where its count is a
// difference of passes, Shape.Count), else the count's failure, wrapped. It reports p's
// progress from one half (the intra stage's share: countIntra) to the whole.
func (e *Engine) interByShape(ctx context.Context, p *engine.Problem, of []uint32, sh shapes.Shape, st *Stats) error {
	st.InterHostBytes, st.InterShape = sh.Bytes, sh.Name()
	p.Logger().Debug("pbe: the inter stage counts as a shape", "shape", sh.Name(), "bytes", sh.Bytes, "threads", sh.Threads,
		"matrix", sh.MatrixMax)
	q := *p
	if report := p.Progress; report != nil {
		q.Progress = func(done float64) { report(0.5 + 0.5*done) }
	}
	n, err := sh.Count(ctx, &q, of)
	st.InterMatches = n
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("pbe: the inter stage's %s count: %w", sh.Name(), err)
	}
	return err
}
