package pbe_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
)

// TestPublished (deep sweep) counts the github-gmatch queries and wiki-Vote's triangles under
// budgets of 1/4 and 1/16 of the graph and compares them with the published counts.
func TestPublished(t *testing.T) {
	testenv.SkipUnlessLong(t)
	ctx := context.Background()
	g, qs := sharedtest.Suite(t, "github-gmatch", "data.graph", 0)
	for _, div := range []uint64{4, 16} {
		e := &pbe.Engine{Budget: partition.GraphBytes(g) / div}
		for _, q := range qs {
			res, st, err := e.CountStats(ctx, &engine.Problem{Data: g, Pattern: q.Pattern})
			if err != nil || res.Count != q.Want {
				t.Errorf("github %s, budget 1/%d: %d (err %v), published %d", q.Name, div, res.Count, err, q.Want)
			}
			t.Logf("github %s 1/%d: %d parts, intra share %.3f", q.Name, div, st.Parts, st.IntraShare())
		}
	}
	wv := sharedtest.WikiVote(t)
	tri, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	for _, div := range []uint64{4, 16} {
		e := &pbe.Engine{Budget: partition.GraphBytes(wv) / div}
		res, err := e.Count(ctx, &engine.Problem{Data: wv, Pattern: tri, Semantics: engine.Semantics{Unique: true}})
		if err != nil || res.Count != 608_389 {
			t.Errorf("wiki-Vote triangles, budget 1/%d: %d (err %v), published 608389", div, res.Count, err)
		}
	}
}

// TestMeasure prints the partition quality and the times of pbe and cpu (medians of
// SUBMATCH_PBE_RUNS runs, default 3) on the github queries and wiki-Vote's 4-cycles, budgets 1/4
// and 1/16 of the graph, as a markdown table for docs/benchmarks.md. It runs only with
// SUBMATCH_PBE_MEASURE=1.
func TestMeasure(t *testing.T) {
	if os.Getenv("SUBMATCH_PBE_MEASURE") == "" {
		t.Skip("set SUBMATCH_PBE_MEASURE=1 to measure")
	}
	runs := 3
	fmt.Sscan(os.Getenv("SUBMATCH_PBE_RUNS"), &runs)
	var only string
	if s := os.Getenv("SUBMATCH_PBE_ONLY"); s != "" {
		only = s
	}
	type job struct {
		data string
		g    *graph.Graph
		name string
		p    *pattern.Pattern
		sem  engine.Semantics
	}
	var jobs []job
	if only == "" || only == "github" {
		g, qs := sharedtest.Suite(t, "github-gmatch", "data.graph", 0)
		for _, q := range qs {
			jobs = append(jobs, job{"github", g, q.Name, q.Pattern, engine.Semantics{}})
		}
	}
	if only == "" || only == "wikivote" {
		wv := sharedtest.WikiVote(t)
		c4, _ := pattern.Parse("(a)-(b)-(c)-(d)-(a)")
		jobs = append(jobs, job{"wiki-Vote", wv, "4-cycle unique", c4, engine.Semantics{Unique: true}})
	}
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	median := func(ds []time.Duration) time.Duration { slices.Sort(ds); return ds[len(ds)/2] }
	var b strings.Builder
	fmt.Fprintln(&b, "| graph | query | budget | parts | cut edges | intra share | cpu ms | partition ms (once) | pbe ms (partitioned) | pbe intra / inter ms | inter bytes read |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|---|---|---|")
	ctx := context.Background()
	for _, j := range jobs {
		prob := &engine.Problem{Data: j.g, Pattern: j.p, Semantics: j.sem, Threads: 2}
		var cpuTimes []time.Duration
		var want uint64
		for range runs {
			t0 := time.Now()
			r, err := cpu.Count(ctx, prob)
			if err != nil {
				t.Fatal(err)
			}
			cpuTimes = append(cpuTimes, time.Since(t0))
			want = r.Count
		}
		for _, div := range []uint64{4, 16} {
			e := &pbe.Engine{Budget: partition.GraphBytes(j.g) / div}
			var times []time.Duration
			var st *pbe.Stats
			var partTime time.Duration
			for k := range runs + 1 { // the first run partitions; the others find it cached
				c, cancel := context.WithTimeout(ctx, 120*time.Second)
				t0 := time.Now()
				r, s, err := e.CountStats(c, prob)
				cancel()
				if k == 0 {
					partTime = s.PartitionTime
				} else {
					times = append(times, time.Since(t0))
				}
				st = s
				if err != nil || r.Count != want {
					t.Logf("%s %s 1/%d: %d (err %v), cpu %d", j.data, j.name, div, r.Count, err, want)
					times = append(times, time.Since(t0))
					break
				}
			}
			fmt.Fprintf(&b, "| %s | %s | 1/%d | %d | %d (%.1f%%) | %.4f | %.1f | %.0f | %.1f | %.0f / %.0f | %.3g |\n",
				j.data, j.name, div, st.Parts, st.EdgeCut, 100*float64(st.EdgeCut)/float64(j.g.NumEdges()), st.IntraShare(),
				ms(median(cpuTimes)), ms(partTime), ms(median(times)), ms(st.IntraTime), ms(st.InterTime), float64(st.InterBytes))
		}
	}
	t.Logf("median of %d runs, 2 threads\n%s", runs, b.String())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
