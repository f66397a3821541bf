package pbe

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/testenv"
)

// TestInterSparseRandomCuts counts and lists the inter stage of sparse random patterns (trees
// and near-trees of 3-7 vertices: leaves, counted tails, leaf seeds, collision classes, with
// vertex and edge labels and wildcards) on dense small labelled graphs cut at random (every
// vertex in a random part of 2-4, not ranges: cut edges everywhere, so that DUPREMOVE's bound
// falls inside the seeds' runs and the counted lists), in every convention, shared and not, on
// 1 and 3 threads, against the oracle's matches that span parts. Review of branch pbeq8.
func TestInterSparseRandomCuts(t *testing.T) {
	cases := testenv.Sweep(120, 3000)
	base := uint64(0)
	if s := os.Getenv("PBE_REVIEW_BASE"); s != "" {
		base, _ = strconv.ParseUint(s, 10, 64)
	}
	ran, found, leaves, tails := 0, 0, 0, 0
	for seed := base; seed < base+uint64(cases); seed++ {
		r := rand.New(rand.NewPCG(seed, 29))
		n := 9 + r.IntN(8)
		vl, el := 1+r.IntN(3), 1+r.IntN(2)
		g := gen.RandomGraph(seed, n, 0.35+0.5*r.Float64(), vl, el)
		of := make([]uint32, g.NumVertices())
		parts := 2 + r.IntN(3)
		for v := range of {
			of[v] = uint32(r.IntN(parts))
		}
		pn := 3 + r.IntN(5)
		opts := gen.PatternOptions{EdgeProb: []float64{0, 0, 0.15, 0.3}[r.IntN(4)], VertexLabels: vl, EdgeLabels: el,
			Wildcard: []float64{0, 0, 0.2, 0.5}[r.IntN(4)]}
		p := gen.RandomPattern(seed, pn, opts)
		recipe := fmt.Sprintf("seed %d: gen.RandomGraph(%d, %d, ..., %d, %d), pattern %v", seed, seed, n, vl, el, p)
		for _, sem := range proptest.AllSemantics {
			want, ok := interOracle(g, p, sem, of)
			if !ok {
				continue
			}
			prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem}
			for _, shared := range []bool{false, true} {
				ip, err := interPlanFor(context.Background(), prob, true, shared)
				if err != nil {
					t.Fatal(err)
				}
				for _, pr := range ip.programs {
					if pr.leafSeed {
						leaves++
					}
					if pr.tail < len(pr.steps)-1 {
						tails++
					}
				}
				for _, threads := range []int{1, 3} {
					st, _ := runInter(context.Background(), g, of, entryBytes(g), ip, threads, nil)
					if got, _ := ip.total(st.matches); got != want || st.overflow {
						t.Fatalf("%s\n%v shared %v, %d threads: %d inter matches, oracle %d", recipe, sem, shared, threads, got, want)
					}
				}
				lp, err := interPlanFor(context.Background(), prob, false, shared)
				if err != nil {
					t.Fatal(err)
				}
				var listed uint64
				runInter(context.Background(), g, of, entryBytes(g), lp, 1, lp.expand(func(m []uint32) bool {
					if !oracle.Valid(g, p, sem, m) || !spans(of, m) {
						t.Fatalf("%s\n%v shared %v: listed %v, not an inter-partition match", recipe, sem, shared, m)
					}
					listed++
					return true
				}))
				if listed != want {
					t.Fatalf("%s\n%v shared %v: %d listed, oracle %d", recipe, sem, shared, listed, want)
				}
			}
			ran++
			if want > 0 {
				found++
			}
		}
	}
	if found < ran/3 || leaves == 0 || tails == 0 {
		t.Fatalf("%d runs, %d with matches; %d leaf-seed programs, %d counted tails", ran, found, leaves, tails)
	}
	t.Logf("%d runs, %d with matches; %d leaf-seed programs, %d counted tails", ran, found, leaves, tails)
}
