package mining

import (
	"context"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/sharedtest"
)

// BenchmarkTriangles times the census's triangle phase (te, sd, tv) on one thread.
func BenchmarkTriangles(b *testing.B) {
	rmat := func(t testing.TB) *graph.Graph {
		g, err := gen.RMAT(gen.RMATOptions{Scale: 15, EdgeFactor: 16, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	for _, c := range []struct {
		name string
		load func(testing.TB) *graph.Graph
	}{{"wiki-Vote", sharedtest.WikiVote}, {"rmat15x16", rmat}} {
		b.Run(c.name, func(b *testing.B) {
			o := newOrdered(c.load(b))
			l := &locals{o: o, k: 3}
			for b.Loop() {
				if err := l.triangles(context.Background(), 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
