package auto

import (
	"context"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
)

// coldFixture is the fixture with the brief's case (wiki-Vote q1 on a fresh H200 machine): the
// host predicted 2.6 s, gpu-a 451 ms with a 6.5 s kernel compile ("a.cu"), gpu-b slow with a
// cheap one ("b.cu").
func coldFixture(t *testing.T) *fixture {
	f := newFixture(t)
	f.host, f.a.seconds, f.b.seconds = 2.6, 0.451, 30
	f.a.kernels = []engine.Kernel{{File: "a.cu", ColdSeconds: 6.5}}
	f.b.kernels = []engine.Kernel{{File: "b.cu", ColdSeconds: 0.4}}
	return f
}

func states(a, b gpu.KernelState) map[string]gpu.KernelState {
	return map[string]gpu.KernelState{"a.cu": a, "b.cu": b}
}

// TestColdKernelGoesToTheHost: after the GPU is found, a kernel the cache does not hold adds its
// compile to its engine's prediction; the host, now faster, counts, and the reason says why.
func TestColdKernelGoesToTheHost(t *testing.T) {
	f := coldFixture(t)
	f.after = states(gpu.KernelNotCached, gpu.KernelCached)
	res, d, err := f.engine().CountDecision(context.Background(), f.prob)
	if err != nil {
		t.Fatal(err)
	}
	if d.Engine != "cpu" || f.gpuChecks != 1 || f.aRuns+f.bRuns != 0 || res.Count != cpuCount(t, f.prob) {
		t.Fatalf("decision %s, %d GPU checks, %d+%d GPU runs, count %d", d, f.gpuChecks, f.aRuns, f.bRuns, res.Count)
	}
	a := d.Predictions[1]
	if a.Engine != "gpu-a" || a.Compile != 6.5 || a.Seconds != 6.951 || len(a.Cold) != 1 || a.Cold[0].File != "a.cu" {
		t.Errorf("gpu-a's prediction %+v", a)
	}
	if b := d.Predictions[2]; b.Compile != 0 || b.Seconds != 30 {
		t.Errorf("gpu-b's prediction, its kernel cached: %+v", b)
	}
	for _, want := range []string{
		"predicted cpu 2.6 s, gpu-a 7.0 s, gpu-b 30 s",
		"; gpu-a's kernel is not compiled on this machine yet: about 6.5 s once, then cached (`submatch gpu-info --compile` compiles every kernel ahead)",
	} {
		if !strings.Contains(d.Reason, want) {
			t.Errorf("reason %q\nwants %q", d.Reason, want)
		}
	}
	if strings.Contains(d.Reason, "gpu-b's kernel") {
		t.Errorf("reason %q names gpu-b's cached kernel", d.Reason)
	}
}

// TestColdKernelStillFaster: a GPU engine far ahead of the host is chosen even with its compile,
// and the reason says what the first run pays.
func TestColdKernelStillFaster(t *testing.T) {
	f := coldFixture(t)
	f.host = 100
	f.after = states(gpu.KernelNotCached, gpu.KernelNotCached)
	res, d, err := f.engine().CountDecision(context.Background(), f.prob)
	if err != nil {
		t.Fatal(err)
	}
	if d.Engine != "gpu-a" || res.Count != 1001 || f.aRuns != 1 {
		t.Fatalf("decision %s, count %d, %d runs", d, res.Count, f.aRuns)
	}
	// gpu-b's compile is not what keeps it behind: the reason leaves it out.
	want := "; gpu-a's kernel is not compiled on this machine yet: about 6.5 s once, then cached (`submatch gpu-info --compile` compiles every kernel ahead)"
	if !strings.HasSuffix(d.Reason, want) || strings.Contains(d.Reason, "gpu-b's kernel") {
		t.Errorf("reason %q\nwants %q", d.Reason, want)
	}
}

// TestWarmCacheChangesNothing: with every kernel cached, or a cache that cannot say, the
// decision and its reason are those of engines that compile nothing.
func TestWarmCacheChangesNothing(t *testing.T) {
	for _, host := range []float64{1e-6, 0.4, 2.6, 100} {
		base := coldFixture(t)
		base.host = host
		base.a.kernels, base.b.kernels = nil, nil
		_, want, err := base.engine().CountDecision(context.Background(), base.prob)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range []gpu.KernelState{gpu.KernelCached, gpu.KernelUnknown} {
			f := coldFixture(t)
			f.host = host
			f.before, f.after = states(st, st), states(st, st)
			_, d, err := f.engine().CountDecision(context.Background(), f.prob)
			if err != nil {
				t.Fatal(err)
			}
			// (The reasons are compared when the estimates are: a loaded machine's time budget
			// may cut one estimate sooner than the other.)
			if d.Engine != want.Engine || (sameEstimate(d, want) && d.Reason != want.Reason) || d.Threshold != want.Threshold ||
				strings.Contains(d.Reason, "compile") || d.GPUChecked != want.GPUChecked || len(d.Predictions) != len(want.Predictions) {
				t.Errorf("host %v s, kernels %v: decision %s, threshold %v\nwithout kernels %s, threshold %v",
					host, st, d, d.Threshold, want, want.Threshold)
			}
			for i := range d.Predictions {
				if (sameEstimate(d, want) && d.Predictions[i].Seconds != want.Predictions[i].Seconds) || d.Predictions[i].Compile != 0 {
					t.Errorf("host %v s, kernels %v: prediction %+v, without kernels %+v", host, st, d.Predictions[i], want.Predictions[i])
				}
			}
			if host > 0.3 && f.asked.Load() == 0 {
				t.Errorf("host %v s: the kernel cache was never asked", host)
			}
		}
	}
}

// TestColdKernelsKeepTheGPUClosed: when the cache says before CUDA starts that no device
// engine's kernel is compiled, the GPU's start-up includes the cheapest compile, and a search
// below it stays on the host without looking for the GPU.
func TestColdKernelsKeepTheGPUClosed(t *testing.T) {
	f := coldFixture(t)
	f.host = 0.6 // above gpu-a's 0.3 s start-up, below gpu-b's 0.5 + 0.4 s
	f.before = states(gpu.KernelNotCached, gpu.KernelNotCached)
	res, d, err := f.engine().CountDecision(context.Background(), f.prob)
	if err != nil {
		t.Fatal(err)
	}
	if d.Engine != "cpu" || f.gpuChecks != 0 || d.GPUChecked || res.Count != cpuCount(t, f.prob) {
		t.Fatalf("decision %s, %d GPU checks, count %d", d, f.gpuChecks, res.Count)
	}
	if want := "(bound from the plan), below the GPU threshold "; !strings.Contains(d.Reason, want) ||
		!strings.HasSuffix(d.Reason, " (with 400 ms of kernel compile: not cached on this machine yet)") {
		t.Errorf("reason %q", d.Reason)
	}
	// A host time below the start-up without the compile says nothing of it.
	small := coldFixture(t)
	small.host = 0.2
	small.before = f.before
	_, ds, err := small.engine().CountDecision(context.Background(), small.prob)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Engine != "cpu" || ds.GPUChecked || strings.Contains(ds.Reason, "compile") {
		t.Errorf("host below the warm start-up: %s", ds)
	}
	// The threshold is where the host's time reaches the start-up with the compile.
	warm := coldFixture(t)
	warm.host = 0.6
	warm.before = states(gpu.KernelCached, gpu.KernelCached)
	_, dw, err := warm.engine().CountDecision(context.Background(), warm.prob)
	if err != nil {
		t.Fatal(err)
	}
	if !dw.GPUChecked || warm.gpuChecks != 1 {
		t.Errorf("warm cache: the GPU was not looked for (%s)", dw)
	}
	// (Each threshold is on its reason's basis: the cold one the plan's bound, the warm one the
	// estimate's nodes; per node of its basis, 0.9 s against 0.3 s of start-up.)
	if r := (d.Threshold / d.Bound) / (dw.Threshold / dw.Estimate.Nodes); r < 2.99 || r > 3.01 {
		t.Errorf("threshold cold %v for a bound of %v, warm %v for an estimate of %v: want 3x per node", d.Threshold, d.Bound, dw.Threshold, dw.Estimate.Nodes)
	}

	// One engine's kernel cached: its start-up is the least, and the GPU is looked for.
	f = coldFixture(t)
	f.host = 0.6
	f.before = states(gpu.KernelCached, gpu.KernelNotCached)
	f.after = f.before
	if _, d, err = f.engine().CountDecision(context.Background(), f.prob); err != nil {
		t.Fatal(err)
	}
	if !d.GPUChecked || d.Engine != "gpu-a" {
		t.Errorf("gpu-a's kernel cached: decision %s", d)
	}
}

// TestColdKernelNotPrepared: the count prepared while the GPU is looked for is that of the engine
// favoured with the compiles the cache knows of before the GPU starts.
func TestColdKernelNotPrepared(t *testing.T) {
	f := coldFixture(t)
	f.prepare = true
	f.before = states(gpu.KernelNotCached, gpu.KernelNotCached)
	f.after = f.before
	f.host = 5 // above both start-ups with their compiles; gpu-a predicted 6.95 s then
	_, d, err := f.engine().CountDecision(context.Background(), f.prob)
	if err != nil {
		t.Fatal(err)
	}
	if d.Engine != "cpu" || f.prep.prepares != 0 || !d.GPUChecked {
		t.Errorf("decision %s, %d preparations", d, f.prep.prepares)
	}
}

// TestColdOutOfCoreWeighsTheRunOnly: an out-of-core prediction's margin applies to its run, not
// to its compile.
func TestColdOutOfCoreWeighsTheRunOnly(t *testing.T) {
	f := coldFixture(t)
	f.free, f.total = 1<<30, 2<<30
	f.host, f.a.seconds, f.a.outOfCore, f.a.mode = 10, 1, true, "graph in host memory"
	f.a.kernels[0].ColdSeconds = 7 // weighed 1*2 + 7 = 9 < 10; (1+7)*2 = 16 would lose
	f.after = states(gpu.KernelNotCached, gpu.KernelCached)
	_, d, err := f.engine().CountDecision(context.Background(), f.prob)
	if err != nil {
		t.Fatal(err)
	}
	if d.Engine != "gpu-a" || d.Predictions[1].Seconds != 8 {
		t.Errorf("decision %s; gpu-a predicted %+v", d, d.Predictions[1])
	}
}

// sameEstimate reports whether two decisions rest on the same estimate (or none).
func sameEstimate(a, b Decision) bool {
	return a.Estimated == b.Estimated && a.Estimate.Probes == b.Estimate.Probes && a.Estimate.Nodes == b.Estimate.Nodes
}
