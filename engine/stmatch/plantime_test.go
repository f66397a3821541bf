package stmatch

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/pattern"
)

// EnvPlanTime enables TestPlanTime, which measures rather than checks: stmatch's planning time
// (buildPlan, the order search included) of STMatch's 24 patterns on wiki-Vote and of the first
// github and HPRD queries, and the CPU engine's (its Count's PlanTime, github and HPRD), each
// repeated the number it gives (e.g. 5); the median and the distinct plans seen are logged
// (with SUBMATCH_PLANTIME_DEBUG set, the debug log too: the order search's work and stops).
const EnvPlanTime = "SUBMATCH_PLANTIME"

func TestPlanTime(t *testing.T) {
	reps, err := strconv.Atoi(os.Getenv(EnvPlanTime))
	if err != nil || reps < 1 {
		t.Skipf("measurement only: set %s=REPETITIONS", EnvPlanTime)
	}
	if os.Getenv(EnvPlanTime+"_DEBUG") != "" {
		defer slog.SetDefault(slog.Default())
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})))
	}
	type query struct {
		name string
		g    *graph.Graph
		p    *pattern.Pattern
	}
	var qs []query
	wv := sharedtest.WikiVote(t)
	for _, sp := range sharedtest.STMatchPatterns(t) {
		qs = append(qs, query{sp.Name, wv, sp.Pattern})
	}
	var suites []query
	for _, s := range []struct{ dir, data string }{{"github-gmatch", "data.graph"}, {"hprd-subgraphmatching", "HPRD.graph"}} {
		g, sq := sharedtest.Suite(t, s.dir, s.data, 4)
		for _, q := range sq {
			suites = append(suites, query{q.Name, g, q.Pattern})
		}
	}
	qs = append(qs, suites...)
	median := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	var total time.Duration
	for _, q := range qs {
		var ds []time.Duration
		plans := map[string]int{}
		for range reps {
			start := time.Now()
			pl, err := buildPlan(context.Background(), q.g, q.p, engine.Semantics{}, Options{}, nil)
			ds = append(ds, time.Since(start))
			if err != nil {
				t.Fatal(err)
			}
			plans[fmt.Sprint(fullOrder(pl), "x", pl.Multiplier, "/", len(pl.Levels))]++
		}
		m := median(ds)
		total += m
		t.Logf("stmatch %-22s median %8.1f ms (min %7.1f, max %7.1f)  plans %v", q.name, ms(m), ms(slices.Min(ds)), ms(slices.Max(ds)), plans)
	}
	t.Logf("stmatch: sum of medians %.1f ms", ms(total))
	for _, q := range suites {
		var ds []time.Duration
		for range reps {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			res, err := cpu.Engine{}.Count(ctx, &engine.Problem{Data: q.g, Pattern: q.p})
			cancel()
			if err != nil && !res.Partial {
				t.Fatal(err)
			}
			ds = append(ds, res.PlanTime)
		}
		t.Logf("cpu %-22s plan median %7.2f ms", q.name, ms(median(ds)))
	}
}
