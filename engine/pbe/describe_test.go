package pbe

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	_ "github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/engine/internal/predicttest"
	_ "github.com/submatch/submatch/engine/stmatch" // the device engine, whose prediction one part takes
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestPredict: pbe is predicted only out of core, for its GPU backend with parts of half the
// GPU memory: partitioning plus InterSlowdown times the host's time.
func TestPredict(t *testing.T) {
	g := gen.RandomGraphM(3, 150, 900, 1, 1)
	need := partition.GraphBytes(g)
	e := &Engine{Passes: 3, Triangles: true, Unshared: true, InterBackend: InterGPU}
	w := &engine.Workload{Problem: &engine.Problem{Data: g}, Threads: 4, HostSeconds: 1}
	if pr := predicttest.Must(t, e, w); pr.Eligible() {
		t.Errorf("unknown memory (in core): %+v", pr)
	}
	w.GPUMemory = need
	pr := predicttest.Must(t, e, w)
	run, ok := pr.Run.(*Engine)
	// The engine auto runs keeps the user's settings (--pbe-triangles, --pbe-shared off,
	// --pbe-inter gpu; the prediction is the host inter stage's until a device measurement).
	if !pr.OutOfCore || !ok || run.Budget != need/2 || run.Passes != 3 || !run.Triangles || !run.Unshared || run.InterBackend != InterGPU || pr.Mode != "GPU backend" {
		t.Fatalf("out of core: %+v", pr)
	}
	if _, gpu := run.Backend.(*DeviceBackend); !gpu {
		t.Errorf("backend %T", run.Backend)
	}
	// --explain's note says where the inter stage runs (it said "on the host" for --pbe-inter gpu).
	if !strings.Contains(pr.Note, "inter stage on the GPU") || strings.Contains(pr.Note, "inter stage on the host") {
		t.Errorf("--pbe-inter gpu: note %q", pr.Note)
	}
	if pr := predicttest.Must(t, &Engine{}, w); !strings.Contains(pr.Note, "inter stage on the host") {
		t.Errorf("--pbe-inter host: note %q", pr.Note)
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
		if pr := predicttest.Must(t, e, w); pr.Seconds != want {
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

// TestPredictReduced (issue 21): on a labelled R-MAT graph whose whole layout exceeds the GPU
// memory, a pattern on four of its labels keeps a small subgraph (reduce.go). Where that subgraph
// fits one part the prediction says so (no inter stage, not out of core, the device engine's
// in-core count), far below the stages' figure without the reduction, and the engine it
// configures, run on the host backend, makes one part of the reduced graph and no inter match;
// where it does not, the prediction is the partitioned one on the reduced graph, and so is the
// run. Over budgets from a sixteenth of the reduced graph to the whole graph the predictions are
// positive and never grow with the memory.
func TestPredictReduced(t *testing.T) {
	prob, w, reduced := reducedWorkload(t, 14)
	whole := partition.GraphBytes(prob.Data)
	if reduced*8 > whole {
		t.Fatalf("the labels keep %d of %d bytes: not a reduction worth testing", reduced, whole)
	}
	g := prob.Data
	e := &Engine{Partitioner: partition.Auto}
	// Parts of half the memory: 4x the reduced graph, a quarter of the whole.
	pr := predicttest.Must(t, e, w(8*reduced))
	if pr.OutOfCore || pr.Mode != "GPU backend, one part" || !strings.Contains(pr.Note, "no inter stage") || pr.Seconds <= 0 {
		t.Fatalf("one part: %+v", pr)
	}
	unreduced := startSeconds + partitionSeconds(partition.Auto, g.NumEdges()) + InterSlowdown*10
	if pr.Seconds*10 > unreduced {
		t.Errorf("one part predicted %v s, the stages without the reduction %v s", pr.Seconds, unreduced)
	}
	run := pr.Run.(*Engine)
	run.Backend = HostBackend{}
	ctx := context.Background()
	res, st, err := run.CountStats(ctx, prob)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Reduced || st.Parts != 1 || st.InterMatches != 0 {
		t.Errorf("the run predicted in one part: reduced %v, %d parts, %d inter matches", st.Reduced, st.Parts, st.InterMatches)
	}
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	if want, err := cpu.Count(ctx, prob); err != nil || want.Count != res.Count {
		t.Errorf("count %d, cpu %d (%v)", res.Count, want.Count, err)
	}
	// Parts of an eighth of the reduced graph: partitioned, on the reduced graph's edges.
	pr = predicttest.Must(t, e, w(reduced/4))
	if !pr.OutOfCore || pr.Mode != "GPU backend" || !strings.Contains(pr.Note, "the pattern's labels leave") || pr.Seconds >= unreduced {
		t.Errorf("parts: %+v (without the reduction %v s)", pr, unreduced)
	}
	run = pr.Run.(*Engine)
	run.Backend = HostBackend{}
	if _, st, err := run.CountStats(ctx, prob); err != nil || !st.Reduced || st.Parts < 2 {
		t.Errorf("the run predicted in parts: reduced %v, %d parts (%v)", st.Reduced, st.Parts, err)
	}
	last := math.Inf(1)
	for mem := reduced / 8; mem < 2*whole; mem += reduced / 8 {
		pr := predicttest.Must(t, e, w(mem))
		if !pr.Eligible() {
			break // the whole graph fits: in core
		}
		if pr.Seconds <= 0 || pr.Seconds > last {
			t.Fatalf("%d bytes of GPU memory: %v s, after %v s with less", mem, pr.Seconds, last)
		}
		last = pr.Seconds
	}
}

// TestPredictStops: a prediction stops once its context ends, out of core in parts and in one
// part of the pattern's labels, where the device engine's in-core prediction (stmatch's) is made
// with the same context.
func TestPredictStops(t *testing.T) {
	_, w, reduced := reducedWorkload(t, 12)
	for _, mem := range []uint64{8 * reduced, reduced / 4} {
		checks := predicttest.Stops(t, &Engine{Partitioner: partition.Auto}, w(mem))
		if one := predicttest.Must(t, &Engine{Partitioner: partition.Auto}, w(mem)).Mode == "GPU backend, one part"; one != (mem > reduced) || (one && checks < 2) {
			t.Errorf("%d bytes of GPU memory: one part %v, %d checks of the context", mem, one, checks)
		}
	}
}

// reducedWorkload is a count on a labelled R-MAT graph of the scale (2^scale vertices, 50 zipf
// labels) of a pattern on four of its labels, the workloads of its plan with a host time of 10 s
// by GPU memory, and the bytes of the subgraph the pattern's labels keep (partition.GraphBytes).
func reducedWorkload(t *testing.T, scale int) (*engine.Problem, func(mem uint64) *engine.Workload, uint64) {
	t.Helper()
	g, err := gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: 16, VertexLabels: 50, LabelDistribution: gen.ZipfLabels, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	pat, err := pattern.Parse("(a:3)-(b:5)-(c:7)-(a), (c)-(d:9)")
	if err != nil {
		t.Fatal(err)
	}
	prob := &engine.Problem{Data: g, Pattern: pat, Threads: 2}
	pl := plan.Build(g, pat, plan.Options{MultiplyAutomorphisms: true})
	w := func(mem uint64) *engine.Workload {
		return &engine.Workload{Problem: prob, Threads: 2, Plan: pl, Bound: pl.NodeBound(), HostSeconds: 10, GPUMemory: mem}
	}
	return prob, w, partition.GraphBytes(g.InducedByVertexLabels([]uint32{3, 5, 7, 9}))
}
