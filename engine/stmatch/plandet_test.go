package stmatch

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/planclock"
	"github.com/submatch/submatch/internal/sharedtest"
)

// TestPlanUnderLoad: stmatch's preparation of a count (the order search's two ways and their
// final estimates, the flat plan) chooses the same kernel and per-query kernel source on a
// machine whose clock runs three times as fast and whose Ps are all busy as on an idle one, and
// again idle: the search is bounded by work. STMatch's q13, q14 and q20 on wiki-Vote (q14's and
// q20's two ways differ, so the final estimates decide).
func TestPlanUnderLoad(t *testing.T) {
	g := sharedtest.WikiVote(t)
	for _, sp := range sharedtest.STMatchPatterns(t, "q13", "q14", "q20") {
		name, p := sp.Name, sp.Pattern
		prob := &engine.Problem{Data: g, Pattern: p}
		probe := func() kernelOf {
			k, err := probeKernel(context.Background(), prob, Options{})
			if err != nil {
				t.Fatal(err)
			}
			k.plan = 0
			return k
		}
		idle := probe()
		hits := finalCapHits.Load()
		var busy kernelOf
		planclock.Loaded(3, func() { busy = probe() })
		again := probe()
		if finalCapHits.Load() != hits {
			t.Logf("%s: a final estimate's time cap stopped it (a slow machine): not compared", name)
		} else if busy != idle {
			t.Errorf("%s: loaded %+v, idle %+v", name, busy, idle)
		}
		if again != idle {
			t.Errorf("%s: idle twice: %+v and %+v", name, idle, again)
		}
		t.Logf("%s: kernel %s, source %s, %d levels", name, idle.kernel, idle.querySrc, idle.levels)
	}
}
