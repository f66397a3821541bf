package sgsi_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	_ "github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// regions are the host emulation's regions and segment caches in bytes, and whether a count's
// last step joins with buffers (Options.Buffered) rather than the direct count: one that holds
// everything (in core), then smaller ones that force segments and many chunks, down to a few
// hundred words.
var regions = []struct {
	region, cache uint64
	buffered      bool
}{{1 << 20, 0, false}, {1 << 20, 160, false}, {8192, 400, false}, {3000, 0, false}, {3000, 0, true}, {1800, 0, false}}

// TestOracleProperty (600 seeds in the deep sweep, 80 by default) checks the host emulation of
// sgsi's schedule, with regions from in-core down to a few hundred words, against the
// brute-force oracle under every convention, and for a third of the seeds its match lists;
// each seed's regions alternate SGSI's join order and the core order (the default; Options.PaperOrder takes SGSI's), the
// signature filter alone and refined on the host (Options.Refine), and a third of them join the
// leaves (Options.JoinLeaves) rather than count them in the leaf step.
func TestOracleProperty(t *testing.T) {
	seeds, _ := proptest.Seeds(t, 600, 80)
	oracleProperty(t, seeds, true, "./engine/sgsi -run TestOracleProperty")
}

// oracleProperty runs the oracle cases of seeds on the host emulation or the GPU.
func oracleProperty(t *testing.T, seeds []uint64, host bool, rerun string) {
	var ost proptest.OracleStats
	ctx := context.Background()
	failures := 0
	var runs, outOfCore, manyChunks, tooSmall, direct, blocks int
	for o := range proptest.WithOracle(seeds, &ost) {
		c := o.Case
		for i, rg := range regions {
			b := rg.region
			core, refine := (c.Seed+uint64(i))%2 == 1, (c.Seed/2+uint64(i))%2 == 1
			joinLeaves := (c.Seed/4+uint64(i))%3 == 0
			opts := sgsi.Options{Host: host, MaxCache: rg.cache, BlockRows: 3, Buffered: rg.buffered, PaperOrder: !core, Refine: refine, JoinLeaves: joinLeaves}
			prob := &engine.Problem{Data: c.G, Pattern: c.P, Semantics: o.Sem}
			if host {
				opts.HostBytes = b
			} else {
				prob.GPUMemoryLimit = b
			}
			e := sgsi.Engine{Options: opts}
			res, st, err := e.CountStats(ctx, prob)
			how := fmt.Sprintf("sgsi (host %v) region %d bytes, cache at most %d, buffered %v, core order %v, refine %v, join leaves %v", host, b, rg.cache, rg.buffered, core, refine, joinLeaves)
			if errors.Is(err, engine.ErrMemory) && (b < 1<<20 || rg.cache > 0) {
				if tooSmall < 3 {
					t.Log(err)
				}
				tooSmall++
				continue
			}
			runs++
			if err != nil || res.Partial || res.Count != o.Want {
				t.Errorf("Count = %d (partial %v, err %v), oracle %d\n%s", res.Count, res.Partial, err, o.Want,
					c.Describe(o.Sem, how, rerun))
				failures++
			}
			if st.PeakDevice > b {
				t.Errorf("peak %d bytes beyond the region of %d\n%s", st.PeakDevice, b, c.Describe(o.Sem, how, rerun))
				failures++
			}
			if !st.InCore && st.Steps > 0 && st.Segments > 2 {
				outOfCore++
			}
			if st.Chunks > 4 {
				manyChunks++
			}
			if st.Blocks > 1 {
				direct++ // the direct count in several blocks
			}
			blocks += int(st.Blocks)
			if c.Seed%3 == 0 && o.Want <= 5_000 {
				if msg := proptest.CompareLists(ctx, e, c, prob); msg != "" {
					t.Errorf("%s\n%s", msg, c.Describe(o.Sem, how, rerun))
					failures++
				}
			}
		}
		if failures >= 10 {
			t.Fatalf("stopping after %d failures", failures)
		}
	}
	t.Logf("%d seeds: %d runs, %d out of core, %d with more than 4 chunks, %d counted directly in several blocks (%d blocks), %d regions too small; %d skipped as too big for the oracle",
		len(seeds), runs, outOfCore, manyChunks, direct, blocks, tooSmall, ost.Skipped)
	if len(seeds) >= 50 && (outOfCore == 0 || manyChunks == 0 || direct == 0) {
		t.Errorf("the regions forced nothing out of core, or no direct count in several blocks: the test checks nothing of the schedule")
	}
}

// TestAgainstCPU compares the host emulation with the cpu engine on proptest's larger graphs
// (200-500 vertices), every convention, in core and at a quarter and a twentieth of the graph
// (GraphBytes), in SGSI's join order and the core order (the default; Options.PaperOrder takes SGSI's) in turn, the
// candidates refined on the host (Options.Refine) or not: 4 seeds by default, 20 in the deep
// sweep.
func TestAgainstCPU(t *testing.T) {
	n := uint64(4)
	if testenv.Long() {
		n = 20
	}
	againstCPU(t, 1, n, true)
}

// fractions are the budgets againstCPU runs at, as divisors of GraphBytes (0: in core).
var fractions = []uint64{0, 4, 20}

func againstCPU(t *testing.T, from, to uint64, host bool) {
	ctx := context.Background()
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	outOfCore := 0
	for seed := from; seed <= to; seed++ {
		c := proptest.MakeLarger(seed)
		for _, sem := range proptest.AllSemantics {
			prob := &engine.Problem{Data: c.G, Pattern: c.P, Semantics: sem}
			cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			want, err := cpu.Count(cctx, prob)
			cancel()
			if err != nil {
				t.Logf("seed %d %s: cpu engine: %v (skipped)", seed, sem, err)
				continue
			}
			for i, f := range fractions {
				b := uint64(64 << 20)
				if f > 0 {
					b = max(sgsi.GraphBytes(c.G)/f, 8192)
				}
				core, refine := (seed+uint64(i))%2 == 1, (seed/2+uint64(i))%2 == 1
				opts := sgsi.Options{Host: host, HostBytes: b, BlockRows: 16, PaperOrder: !core, Refine: refine}
				p := *prob
				p.GPUMemoryLimit = b
				res, st, err := sgsi.Engine{Options: opts}.CountStats(ctx, &p)
				if errors.Is(err, engine.ErrMemory) && f > 0 {
					t.Logf("seed %d %s 1/%d: %v", seed, sem, f, err)
					continue
				}
				if err != nil || res.Count != want.Count {
					t.Errorf("seed %d %s region %d (1/%d of the graph), core order %v, refine %v: sgsi %d (%v), cpu %d\n%s", seed, sem, b, f, core, refine, res.Count, err, want.Count,
						c.Describe(sem, fmt.Sprintf("region %d", b), "./engine/sgsi -run TestAgainstCPU"))
				}
				if !st.InCore {
					outOfCore++
				}
			}
		}
	}
	t.Logf("%d out-of-core runs", outOfCore)
	if outOfCore == 0 {
		t.Errorf("no run was out of core")
	}
}

// TestDense checks the host emulation on proptest's dense cases (near-cliques) against the
// oracle in core and at a small region, in both join orders (the default; Options.PaperOrder takes SGSI's), refined on
// the host (Options.Refine) in half the runs.
func TestDense(t *testing.T) {
	seeds, _ := proptest.Seeds(t, 100, 20)
	dense(t, seeds, true)
}

func dense(t *testing.T, seeds []uint64, host bool) {
	ctx := context.Background()
	for o := range proptest.WithOracleDense(seeds, nil) {
		for i, b := range []uint64{1 << 20, 2048, 1 << 20, 2048} {
			core, refine := i >= 2, i == 1 || i == 2
			e := sgsi.Engine{Options: sgsi.Options{Host: host, HostBytes: b, MaxCache: 200, BlockRows: 4, PaperOrder: !core, Refine: refine}}
			res, err := e.Count(ctx, &engine.Problem{Data: o.G, Pattern: o.P, Semantics: o.Sem, GPUMemoryLimit: b})
			if errors.Is(err, engine.ErrMemory) {
				continue
			}
			if err != nil || res.Count != o.Want {
				t.Errorf("region %d, core order %v, refine %v: sgsi %d (%v), oracle %d\n%s", b, core, refine, res.Count, err, o.Want, o.Describe(o.Sem, fmt.Sprintf("region %d", b), "./engine/sgsi -run TestDense"))
			}
		}
	}
}

// TestPublishedHost (deep sweep) checks the host emulation against published counts: github's
// queries in core (1 GiB region) and, for the ones whose out-of-core joins are short, at 1/4 and
// 1/16 of GraphBytes, and Q_8 at 1/16 (lists in parts, windowed rows); wiki-Vote's 608,389
// unique triangles at 1/4 and 1/16.
func TestPublishedHost(t *testing.T) {
	testenv.SkipUnlessLong(t)
	ctx := context.Background()
	g, qs := sharedtest.Suite(t, "github-gmatch", "data.graph", 0)
	small := map[string]bool{"Q_0": true, "Q_1": true, "Q_5": true, "Q_7": true}
	for _, q := range qs {
		fs := []uint64{0}
		if small[q.Name] {
			fs = append(fs, 4, 16)
		}
		if q.Name == "Q_8" {
			fs = append(fs, 16) // a 9,458-entry list and row buffer longer than the cache and chunk area
		}
		for _, f := range fs {
			b := uint64(1 << 30)
			if f > 0 {
				b = sgsi.GraphBytes(g) / f
			}
			res, err := sgsi.Engine{Options: sgsi.Options{Host: true, HostBytes: b}}.Count(ctx, &engine.Problem{Data: g, Pattern: q.Pattern})
			if err != nil || res.Count != q.Want {
				t.Errorf("github %s at 1/%d: %d (%v), published %d", q.Name, f, res.Count, err, q.Want)
			}
		}
	}
	wv := sharedtest.WikiVote(t)
	tri, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	for _, f := range []uint64{4, 16} {
		e := sgsi.Engine{Options: sgsi.Options{Host: true, HostBytes: sgsi.GraphBytes(wv) / f}}
		res, err := e.Count(ctx, &engine.Problem{Data: wv, Pattern: tri, Semantics: engine.Semantics{Unique: true}})
		if err != nil || res.Count != 608389 {
			t.Errorf("wiki-Vote unique triangles at 1/%d: %d (%v), published 608389", f, res.Count, err)
		}
	}
}
