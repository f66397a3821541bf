package partition

import (
	"context"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/sharedtest"
)

// BenchmarkWeightTriangles times the triangle edge weights on one thread: wiki-Vote and an R-MAT
// graph both weighted (within TriangleWork), and an R-MAT graph over the bound (refused).
func BenchmarkWeightTriangles(b *testing.B) {
	rmat := func(scale, ef int) func(testing.TB) *graph.Graph {
		return func(t testing.TB) *graph.Graph {
			g, err := gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: ef, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			return g
		}
	}
	for _, c := range []struct {
		name string
		load func(testing.TB) *graph.Graph
	}{{"wiki-Vote", sharedtest.WikiVote}, {"rmat15x4", rmat(15, 4)}, {"rmat15x16", rmat(15, 16)}} {
		b.Run(c.name, func(b *testing.B) {
			fine := fromGraph(c.load(b))
			ew := append([]uint64(nil), fine.ew...)
			var ok bool
			for b.Loop() {
				copy(fine.ew, ew)
				var err error
				if ok, err = fine.weightTriangles(context.Background(), 1); err != nil {
					b.Fatal(err)
				}
			}
			if !ok {
				b.ReportMetric(1, "refused")
			}
		})
	}
}
