package cpu

import (
	"context"
	"errors"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
)

// TestShapeCutCountsSoFar (branch shapeprog): a shape or clique count cut part-way is partial
// with the context's error and its count the instances counted so far where that is a lower
// bound (before, a shape's cut count was 0): above 0 when cut near its end and no more than the
// whole count; 0 for a house (a difference of passes). Both report progress rising to 1. The cut
// is deterministic: on one thread, the progress function cancels the context at the whole
// count's last report below 1.
func TestShapeCutCountsSoFar(t *testing.T) {
	withShapes(t)
	ctx := context.Background()
	g, err := gen.RMAT(gen.RMATOptions{Scale: 10, EdgeFactor: 8, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	pats := []*pattern.Pattern{proptest.Clique(t, 3, "", ""), proptest.Clique(t, 4, "", "")}
	for _, s := range shapeEdges {
		pats = append(pats, shapePattern(t, s.edges, "", ""))
	}
	for _, p := range pats {
		prob := &engine.Problem{Data: g, Pattern: p, Threads: 1}
		sh, isShape := shapeFor(prob)
		var prog proptest.Progress
		whole := *prob
		whole.Progress = prog.Record
		want, err := Engine{}.Count(ctx, &whole)
		if err != nil || want.Count == 0 {
			t.Fatalf("%s: whole count %d, %v", p, want.Count, err)
		}
		cutCtx, progress, cancel := proptest.CutAt(ctx, prog.LastBelowOne(t, p.String(), 0))
		cut := *prob
		cut.Progress = progress
		res, err := Engine{}.Count(cutCtx, &cut)
		cancel()
		if !errors.Is(err, context.Canceled) || !res.Partial {
			t.Fatalf("%s: cut count %d, partial %v, %v", p, res.Count, res.Partial, err)
		}
		difference := isShape && (sh.Name() == "house" || sh.Name() == "tailed-4-cycle")
		switch {
		case difference && res.Count != 0:
			t.Errorf("%s: cut, %d counted; want none (a difference)", p, res.Count)
		case !difference && (res.Count == 0 || res.Count > want.Count):
			t.Errorf("%s: cut near its end, %d counted of %d; want a lower bound above 0", p, res.Count, want.Count)
		}
	}
}
