package cliques

import (
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
