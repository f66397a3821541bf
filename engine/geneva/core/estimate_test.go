package core

import (
	"context"
	"math"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestEstimateBranch checks the branching factors against a direct count when every candidate
// is sampled (lists shorter than estimateSample), and that the cost-aware order is a valid plan.
func TestEstimateBranch(t *testing.T) {
	checked := 0
	for seed := uint64(1); seed <= 20; seed++ {
		g := gen.RandomGraph(seed, 60, 0.15, 3, 2)
		q := gen.RandomPattern(seed, 5, gen.PatternOptions{VertexLabels: 3, EdgeLabels: 2})
		pl, err := plan.BuildContext(context.Background(), g, q, plan.Options{Enumerate: true, SpaceLimit: -1})
		if err != nil {
			t.Fatal(err)
		}
		if pl.Empty {
			continue
		}
		est := Estimate(g, q, pl.Candidates, pl.CandidateBits)
		for _, e := range q.Edges() {
			for _, d := range [][2]int{{e.U, e.V}, {e.V, e.U}} {
				from, to := d[0], d[1]
				want := 0.0
				for _, x := range pl.Candidates[from] {
					for j, y := range g.Neighbors(x) {
						l := uint32(0)
						if ls := g.NeighborEdgeLabels(x); ls != nil {
							l = ls[j]
						}
						if pl.CandidateBits[to].Has(y) && (e.Label.Any || l == e.Label.Value) {
							want++
						}
					}
				}
				if n := len(pl.Candidates[from]); n > 0 {
					want /= float64(n)
				}
				checked++
				if got := est.Branch[from][to]; math.Abs(got-want) > 1e-9 {
					t.Errorf("seed %d: branch %d->%d = %v, want %v", seed, from, to, got, want)
				}
			}
		}
		checkPlanCovers(t, q, MatchOrderEstimated(q, est))
	}
	if checked < 20 {
		t.Fatalf("only %d branching factors checked", checked)
	}
}

// checkPlanCovers checks that a plan matches every query vertex once and checks every edge once.
func checkPlanCovers(t *testing.T, q *pattern.Pattern, pl *Plan) {
	t.Helper()
	seen := map[int]bool{}
	for _, u := range pl.Order {
		if seen[u] {
			t.Fatalf("vertex %d matched twice in %v", u, pl.Order)
		}
		seen[u] = true
	}
	if len(seen) != q.NumVertices() {
		t.Fatalf("order %v misses vertices of a %d-vertex query", pl.Order, q.NumVertices())
	}
	edges := 0
	for _, ph := range pl.Phases {
		edges += len(ph.Edges)
	}
	if edges != q.NumEdges() {
		t.Fatalf("phases cover %d edges, query has %d", edges, q.NumEdges())
	}
}
