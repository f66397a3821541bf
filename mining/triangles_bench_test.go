package mining

import (
	"context"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/sharedtest"
)

// BenchmarkTriangles times the census's triangle phase (te, sd, tv) on one thread, on wiki-Vote
// and an R-MAT graph.
func BenchmarkTriangles(b *testing.B) {
	rmat, err := gen.RMAT(gen.RMATOptions{Scale: 15, EdgeFactor: 16, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"wiki-Vote", "rmat15x16"} {
		b.Run(name, func(b *testing.B) {
			g := rmat
			if name == "wiki-Vote" {
				g = sharedtest.WikiVote(b)
			}
			l := &locals{o: newOrdered(g), k: 3}
			for b.Loop() {
				if err := l.triangles(context.Background(), 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
