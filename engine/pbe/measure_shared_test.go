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
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestMeasureShared prints the inter-partition stage's time with and without shared execution
// (medians of SUBMATCH_PBE_RUNS runs, default 3, on 2 threads) on wiki-Vote and R-MAT graphs cut
// for a budget of 1/4 of the graph, as a markdown table for docs/benchmarks.md; the counts of the
// two must agree; with SUBMATCH_PBE_LIST=1, patterns of up to 50M inter matches are also listed
// (every match visited, not stored). It runs only with SUBMATCH_PBE_SHARED_MEASURE=1;
// SUBMATCH_PBE_ONLY keeps the graphs and patterns whose "name pattern" contains it.
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
			m := measureShared(t, prob, pt.Of, true, runs)
			st, progs, med, cpu := m.st, m.progs, m.wall, m.cpu
			if st[0].matches != st[1].matches {
				t.Errorf("%s %s: shared %d inter matches, unshared %d", c.name, src, st[0].matches, st[1].matches)
			}
			fmt.Printf("| `%s` | %d | %d/%d | %d | %d/%d | %d/%d | %.3f/%.3f | %.3f/%.3f | %.2fx |\n", src, plan.AutomorphismCount(p), progs[0], progs[1],
				st[0].matches, st[0].seeds, st[1].seeds, st[0].nodes, st[1].nodes, med[0].Seconds(), med[1].Seconds(),
				cpu[0].Seconds(), cpu[1].Seconds(), cpu[1].Seconds()/cpu[0].Seconds())
			if os.Getenv("SUBMATCH_PBE_LIST") != "" && st[0].matches <= 50_000_000 {
				l := measureShared(t, prob, pt.Of, false, runs)
				if l.st[0].matches != l.st[1].matches || l.st[0].matches != st[0].matches {
					t.Errorf("%s %s: listed %d shared, %d unshared", c.name, src, l.st[0].matches, l.st[1].matches)
				}
				fmt.Printf("| `%s`, listed (1 thread) | | %d/%d | %d | %d/%d | %d/%d | %.3f/%.3f | %.3f/%.3f | %.2fx |\n", src, l.progs[0], l.progs[1],
					l.st[0].matches, l.st[0].seeds, l.st[1].seeds, l.st[0].nodes, l.st[1].nodes, l.wall[0].Seconds(), l.wall[1].Seconds(),
					l.cpu[0].Seconds(), l.cpu[1].Seconds(), l.cpu[1].Seconds()/l.cpu[0].Seconds())
			}
		}
	}
}

// sharedMeasure is one row of TestMeasureShared: shared (0) against unshared (1).
type sharedMeasure struct {
	st        [2]interStats // matches: counted (times mult) or listed
	progs     [2]int
	wall, cpu [2]time.Duration // medians
}

// measureShared times the inter stage of prob on the parts of, shared and unshared, counting
// (orbits, 2 threads) or listing (1 thread, every match visited), interleaved runs times.
func measureShared(t *testing.T, prob *engine.Problem, of []uint32, orbits bool, runs int) sharedMeasure {
	ctx := context.Background()
	var m sharedMeasure
	var ips [2]*interPlan
	ts, cs := make([][]time.Duration, 2), make([][]time.Duration, 2)
	for k, shared := range []bool{true, false} {
		var err error
		if ips[k], err = interPlanFor(ctx, prob, orbits, shared); err != nil {
			t.Fatal(err)
		}
		m.progs[k] = len(ips[k].programs)
	}
	g := prob.Data
	// Interleaved, each first in turn, so that the machine's load falls on both alike.
	for r := range runs {
		for j := range ips {
			k := (j + r) % 2
			ip := ips[k]
			var listed uint64
			var visit func([]uint32) bool
			if !orbits {
				visit = ip.expand(func([]uint32) bool { listed++; return true })
			}
			t0, c0 := time.Now(), testenv.CPUTime()
			m.st[k], _ = runInter(ctx, g, of, entryBytes(g), ip, 2, visit)
			ts[k] = append(ts[k], time.Since(t0))
			cs[k] = append(cs[k], testenv.CPUTime()-c0)
			if orbits {
				m.st[k].matches *= ip.mult
			} else {
				m.st[k].matches = listed
			}
		}
	}
	for k := range ts {
		slices.Sort(ts[k])
		slices.Sort(cs[k])
		m.wall[k], m.cpu[k] = ts[k][len(ts[k])/2], cs[k][len(cs[k])/2]
	}
	return m
}
