package gcsm

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/csm/internal/csmtest"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// The TestGPU* tests run the kernel; they skip without a GPU (scripts/gcsm-check.sh runs them on
// the device machine).

func needGPU(t *testing.T) {
	t.Helper()
	if _, err := gpu.Open(context.Background()); err != nil {
		t.Skip("no GPU:", err)
	}
}

// openGPU opens a matcher on the GPU. A budget under 1 MiB caps the cache alone (a few lists),
// with a device memory limit of 8 MiB; otherwise the budget is the limit.
func openGPU(g *dynamic.Graph, pats []*pattern.Pattern, opts csm.Options, budget uint64) (csm.Matcher, error) {
	limit, cacheCap := budget, uint64(0)
	if budget < 1<<20 {
		limit, cacheCap = 8<<20, budget
	}
	return open(g, pats, opts, func(t *table) (backend, error) {
		be, err := openDevice(t, limit)
		if err != nil {
			return nil, err
		}
		be.(*device).maxCache = cacheCap
		if cacheCap > 0 {
			be.(*device).maxList = 5 // listing in groups of a few matches
		}
		return be, nil
	})
}

// TestGPURandom: the kernel gives the CPU engine's per-batch counts on random graphs, patterns
// and streams (inserts, deletes, vertex operations, invalid updates skipped), in every convention
// and mode, with a large budget and a cache of a few lists.
func TestGPURandom(t *testing.T) {
	needGPU(t)
	sweep(t, testenv.Sweep(150, 600), openGPU)
}

// TestGPUEmit: the kernel's listing gives the CPU engine's signed matches on random streams (in
// every convention, modes and budgets in turn, a listing buffer of 5 matches with the small
// budget, spills forced on half of the seeds) and on a prefix of email10.
func TestGPUEmit(t *testing.T) {
	needGPU(t)
	sweepList(t, testenv.Sweep(60, 300), openGPU)
	mk, stream, all := loadEmail10(t)
	c := randomCase{g: mk, pats: []*pattern.Pattern{all["q4_1"], all["q6_1"]}, stream: stream[:3000], batch: 500}
	for _, budget := range []uint64{1 << 30, 1 << 10} {
		n, err := compareList(context.Background(), c, engine.Semantics{}, "cache", budget, openGPU)
		if err != nil {
			t.Fatalf("email10 budget %d: %v", budget, err)
		}
		t.Logf("email10 q4_1 q6_1, 3,000 updates in batches of 500, budget %d: %d signed matches listed, equal to the CPU engine's", budget, n)
	}
}

// TestGPUStop: a batch whose kernel runs longer than a second stops within a second of its
// context's deadline (the warps poll the host's stop flag), returning the context's error.
func TestGPUStop(t *testing.T) {
	needGPU(t)
	g0, err := gen.RMAT(gen.RMATOptions{Scale: 17, VertexLabels: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	mk, stream := rmatStream(t, g0, 8192)
	house := mustPattern(t, []uint32{0, 0, 0, 0, 0}, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 4}, {1, 4}})
	run := func(timeout time.Duration) (time.Duration, error) {
		m, err := openGPU(mk(), []*pattern.Pattern{house}, csm.Options{SkipInvalid: true, Mode: "zerocopy"}, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		defer m.(*Matcher).Close()
		ctx := context.Background()
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		var res csm.Result
		t0 := time.Now()
		err = m.Apply(ctx, stream, nil, &res)
		return time.Since(t0), err
	}
	took, err := run(time.Second)
	if err == nil {
		t.Skipf("the batch took %v: too short to check the stop", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("after a 1s deadline: %v (took %v)", err, took)
	}
	if took > 2*time.Second {
		t.Fatalf("the batch stopped %v after its start, with a 1s deadline", took)
	}
	t.Logf("with a 1s deadline the batch returned after %v", took)
}

// TestGPUEngine opens through the registry (as watch --engine gcsm does) and reports the cache
// figures of a dense case.
func TestGPUEngine(t *testing.T) {
	needGPU(t)
	e, err := csm.Lookup("gcsm")
	if err != nil {
		t.Fatal(err)
	}
	c := newRandomCase(3, true)
	open := func(g *dynamic.Graph, pats []*pattern.Pattern, opts csm.Options, budget uint64) (csm.Matcher, error) {
		opts.GPUMemory = budget
		m, err := e.Open(g, pats, opts)
		if err == nil {
			m.(*Matcher).MeasureCoverage(true)
		}
		return m, err
	}
	for _, sem := range conventions {
		if _, err := compare(context.Background(), c, sem, "", 64<<20, open); err != nil {
			t.Fatalf("%v: %v", sem, err)
		}
	}
}

func loadEmail10(t testing.TB) (func() *dynamic.Graph, []updates.Update, map[string]*pattern.Pattern) {
	return csmtest.Email10(t, "q4_1", "q4_2", "q4_3", "q6_1", "q6_2", "q8_1")
}

// TestGPUEmail10: the public workload csm-email10 (its 1,056 duplicate insertions skipped), per
// batch equal to the CPU engine, in every convention, in batches of 1 (a prefix), 64 and 1,000,
// with a large budget and a 1 MiB one, in cache, zero-copy and unified-memory modes.
func TestGPUEmail10(t *testing.T) {
	needGPU(t)
	mk, stream, all := loadEmail10(t)
	var pats []*pattern.Pattern
	for _, q := range []string{"q4_1", "q4_2", "q6_1"} {
		pats = append(pats, all[q])
	}
	for _, sem := range conventions {
		for _, run := range []struct {
			batch  int
			n      int
			mode   string
			budget uint64
		}{{1, 400, "cache", 1 << 30}, {64, len(stream), "cache", 1 << 20}, {1000, len(stream), "cache", 1 << 30}, {1000, len(stream), "zerocopy", 1 << 30}, {1000, len(stream), "unified", 1 << 30}} {
			c := randomCase{g: mk, pats: pats, stream: stream[:run.n], batch: run.batch}
			n, err := compare(context.Background(), c, sem, run.mode, run.budget, openGPU)
			if err != nil {
				t.Fatalf("email10 %v batch %d %s budget %d: %v", sem, run.batch, run.mode, run.budget, err)
			}
			t.Logf("email10 %v batch %d %s budget %d: %d matches created or destroyed, equal to the CPU engine", sem, run.batch, run.mode, run.budget, n)
		}
	}
}

// TestEmail10Emulated is TestGPUEmail10's check with the host emulation (no GPU): embeddings,
// batches of 500.
func TestEmail10Emulated(t *testing.T) {
	mk, stream, all := loadEmail10(t)
	c := randomCase{g: mk, pats: []*pattern.Pattern{all["q4_1"], all["q6_1"]}, stream: stream, batch: 500}
	if !testenv.Long() {
		c.stream = stream[:3000]
	}
	n, err := compare(context.Background(), c, engine.Semantics{}, "cache", 1<<20, openEmu)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no match changed")
	}
}
