package shapes

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/internal/cliques"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/proptest"
)

// TestCutCountsLowerBound (branch shapeprog): a count cut by its context part-way returns what
// it counted so far with the context's error, where that is a lower bound (cliques, induced or
// not, non-induced diamonds, tailed triangles, 4-paths and 4-cycles: more than none once all but the last range
// of vertices or roots were counted, and no more than the whole count), and 0 where the shape's
// count is a difference of passes (other induced shapes, houses, tailed 4-cycles). The cut is
// deterministic: on one thread, the progress function cancels the context when it reports the
// whole count's last report but one (the stop flag is set later, on AfterFunc's goroutine: the
// count goes on at least that far, maybe to its end). A whole count reports its progress rising
// to 1.
func TestCutCountsLowerBound(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 10, EdgeFactor: 8, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	parts := make([]uint32, g.NumVertices())
	for v := range parts {
		parts[v] = uint32(v % 3)
	}
	k5 := [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 2}, {1, 3}, {1, 4}, {2, 3}, {2, 4}, {3, 4}}
	type shapeCase struct {
		name    string
		edges   [][2]int
		induced bool
	}
	cases := []shapeCase{{"5-clique", k5, false}}
	for _, s := range reviewShapes {
		cases = append(cases, shapeCase{s.name, s.edges, false})
		if s.induced {
			cases = append(cases, shapeCase{s.name, s.edges, true})
		}
	}
	defer func(limit int) { cliques.MatrixLimit = limit }(cliques.MatrixLimit)
	for _, limit := range []int{cliques.MatrixLimit, 0} { // (0: every clique root's set split, no matrix)
		cliques.MatrixLimit = limit
		for _, c := range cases {
			for _, of := range [][]uint32{nil, parts} {
				sem := engine.Semantics{Induced: c.induced}
				what := fmt.Sprintf("%s %v, matrix %d, parts %v", c.name, sem, limit, of != nil)
				checkCut(t, what, &engine.Problem{Data: g, Pattern: proptest.EdgesPattern(t, c.edges, -1, -1), Semantics: sem, Threads: 1}, of)
			}
		}
	}
}

// checkCut checks prob's count (one thread) cut near its end against its whole count
// (TestCutCountsLowerBound).
func checkCut(t *testing.T, what string, prob *engine.Problem, of []uint32) {
	t.Helper()
	sh, ok := Of(prob, 0)
	if !ok {
		t.Fatalf("%s: not a shape", what)
	}
	var prog proptest.Progress
	whole := *prob
	whole.Progress = prog.Record
	want, err := sh.Count(context.Background(), &whole, of)
	if err != nil || want == 0 {
		t.Fatalf("%s: whole count %d, %v: nothing to cut", what, want, err)
	}
	ctx, progress, cancel := proptest.CutAt(context.Background(), prog.LastBelowOne(t, what, 0))
	defer cancel()
	cut := *prob
	cut.Progress = progress
	got, err := sh.Count(ctx, &cut, of)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("%s: cut count %d, %v; want context.Canceled", what, got, err)
	}
	direct := sh.IsClique() || !prob.Semantics.Induced && sh.Name() != "house" && sh.Name() != "tailed-4-cycle"
	switch {
	case direct && (got == 0 || got > want):
		t.Errorf("%s: cut near its end, count %d of %d; want a lower bound above 0", what, got, want)
	case !direct && got != 0:
		t.Errorf("%s: cut, a difference of passes returned %d (of %d); want 0", what, got, want)
	}
}
