package sgsi_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
)

// TestBalance runs layerCases on the host emulation (the schedule's side of the layers: each
// row dealt to one, a launch each; the kernels' side is TestLayersOnHost's).
func TestBalance(t *testing.T) {
	layerCases(t, proptest.SeedsUpTo(30), true)
}

// TestGPUBalance runs the four load-balance layers, forced, on the GPU.
func TestGPUBalance(t *testing.T) {
	needGPU(t)
	seeds, _ := proptest.Seeds(t, 200, 100)
	layerCases(t, seeds, false)
}

// layerCases counts the oracle's cases of seeds and hub graphs (rows over the whole grid
// of several blocks), in core and out of core, with every layer forced, against the oracle, and
// lists a few; it fails if a layer took no row.
func layerCases(t *testing.T, seeds []uint64, host bool) {
	ctx := context.Background()
	var rows [4]uint64
	opts := func(region uint64) (sgsi.Options, func(*engine.Problem)) {
		o := sgsi.Options{Host: host, Layers: &sgsi.ForcedLayers, MaxCache: 400}
		if host {
			o.HostBytes = region
			return o, func(*engine.Problem) {}
		}
		return o, func(p *engine.Problem) { p.GPUMemoryLimit = region }
	}
	count := func(c proptest.Case, sem engine.Semantics, want, region uint64, how string) {
		o, set := opts(region)
		prob := &engine.Problem{Data: c.G, Pattern: c.P, Semantics: sem}
		set(prob)
		res, st, err := sgsi.Engine{Options: o}.CountStats(ctx, prob)
		if errors.Is(err, engine.ErrMemory) && region < 1<<20 {
			return
		}
		for _, s := range st.Balance {
			for l, n := range s.Rows {
				rows[l] += n
			}
		}
		if err != nil || res.Count != want {
			t.Errorf("layers forced: Count = %d (%v), oracle %d\n%s", res.Count, err, want, c.Describe(sem, fmt.Sprintf("%s, host %v, region %d", how, host, region), "./engine/sgsi -run 'Test(GPU)?Balance'"))
		}
	}
	listed := 0
	for o := range proptest.WithOracle(seeds, nil) {
		for _, region := range []uint64{1 << 22, 6000} {
			count(o.Case, o.Sem, o.Want, region, "oracle case")
		}
		if o.Want > 2000 || o.Seed%4 != 0 {
			continue
		}
		listed++
		op, set := opts(1 << 22)
		prob := &engine.Problem{Data: o.G, Pattern: o.P, Semantics: o.Sem}
		set(prob)
		if msg := proptest.CompareLists(ctx, sgsi.Engine{Options: op}, o.Case, prob); msg != "" {
			t.Errorf("layers forced: %s\n%s", msg, o.Describe(o.Sem, "listing", "./engine/sgsi -run 'Test(GPU)?Balance'"))
		}
	}
	for seed := uint64(1); seed <= 3; seed++ {
		g := sgsi.HubGraph(seed, 300+100*int(seed), 2) // hub lists of several blocks' threads
		p := gen.RandomPattern(seed, 3, gen.PatternOptions{Components: 1, EdgeProb: 0.5, VertexLabels: 2, EdgeLabels: 2, Wildcard: 0.3})
		for _, sem := range proptest.AllSemantics {
			want, ok := oracle.CountWithin(g, p, sem, 20_000_000)
			if ok {
				count(proptest.Case{Seed: seed, G: g, P: p}, sem, want, 1<<22, "hub graph")
			}
		}
	}
	t.Logf("rows per layer (warp, pool, block, grid): %v; %d listings compared", rows, listed)
	for l, n := range rows {
		if n == 0 {
			t.Errorf("layer %d took no row", l)
		}
	}
}

// TestGPUBalanceAB measures, on the GPU, the split before SGSI+'s balance (a warp, or a block
// a row: TwoLayers) against the four layers with the histogram's thresholds, interleaved, on a
// skewed R-MAT graph (Zipf labels), in core and at a quarter of the graph, with the last step
// buffered (the direct count has no layers). It runs only with SUBMATCH_SGSI_BALANCE_AB=1
// (scripts/sgsi-bench.sh balance): scale SUBMATCH_SGSI_AB_SCALE (16), repetitions
// SUBMATCH_SGSI_AB_REPS (3); it stops starting runs after 110 s.
func TestGPUBalanceAB(t *testing.T) {
	needGPU(t)
	balanceAB(t, false)
}

// TestBalanceAB is TestGPUBalanceAB on the host emulation: the rows each layer takes and the
// host's time for the histograms and choices (the kernels' times are the emulation's).
func TestBalanceAB(t *testing.T) {
	balanceAB(t, true)
}

func balanceAB(t *testing.T, host bool) {
	if os.Getenv("SUBMATCH_SGSI_BALANCE_AB") == "" {
		t.Skip("a measurement: SUBMATCH_SGSI_BALANCE_AB=1")
	}
	t0 := time.Now()
	scale, reps := envInt("SUBMATCH_SGSI_AB_SCALE", 16), envInt("SUBMATCH_SGSI_AB_REPS", 3)
	g, err := gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: 16, VertexLabels: 8, LabelDistribution: gen.ZipfLabels, Seed: 21})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("R-MAT scale %d: %d vertices, %d edges, made in %v", scale, g.NumVertices(), g.NumEdges(), time.Since(t0))
	queries := []string{"(a:1)-(b)-(c:0)", "(a)-(b)-(c)-(a)", "(a:0)-(b)-(c:1)-(a), (c)-(d:2)", "(a:1)-(b)-(c:1)-(d)-(a)"}
	fmt.Println("| query | budget | layers | count | median total ms | median comp ms | median choice ms | rows per layer (warp pool block grid) |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	ctx := context.Background()
	for _, q := range queries {
		p, err := pattern.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, frac := range []uint64{0, 4} {
			budget := uint64(0)
			if frac > 0 {
				budget = sgsi.GraphBytes(g) / frac
			}
			sides := []*sgsi.Thresholds{sgsi.TwoLayers(sgsi.DefaultBlockRows), nil}
			total, comp, choice := make([][]time.Duration, 2), make([][]time.Duration, 2), make([][]time.Duration, 2)
			counts, layers := make([]uint64, 2), make([]string, 2)
			for rep := 0; rep < reps && time.Since(t0) < 110*time.Second; rep++ {
				for i, th := range sides { // interleaved
					cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
					e := sgsi.Engine{Options: sgsi.Options{Host: host, HostBytes: budget, Layers: th, Buffered: true}}
					res, st, err := e.CountStats(cctx, &engine.Problem{Data: g, Pattern: p, GPUMemoryLimit: budget})
					cancel()
					if err != nil {
						t.Logf("%s budget %d layers %v: %v", q, budget, th, err)
						continue
					}
					took := time.Duration(0)
					for _, b := range st.Balance {
						took += b.Choice
					}
					total[i], comp[i], choice[i] = append(total[i], st.Total), append(comp[i], st.Comp), append(choice[i], took)
					counts[i], layers[i] = res.Count, rowsPerLayer(st.Balance)
					if rep == 0 {
						t.Logf("%s budget %d layers %v: %v", q, budget, th, st.Balance)
					}
				}
			}
			if len(total[0]) > 0 && len(total[1]) > 0 && counts[0] != counts[1] {
				t.Errorf("%s budget %d: the histogram's layers count %d, two layers %d", q, budget, counts[1], counts[0])
			}
			for i, name := range []string{"fixed (two)", "histogram (four)"} {
				fmt.Printf("| %s | %d | %s | %d | %.1f | %.1f | %.2f | %s |\n", q, budget, name, counts[i], median(total[i]), median(comp[i]), median(choice[i]), layers[i])
			}
		}
	}
}

// rowsPerLayer sums a count's rows per layer over its steps.
func rowsPerLayer(b sgsi.Balance) string {
	var n [4]uint64
	for _, s := range b {
		for l, x := range s.Rows {
			n[l] += x
		}
	}
	return fmt.Sprint(n)
}

// median is the median of ds in milliseconds (NaN-free: 0 without any).
func median(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2]) / 1e6
}
