package cpu_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"submatch/engine"
	_ "submatch/engine/cpu"
	"submatch/internal/proptest"
)

func describe(c proptest.Case, sem engine.Semantics, threads int) string {
	return c.Describe(sem, fmt.Sprintf("threads %d", threads), "./engine/cpu -run TestOracleProperty")
}

// TestOracleProperty (2000 seeds, 100 with -short) checks the cpu engine's counts (and, for a subset, its match lists) against
// the brute-force oracle on random problems, under every counting convention, with 1 and 2
// threads. SUBMATCH_ORACLE_SEED=n runs only seed n; SUBMATCH_ORACLE_SEEDS=n runs n seeds.
func TestOracleProperty(t *testing.T) {
	e, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	seeds, repeat := proptest.Seeds(t, 2000, 100)
	ctx := context.Background()
	var engineTime time.Duration
	var ost proptest.OracleStats
	var checked, listed, nonzero int
	start := time.Now()
	failures := 0
	for o := range proptest.WithOracle(seeds, &ost) {
		c, sem, want := o.Case, o.Sem, o.Want
		checked++
		if want > 0 {
			nonzero++
		}
		t0 := time.Now()
		for _, threads := range []int{1, 2} {
			prob := &engine.Problem{Data: c.G, Pattern: c.P, Semantics: sem, Threads: threads}
			for range repeat {
				res, err := e.Count(ctx, prob)
				if err != nil || res.Partial || res.Count != want {
					t.Errorf("Count = %d (partial %v, err %v), oracle %d\n%s", res.Count, res.Partial, err, want, describe(c, sem, threads))
					failures++
					break
				}
			}
		}
		engineTime += time.Since(t0)
		// Match lists for a subset of seeds, when small.
		if c.Seed%3 == 0 && want <= 5_000 {
			listed++
			for _, threads := range []int{1, 2} {
				prob := &engine.Problem{Data: c.G, Pattern: c.P, Semantics: sem, Threads: threads}
				if msg := proptest.CompareLists(ctx, e, c, prob); msg != "" {
					t.Errorf("%s\n%s", msg, describe(c, sem, threads))
					failures++
				}
			}
		}
		if failures >= 10 {
			t.Fatalf("stopping after %d failures", failures)
		}
	}
	skipped, oracleTime := ost.Skipped, ost.Time
	t.Logf("%d seeds: %d (problem, semantics) checked (%d with matches), %d lists compared, %d skipped as too big for the oracle; %v (oracle counts %v, engine counts %v)",
		len(seeds), checked, nonzero, listed, skipped, time.Since(start).Round(time.Millisecond),
		oracleTime.Round(time.Millisecond), engineTime.Round(time.Millisecond))
	if len(seeds) > 50 && skipped > checked/2 {
		t.Errorf("too many problems skipped: %d of %d", skipped, checked+skipped)
	}
}
