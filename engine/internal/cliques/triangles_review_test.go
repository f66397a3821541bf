package cliques

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/plan"
)

// TestTrianglesSpanningRandomReview: on many small random graphs (empty and with isolated
// vertices too), Count's triangles and CountSpanning's (random parts, 1-4 of them) on 1-5
// workers equal a brute force over every triple of vertices.
func TestTrianglesSpanningRandomReview(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 363))
		n := rng.IntN(30)
		g := gen.RandomGraph(seed, n, 0.05+0.8*rng.Float64(), 1, 1)
		c, ok := plan.CliqueOf(g, proptest.Clique(t, 3, "", ""), 3)
		if !ok {
			t.Fatal("not a clique")
		}
		parts := 1 + rng.IntN(4)
		of := make([]uint32, n)
		for v := range of {
			of[v] = uint32(rng.IntN(parts))
		}
		all, spanning := bruteTriangles(g, of)
		threads := 1 + rng.IntN(5)
		o := c.Orient(g, threads)
		got, err := Count(ctx, o, 3, MatrixLimit, n, func(i int) uint32 { return uint32(i) }, threads, nil)
		if err != nil || got != all {
			t.Fatalf("seed %d (n=%d), %d workers: Count %d, %v; brute force %d", seed, n, threads, got, err, all)
		}
		got, err = CountSpanning(ctx, o, 3, MatrixLimit, of, threads, nil)
		if err != nil || got != spanning {
			t.Fatalf("seed %d (n=%d, %d parts), %d workers: CountSpanning %d, %v; brute force %d", seed, n, parts, threads, got, err, spanning)
		}
	}
}
