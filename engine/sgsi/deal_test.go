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
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/pattern"
)

// TestDealHost checks a count dealt to several runners (deal.go) on the host emulation: three
// emulated devices, and one device listed twice (two runners with half its region each).
func TestDealHost(t *testing.T) {
	for _, gpus := range [][]int{{0, 1, 2}, {0, 0}} {
		dealtAgainstCPU(t, gpus, true)
	}
}

// dealtAgainstCPU counts random cases (every convention, in core and out of core, direct and
// buffered last steps), R-MAT graphs (labelled and not; triangles generated from edges, 4-cliques
// through tables) and wiki-Vote's triangles with the problem's GPUs set to gpus, against the cpu
// engine: the sum of the runners' counts must be the count, and the runners must all be used.
func dealtAgainstCPU(t *testing.T, gpus []int, host bool) {
	t.Helper()
	ctx := context.Background()
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	var runs, shared int
	check := func(what string, prob engine.Problem, want uint64, f uint64, buffered bool) {
		t.Helper()
		b := uint64(64 << 20)
		if f > 0 {
			b = max(sgsi.GraphBytes(prob.Data)/f, 8192)
		}
		prob.GPUs, prob.GPUMemoryLimit = gpus, b
		e := sgsi.Engine{Options: sgsi.Options{Host: host, BlockRows: 16, Buffered: buffered}}
		res, st, err := e.CountStats(ctx, &prob)
		how := fmt.Sprintf("%s %s, GPUs %v, region %d (1/%d), buffered %v, host %v", what, prob.Semantics, gpus, b, f, buffered, host)
		if errors.Is(err, engine.ErrMemory) && f > 0 {
			t.Logf("%s: %v", how, err)
			return
		}
		runs++
		if err != nil || res.Partial || res.Count != want {
			t.Errorf("%s: sgsi %d (partial %v, %v), cpu %d", how, res.Count, res.Partial, err, want)
			return
		}
		if len(st.Devices) != len(gpus) {
			t.Errorf("%s: %d device rows, want %d", how, len(st.Devices), len(gpus))
			return
		}
		var sum, roots uint64
		busy := 0
		for _, d := range st.Devices {
			sum += d.Count
			roots += d.Roots
			if d.Roots > 0 {
				busy++
			}
		}
		if sum != res.Count {
			t.Errorf("%s: the runners counted %d in all, the count is %d", how, sum, res.Count)
		}
		if prob.Data.NumVertices() > 5000 { // wiki-Vote: the runners' shares in the test's log
			for i, d := range st.Devices {
				t.Logf("%s: runner %d (GPU %d): %d roots, work %d, count %d, %d chunks, %d B up, %d B down, comm %v comp %v, %v",
					how, i, d.GPU, d.Roots, d.Work, d.Count, d.Chunks, d.BytesToGPU, d.BytesFromGPU, d.Comm, d.Comp, d.Time)
			}
		}
		if roots > 0 && busy == len(gpus) {
			shared++
		}
	}
	// Random cases.
	for seed := uint64(1); seed <= 6; seed++ {
		c := proptest.MakeLarger(seed)
		for _, sem := range proptest.AllSemantics {
			prob := engine.Problem{Data: c.G, Pattern: c.P, Semantics: sem}
			want, err := cpu.Count(ctx, &prob)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []uint64{0, 4, 16} {
				check(fmt.Sprintf("seed %d", seed), prob, want.Count, f, f == 4)
			}
		}
	}
	// R-MAT: the direct count (rows from edges, or from a table) and the buffered one.
	graphs := []gen.RMATOptions{{Scale: 9, EdgeFactor: 8, Seed: 11}, {Scale: 9, EdgeFactor: 8, VertexLabels: 2, Seed: 12}}
	pats := []string{"(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)", "(a:0)-(b:1)-(c:1)-(a), (a)-(d:1)-(b)"}
	againstCPUOnRMAT(t, graphs, pats, func(gc gen.RMATOptions, prob engine.Problem, want uint64) {
		for _, f := range []uint64{0, 8} {
			for _, buffered := range []bool{false, true} {
				check(fmt.Sprintf("R-MAT %+v %s", gc, prob.Pattern), prob, want, f, buffered)
			}
		}
	})
	// A real graph: wiki-Vote's published 608,389 triangles, in core and at a quarter.
	g := sharedtest.WikiVote(t)
	tri, err := pattern.Parse("(a)-(b)-(c)-(a)")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []uint64{0, 4} {
		check("wiki-Vote triangles", engine.Problem{Data: g, Pattern: tri, Semantics: engine.Semantics{Unique: true}}, 608389, f, false)
	}
	t.Logf("GPUs %v: %d dealt counts, %d with every runner given roots", gpus, runs, shared)
	if shared == 0 {
		t.Errorf("GPUs %v: no count gave every runner roots", gpus)
	}
}

// TestDealStops: a dealt count stops when its context ends, every runner (the count returns,
// partial, with the context's error), and when one runner fails, whose error is returned rather
// than the cancellations it causes. Host emulation, a 4-clique count out of core, on the
// smallest R-MAT graph (from scale 12 up) whose count is still running when the context is
// cancelled 200 ms in: the engine's speed moves, and a count that ends first says nothing about
// stopping (scale 12's took seconds once, under 200 ms on 2026-12-04).
func TestDealStops(t *testing.T) {
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)")
	if err != nil {
		t.Fatal(err)
	}
	var (
		g    *graph.Graph
		prob *engine.Problem
		e    sgsi.Engine
		st   sgsi.Stats
		lat  time.Duration
	)
	for scale := 12; ; scale++ {
		if g, err = gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: 16, Seed: 5}); err != nil {
			t.Fatal(err)
		}
		prob = &engine.Problem{Data: g, Pattern: p, GPUs: []int{0, 1}}
		e = sgsi.Engine{Options: sgsi.Options{Host: true, HostBytes: sgsi.GraphBytes(g) / 16}}
		ctx, cancel := context.WithCancel(context.Background())
		at := make(chan time.Time, 1)
		timer := time.AfterFunc(200*time.Millisecond, func() {
			at <- time.Now()
			cancel()
		})
		var res engine.Result
		res, st, err = e.CountStats(ctx, prob)
		if err == nil && !res.Partial { // finished before the cancellation took effect
			timer.Stop()
			cancel()
			if scale == 16 {
				t.Fatalf("R-MAT scale %d: the count ended within 200 ms; nothing to stop", scale)
			}
			continue
		}
		lat = time.Since(<-at)
		t.Logf("scale %d, cancelled: %d counted, partial %v, %v, returned %v after the cancellation", scale, res.Count, res.Partial, err, lat)
		if !errors.Is(err, context.Canceled) || !res.Partial {
			t.Fatalf("cancelled count: %v, partial %v", err, res.Partial)
		}
		break
	}
	if len(st.Devices) != 2 {
		t.Errorf("%d device rows", len(st.Devices))
	}
	if lat > 10*time.Second { // (a bound on stopping at all, not a measure: the -v log has it)
		t.Errorf("the runners stopped %v after the cancellation", lat)
	}

	// Device 0 listed twice: its two runners get half the region each, too small for the
	// candidate bitsets; device 1's runner has the whole region and is stopped by their failure,
	// whether it is the first runner (which filters for all) or one that waits for the first.
	e.Options.HostBytes = 4 * 4 * uint64(g.NumVertices()) / 32 * 15 / 8 // the 4 bitsets and a little
	for _, gpus := range [][]int{{1, 0, 0}, {0, 0, 1}} {
		prob.GPUs = gpus
		t0 := time.Now()
		_, st, err = e.CountStats(context.Background(), prob)
		t.Logf("GPUs %v, failing runners: %v after %v", gpus, err, time.Since(t0))
		if !errors.Is(err, engine.ErrMemory) || errors.Is(err, context.Canceled) {
			t.Errorf("GPUs %v, a runner's failure: %v, want engine.ErrMemory", gpus, err)
		}
		if len(st.Devices) != 3 {
			t.Errorf("GPUs %v: %d device rows", gpus, len(st.Devices))
		}
	}
	// Device 1's runner alone does not fail (the failure above stopped it): it finishes or is
	// cut short by the deadline, whichever comes first (the count takes about a second on the
	// 2-core machine, so either happens; insisting on the cut made the test fail on a quiet
	// machine).
	prob.GPUs = nil
	tctx, stop := context.WithTimeout(context.Background(), time.Second)
	defer stop()
	if _, _, err = e.CountStats(tctx, prob); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the whole region alone: %v, want a count, whole or cut short", err)
	}
}

// TestGPUDealMeasure (SUBMATCH_SGSI_DEAL_MEASURE=1, on a GPU) times counts on one runner against
// two runners on GPU 0 (half the budget each, taking turns on the device: the cost of dealing,
// a second setup; the filter and plan are the first runner's alone), SUBMATCH_SGSI_DEAL_REPS
// (3) times interleaved, and logs each runner's row (roots, predicted work, buffer entries
// joined, count, kernel time): R-MAT scale SUBMATCH_SGSI_DEAL_SCALE (20), triangles and
// 4-cliques, unique, at a quarter of the graph.
func TestGPUDealMeasure(t *testing.T) {
	if os.Getenv("SUBMATCH_SGSI_DEAL_MEASURE") == "" {
		t.Skip("SUBMATCH_SGSI_DEAL_MEASURE=1 runs it")
	}
	needGPU(t)
	g, err := gen.RMAT(gen.RMATOptions{Scale: envInt("SUBMATCH_SGSI_DEAL_SCALE", 20), EdgeFactor: 16, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, s := range []string{"(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)"} {
		p, err := pattern.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		var walls [2][]time.Duration
		reps := envInt("SUBMATCH_SGSI_DEAL_REPS", 3)
		for rep := range reps {
			for k, gpus := range [][]int{nil, {0, 0}} {
				prob := &engine.Problem{Data: g, Pattern: p, Semantics: engine.Semantics{Unique: true}, GPUs: gpus,
					GPUMemoryLimit: sgsi.GraphBytes(g) / 4}
				t0 := time.Now()
				res, st, err := sgsi.Engine{}.CountStats(ctx, prob)
				walls[k] = append(walls[k], time.Since(t0))
				if err != nil {
					t.Fatalf("%s GPUs %v: %v", s, gpus, err)
				}
				t.Logf("%s GPUs %v rep %d: count %d, %v (setup %v filter %v comm %v comp %v, %d chunks)", s, gpus, rep, res.Count,
					walls[k][rep], st.Setup, st.Filter, st.Comm, st.Comp, st.Chunks)
				for i, d := range st.Devices {
					t.Logf("  runner %d: %d roots, work %d, items %d, count %d, %d chunks, %d B up, comm %v comp %v, %v", i, d.Roots, d.Work,
						d.Items, d.Count, d.Chunks, d.BytesToGPU, d.Comm, d.Comp, d.Time)
				}
			}
		}
		for k := range walls {
			slices.Sort(walls[k])
		}
		mid := (reps - 1) / 2
		t.Logf("%s: median one runner %v, two on GPU 0 %v (%.2fx)", s, walls[0][mid], walls[1][mid], float64(walls[1][mid])/float64(walls[0][mid]))
	}
}
