package pbe

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
)

// TestInterShapeCutCountsSoFar (branch shapeprog): a count cut within its inter stage's shape
// is partial with the context's error and its count the parts' matches plus the spanning
// instances the shape counted so far, a lower bound (before, the parts' alone: FR's triangles
// cut at 200 s and at 470 s printed the same count); a house, whose count is a difference of
// passes, adds none. The inter stage reports its progress from one half to the whole. The cut is
// deterministic: on one thread, the progress function cancels the context at the inter stage's
// last report below 1 in a whole count (its work from then on is at least that far).
func TestInterShapeCutCountsSoFar(t *testing.T) {
	ctx := context.Background()
	g, err := gen.RMAT(gen.RMATOptions{Scale: 10, EdgeFactor: 8, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	pats := []*pattern.Pattern{
		proptest.Clique(t, 3, "", ""), proptest.Clique(t, 4, "", ""), diamondPattern(t, "", ""), pawPattern(t, "", ""),
		proptest.EdgesPattern(t, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}}, -1, -1),
		proptest.EdgesPattern(t, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 4}, {4, 1}}, -1, -1), // a house
	}
	for _, p := range pats {
		for _, sem := range []engine.Semantics{{}, {Unique: true}} {
			e := &Engine{Budget: partition.GraphBytes(g) / 4, Partitioner: partition.Grow}
			prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 1}
			want, err := cpu.Count(ctx, prob)
			if err != nil {
				t.Fatal(err)
			}
			var prog proptest.Progress
			whole := *prob
			whole.Progress = prog.Record
			res, st, err := e.CountStats(ctx, &whole)
			if err != nil || res.Count != want.Count || st.InterShape == "" || st.InterMatches == 0 {
				t.Fatalf("%s %v: whole count %d (%v) by shape %q, %d inter; cpu %d", p, sem, res.Count, err, st.InterShape, st.InterMatches, want.Count)
			}
			// (The parts report up to one half.)
			cutCtx, progress, cancel := proptest.CutAt(ctx, prog.LastBelowOne(t, fmt.Sprintf("%s %v", p, sem), 0.5))
			cut := *prob
			cut.Progress = progress
			res, st, err = e.CountStats(cutCtx, &cut)
			cancel()
			if !errors.Is(err, context.Canceled) || !res.Partial {
				t.Fatalf("%s %v: cut count %d, partial %v, %v", p, sem, res.Count, res.Partial, err)
			}
			house := st.InterShape == "house"
			switch {
			case res.Count != st.IntraMatches+st.InterMatches:
				t.Errorf("%s %v: cut count %d; the parts' %d and the inter stage's %d", p, sem, res.Count, st.IntraMatches, st.InterMatches)
			case house && st.InterMatches != 0:
				t.Errorf("%s %v: a house cut counted %d spanning; want none (a difference)", p, sem, st.InterMatches)
			case !house && (st.InterMatches == 0 || res.Count > want.Count):
				t.Errorf("%s %v: cut near the end, count %d (%d spanning) of %d; want a lower bound above the parts'", p, sem, res.Count, st.InterMatches, want.Count)
			}
		}
	}
}
