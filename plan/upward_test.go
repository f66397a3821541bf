package plan_test

import (
	"math"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/plan"
)

// upwardSquaresOracle is Σ_v |N+(v)|² by a scan of every list.
func upwardSquaresOracle(g *graph.Graph) float64 {
	var sum float64
	for v := range g.NumVertices() {
		up := 0
		for _, u := range g.Neighbors(uint32(v)) {
			if u > uint32(v) {
				up++
			}
		}
		sum += float64(up * up)
	}
	return sum
}

// TestUpwardSquares: exact on a graph of few vertices, within 10% on R-MAT graphs of more
// vertices than it reads (a sample).
func TestUpwardSquares(t *testing.T) {
	small := gen.RandomGraphM(1, 500, 4000, 1, 1)
	if got, want := plan.UpwardSquares(small), upwardSquaresOracle(small); got != want {
		t.Errorf("small graph: %v, want %v", got, want)
	}
	for _, scale := range []int{17, 18} {
		g, err := gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: 8, Seed: uint64(scale)})
		if err != nil {
			t.Fatal(err)
		}
		got, want := plan.UpwardSquares(g), upwardSquaresOracle(g)
		if math.Abs(got-want) > 0.1*want {
			t.Errorf("R-MAT scale %d: %.4g, want %.4g", scale, got, want)
		}
	}
}
