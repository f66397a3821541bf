package sgsi_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/testenv"
)

// TestLongLists checks, against the brute-force oracle in every convention, graphs whose hubs'
// lists are longer than the whole segment cache (lists cut into parts over segments) and whose
// rows' buffers do not fit the region (rows joined in windows of their list), with connected and
// disconnected patterns (C(u) cut into parts too). It fails if no run cut a list or windowed a
// row. Lists are compared with the oracle's for small counts.
func TestLongLists(t *testing.T) {
	seeds := uint64(5)
	if testenv.Long() {
		seeds = 40
	}
	longLists(t, seeds, true)
}

// longLists runs TestLongLists's cases on the host emulation or the GPU.
func longLists(t *testing.T, seeds uint64, host bool) {
	ctx := context.Background()
	var runs, parts, windows, retries, fallbacks int
	for seed := uint64(1); seed <= seeds; seed++ {
		g := sgsi.HubGraph(seed, 150+int(seed%4)*50, 1+int(seed%3))
		comps := 1 + int(seed%4/3) // a quarter of the patterns disconnected
		p := gen.RandomPattern(seed, 2+int(seed%3), gen.PatternOptions{Components: comps, EdgeProb: 0.4, VertexLabels: 2, EdgeLabels: 2, Wildcard: 0.3})
		for _, sem := range proptest.AllSemantics {
			want, ok := oracle.CountWithin(g, p, sem, 20_000_000)
			if !ok {
				continue
			}
			regions := []struct{ region, cache uint64 }{{1 << 20, 12}, {1 << 20, 64}, {2400, 0}, {1600, 40}}
			if !host {
				regions = regions[1:] // one-entry segments: ~700,000 synchronous launches on the device
			}
			for _, rg := range regions {
				prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem}
				e := sgsi.Engine{Options: sgsi.Options{Host: host, HostBytes: rg.region, MaxCache: rg.cache, BlockRows: 8}}
				if !host {
					prob.GPUMemoryLimit = rg.region
				}
				res, st, err := e.CountStats(ctx, prob)
				how := fmt.Sprintf("seed %d %s pattern %v: region %d cache %d (host %v)", seed, sem, p, rg.region, rg.cache, host)
				if err != nil || res.Count != want {
					t.Errorf("%s: sgsi %d (%v), oracle %d", how, res.Count, err, want)
					continue
				}
				if st.PeakDevice > rg.region {
					t.Errorf("%s: peak %d bytes beyond the region", how, st.PeakDevice)
				}
				runs++
				if st.Parts > 0 {
					parts++
				}
				if st.Windows > 0 {
					windows++
				}
				if st.WindowRetries > 0 {
					retries++
				}
				if st.BlockFallbacks > 0 {
					fallbacks++ // units of the direct count too long for a block: the buffered way
				}
				if want <= 3000 && seed%2 == 0 {
					c := proptest.Case{Seed: seed, G: g, P: p}
					if msg := proptest.CompareLists(ctx, e, c, prob); msg != "" {
						t.Errorf("%s: %s", how, msg)
					}
				}
			}
		}
	}
	t.Logf("%d runs, %d with lists cut into parts, %d with windowed rows, %d with windows joined again in halves, %d with direct units the buffered way",
		runs, parts, windows, retries, fallbacks)
	if parts == 0 || windows == 0 || retries == 0 || fallbacks == 0 {
		t.Errorf("no run cut a list (%d), windowed a row (%d), retried a window (%d) or sent a direct count's unit the buffered way (%d): the test checks nothing new",
			parts, windows, retries, fallbacks)
	}
}

// TestAnyBudget checks the floor docs/out-of-core.md states: a region of the candidate bitsets
// (|V(Q)|·|V|/8 bytes, rounded to words) plus 1.5 KiB runs every oracle case, exactly.
func TestAnyBudget(t *testing.T) {
	ctx := context.Background()
	seeds, _ := proptest.Seeds(t, 200, 30)
	runs := 0
	for o := range proptest.WithOracle(seeds, nil) {
		n, qn := uint64(o.G.NumVertices()), uint64(o.P.NumVertices())
		region := 4*qn*((n+31)/32) + 1536
		prob := &engine.Problem{Data: o.G, Pattern: o.P, Semantics: o.Sem}
		res, st, err := sgsi.Engine{Options: sgsi.Options{Host: true, HostBytes: region}}.CountStats(ctx, prob)
		if err != nil || res.Count != o.Want || st.PeakDevice > region {
			t.Errorf("region %d: sgsi %d (%v, peak %d), oracle %d\n%s", region, res.Count, err, st.PeakDevice, o.Want,
				o.Describe(o.Sem, fmt.Sprintf("region %d", region), "./engine/sgsi -run TestAnyBudget"))
		}
		runs++
	}
	t.Logf("%d runs", runs)
}
