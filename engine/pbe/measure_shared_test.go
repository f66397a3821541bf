package pbe

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestMeasureShared prints the inter-partition stage's time with and without shared execution
// (medians of SUBMATCH_PBE_RUNS runs, default 3, on 2 threads) on wiki-Vote and R-MAT graphs cut
// for a budget of 1/4 of the graph, as a markdown table for docs/benchmarks.md; the counts of the
// two must agree. It runs only with SUBMATCH_PBE_SHARED_MEASURE=1; SUBMATCH_PBE_ONLY keeps the
// graphs and patterns whose "name pattern" contains it.
func TestMeasureShared(t *testing.T) {
	if os.Getenv("SUBMATCH_PBE_SHARED_MEASURE") == "" {
		t.Skip("set SUBMATCH_PBE_SHARED_MEASURE=1 to measure")
	}
	runs := 3
	fmt.Sscan(os.Getenv("SUBMATCH_PBE_RUNS"), &runs)
	ctx := context.Background()
	rmat := func(labels int) *graph.Graph {
		g, err := gen.RMAT(gen.RMATOptions{Scale: 14, EdgeFactor: 8, VertexLabels: labels, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	unlabelled := []string{"(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a)-(c), (b)-(d)", "(a)-(b)-(c)-(d)-(a)",
		"(a)-(b)-(c)-(d)-(a)-(c), (b)-(d), (e)-(a), (e)-(b), (e)-(c)"}
	labelled := []string{"(a:0)-(b:1)-(c:2)-(a), (c)-(d:0)"}
	for _, c := range []struct {
		name string
		g    *graph.Graph
		ps   []string
	}{
		{"wiki-Vote", sharedtest.WikiVote(t), unlabelled},
		{"R-MAT 14/8", rmat(1), unlabelled},
		{"R-MAT 14/8, 3 labels", rmat(3), labelled},
	} {
		b := partition.GraphBytes(c.g) / 4
		pt, err := partition.Partition(ctx, c.g, partition.Options{Budget: b, Method: partition.Auto})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("%s: %d vertices, %d edges, %d parts, %d cut edges\n", c.name, c.g.NumVertices(), c.g.NumEdges(), len(pt.Parts), pt.EdgeCut)
		fmt.Println("| pattern | |Aut| | programs (shared/unshared) | inter matches | seeds shared/unshared | nodes shared/unshared | wall s shared/unshared | CPU s shared/unshared | CPU speed-up |")
		for _, src := range c.ps {
			if only := os.Getenv("SUBMATCH_PBE_ONLY"); only != "" && !strings.Contains(c.name+" "+src, only) {
				continue
			}
			p, err := pattern.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			prob := &engine.Problem{Data: c.g, Pattern: p}
			var med, cpu [2]time.Duration
			var st [2]interStats
			var progs [2]int
			var ips [2]*interPlan
			ts, cs := make([][]time.Duration, 2), make([][]time.Duration, 2)
			for k, shared := range []bool{true, false} {
				if ips[k], err = interPlanFor(ctx, prob, true, shared); err != nil {
					t.Fatal(err)
				}
				progs[k] = len(ips[k].programs)
			}
			// Interleaved, each first in turn, so that the machine's load falls on both alike.
			for r := range runs {
				for j := range ips {
					k := (j + r) % 2
					ip := ips[k]
					t0, c0 := time.Now(), cpuTime()
					st[k], _ = runInter(ctx, c.g, pt.Of, entryBytes(c.g), ip, 2, nil)
					ts[k] = append(ts[k], time.Since(t0))
					cs[k] = append(cs[k], cpuTime()-c0)
					st[k].matches *= ip.mult
				}
			}
			for k := range ts {
				slices.Sort(ts[k])
				slices.Sort(cs[k])
				med[k], cpu[k] = ts[k][len(ts[k])/2], cs[k][len(cs[k])/2]
			}
			if st[0].matches != st[1].matches {
				t.Errorf("%s %s: shared %d inter matches, unshared %d", c.name, src, st[0].matches, st[1].matches)
			}
			fmt.Printf("| `%s` | %d | %d/%d | %d | %d/%d | %d/%d | %.3f/%.3f | %.3f/%.3f | %.2fx |\n", src, plan.AutomorphismCount(p), progs[0], progs[1],
				st[0].matches, st[0].seeds, st[1].seeds, st[0].nodes, st[1].nodes, med[0].Seconds(), med[1].Seconds(),
				cpu[0].Seconds(), cpu[1].Seconds(), cpu[1].Seconds()/cpu[0].Seconds())
		}
	}
}
