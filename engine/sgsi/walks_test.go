package sgsi_test

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// TestWalkOrders counts dense random-walk queries (issue 21's kind) on a labelled R-MAT graph
// with the host emulation in SGSI's join order, in the core order (the default; Options.PaperOrder takes SGSI's) and in
// the core order with the candidates refined (Options.Refine), in core and out of core,
// against the cpu engine. It checks Stats.PerStep: each step's output is
// the next step's input, the last step's output times |Aut(p)| is the count, and the core order
// puts every leaf after the other vertices; and that the core order's tables hold fewer rows
// over all the queries than SGSI's (issue 21: Algorithm 1's frequencies join the walk's core
// last). Walks of 12 vertices in the deep sweep.
func TestWalkOrders(t *testing.T) {
	ctx := context.Background()
	g, err := gen.RMAT(gen.RMATOptions{Scale: 9, EdgeFactor: 8, VertexLabels: 16, LabelDistribution: gen.ZipfLabels, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	var rows [3]uint64
	refined := uint64(0)
	sizes := []int{6, 8}
	if testenv.Long() {
		sizes = append(sizes, 12) // 18 s on 2 cores
	}
	for _, size := range sizes {
		for i := range 3 {
			p, err := gen.RandomWalkQuery(g, size, gen.QuerySeed(1, size, i), gen.QueryOptions{})
			if err != nil {
				t.Fatal(err)
			}
			prob := &engine.Problem{Data: g, Pattern: p}
			want, err := cpu.Count(ctx, prob)
			if err != nil {
				t.Fatal(err)
			}
			for o, opts := range []sgsi.Options{{PaperOrder: true}, {}, {Refine: true}} {
				for _, f := range []uint64{0, 8} {
					b := uint64(64 << 20)
					if f > 0 {
						b = sgsi.GraphBytes(g) / f
					}
					opts.Host, opts.HostBytes, opts.Buffered = true, b, f > 0
					res, st, err := sgsi.Engine{Options: opts}.CountStats(ctx, prob)
					if err != nil || res.Count != want.Count {
						t.Errorf("walk %d/%d %s, core order %v, refine %v, region 1/%d: sgsi %d (%v), cpu %d", size, i, p, !opts.PaperOrder, opts.Refine, f, res.Count, err, want.Count)
						continue
					}
					checkSteps(t, p, st, !opts.PaperOrder, res.Count)
					refined += st.Refined
					if !opts.Refine && st.Refined != 0 {
						t.Errorf("%d candidates refined away without Options.Refine", st.Refined)
					}
					if f == 0 {
						for _, s := range st.PerStep {
							rows[o] += s.Rows
						}
					}
				}
			}
		}
	}
	t.Logf("table rows over all steps: %d in SGSI's order, %d in the core order, %d refined", rows[0], rows[1], rows[2])
	if refined == 0 {
		t.Errorf("the refinement removed no candidate: the refined runs checked nothing")
	}
	if rows[1] >= rows[0] {
		t.Errorf("the core order's tables hold %d rows, SGSI's %d", rows[1], rows[0])
	}
}

// checkSteps checks a count's Stats.PerStep and, in the core order, that leaves come last among
// the joined vertices (but for vertices joined after them whose neighbours all come before them).
func checkSteps(t *testing.T, p *pattern.Pattern, st sgsi.Stats, core bool, count uint64) {
	t.Helper()
	n := p.NumVertices()
	if len(st.Order) != n || st.Steps > n-1 || len(st.PerStep) < st.Steps || len(st.PerStep) > st.Steps+1 ||
		(len(st.PerStep) == st.Steps && st.Steps != n-1) {
		t.Fatalf("%d steps (%d joins), order %v, for %d vertices", len(st.PerStep), st.Steps, st.Order, n)
	}
	for i := 0; i+1 < len(st.PerStep); i++ {
		if st.PerStep[i].Out != st.PerStep[i+1].Rows {
			t.Errorf("step %d writes %d rows, step %d reads %d", i, st.PerStep[i].Out, i+1, st.PerStep[i+1].Rows)
		}
	}
	if last := st.PerStep[len(st.PerStep)-1].Out; count%max(last, 1) != 0 || (last == 0) != (count == 0) {
		t.Errorf("the last step's %d matches do not divide the count %d", last, count)
	}
	leaf := false
	before := uint32(0)
	for i, u := range st.Order[:st.Steps+1] { // (the joined vertices: the counted ones follow)
		closing := p.NeighborMask(u)&^before == 0
		if core && leaf && p.Degree(u) > 1 && !closing {
			t.Errorf("core order %v: vertex %d of degree %d after a leaf", st.Order, u, p.Degree(u))
		}
		leaf = leaf || (i > 0 && p.Degree(u) == 1)
		before |= 1 << u
	}
}
