package cpu_test

import (
	"context"
	"fmt"
	"iter"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
)

// settings are the engine settings every case is counted with: 1 and 2 threads, a memory limit
// small enough that the plan has no candidate space (the search then intersects the data graph's
// label runs, and reuses sets that the candidate space's subset check would not allow), and hub
// rows for every vertex (the test graphs have no vertex of the degree that gets one by default),
// with and without the candidate space; and edge supports wherever they apply (support.go; the
// default takes them only for large searches), looked up by bisection.
var settings = []struct {
	name     string
	threads  int
	memory   uint64
	hubs     bool
	held     bool  // every other hub row is claimed by no worker and never filled (see HoldHubRows)
	after    uint8 // with hubs: a worker fills a row after merging with its list this many times (see SetHubFillAfter)
	supports bool  // edge supports wherever they apply, without rows (see Supports)
}{{"threads 1", 1, 0, false, false, 0, false}, {"threads 2", 2, 0, false, false, 0, false}, {"threads 1, 64 KiB", 1, 64 << 10, false, false, 0, false},
	{"threads 1, hub rows", 1, 0, true, false, 0, false}, {"threads 1, 64 KiB, hub rows", 1, 64 << 10, true, false, 0, false},
	{"threads 1, hub rows, every other held", 1, 0, true, true, 0, false},
	{"threads 2, hub rows filled at the third use", 2, 0, true, false, 2, false},
	{"threads 2, edge supports", 2, 0, false, false, 0, true}}

// TestOracleProperty (2000 seeds, 100 with -short) checks the cpu engine's counts (and, for a
// subset, its match lists) against the brute-force oracle on random problems, under every
// counting convention and every setting. SUBMATCH_ORACLE_SEED=n runs only seed n;
// SUBMATCH_ORACLE_SEEDS=n runs n seeds.
func TestOracleProperty(t *testing.T) {
	seeds, repeat := proptest.Seeds(t, 2000, 100)
	var ost proptest.OracleStats
	checkOracle(t, proptest.WithOracle(seeds, &ost), len(seeds), repeat, &ost, "TestOracleProperty")
}

// TestOracleDense is TestOracleProperty on dense graphs and dense, symmetric patterns (400
// seeds, 60 with -short): near-cliques whose plans reuse sets in chains under symmetry windows.
func TestOracleDense(t *testing.T) {
	seeds, repeat := proptest.Seeds(t, 400, 60)
	var ost proptest.OracleStats
	checkOracle(t, proptest.WithOracleDense(seeds, &ost), len(seeds), repeat, &ost, "TestOracleDense")
}

func checkOracle(t *testing.T, cases iter.Seq[proptest.Oracled], seeds, repeat int, ost *proptest.OracleStats, test string) {
	e, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	describe := func(c proptest.Case, sem engine.Semantics, how string) string {
		return c.Describe(sem, how, "./engine/cpu -run "+test)
	}
	ctx := context.Background()
	var engineTime time.Duration
	var checked, listed, nonzero int
	start := time.Now()
	supportsBefore := cpu.SupportsUsed()
	failures := 0
	for o := range cases {
		c, sem, want := o.Case, o.Sem, o.Want
		checked++
		if want > 0 {
			nonzero++
		}
		t0 := time.Now()
		for _, s := range settings {
			prob := &engine.Problem{Data: c.G, Pattern: c.P, Semantics: sem, Threads: s.threads, MemoryLimit: s.memory}
			restore := cpu.EveryVertexAHub(s.hubs)
			release := cpu.HoldHubRows(s.held)
			restoreAfter := func() {}
			if s.after > 0 {
				restoreAfter = cpu.SetHubFillAfter(s.after)
			}
			restoreSupports := func() {}
			if s.supports {
				restoreSupports = cpu.Supports(1, false)
			}
			for range repeat {
				res, err := e.Count(ctx, prob)
				if err != nil || res.Partial || res.Count != want {
					t.Errorf("Count = %d (partial %v, err %v), oracle %d\n%s", res.Count, res.Partial, err, want, describe(c, sem, s.name))
					failures++
					break
				}
			}
			restoreSupports()
			restoreAfter()
			release()
			restore()
		}
		engineTime += time.Since(t0)
		// Match lists for a subset of seeds, when small.
		if c.Seed%3 == 0 && want <= 5_000 {
			listed++
			for _, s := range settings {
				prob := &engine.Problem{Data: c.G, Pattern: c.P, Semantics: sem, Threads: s.threads, MemoryLimit: s.memory}
				if msg := proptest.CompareLists(ctx, e, c, prob); msg != "" {
					t.Errorf("%s\n%s", msg, describe(c, sem, s.name))
					failures++
				}
			}
		}
		if failures >= 10 {
			t.Fatalf("stopping after %d failures", failures)
		}
	}
	t.Logf("%d seeds: %d (problem, semantics) checked (%d with matches, %d counts with edge supports), %d lists compared, %d skipped as too big for the oracle; %v (oracle counts %v, engine counts %v)",
		seeds, checked, nonzero, cpu.SupportsUsed()-supportsBefore, listed, ost.Skipped, time.Since(start).Round(time.Millisecond),
		ost.Time.Round(time.Millisecond), engineTime.Round(time.Millisecond))
	if seeds > 50 && ost.Skipped > checked/2 {
		t.Errorf("too many problems skipped: %d of %d", ost.Skipped, checked+ost.Skipped)
	}
}

// denseGraph is the random graph a dense oracle sweep draws for one seed: n vertices, edge
// density, vl vertex labels and el edge labels.
type denseGraph func(seed uint64) (n int, density float64, vl, el int)

// denseCases yields each seed's random graph (graph) with each pattern of srcs under each of
// sems, with the oracle's count; a count over the oracle's budget is skipped (ost.Skipped).
func denseCases(t *testing.T, seeds []uint64, srcs []string, sems []engine.Semantics, graph denseGraph, ost *proptest.OracleStats) iter.Seq[proptest.Oracled] {
	return func(yield func(proptest.Oracled) bool) {
		for _, seed := range seeds {
			n, density, vl, el := graph(seed)
			g := gen.RandomGraph(seed, n, density, vl, el)
			for _, src := range srcs {
				p, err := pattern.Parse(src)
				if err != nil {
					t.Fatal(err)
				}
				c := proptest.Case{Seed: seed, G: g, P: p, Recipe: fmt.Sprintf("g := gen.RandomGraph(%d, %d, %v, %d, %d)\np := %q", seed, n, density, vl, el, src)}
				for _, sem := range sems {
					want, ok := oracle.CountWithin(g, p, sem, proptest.DenseOracleBudget)
					if !ok {
						ost.Skipped++
						continue
					}
					if !yield(proptest.Oracled{Case: c, Sem: sem, Want: want}) {
						return
					}
				}
			}
		}
	}
}
