package partition

import (
	"context"
	"fmt"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/sharedtest"
)

// BenchmarkWeightTriangles times the triangle edge weights on one thread: wiki-Vote and an R-MAT
// graph both weighted (within TriangleWork), and an R-MAT graph over the bound (refused).
func BenchmarkWeightTriangles(b *testing.B) {
	type graphCase struct {
		name string
		g    *graph.Graph
	}
	cases := []graphCase{{"wiki-Vote", sharedtest.WikiVote(b)}}
	for _, ef := range []int{4, 16} {
		g, err := gen.RMAT(gen.RMATOptions{Scale: 15, EdgeFactor: ef, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		cases = append(cases, graphCase{fmt.Sprint("rmat15x", ef), g})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			fine := fromGraph(c.g)
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
