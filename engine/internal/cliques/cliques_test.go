package cliques

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/plan"
)

// TestCliqueWorkerAllocatesNothing: once its buffers have grown, counting a root allocates
// nothing, on the bit-matrix path and on the splitting path.
func TestCliqueWorkerAllocatesNothing(t *testing.T) {
	g := gen.RandomGraph(2, 200, 0.5, 1, 1)
	c, ok := plan.AsClique(g, proptest.Clique(t, 6, "", ""))
	if !ok {
		t.Fatal("not a clique")
	}
	o := c.Orient(g, 1)
	for _, limit := range []int{8, 4096} {
		var stop atomic.Bool
		w := newCliqueWorker(o, c.K, limit, &stop)
		for r := range uint32(g.NumVertices()) {
			w.root(r)
		}
		if a := testing.AllocsPerRun(3, func() {
			for r := range uint32(g.NumVertices()) {
				w.root(r)
			}
		}); a != 0 {
			t.Errorf("limit %d: %v allocations per pass over the roots", limit, a)
		}
	}
}

// TestCountThreads: any thread count, none (all cores) included, gives the same count.
func TestCountThreads(t *testing.T) {
	g := gen.RandomGraph(3, 120, 0.4, 1, 1)
	c, ok := plan.AsClique(g, proptest.Clique(t, 4, "", ""))
	if !ok {
		t.Fatal("not a clique")
	}
	o := c.Orient(g, 1)
	n := g.NumVertices()
	root := func(i int) uint32 { return uint32(i) }
	want, err := Count(context.Background(), o, c.K, MatrixLimit, n, root, 1, nil)
	if err != nil || want == 0 {
		t.Fatalf("one thread: %d, %v", want, err)
	}
	for _, threads := range []int{0, -1, 3} {
		if got, err := Count(context.Background(), o, c.K, MatrixLimit, n, root, threads, nil); err != nil || got != want {
			t.Errorf("%d threads: %d (%v), one thread %d", threads, got, err, want)
		}
	}
}
