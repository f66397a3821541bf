package auto

import (
	"context"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
)

// TestOutOfCoreMargin: an out-of-core prediction wins only when it is outOfCoreMargin times
// faster than the best other, and the engine it configured (Prediction.Run) is the one that
// counts; the reason says so.
func TestOutOfCoreMargin(t *testing.T) {
	for _, c := range []struct {
		name       string
		host, a, b float64
		want, mode string
	}{
		{"within the margin of the host", 10, 6, -1, "cpu", ""},
		{"past the margin", 10, 4, -1, "gpu-a", "graph somewhere"},
		{"an in-core engine is not weighed", 10, 4, 7, "gpu-b", ""},
		{"past the margin of an in-core engine", 10, 3, 7, "gpu-a", "graph somewhere"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.host, f.a.seconds, f.b.seconds, f.free = c.host, c.a, c.b, 1<<30
			var configuredRuns int
			f.a.outOfCore, f.a.mode = true, "graph somewhere"
			f.a.run = deviceFake{name: "gpu-a", count: 2001, calls: &configuredRuns}
			res, d, err := f.engine().CountDecision(context.Background(), f.prob)
			if err != nil {
				t.Fatal(err)
			}
			if d.Engine != c.want || d.Mode != c.mode {
				t.Fatalf("chose %q mode %q, want %q mode %q: %s", d.Engine, d.Mode, c.want, c.mode, d.Reason)
			}
			if !strings.Contains(d.Reason, "out of core (fake; weighed 2x)") {
				t.Errorf("reason %q does not show the weighed prediction", d.Reason)
			}
			want := map[string]uint64{"gpu-a": 2001, "gpu-b": 1002, "cpu": cpuCount(t, f.prob)}[c.want]
			if res.Count != want {
				t.Errorf("count %d, want %d", res.Count, want)
			}
			if f.aRuns != 0 || (c.want == "gpu-a") != (configuredRuns == 1) {
				t.Errorf("registered gpu-a ran %d times, the configured one %d", f.aRuns, configuredRuns)
			}
			if c.mode != "" && (!strings.Contains(d.Reason, "gpu-a runs with the graph somewhere") ||
				!strings.Contains(d.String(), "gpu-a, graph somewhere (auto: ")) {
				t.Errorf("reason %q, decision %s", d.Reason, d)
			}
		})
	}
}

// TestGPUMemoryReachesThePredictions: the device's figures (Rules.Memory), lowered to the
// problem's --gpu-memory, and the host's prediction are in the workload the engines predict
// from, and in the decision.
func TestGPUMemoryReachesThePredictions(t *testing.T) {
	for _, c := range []struct {
		name               string
		free, total, limit uint64
		want               uint64
	}{
		{"the device's free memory", 60 << 30, 80 << 30, 0, 60 << 30},
		{"--gpu-memory below it", 60 << 30, 80 << 30, 1 << 30, 1 << 30},
		{"--gpu-memory above it", 60 << 30, 80 << 30, 70 << 30, 60 << 30},
		{"unknown figures", 0, 0, 1 << 20, 1 << 20},
		{"unknown, no limit", 0, 0, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.host, f.a.seconds, f.free, f.total = 100, 1, c.free, c.total
			f.prob.GPUMemoryLimit = c.limit
			d, err := f.engine().Decide(context.Background(), f.prob, false)
			if err != nil {
				t.Fatal(err)
			}
			d.Release()
			w := f.aSaw
			if w == nil || w.GPUMemory != c.want || w.DeviceMemory != c.total || w.HostSeconds != 100 {
				t.Fatalf("workload %+v", w)
			}
			if d.GPUMemory != c.want || d.DeviceMemory != c.total {
				t.Errorf("decision's memory %d of %d", d.GPUMemory, d.DeviceMemory)
			}
		})
	}
}

// TestOutOfCoreIsNotPrepared: the count prepared while the GPU is looked for (the in-core
// prediction, before the memory is known) is dropped when the final choice is the engine
// configured out of core.
func TestOutOfCoreIsNotPrepared(t *testing.T) {
	f := newFixture(t)
	f.prepare, f.host, f.a.seconds, f.free = true, 100, 1, 1<<30
	var configuredRuns int
	f.a.outOfCore, f.a.mode = true, "graph elsewhere"
	f.a.run = deviceFake{name: "gpu-a", count: 3001, calls: &configuredRuns}
	res, d, err := f.engine().CountDecision(context.Background(), f.prob)
	if err != nil {
		t.Fatal(err)
	}
	if d.Engine != "gpu-a" || res.Count != 3001 || configuredRuns != 1 {
		t.Fatalf("decision %s, count %d, configured runs %d", d, res.Count, configuredRuns)
	}
	if f.prep == nil || f.prep.prepares != 1 || f.prep.released != 1 || f.prep.counted != 0 {
		t.Errorf("the in-core preparation: %+v, want prepared once, released, not counted from", f.prep)
	}
}

// TestWorkloadInCore: half the GPU memory is left for the search; unknown memory fits anything.
func TestWorkloadInCore(t *testing.T) {
	for _, c := range []struct {
		mem, bytes uint64
		want       bool
	}{{0, 1 << 40, true}, {1000, 500, true}, {1000, 501, false}} {
		w := &engine.Workload{GPUMemory: c.mem}
		if got := w.InCore(c.bytes); got != c.want {
			t.Errorf("InCore(%d) with %d: %v", c.bytes, c.mem, got)
		}
	}
}
