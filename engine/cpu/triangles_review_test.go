package cpu

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
)

// TestTrianglesRandomReview: on many small random graphs (empty, single vertex, sparse with
// isolated vertices, dense; 1-3 vertex and edge labels), triangles with exact labels and
// wildcards, in every convention, on 1-5 threads and under a memory limit just above or below
// the clique counter's need (the general search then counts them), equal the brute-force oracle.
func TestTrianglesRandomReview(t *testing.T) {
	seeds := 2000
	if testing.Short() {
		seeds = 600
	}
	ctx := context.Background()
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 36))
		n := rng.IntN(24)
		if seed%10 == 0 {
			n = int(seed/10) % 3 // 0, 1 or 2 vertices
		}
		vls, els := 1+rng.IntN(3), 1+rng.IntN(3)
		g := gen.RandomGraph(seed, n, 0.05+0.8*rng.Float64(), vls, els)
		vl, el := "", ""
		if rng.IntN(2) == 0 {
			vl = fmt.Sprint(rng.IntN(vls + 1)) // sometimes a label absent from the graph
		}
		if rng.IntN(2) == 0 {
			el = fmt.Sprint(rng.IntN(els))
		}
		p := proptest.Clique(t, 3, vl, el)
		for _, sem := range proptest.AllSemantics {
			prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 1 + rng.IntN(5)}
			switch rng.IntN(3) {
			case 1: // a limit around the counter's own need: either path must give the oracle's count
				prob.MemoryLimit = uint64(100 + rng.IntN(1500))
			case 2:
				prob.MemoryLimit = 1 << 30
			}
			want := oracle.Count(g, p, sem)
			got, err := Engine{}.Count(ctx, prob)
			if errors.Is(err, engine.ErrMemory) && prob.MemoryLimit < 2000 {
				continue // neither the counter nor the general search fits: refused, not miscounted
			}
			if err != nil {
				t.Fatalf("seed %d (n=%d, %d vertex / %d edge labels), triangle (%q, %q), %s, %d threads, limit %d: %v",
					seed, n, vls, els, vl, el, sem, prob.Threads, prob.MemoryLimit, err)
			}
			if got.Count != want {
				t.Fatalf("seed %d (n=%d, %d vertex / %d edge labels), triangle (%q, %q), %s, %d threads, limit %d: %d, oracle %d",
					seed, n, vls, els, vl, el, sem, prob.Threads, prob.MemoryLimit, got.Count, want)
			}
		}
	}
}
