package plan_test

import (
	"context"
	"errors"
	"testing"

	"github.com/submatch/submatch/internal/ctxtest"
	"github.com/submatch/submatch/plan"
)

// TestEstimateLooksEveryProbe: Estimate looks at its context before every probe, on one stream
// and in blocks on three goroutines: with a context live for its first n looks, one stream runs
// exactly n probes and the blocks at most n, and both return its error; a context that lasts
// gives the live context's estimate.
func TestEstimateLooksEveryProbe(t *testing.T) {
	for _, c := range estimateCases()[:4] {
		pl := plan.Build(c.g, c.p, c.opts)
		if pl.Empty {
			continue
		}
		for _, threads := range []int{1, 3} {
			opts := plan.EstimateOptions{Seed: 1, Probes: 300, Threads: threads}
			want, err := pl.Estimate(context.Background(), c.g, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{0, 1, 2, 5, 33, 100} {
				est, err := pl.Estimate(ctxtest.Countdown(n), c.g, opts)
				if !errors.Is(err, context.Canceled) || est.Probes > n || threads == 1 && est.Probes != n {
					t.Errorf("%s, %d thread(s), context live for %d looks: %d probes, error %v", c.name, threads, n, est.Probes, err)
				}
			}
			est, err := pl.Estimate(ctxtest.Countdown(1<<20), c.g, opts)
			if err != nil || est.Nodes != want.Nodes || est.Probes != want.Probes {
				t.Errorf("%s, %d thread(s), a context that lasts: %v nodes in %d probes (%v), want %v in %d", c.name, threads, est.Nodes, est.Probes, err, want.Nodes, want.Probes)
			}
		}
	}
}
