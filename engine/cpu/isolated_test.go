package cpu_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
)

// TestIsolatedOracle checks the counts of patterns with isolated vertices (counted by
// subtraction when one is the last level: induced plans; postponed groups otherwise) against the
// brute-force oracle under every convention: random connected parts with one or two isolated
// vertices, labelled and wildcard, some isolated vertices symmetric with each other, on random
// labelled graphs dense enough that the exclusions (mapped vertices and their neighbours) overlap.
func TestIsolatedOracle(t *testing.T) {
	cpuEngine, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	fixed := []string{
		"(a)-(b), (c)",
		"(a)-(b)-(c)-(a), (d)",
		"(a)-(b)-(c)-(d)-(a), (e)",
		"(a:0)-(b:1), (c:0)",
		"(a)-(b), (c), (d)",
		"(a:1)-(b)-(c:1), (d:1), (e:0)",
		"(a), (b)",
		"(a:0)-(b:0)-(c:0)-(a), (a)-(d:1), (e:1)",
	}
	n := 0
	for seed := uint64(1); seed <= 40; seed++ {
		vl := int(seed%3) + 1
		g := gen.RandomGraphM(seed, 9+int(seed%5), 14+int(seed%17), vl, 1)
		var pats []*pattern.Pattern
		p, err := pattern.Parse(fixed[seed%uint64(len(fixed))])
		if err != nil {
			t.Fatal(err)
		}
		pats = append(pats, p)
		pats = append(pats, gen.RandomPattern(seed*7, 3+int(seed%3), gen.PatternOptions{
			Components: 2 + int(seed%2), EdgeProb: 0.4, VertexLabels: vl, Wildcard: 0.3,
		}))
		for _, p := range pats {
			for _, sem := range proptest.AllSemantics {
				want := oracle.Count(g, p, sem)
				for _, threads := range []int{1, 2} {
					got := countCPU(t, cpuEngine, g, p, sem, threads)
					if got != want {
						t.Errorf("seed %d %s (%s, %d threads): cpu %d, oracle %d", seed, p, sem, threads, got, want)
					}
				}
				n++
			}
		}
	}
	t.Logf("%d cases", n)
}

func countCPU(t *testing.T, e engine.Engine, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, threads int) uint64 {
	t.Helper()
	res, err := e.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: threads})
	if err != nil || res.Partial {
		t.Fatal(fmt.Errorf("count %s (%s): %w (partial %v)", p, sem, err, res.Partial))
	}
	return res.Count
}
