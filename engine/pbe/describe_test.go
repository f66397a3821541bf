package pbe

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/engine/internal/predicttest"
	_ "github.com/submatch/submatch/engine/stmatch" // the device engine, whose prediction one part takes
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestPredict: pbe is predicted only out of core, for its GPU backend with parts of half the
// GPU memory: partitioning plus the inter stage's plain search (interSeconds).
func TestPredict(t *testing.T) {
	g := gen.RandomGraphM(3, 150, 900, 1, 1)
	need := partition.GraphBytes(g)
	e := &Engine{Passes: 3, Triangles: true, Unshared: true, InterBackend: InterGPU}
	tri, err := pattern.Parse("(a)-(b)-(c)-(a)")
	if err != nil {
		t.Fatal(err)
	}
	w := &engine.Workload{Problem: &engine.Problem{Data: g, Pattern: tri}, Threads: 4, HostSeconds: 1}
	inter, err := interSeconds(context.Background(), w)
	if err != nil || inter <= 0 {
		t.Fatalf("the inter stage: %v s (%v)", inter, err)
	}
	// --pbe-inter gpu: the host stage's price on InterGPUThreads threads, whatever w's.
	on16 := *w
	on16.Threads = InterGPUThreads
	interGPU, err := interSeconds(context.Background(), &on16)
	if err != nil || interGPU >= inter {
		t.Fatalf("the inter stage on %d threads: %v s, on 4: %v s (%v)", InterGPUThreads, interGPU, inter, err)
	}
	// Parts of half the graph's bytes: the multilevel partitioner's first attempt makes
	// ⌈2/DefaultFill⌉ = 3 (partsEstimate).
	m := float64(g.NumEdges())
	multilevel := PartitionSecondsPerEdge*m + PartitionSecondsPerPart*3*math.Sqrt(m)
	if pr := predicttest.Must(t, e, w); pr.Eligible() {
		t.Errorf("unknown memory (in core): %+v", pr)
	}
	w.GPUMemory = need
	pr := predicttest.Must(t, e, w)
	run, ok := pr.Run.(*Engine)
	// The engine auto runs keeps the user's settings (--pbe-triangles, --pbe-shared off,
	// --pbe-inter gpu, priced from the host stage: InterGPUSlowdown, InterGPUThreads).
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
	if want := startSeconds + multilevel + InterGPUSlowdown*interGPU; math.Abs(pr.Seconds-want) > 1e-12*want {
		t.Errorf("--pbe-inter gpu: %v s, want %v", pr.Seconds, want)
	}
	host := predicttest.Must(t, &Engine{}, w)
	if !strings.Contains(host.Note, "inter stage on the host") {
		t.Errorf("--pbe-inter host: note %q", host.Note)
	}
	if want := startSeconds + multilevel + inter; math.Abs(host.Seconds-want) > 1e-12*want {
		t.Errorf("--pbe-inter host: %v s, want %v", host.Seconds, want)
	}
	for _, m := range []partition.Method{partition.Grow, partition.Auto} {
		e := &Engine{Partitioner: m}
		want := startSeconds + GrowSecondsPerEdge*float64(g.NumEdges()) + inter
		if m == partition.Auto { // a small graph: multilevel
			want = startSeconds + multilevel + inter
		}
		if pr := predicttest.Must(t, e, w); math.Abs(pr.Seconds-want) > 1e-12*want {
			t.Errorf("%v: %v s, want %v", m, pr.Seconds, want)
		}
	}
	if big := uint64(partition.AutoMultilevelEdges + 1); partitionSeconds(partition.Auto, big, 5) != GrowSecondsPerEdge*float64(big) {
		t.Errorf("auto above AutoMultilevelEdges: %v s", partitionSeconds(partition.Auto, big, 5))
	}
	if !e.Capabilities().OutOfCore {
		t.Error("auto would not weigh pbe")
	}
}

// TestPredictReduced (issue 21): on a labelled R-MAT graph whose whole layout exceeds the GPU
// memory, a pattern on four of its labels keeps a small subgraph (reduce.go). Where that subgraph
// fits one part the prediction says so (no inter stage, not out of core, the device engine's
// in-core count), under half the stages' figure without the reduction, and the engine it
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
	inter, err := interSeconds(context.Background(), w(8*reduced))
	if err != nil {
		t.Fatal(err)
	}
	unreduced := startSeconds + partitionSeconds(partition.Auto, g.NumEdges(), partsEstimate(whole, 4*reduced)) + inter
	// (The whole graph's 5 parts and inter stage, 0.77 s; the one part, the device engine's start
	// most of its 0.35 s. With PartitionSecondsPerEdge at 7e-6, before branch pbecal, the
	// partitioning alone was 4 times the one part.)
	if pr.Seconds*2 > unreduced {
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

// TestPredictPlainSearch (issue 21): the inter stage is priced from what it runs, not from the
// CPU engine's whole prediction. On unlabelled R-MAT a 4-clique workload as --engine auto makes
// it (engine.Workload.Clique set, no plan, HostSeconds the clique counter's price) and a diamond
// one (whose CPU plan postpones two vertices, counted by edge supports) are shapes (branch
// pbeclique): priced as ShapeCliqueSlowdown times the clique counter's and ShapePassSlowdown
// times the edge supports' pass's prices, whatever HostSeconds says; their seeded search (the device's inter stage,
// --pbe-inter gpu) from a plan that enumerates every vertex, the same with or without the
// clique, above InterSlowdown's 3.5 times the CPU engine's price of old, which that search was
// 19 and 23 times slower than on R-MAT 18 and 14. A triangle, whose shape count and search took
// alike, is priced from the planner's own estimate.
func TestPredictPlainSearch(t *testing.T) {
	ctx := context.Background()
	g, err := gen.RMAT(gen.RMATOptions{Scale: 12, EdgeFactor: 16, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	cpuEng, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q      string
		clique bool
	}{{"(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)", true}, {"(a)-(b)-(c)-(d)-(a), (a)-(c)", false}, {"(a)-(b)-(c)-(a)", false}} {
		pat, err := pattern.Parse(c.q)
		if err != nil {
			t.Fatal(err)
		}
		prob := &engine.Problem{Data: g, Pattern: pat, Threads: 2}
		w := &engine.Workload{Problem: prob, Threads: 2, GPUMemory: partition.GraphBytes(g) / 4}
		cl, isClique := plan.AsClique(g, pat)
		if isClique != c.clique {
			t.Fatalf("%s: clique %v", c.q, isClique)
		}
		if isClique {
			w.Clique = &cl
		} else {
			opts, err := cpuEng.(engine.Planner).PlanOptions(prob, false)
			if err != nil {
				t.Fatal(err)
			}
			w.Plan = plan.Build(g, pat, opts)
			est, err := w.Plan.Estimate(ctx, g, plan.EstimateOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			w.Estimate, w.Bound = &est, w.Plan.NodeBound()
			if postpones := len(w.Plan.Groups) > 0; postpones != (pat.NumVertices() == 4) {
				t.Fatalf("%s: the CPU's plan postpones a vertex: %v", c.q, postpones)
			}
		}
		host := predicttest.Must(t, cpuEng.(engine.Predictor), w)
		w.HostSeconds = host.Seconds
		est, err := interEstimate(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		if len(est.LevelNodes) != pat.NumVertices() || est.Nodes <= 0 || (est == w.Estimate) != (pat.NumVertices() == 3) {
			t.Errorf("%s: the inter stage's estimate has %d levels, %v nodes; the planner's: %v", c.q, len(est.LevelNodes), est.Nodes, est == w.Estimate)
		}
		inter, search := hostPrices(t, w)
		pr := predicttest.Must(t, &Engine{Partitioner: partition.Grow}, w)
		if want := startSeconds + partitionSeconds(partition.Grow, g.NumEdges(), 0) + inter; !pr.OutOfCore || pr.Seconds != want {
			t.Errorf("%s: predicted %+v, want %v s", c.q, pr, want)
		}
		on16 := *w
		on16.Threads = InterGPUThreads
		searchOn16, err := searchSeconds(ctx, &on16)
		if err != nil {
			t.Fatal(err)
		}
		onDevice := predicttest.Must(t, &Engine{Partitioner: partition.Grow, InterBackend: InterGPU}, w)
		if want := startSeconds + partitionSeconds(partition.Grow, g.NumEdges(), 0) + InterGPUSlowdown*searchOn16; onDevice.Seconds != want {
			t.Errorf("%s, --pbe-inter gpu: predicted %+v, want %v s", c.q, onDevice, want)
		}
		// The model's inputs: not the clique, not the host's price.
		other := *w
		other.Clique, other.HostSeconds = nil, 1000*w.HostSeconds
		again, err := interSeconds(ctx, &other)
		againSearch, err2 := searchSeconds(ctx, &other)
		if err != nil || err2 != nil || again != inter || againSearch != search {
			t.Errorf("%s: %v and %v s without the clique and with a host price 1000 times higher, %v and %v s with (%v, %v)", c.q, again, againSearch, inter, search, err, err2)
		}
		t.Logf("%s: inter stage %.3g s (search %.3g s), the CPU engine %.3g s (%s)", c.q, inter, search, host.Seconds, host.Note)
		var shape float64
		switch {
		case pat.NumVertices() == 3:
			shape = search
		case c.clique:
			shape = ShapeCliqueSlowdown * cpu.CliqueSeconds(4, plan.UpwardSquares(g), 2)
		default:
			shape = ShapePassSlowdown * cpu.SupportPassSeconds(g, 2)
		}
		if inter != shape {
			t.Errorf("%s: the inter stage %v s, want %v", c.q, inter, shape)
		}
		if pat.NumVertices() == 3 {
			continue
		}
		if search <= 3.5*host.Seconds {
			t.Errorf("%s: the seeded search %v s, at most 3.5 times the CPU engine's special path (%v s: %s)", c.q, search, host.Seconds, host.Note)
		}
	}
}

// TestPredictCycles (issue 21): the inter stage's seeded search (searchSeconds; the host stage
// counts the diamond and the triangle as shapes, shapeSeconds) of a chordless cycle of four
// vertices or more is priced at InterCycleSlowdown, every other pattern's at InterSlowdown, the
// same plain search's price (cpu.GenericSeconds of interEstimate) either way: a triangle (a cycle of three, and a
// clique), a 4-cycle with a chord, a tailed 4-cycle, a path, and two disjoint 4-cycles (every
// vertex of degree 2, not connected) are not cycles.
func TestPredictCycles(t *testing.T) {
	ctx := context.Background()
	g := gen.RandomGraphM(5, 200, 1200, 1, 1)
	for _, c := range []struct {
		q     string
		cycle bool
	}{
		{"(a)-(b)-(c)-(d)-(a)", true},
		{"(a)-(b)-(c)-(d)-(e)-(a)", true},
		{"(a)-(b)-(c)-(d)-(e)-(f)-(a)", true},
		{"(a)-(b)-(c)-(a)", false},
		{"(a)-(b)-(c)-(d)-(a), (a)-(c)", false},
		{"(a)-(b)-(c)-(d)-(a), (a)-(e)", false},
		{"(a)-(b)-(c)-(d)", false},
		{"(a)-(b)-(c)-(d)-(a), (e)-(f)-(g)-(h)-(e)", false},
	} {
		pat, err := pattern.Parse(c.q)
		if err != nil {
			t.Fatal(err)
		}
		w := &engine.Workload{Problem: &engine.Problem{Data: g, Pattern: pat, Threads: 2}, Threads: 2}
		est, err := interEstimate(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		plain := cpu.GenericSeconds(est, 2)
		want := InterSlowdown * plain
		if c.cycle {
			want = InterCycleSlowdown * plain
		}
		if got, err := searchSeconds(ctx, w); err != nil || plain <= 0 || got != want {
			t.Errorf("%s: %v s, want %v (the plain search %v s; a chordless cycle: %v; %v)", c.q, got, want, plain, c.cycle, err)
		}
	}
}

// TestPredictCounted (issue 21, branch pbepred3): a pattern whose host stage counts positions at
// once (countsAtOnce: a counted tail of two or more positions, or a leaf's seeds searched
// together, as program.counted tells the stage's searcher) is priced at InterCountedSlowdown
// times the CPU engine's price of a plan that postpones and counts (cpu.CountedSeconds), the
// others as before (searchSeconds); the GPU stage, which enumerates, keeps searchSeconds. A path (two leaves in a tail), a tailed triangle and a star
// (a leaf second), a labelled walk with exact edge labels count; the same walk with wildcard
// edges (no sorted tail lists), a cycle, a triangle, a 4-cycle with a chord and
// induced counts (a tail of one, no leaf seeds) do not.
func TestPredictCounted(t *testing.T) {
	ctx := context.Background()
	g := gen.RandomGraphM(5, 200, 1200, 1, 1)
	labelled := gen.RandomGraphM(6, 200, 1200, 3, 1)
	for _, c := range []struct {
		q       string
		g       *graph.Graph
		induced bool
		counts  bool
	}{
		{"(a)-(b)-(c)-(d)", g, false, true},
		{"(a)-(b)-(c)-(a), (c)-(d)", g, false, true},
		{"(a)-(b), (a)-(c), (a)-(d)", g, false, true},
		{"(a:0)-[:0]-(b:1)-[:0]-(c:2)-[:0]-(d:0)-[:0]-(e:1)", labelled, false, true},
		{"(a:0)-(b:1)-(c:2)-(d:0)-(e:1)", labelled, false, false}, // (wildcard edge labels: no sorted tail lists)
		{"(a)-(b)-(c)-(d)", g, true, false},
		{"(a)-(b)-(c)-(d)-(a)", g, false, false},
		{"(a)-(b)-(c)-(d)-(e)-(a)", g, false, false},
		{"(a)-(b)-(c)-(a)", g, false, false},
		{"(a)-(b)-(c)-(d)-(a), (a)-(c)", g, true, false},
	} {
		pat, err := pattern.Parse(c.q)
		if err != nil {
			t.Fatal(err)
		}
		prob := &engine.Problem{Data: c.g, Pattern: pat, Threads: 2}
		prob.Semantics.Induced = c.induced
		counts, err := countsAtOnce(ctx, prob)
		if err != nil || counts != c.counts {
			t.Errorf("%s (induced %v): counts at once %v, want %v (%v)", c.q, c.induced, counts, c.counts, err)
		}
		// What the stage itself does with the programs (searcher.use) agrees.
		ip, err := newInterPlan(ctx, pat, c.induced, false, true, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := newSearcher(ctx, c.g, make([]uint32, c.g.NumVertices()), 0, nil, nil, nil)
		used := false
		for i := range ip.programs {
			s.use(&ip.programs[i])
			used = used || s.tail < len(ip.programs[i].steps)-1 || s.leafSeed
		}
		if used != c.counts {
			t.Errorf("%s: the stage counts at once: %v", c.q, used)
		}
		w := &engine.Workload{Problem: prob, Threads: 2}
		plainPrice, err := plainSeconds(ctx, w)
		if err != nil || plainPrice <= 0 {
			t.Fatalf("%s: the plain search %v s (%v)", c.q, plainPrice, err)
		}
		inter, search := hostPrices(t, w)
		if _, shape := shapeSeconds(w); shape {
			continue
		}
		want := search
		if c.counts {
			est, err := estimateSearch(ctx, prob, false)
			if err != nil {
				t.Fatal(err)
			}
			// The counted plan's price: its search and its groups' intersections, at least the
			// same estimate's price without the groups (more where the steps outweigh the nodes).
			counted := cpu.CountedSeconds(est, 2)
			if generic := cpu.GenericSeconds(est, 2); counted < generic || est.GroupCost == 0 {
				t.Errorf("%s: the counted plan %v s, without its groups (%v steps) %v s", c.q, counted, est.GroupCost, generic)
			}
			want = InterCountedSlowdown * counted
		}
		if inter != want {
			t.Errorf("%s: the inter stage %v s, want %v (the plain search %v s)", c.q, inter, want, plainPrice)
		}
	}
}

// hostPrices is w's host inter stage's price (interSeconds) and its seeded search's
// (searchSeconds).
func hostPrices(t *testing.T, w *engine.Workload) (inter, search float64) {
	t.Helper()
	inter, err := interSeconds(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	if search, err = searchSeconds(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	return inter, search
}
