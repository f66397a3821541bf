package graph_test

import (
	"math/rand/v2"
	"testing"

	"github.com/submatch/submatch/gen"
)

// TestRunsWithVertexLabelRandomReview: on random graphs whose vertices hold from none to over
// 16 runs (the scan's bound; above it, the binary search), RunsWithVertexLabel gives, for every
// vertex and every label (those absent from the graph too), the range a linear scan of the runs
// finds: the runs of that vertex label, or an empty range where they would be.
func TestRunsWithVertexLabelRandomReview(t *testing.T) {
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 2636))
		vls, els := 1+rng.IntN(30), 1+rng.IntN(4)
		g := gen.RandomGraph(seed, 1+rng.IntN(80), rng.Float64(), vls, els)
		for v := range uint32(g.NumVertices()) {
			runs := g.Runs(v)
			for vl := range uint32(vls + 2) {
				lo := 0
				for lo < len(runs) && runs[lo].VertexLabel < vl {
					lo++
				}
				hi := lo
				for hi < len(runs) && runs[hi].VertexLabel == vl {
					hi++
				}
				if gotLo, gotHi := g.RunsWithVertexLabel(v, vl); gotLo != lo || gotHi != hi {
					t.Fatalf("seed %d, vertex %d (%d runs), label %d: [%d, %d), want [%d, %d)", seed, v, len(runs), vl, gotLo, gotHi, lo, hi)
				}
			}
		}
	}
}
