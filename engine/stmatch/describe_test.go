package stmatch

import (
	"context"
	"flag"
	"math"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/internal/predicttest"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestPredict: without a candidate space the generic kernel runs a plan on the graph's lists (the
// v1 kernel cannot), reading the graph's CSR; with one the prediction
// grows with the estimated nodes and includes the start-up; cliques go to the clique kernel for
// counting only.
func TestPredict(t *testing.T) {
	g := gen.RandomGraphM(3, 150, 900, 1, 1)
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(a)")
	if err != nil {
		t.Fatal(err)
	}
	noSpace := plan.Build(g, p, plan.Options{SpaceLimit: -1})
	if pr := (Engine{}).predict(&engine.Workload{Plan: noSpace}); !pr.Eligible() {
		t.Errorf("a plan without a candidate space: %+v", pr)
	}
	if pr := (Engine{Options: Options{V1: true}}).predict(&engine.Workload{Plan: noSpace}); pr.Eligible() {
		t.Errorf("the v1 kernel without a candidate space: %+v", pr)
	}
	csr := 8*uint64(g.NumVertices()+1) + 8*g.NumEdges()
	if b := GraphBytes(&engine.Workload{Problem: &engine.Problem{Data: g}, Plan: noSpace}); b < csr {
		t.Errorf("a plan without a candidate space reads %d bytes, less than the CSR's %d", b, csr)
	}
	pl := plan.Build(g, p, plan.Options{})
	small := Engine{}.predict(&engine.Workload{Plan: pl, Estimate: &plan.Estimate{Nodes: 1e3}})
	large := Engine{}.predict(&engine.Workload{Plan: pl, Estimate: &plan.Estimate{Nodes: 1e12}})
	if !small.Eligible() || small.Seconds < startSeconds || large.Seconds <= small.Seconds {
		t.Errorf("predictions %+v, %+v", small, large)
	}
	c := &plan.Clique{K: 5}
	prob := &engine.Problem{Data: g}
	if pr := (Engine{}).predict(&engine.Workload{Problem: prob, Clique: c}); !pr.Eligible() {
		t.Errorf("counting a clique: %+v", pr)
	}
	if pr := (Engine{}).predict(&engine.Workload{Problem: prob, Clique: c, Listing: true}); pr.Eligible() {
		t.Errorf("listing a clique: %+v", pr)
	}
}

func TestRegisterFlags(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	configure := Engine{}.RegisterFlags(fs)
	if err := fs.Parse([]string{"--stmatch-kernel", "query"}); err != nil {
		t.Fatal(err)
	}
	e, err := configure()
	if err != nil || e.(Engine).Options.Kernel != KernelQuery {
		t.Fatalf("engine %+v, error %v", e, err)
	}
	fs.Set("stmatch-kernel", "fast")
	if _, err := configure(); err == nil {
		t.Error("--stmatch-kernel fast accepted")
	}
}

// TestPredictOutOfCore: a graph whose candidate space is over half the GPU memory is predicted
// in host memory (zero-copy), or in managed memory when it fits the device's whole memory,
// slower than in core by the modes' slowdowns; unknown memory, or a mode set already, keeps
// the in-core prediction.
func TestPredictOutOfCore(t *testing.T) {
	g := gen.RandomGraphM(3, 150, 900, 1, 1)
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(a)")
	if err != nil {
		t.Fatal(err)
	}
	pl := plan.Build(g, p, plan.Options{})
	est := &plan.Estimate{Nodes: 1e12}
	w := func(mem, dev uint64) *engine.Workload {
		return &engine.Workload{Problem: &engine.Problem{Data: g, Pattern: p}, Plan: pl, Estimate: est,
			GPUMemory: mem, DeviceMemory: dev}
	}
	need := GraphBytes(w(0, 0))
	want := 12 * uint64(g.NumVertices())
	for _, idx := range pl.Space {
		off, val := idx.Arrays()
		want += 8*uint64(len(off)) + 4*uint64(len(val))
	}
	if need != want || len(pl.Space) == 0 {
		t.Fatalf("GraphBytes %d, want %d (%d indexes)", need, want, len(pl.Space))
	}
	in := Engine{}.predict(w(0, 0))
	if in.OutOfCore || in.Run != nil || !in.Eligible() {
		t.Fatalf("unknown memory: %+v", in)
	}
	if pr := (Engine{}).predict(w(2*need, 0)); pr != in {
		t.Errorf("fits in half: %+v, want %+v", pr, in)
	}
	kernel := in.Seconds - startSeconds
	zc := Engine{}.predict(w(need, need))
	run, ok := zc.Run.(Engine)
	if !zc.OutOfCore || !ok || run.Options.Graph != gpu.OnHost || zc.Seconds < startSeconds+ZeroCopySlowdown*kernel {
		t.Errorf("over half, device too small for managed: %+v", zc)
	}
	mg := Engine{}.predict(w(need, 2*need))
	if run, ok := mg.Run.(Engine); !mg.OutOfCore || !ok || run.Options.Graph != gpu.OnManaged || mg.Seconds >= zc.Seconds {
		t.Errorf("over half, within the device: %+v (zero-copy %+v)", mg, zc)
	}
	if pr := (Engine{Options: Options{Graph: gpu.OnHost}}).predict(w(need, 0)); pr != in {
		t.Errorf("already in host memory: %+v", pr)
	}
	c := &plan.Clique{K: 4}
	cw := &engine.Workload{Problem: &engine.Problem{Data: g}, Clique: c, GPUMemory: 1024}
	if pr := (Engine{}).predict(cw); !pr.OutOfCore || GraphBytes(cw) != 8*151+8*g.NumEdges()+8*150 {
		t.Errorf("a clique over the memory: %+v, %d bytes", pr, GraphBytes(cw))
	}
}

// TestGraphMemoryFlag: --stmatch-graph-memory sets Options.Graph and refuses other values.
func TestGraphMemoryFlag(t *testing.T) {
	for _, c := range []struct {
		arg  string
		want gpu.Placement
		ok   bool
	}{{"device", gpu.OnDevice, true}, {"host", gpu.OnHost, true}, {"managed", gpu.OnManaged, true}, {"disk", 0, false}} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		configure := Engine{}.RegisterFlags(fs)
		if err := fs.Parse([]string{"--stmatch-graph-memory", c.arg}); err != nil {
			t.Fatal(err)
		}
		e, err := configure()
		if (err == nil) != c.ok || (c.ok && e.(Engine).Options.Graph != c.want) {
			t.Errorf("%s: engine %+v, error %v", c.arg, e, err)
		}
	}
}

// TestCliqueKernelFor: a --gpu-memory below one block of the widest clique matrices counts
// cliques with the plan kernels (as the host and managed modes can within any budget).
func TestCliqueKernelFor(t *testing.T) {
	for _, c := range []struct {
		o     Options
		limit uint64
		want  bool
	}{
		{Options{}, 0, true},
		{Options{}, cliqueMinBytes, true},
		{Options{}, cliqueMinBytes - 1, false},
		{Options{Graph: gpu.OnHost}, 256 << 10, false},
		{Options{PlanCliques: true}, 0, false},
	} {
		if got := c.o.cliqueKernelFor(&engine.Problem{GPUMemoryLimit: c.limit}); got != c.want {
			t.Errorf("%+v with --gpu-memory %d: %v", c.o, c.limit, got)
		}
	}
	if cliqueMinBytes != 4*(512<<10+8) {
		t.Errorf("cliqueMinBytes %d", cliqueMinBytes)
	}
}

// TestBudgetPieceCap: the host and managed modes size the level buffers so that a full grid
// takes at most half of --gpu-memory, within the cap's bounds.
func TestBudgetPieceCap(t *testing.T) {
	for _, c := range []struct {
		limit  uint64
		levels int
		want   uint64
	}{
		{0, 4, defaultPieceCap},
		{1 << 40, 4, defaultPieceCap},
		{1 << 10, 4, minPieceCap},
		{80 << 20, 5, 80 << 20 / 2 / (fullGridWarps * 4 * 5)},
	} {
		got := budgetPieceCap(c.limit, c.levels)
		if got != c.want {
			t.Errorf("limit %d, %d levels: %d, want %d", c.limit, c.levels, got, c.want)
		}
		if c.limit > 0 && got > minPieceCap && fullGridWarps*4*uint64(c.levels)*got > c.limit/2 {
			t.Errorf("limit %d: a full grid's buffers take %d", c.limit, fullGridWarps*4*uint64(c.levels)*got)
		}
	}
}

// TestStarved: the out-of-core predictions scale the kernel time by the share of a full grid
// the budget holds: none with unknown or ample memory, and in proportion below.
func TestStarved(t *testing.T) {
	g := gen.RandomGraphM(3, 150, 900, 1, 1)
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(a)")
	if err != nil {
		t.Fatal(err)
	}
	pl := plan.Build(g, p, plan.Options{})
	w := &engine.Workload{Problem: &engine.Problem{Data: g, Pattern: p}, Plan: pl}
	if f := starved(w); f != 1 {
		t.Errorf("unknown memory: %v", f)
	}
	w.GPUMemory = 64 << 30
	if f := starved(w); f != 1 {
		t.Errorf("64 GiB: %v", f)
	}
	w.GPUMemory = 1 << 20
	small := starved(w)
	w.GPUMemory = 4 << 20
	if large := starved(w); small <= large || large <= 1 || small > fullGridWarps {
		t.Errorf("1 MiB: 1/%v of the grid, 4 MiB: 1/%v", small, large)
	}
	c := &engine.Workload{Problem: &engine.Problem{Data: g}, Clique: &plan.Clique{K: 4}, GPUMemory: 4 << 20}
	if f, want := starved(c), float64(fullGridWarps)/float64((4<<20)/2/(cliqueMatrixMax*cliqueMatrixMax/8+8)); f != want {
		t.Errorf("clique kernel in 4 MiB: %v, want %v", f, want)
	}
}

// TestKernels: what a count compiles, as --engine auto weighs it on a machine whose kernel cache
// does not hold it: the clique kernel for a clique count that takes it, else the generic
// kernel; both registered, so that the cache can be asked about them.
func TestKernels(t *testing.T) {
	g := gen.RandomGraphM(3, 150, 900, 1, 1)
	tri, err := pattern.Parse("(a)-(b)-(c)-(a), (a)-(d), (b)-(d), (c)-(d)")
	if err != nil {
		t.Fatal(err)
	}
	cl, ok := plan.AsClique(g, tri)
	if !ok {
		t.Fatal("not a clique")
	}
	p := &engine.Problem{Data: g, Pattern: tri}
	for _, c := range []struct {
		name string
		e    Engine
		w    engine.Workload
		want string
	}{
		{"plan", Engine{}, engine.Workload{Problem: p}, kernelFile},
		{"clique", Engine{}, engine.Workload{Problem: p, Clique: &cl}, cliqueFile},
		{"clique listed", Engine{}, engine.Workload{Problem: p, Clique: &cl, Listing: true}, kernelFile},
		{"clique on the plan kernels", Engine{Options: Options{Kernel: KernelGeneric}}, engine.Workload{Problem: p, Clique: &cl}, kernelFile},
		{"clique within a tiny budget", Engine{}, engine.Workload{Problem: &engine.Problem{Data: g, Pattern: tri, GPUMemoryLimit: 1 << 10}, Clique: &cl}, kernelFile},
	} {
		ks := c.e.Kernels(&c.w)
		if len(ks) != 1 || ks[0].File != c.want || ks[0].ColdSeconds <= 0 {
			t.Errorf("%s: %+v, want %s", c.name, ks, c.want)
			continue
		}
		if _, err := gpu.KernelSource(ks[0].File); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// TestPredictStops: a prediction stops once its context ends (it reads the workload's figures:
// one check before them), in core, out of core and for a clique.
func TestPredictStops(t *testing.T) {
	g := gen.RandomGraphM(3, 150, 900, 1, 1)
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(a)")
	if err != nil {
		t.Fatal(err)
	}
	pl := plan.Build(g, p, plan.Options{})
	w := &engine.Workload{Problem: &engine.Problem{Data: g, Pattern: p}, Plan: pl, Bound: pl.NodeBound(), Threads: 2}
	predicttest.Stops(t, Engine{}, w)
	w.GPUMemory, w.DeviceMemory = 64, 1<<30
	predicttest.Stops(t, Engine{}, w)
	k4, err := pattern.Parse("(a)-(b)-(c)-(a), (a)-(d), (b)-(d), (c)-(d)")
	if err != nil {
		t.Fatal(err)
	}
	cl, ok := plan.AsClique(g, k4)
	if !ok {
		t.Fatal("not a clique")
	}
	predicttest.Stops(t, Engine{}, &engine.Workload{Problem: &engine.Problem{Data: g, Pattern: k4}, Clique: &cl})
}

// TestLeafParents: the level priced at LeafParentsPerSecond is the one before the counted last
// level without leaf groups, the last level with leaf groups whose classes are single groups
// (unless leaf products are not unrolled), and none for a class of several groups or a listing;
// pricing it so lowers the prediction, and only by that level's nodes.
func TestLeafParents(t *testing.T) {
	g := gen.RandomGraphM(5, 200, 1500, 1, 1)
	for _, c := range []struct {
		pattern   string
		enumerate bool
		want      int // in levels from the last; 0: none
	}{
		{"(a)-(b)-(c)-(d)-(a)", true, 2},
		{"(a)-(b)-(c)-(d)-(a), (a)-(c)", false, 1},
		{"(a)-(b)-(c), (a)-(d)", false, 0},
	} {
		p, err := pattern.Parse(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		pl := plan.Build(g, p, plan.Options{Enumerate: c.enumerate})
		est, err := pl.Estimate(context.Background(), g, plan.EstimateOptions{Seed: 1, Probes: 4096})
		if err != nil {
			t.Fatal(err)
		}
		w := &engine.Workload{Problem: &engine.Problem{Data: g, Pattern: p}, Plan: pl, Estimate: &est}
		got, L := leafParents(w, Options{}), len(pl.Levels)
		if c.want == 0 && got != -1 || c.want > 0 && got != L-c.want {
			t.Errorf("%s: level %d of %d (groups %d, classes %d), want %d from the last", c.pattern, got, L, len(pl.Groups), len(pl.Classes), c.want)
		}
		if c.want == 1 && leafParents(w, Options{NoUnrollLeaves: true}) != -1 {
			t.Errorf("%s: leaf products not unrolled, still level %d", c.pattern, leafParents(w, Options{NoUnrollLeaves: true}))
		}
		lw := *w
		lw.Listing = true
		if leafParents(&lw, Options{}) != -1 {
			t.Errorf("%s: listing, level %d", c.pattern, leafParents(&lw, Options{}))
		}
		if got < 0 {
			continue
		}
		fast, slow := inCore(w, false, Options{}).Seconds, inCore(w, false, Options{NoUnrollLeaves: true}).Seconds
		want := est.LevelNodes[got] * (1/NodesPerSecond - 1/LeafParentsPerSecond)
		if c.want == 1 && math.Abs(slow-fast-want) > 1e-9*slow {
			t.Errorf("%s: %g s with leaf products unrolled, %g without, want %g apart", c.pattern, fast, slow, want)
		}
	}
}
