package pbe

import (
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/partition"
)

// TestPredict: pbe is predicted only out of core, for its GPU backend with parts of half the
// GPU memory: partitioning plus InterSlowdown times the host's time.
func TestPredict(t *testing.T) {
	g := gen.RandomGraphM(3, 150, 900, 1, 1)
	need := partition.GraphBytes(g)
	e := &Engine{Passes: 3, Triangles: true, Unshared: true}
	w := &engine.Workload{Problem: &engine.Problem{Data: g}, Threads: 4, HostSeconds: 1}
	if pr := e.Predict(w); pr.Eligible() {
		t.Errorf("unknown memory (in core): %+v", pr)
	}
	w.GPUMemory = need
	pr := e.Predict(w)
	run, ok := pr.Run.(*Engine)
	// The engine auto runs keeps the user's settings (--pbe-triangles, --pbe-shared off).
	if !pr.OutOfCore || !ok || run.Budget != need/2 || run.Passes != 3 || !run.Triangles || !run.Unshared || pr.Mode != "GPU backend" {
		t.Fatalf("out of core: %+v", pr)
	}
	if _, gpu := run.Backend.(*DeviceBackend); !gpu {
		t.Errorf("backend %T", run.Backend)
	}
	if want := startSeconds + PartitionSecondsPerEdge*float64(g.NumEdges()) + InterSlowdown; pr.Seconds != want {
		t.Errorf("%v s, want %v", pr.Seconds, want)
	}
	for _, m := range []partition.Method{partition.Grow, partition.Auto} {
		e := &Engine{Partitioner: m}
		want := startSeconds + GrowSecondsPerEdge*float64(g.NumEdges()) + InterSlowdown
		if m == partition.Auto { // a small graph: multilevel
			want = startSeconds + PartitionSecondsPerEdge*float64(g.NumEdges()) + InterSlowdown
		}
		if pr := e.Predict(w); pr.Seconds != want {
			t.Errorf("%v: %v s, want %v", m, pr.Seconds, want)
		}
	}
	if big := uint64(partition.AutoMultilevelEdges + 1); partitionSeconds(partition.Auto, big) != GrowSecondsPerEdge*float64(big) {
		t.Errorf("auto above AutoMultilevelEdges: %v s", partitionSeconds(partition.Auto, big))
	}
	if !e.Capabilities().OutOfCore {
		t.Error("auto would not weigh pbe")
	}
}
