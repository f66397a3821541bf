package plan

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/pattern"
)

// BenchmarkPlanPartsLabelled times the parts of the CPU engine's plan (the filters, the
// refinement, the order and levels, the candidate space) of STMatch's 24 labelled patterns on
// wiki-Vote with 10 labels: the inputs of scripts/labelled-bench.sh, in the folder its build
// writes (wv-l10.smg, and patterns.tsv with the labelled pattern in column 4), named by
// SUBMATCH_LAB_INPUTS (skipped without it). It reports each part's time per plan; run it at
// GOMAXPROCS=1 (-cpu 1) for the serial work.
func BenchmarkPlanPartsLabelled(b *testing.B) {
	dir := os.Getenv("SUBMATCH_LAB_INPUTS")
	if dir == "" {
		b.Skip("SUBMATCH_LAB_INPUTS names no folder of labelled-bench inputs")
	}
	g, err := formats.Load(filepath.Join(dir, "wv-l10.smg"), formats.Options{})
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "patterns.tsv"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var ps []*pattern.Pattern
	for sc := bufio.NewScanner(f); sc.Scan(); {
		c := strings.Split(sc.Text(), "\t")
		if strings.HasPrefix(c[0], "#") || len(c) < 4 {
			continue
		}
		p, err := pattern.Parse(c[3])
		if err != nil {
			b.Fatal(err)
		}
		ps = append(ps, p)
	}
	never := func() bool { return false }
	// The CPU engine's options for a count (engine/cpu.PlanOptions), the space built apart.
	opts := Options{MultiplyAutomorphisms: true, PrefixSymmetry: true, SpaceLimit: -1}
	var parts [4]time.Duration
	b.ResetTimer()
	for b.Loop() {
		for _, p := range ps {
			n := p.NumVertices()
			t0 := time.Now()
			pl := &Plan{Pattern: p, CandidateBits: make([]Bitset, n), Candidates: make([][]uint32, n)}
			for u := range n {
				pl.CandidateBits[u] = initialCandidates(g, p, u, never)
			}
			t1 := time.Now()
			refine(g, p, pl.CandidateBits, n, never)
			t2 := time.Now()
			for u := range n {
				pl.Candidates[u] = members(pl.CandidateBits[u])
			}
			if _, err := pl.finish(context.Background(), g, opts, nil); err != nil {
				b.Fatal(err)
			}
			t3 := time.Now()
			pl.Space = buildSpace(g, pl, DefaultSpaceLimit, nil, never)
			parts[0] += t1.Sub(t0)
			parts[1] += t2.Sub(t1)
			parts[2] += t3.Sub(t2)
			parts[3] += time.Since(t3)
		}
	}
	plans := float64(b.N * len(ps))
	for i, name := range []string{"filter", "refine", "finish", "space"} {
		b.ReportMetric(float64(parts[i].Nanoseconds())/plans, name+"-ns/plan")
	}
}
