package plan

import (
	"context"
	"testing"
	"time"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/planclock"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/pattern"
)

// searchedPlan builds p's plan on g with the order search on, as stmatch asks for it.
func searchedPlan(t *testing.T, g *graph.Graph, p *pattern.Pattern, single bool) string {
	t.Helper()
	pl, err := BuildContext(context.Background(), g, p, Options{MultiplyAutomorphisms: true, SearchOrders: DefaultSearchOrders,
		SearchRate: 1e11, SearchThreads: 2, EnumerateSingle: single})
	if err != nil {
		t.Fatal(err)
	}
	return pl.Describe()
}

// TestOrderSearchUnderLoad: the order search chooses the same plan on a machine that looks four
// times slower to its clock and has every P busy (STMatch's dense patterns on wiki-Vote, whose
// screening took most of the 500 ms that bounded it before it was bounded by work), and the same
// plan every time.
func TestOrderSearchUnderLoad(t *testing.T) {
	g := sharedtest.WikiVote(t)
	for _, sp := range sharedtest.STMatchPatterns(t, "q13", "q20") {
		name, p := sp.Name, sp.Pattern
		for _, single := range []bool{false, true} {
			idle := searchedPlan(t, g, p, single)
			if again := searchedPlan(t, g, p, single); again != idle {
				t.Errorf("%s (single %v): two plans:\n%s\n%s", name, single, idle, again)
			}
			hits := searchCapHits.Load()
			var busy string
			planclock.Loaded(4, func() { busy = searchedPlan(t, g, p, single) })
			if searchCapHits.Load() != hits {
				t.Logf("%s: the screening's time cap stopped it (a slow machine): not compared", name)
				continue
			}
			if busy != idle {
				t.Errorf("%s (single %v): loaded, another plan:\n%s\nidle:\n%s", name, single, busy, idle)
			}
		}
	}
}

// TestEstimateWorkLimitUnderLoad: an estimate on several threads stopped by WorkLimit is the
// same on a machine that looks ten times slower, with a time budget as a safety net far above
// its time.
func TestEstimateWorkLimitUnderLoad(t *testing.T) {
	g := sharedtest.WikiVote(t)
	p := sharedtest.STMatchPatterns(t, "q20")[0].Pattern
	pl, err := BuildContext(context.Background(), g, p, Options{MultiplyAutomorphisms: true})
	if err != nil {
		t.Fatal(err)
	}
	opts := EstimateOptions{Seed: 3, Probes: 16384, MinProbes: 1024, WorkLimit: 4_000_000, Budget: 20 * time.Second, Threads: 2}
	idle, err := pl.Estimate(context.Background(), g, opts)
	if err != nil {
		t.Fatal(err)
	}
	var busy Estimate
	planclock.Loaded(10, func() { busy, err = pl.Estimate(context.Background(), g, opts) })
	if err != nil {
		t.Fatal(err)
	}
	if busy.OverBudget {
		t.Skip("the safety net stopped the loaded estimate (a very slow machine)")
	}
	if idle.OverBudget || idle.Probes >= opts.Probes || busy.Probes != idle.Probes || busy.Cost != idle.Cost || busy.Scanned != idle.Scanned {
		t.Errorf("idle %d probes, cost %v, scanned %d; loaded %d probes, cost %v, scanned %d",
			idle.Probes, idle.Cost, idle.Scanned, busy.Probes, busy.Cost, busy.Scanned)
	}
}
