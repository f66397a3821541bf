package pbe_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	_ "github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
)

// tightBudget is the smallest budget every vertex fits with its whole halo: parts of one or a few
// vertices, the most inter-partition matches.
func tightBudget(g *graph.Graph) uint64 { return max(64, pbe.MinBudget(g)) }

// budgets are the budgets a case runs under: none (one part), half, a fifth and the tightest.
func budgets(g *graph.Graph) []uint64 {
	gb := partition.GraphBytes(g)
	t := tightBudget(g)
	return []uint64{0, max(gb/2, t), max(gb/5, t), t}
}

// TestOracleProperty (600 seeds in the deep sweep, 60 by default) checks pbe's counts, and for a
// third of the seeds its match lists, against the brute-force oracle on the shared random
// problems, under every convention and budgets that force from 1 to dozens of parts, partitioned
// by the multilevel partitioner (even seeds; with triangle edge weights for seeds 2 mod 4) or in
// ranges of consecutive ids (odd seeds), with shared execution except for seeds 3 mod 4.
func TestOracleProperty(t *testing.T) {
	seeds, _ := proptest.Seeds(t, 600, 60)
	var ost proptest.OracleStats
	ctx := context.Background()
	failures, multi, inter := 0, 0, 0
	for o := range proptest.WithOracle(seeds, &ost) {
		c := o.Case
		for _, b := range budgets(c.G) {
			e := &pbe.Engine{Budget: b, Triangles: c.Seed%4 == 2, Unshared: c.Seed%4 == 3}
			if c.Seed%2 == 1 {
				e.Partitioner = partition.Ranges
			}
			prob := &engine.Problem{Data: c.G, Pattern: c.P, Semantics: o.Sem, Threads: 2}
			res, st, err := e.CountStats(ctx, prob)
			how := fmt.Sprintf("pbe budget %d (%d parts, %v, triangles %v, unshared %v)", b, st.Parts, e.Partitioner, e.Triangles, e.Unshared)
			if err != nil || res.Partial || res.Count != o.Want || st.IntraMatches+st.InterMatches != res.Count {
				t.Errorf("Count = %d (intra %d + inter %d, partial %v, err %v), oracle %d\n%s", res.Count,
					st.IntraMatches, st.InterMatches, res.Partial, err, o.Want, c.Describe(o.Sem, how, "./engine/pbe -run TestOracleProperty"))
				failures++
			}
			if st.Parts > 1 {
				multi++
			}
			if st.InterMatches > 0 {
				inter++
			}
			if c.Seed%3 == 0 && o.Want <= 5_000 {
				if msg := proptest.CompareLists(ctx, e, c, prob); msg != "" {
					t.Errorf("%s\n%s", msg, c.Describe(o.Sem, how, "./engine/pbe -run TestOracleProperty"))
					failures++
				}
			}
		}
		if failures >= 10 {
			t.Fatalf("stopping after %d failures", failures)
		}
	}
	t.Logf("%d seeds: %d runs with several parts, %d with inter-partition matches; %d skipped as too big for the oracle", len(seeds), multi, inter, ost.Skipped)
	if len(seeds) >= 50 && (multi == 0 || inter == 0) {
		t.Errorf("the budgets forced no inter-partition matches: the test checks nothing of the inter stage")
	}
}

// TestAgainstCPU compares pbe with the cpu engine on graphs of 200-500 vertices (beyond the
// oracle), every convention, budgets forcing 2 to hundreds of parts: 4 seeds by default, 60 in
// the deep sweep (the cpu engine's counts of disconnected patterns on these graphs take seconds).
func TestAgainstCPU(t *testing.T) {
	n := uint64(4)
	if testing.Short() {
		n = 2
	}
	if proptestLong() {
		n = 60
	}
	ctx := context.Background()
	for lc := range largerCases(t, n, 2) {
		for _, b := range budgets(lc.c.G)[1:] {
			res, st, err := (&pbe.Engine{Budget: b}).CountStats(ctx, lc.prob)
			if err != nil || res.Count != lc.want {
				t.Errorf("seed %d %s budget %d (%d parts): pbe %d (intra %d, inter %d, err %v), cpu %d\n%s",
					lc.seed, lc.sem, b, st.Parts, res.Count, st.IntraMatches, st.InterMatches, err, lc.want, lc.c.Recipe)
			}
		}
	}
}

func proptestLong() bool { return testingLong }

// TestBudgetTooSmall: a budget below one vertex's needs is engine.ErrMemory, not a panic.
func TestBudgetTooSmall(t *testing.T) {
	c := proptest.MakeLarger(1)
	_, err := (&pbe.Engine{Budget: 10}).Count(context.Background(), &engine.Problem{Data: c.G, Pattern: c.P})
	if err == nil {
		t.Fatal("no error")
	}
	if !errorsIs(err, engine.ErrMemory) {
		t.Fatalf("error %v does not wrap ErrMemory", err)
	}
}

// TestCancel: a cancelled count is partial with the context's error.
func TestCancel(t *testing.T) {
	g := gen.RandomGraphM(3, 400, 4000, 1, 1)
	p := gen.RandomPattern(5, 6, gen.PatternOptions{EdgeProb: 0.3, VertexLabels: 1, EdgeLabels: 1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := (&pbe.Engine{Budget: tightBudget(g)}).Count(ctx, &engine.Problem{Data: g, Pattern: p})
	if err == nil || !res.Partial {
		t.Fatalf("cancelled count: partial %v, err %v", res.Partial, err)
	}
}

// TestLayoutReport: the report's figures are the partitioner's, each budget met.
func TestLayoutReport(t *testing.T) {
	g := gen.RandomGraphM(5, 600, 3000, 2, 1)
	l, err := (&pbe.Engine{}).LayoutReport(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Lines) != 3 || l.Title == "" {
		t.Fatalf("report %+v", l)
	}
	for _, div := range []uint64{4, 16} {
		b := max(partition.GraphBytes(g)/div, pbe.MinBudget(g))
		pt, err := partition.Partition(context.Background(), g, partition.Options{Budget: b})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("budget 1/%d (%d B): %d parts, %d cut edges", div, b, len(pt.Parts), pt.EdgeCut)
		if !strings.Contains(strings.Join(l.Lines, "\n"), want) || pt.MaxBytes() > b {
			t.Errorf("report lacks %q:\n%s", want, strings.Join(l.Lines, "\n"))
		}
	}
}

// TestPowerLawAgainstCPU: pbe on small R-MAT graphs (hubs, ids by degree, as at scale; the
// inter stage's intersections and windows were tuned there) against the cpu engine, every
// convention, unlabelled (one sorted list a vertex) and labelled with wildcards (label runs and
// the lookup path), budgets from half the graph to a twentieth with ranges, a fifth with the
// default partitioner too; the matches listed (every embedding found alone) must be as many as counted (one
// match an orbit, times |Aut|).
func TestPowerLawAgainstCPU(t *testing.T) {
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	queries := []string{
		"(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a)", "(a)-(b)-(c)-(a), (a)-(d)", "(a)-(b)-(c)-(d)-(a), (a)-(c)",
		"(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)", "(a)-(b)-(c)-(d)-(e)-(a)", "(a)-(b)-(c)-(d)",
		"(a)-(b)-(c)-(d)-(a), (a)-(e)-(b)",
	}
	labelled := []string{"(a:0)-(b)-(c:1)-(a)", "(a:0)-[:1]-(b:0)-(c)-(d:2)-(a)", "(a:1)-(b:1)-(c:1)-(a), (a)-[:0]-(d)"}
	ctx := context.Background()
	inter := 0
	for _, lab := range []bool{false, true} {
		opts := gen.RMATOptions{Scale: 8, EdgeFactor: 8, Seed: 3}
		qs := queries
		if lab {
			opts.VertexLabels, opts.EdgeLabels, qs = 3, 2, append(labelled, queries[:3]...)
		}
		g, err := gen.RMAT(opts)
		if err != nil {
			t.Fatal(err)
		}
		gb := partition.GraphBytes(g)
		for _, q := range qs {
			pat, err := pattern.Parse(q)
			if err != nil {
				t.Fatal(err)
			}
			for _, sem := range proptest.AllSemantics {
				prob := &engine.Problem{Data: g, Pattern: pat, Semantics: sem}
				want, err := cpu.Count(ctx, prob)
				if err != nil {
					t.Fatal(err)
				}
				for _, div := range []uint64{2, 5, 20} {
					for _, m := range []partition.Method{partition.Ranges, partition.Auto} {
						if m == partition.Auto && div != 5 {
							continue
						}
						e := &pbe.Engine{Budget: max(gb/div, tightBudget(g)), Partitioner: m}
						res, st, err := e.CountStats(ctx, prob)
						if err != nil || res.Count != want.Count {
							t.Fatalf("labelled %v %s %v 1/%d %v (%d parts): pbe %d (intra %d, inter %d, err %v), cpu %d",
								lab, q, sem, div, m, st.Parts, res.Count, st.IntraMatches, st.InterMatches, err, want.Count)
						}
						if st.InterMatches > 0 {
							inter++
						}
						if div != 5 || m != partition.Ranges || want.Count > 200_000 {
							continue
						}
						var listed uint64
						for _, err := range e.Matches(ctx, prob) {
							if err != nil {
								t.Fatal(err)
							}
							listed++
						}
						if listed != want.Count {
							t.Fatalf("labelled %v %s %v: %d listed, %d counted", lab, q, sem, listed, want.Count)
						}
					}
				}
			}
		}
	}
	if inter == 0 {
		t.Fatal("no inter-partition matches: the inter stage was not checked")
	}
}
