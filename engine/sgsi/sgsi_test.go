package sgsi_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/submatch/submatch/engine"
	_ "github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/internal/proptest"
)

// regions are the host emulation's regions and segment caches in bytes: one that holds
// everything (in core), then smaller ones that force segments and many chunks, down to a few
// hundred words.
var regions = []struct{ region, cache uint64 }{{1 << 20, 0}, {1 << 20, 160}, {8192, 400}, {3000, 0}, {1800, 0}}

// TestOracleProperty (600 seeds in the deep sweep, 80 by default) checks the host emulation of
// sgsi's schedule, with regions from in-core down to a few hundred words, against the
// brute-force oracle under every convention, and for a third of the seeds its match lists.
func TestOracleProperty(t *testing.T) {
	seeds, _ := proptest.Seeds(t, 600, 80)
	var ost proptest.OracleStats
	ctx := context.Background()
	failures := 0
	var outOfCore, manyChunks, tooSmall int
	for o := range proptest.WithOracle(seeds, &ost) {
		c := o.Case
		for _, rg := range regions {
			b := rg.region
			e := sgsi.Engine{Options: sgsi.Options{Host: true, HostBytes: b, MaxCache: rg.cache, BlockRows: 3}}
			prob := &engine.Problem{Data: c.G, Pattern: c.P, Semantics: o.Sem}
			res, st, err := e.CountStats(ctx, prob)
			how := fmt.Sprintf("sgsi host region %d bytes, cache at most %d", b, rg.cache)
			if errors.Is(err, engine.ErrMemory) && (b < 1<<20 || rg.cache > 0) {
				if tooSmall < 5 {
					t.Log(err)
				}
				tooSmall++
				continue
			}
			if err != nil || res.Partial || res.Count != o.Want {
				t.Errorf("Count = %d (partial %v, err %v), oracle %d\n%s", res.Count, res.Partial, err, o.Want,
					c.Describe(o.Sem, how, "./engine/sgsi -run TestOracleProperty"))
				failures++
			}
			if st.PeakDevice > b {
				t.Errorf("peak %d bytes beyond the region of %d\n%s", st.PeakDevice, b, c.Describe(o.Sem, how, "./engine/sgsi"))
				failures++
			}
			if !st.InCore && st.Steps > 0 && st.Segments > 2 {
				outOfCore++
			}
			if st.Chunks > 4 {
				manyChunks++
			}
			if c.Seed%3 == 0 && o.Want <= 5_000 {
				if msg := proptest.CompareLists(ctx, e, c, prob); msg != "" {
					t.Errorf("%s\n%s", msg, c.Describe(o.Sem, how, "./engine/sgsi -run TestOracleProperty"))
					failures++
				}
			}
		}
		if failures >= 10 {
			t.Fatalf("stopping after %d failures", failures)
		}
	}
	t.Logf("%d seeds: %d out-of-core runs, %d with more than 4 chunks, %d regions too small; %d skipped as too big for the oracle",
		len(seeds), outOfCore, manyChunks, tooSmall, ost.Skipped)
	if len(seeds) >= 50 && (outOfCore == 0 || manyChunks == 0) {
		t.Errorf("the regions forced nothing out of core: the test checks nothing of the schedule")
	}
}
