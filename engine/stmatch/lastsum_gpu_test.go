package stmatch

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/sharedtest"
)

// TestGPULastSum runs the last-level-sum kernel on the device: random labelled graphs and the
// patterns of its shape (as TestLastSumKernelOnHost), embeddings and unique matches, against the
// CPU engine, each count that has the shape checked to have run on it (Stats.LastSum); then
// STMatch's q1 on wiki-Vote against the CPU engine, with roots cut into units and whole
// (NoSplit), and on the plan kernels (NoLastSum), the kernel times logged (and recorded for
// scripts/gpu-check.sh's results).
func TestGPULastSum(t *testing.T) {
	needGPU(t)
	ctx := context.Background()
	cases := 0
	for seed := uint64(1); seed <= 24; seed++ {
		vl, el := int(seed%3), int(seed%4)/2*2
		g := gen.RandomGraphM(seed*13, 30+int(seed%4)*10, 120+int(seed%5)*40, vl, el)
		for k, s := range lastSumPatterns {
			p := labelledShape(t, s, seed, vl, el)
			for _, sem := range []engine.Semantics{{}, {Unique: true}} {
				prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem}
				pr := prepare(ctx, prob, Options{}, nil)
				if pr.err != nil || pr.pl.Empty {
					continue
				}
				res, st, err := CountOptions(ctx, prob, Options{})
				if err != nil || res.Partial {
					t.Fatalf("seed %d pattern %d %s (%s): %v (partial %v)", seed, k, p, sem, err, res.Partial)
				}
				if want := cpuCount(t, g, p, sem); res.Count != want {
					t.Errorf("seed %d %s (%s): stmatch %d (last-level sum %v), cpu %d", seed, p, sem, res.Count, st.LastSum, want)
				}
				if st.LastSum != (pr.ls != nil) {
					t.Errorf("seed %d %s (%s): ran on the last-level-sum kernel: %v, prepared for it: %v", seed, p, sem, st.LastSum, pr.ls != nil)
				}
				if st.LastSum {
					cases++
				}
			}
		}
	}
	if cases == 0 {
		t.Errorf("no count ran on the last-level-sum kernel")
	}
	t.Logf("%d counts on the last-level-sum kernel", cases)

	g := sharedtest.WikiVote(t)
	q1 := mustParse(lastSumPatterns[0])
	want := cpuCountThreads(t, g, q1, engine.Semantics{}, 0)
	for _, o := range []Options{{}, {NoSplit: true}, {NoLastSum: true}} {
		// (NoLastSum: the plan kernels, the 425.6 ms of issue 17.)
		res, st, err := CountOptions(ctx, &engine.Problem{Data: g, Pattern: q1}, o)
		if err != nil || res.Partial {
			t.Fatalf("q1 on wiki-Vote %+v: %v (partial %v)", o, err, res.Partial)
		}
		name := fmt.Sprintf("wiki-Vote q1 (last-level sum %v, roots split %v)", st.LastSum, !o.NoSplit)
		record(t, name, want, res.Count, st)
		if res.Count != want || st.LastSum == o.NoLastSum {
			t.Errorf("%s: %d, cpu %d", name, res.Count, want)
		}
		t.Logf("%s: kernel %v in %d launches, %d warps, total %v", name, st.Kernel, st.Launches, st.Warps, st.Total)
	}
	// Cancellation: a deadline inside the first launch ends the count through the stop flag,
	// partial, with the deadline's error, within about a poll of the flag (unless it finished;
	// a deadline before any launch leaves no partial count).
	tctx, cancel := context.WithTimeout(ctx, 2*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	res, st, err := CountOptions(tctx, &engine.Problem{Data: g, Pattern: q1}, Options{})
	took := time.Since(t0)
	t.Logf("q1 on wiki-Vote with a 2 ms deadline: count %d partial %v err %v after %v (%d launches, compile %v)", res.Count, res.Partial, err, took, st.Launches, st.Compile)
	switch {
	case err == nil && !res.Partial && res.Count == want:
		// Finished (or compiled) within the deadline: nothing to check.
	case !errors.Is(err, context.DeadlineExceeded) || (st.Launches > 0 && !res.Partial) || res.Count > want || took > st.Compile+time.Second:
		t.Errorf("q1 with a 2 ms deadline: count %d of %d, partial %v, err %v after %v; want partial and DeadlineExceeded promptly", res.Count, want, res.Partial, err, took)
	}
}
