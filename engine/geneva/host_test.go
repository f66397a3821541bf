package geneva

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/geneva/core"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/internal/cudacheck"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// hostVariants are the engine settings the property test runs on the host backend: the paper's
// phases, the SV-match variant, and budgets small enough to force chunking, reruns and splits.
var hostVariants = []struct {
	name string
	o    Options
}{
	{"phases", Options{Host: true}},
	{"no-tail", Options{Host: true, NoTailCount: true}},
	{"sv", Options{Host: true, SingleVertex: true}},
	{"paper", Options{Host: true, PaperOrder: true}},
	{"rows-1", Options{Host: true, MaxTableRows: 1}},
	{"rows-3", Options{Host: true, MaxTableRows: 3}},
	{"budget-2KiB", Options{Host: true, HostBudget: 2 << 10}},
	{"grow", Options{Host: true, HostBudget: 64 << 10, FirstTableRows: 1}},
}

// TestHostProperty runs the whole GENEVA path (filters, GENMATCHORDER, steps, chunked executor)
// on the host backend against the oracle, under every convention, and lists matches for a subset.
func TestHostProperty(t *testing.T) {
	seeds, _ := proptest.Seeds(t, 600, 150)
	checkHost(t, proptest.WithOracle(seeds, nil))
}

// TestHostDense is TestHostProperty on proptest's dense cases (near-cliques on dense graphs).
func TestHostDense(t *testing.T) {
	seeds, _ := proptest.Seeds(t, 120, 30)
	checkHost(t, proptest.WithOracleDense(seeds, nil))
}

func checkHost(t *testing.T, cases iter.Seq[proptest.Oracled]) {
	ctx := context.Background()
	checked, failures := 0, 0
	for o := range cases {
		c, sem, want := o.Case, o.Sem, o.Want
		checked++
		for _, v := range hostVariants {
			prob := &engine.Problem{Data: c.G, Pattern: c.P, Semantics: sem}
			res, err := Engine{Options: v.o}.Count(ctx, prob)
			if err != nil || res.Count != want {
				t.Errorf("%s: count %d (err %v), oracle %d\n%s", v.name, res.Count, err, want,
					c.Describe(sem, v.name, "./engine/geneva -run "+t.Name()))
				failures++
			}
			if c.Seed%4 == 0 && want <= 2000 && v.o.HostBudget == 0 {
				if msg := proptest.CompareLists(ctx, Engine{Options: v.o}, c, prob); msg != "" {
					t.Errorf("%s: %s\n%s", v.name, msg, c.Describe(sem, v.name, "./engine/geneva -run "+t.Name()))
					failures++
				}
			}
		}
		if failures >= 10 {
			t.Fatalf("stopping after %d failures", failures)
		}
	}
	t.Logf("%d (problem, semantics) checked on %d variants", checked, len(hostVariants))
}

// tailQueries have closing vertices of every kind the counting step handles.
var tailQueries = []string{
	"(a)-(b)",
	"(a:1)-[:1]-(b:2)",
	"(c)-(a), (c)-(b), (c)-(d), (c)-(e)",
	"(c:0)-[:0]-(a:1), (c)-[:0]-(b:1), (c)-[:1]-(d:1), (c)-(e:*)",
	"(a)-[:0]-(b)-[:0]-(c)-[:0]-(a), (c)-[:0]-(x)",
	"(a:0)-(b:1)-(c:0)-(a), (a)-(x:1), (b)-(y:1), (c)-(z:1)",
	"(a)-(b)-(c)-(d)-(a)",
	"(a)-[:1]-(b)-[:1]-(c)-[:1]-(a), (b)-[:1]-(d)-[:1]-(c), (a)-[:1]-(x:0), (d)-[:1]-(y:0)",
	"(a:0)-(x:1), (a)-(y:1), (a)-(z:1), (b:0)-(x), (b)-(y), (b)-(z), (a)-(b)",
	"(a)-(b), (a)-(x1:1), (a)-(x2:1), (a)-(x3:1), (a)-(x4:1), (b)-(y1:1), (b)-(y2:1)",
	"(a)-[:0]-(b), (a)-[:0]-(x1:1), (a)-[:0]-(x2:1), (a)-[:0]-(x3:1), (a)-[:0]-(x4:1), (a)-[:0]-(x5:1), (b)-[:0]-(y:1)",
	"(a)-(b)-(c)-(a), (a)-(d)-(b), (c)-(d), (d)-(x:*)",
	"(a)-(b), (c)-(d)-(e)",
}

// TestHostTailCounting runs queries with closing vertices of every kind the counting step
// handles (leaves, stars, tailed triangles, several closing vertices with overlapping candidate
// sets, wildcard vertex and edge labels, sets of one and two parents, a class beyond four
// vertices) on random labelled graphs, under every convention, against the oracle, with and
// without tail counting and with three-row tables (the counting step's input in chunks). It
// checks that the counts that should count do.
func TestHostTailCounting(t *testing.T) {
	counting := 0
	for qi, qs := range tailQueries {
		p, err := pattern.Parse(qs)
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(1); seed <= 6; seed++ {
			g := gen.RandomGraph(seed*31+uint64(qi), 18+int(seed*3), []float64{0.25, 0.4}[seed%2], 2, 2)
			pc, err := core.Build(g)
			if err != nil {
				t.Fatal(err)
			}
			for _, sem := range proptest.AllSemantics {
				want, ok := oracle.CountWithin(g, p, sem, 4*proptest.OracleBudget)
				if !ok {
					continue
				}
				job, err := core.Prepare(context.Background(), g, pc, p, core.CompileOptions{Induced: sem.Induced, Unique: sem.Unique, Fuse: true, CountTail: true})
				if err != nil {
					t.Fatal(err)
				}
				if !job.Program.Empty && !sem.Induced {
					if s := job.Program.Steps[len(job.Program.Steps)-1]; s.Kind != core.Counting && !sem.Unique {
						t.Errorf("%s: no counting step (last %s)", qs, &s)
					} else if s.Kind == core.Counting && want > 0 {
						counting++
					}
				}
				for _, o := range []Options{{Host: true}, {Host: true, MaxTableRows: 3}, {Host: true, NoTailCount: true}} {
					res, err := Engine{Options: o}.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: sem})
					if err != nil || res.Count != want {
						t.Errorf("%s on seed %d (%s, %+v): %d (%v), oracle %d", qs, seed, sem, o, res.Count, err, want)
					}
				}
			}
		}
	}
	t.Logf("%d non-zero counts through a counting step", counting)
	if counting < 60 {
		t.Errorf("only %d non-zero counts through a counting step", counting)
	}
}

// TestHostGitHub counts the github-gmatch queries (the shared test data, skipped when absent)
// on the host backend with tail counting, against the published counts and the CPU engine, with
// and without symmetry breaking; tiny tables as well, so that the counting step runs in chunks.
func TestHostGitHub(t *testing.T) {
	g, qs := sharedtest.Suite(t, "github-gmatch", "data.graph", 0)
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, q := range qs {
		for _, sem := range []engine.Semantics{{}, {Unique: true}} {
			prob := &engine.Problem{Data: g, Pattern: q.Pattern, Semantics: sem}
			want, err := cpu.Count(ctx, prob)
			if err != nil {
				t.Fatal(err)
			}
			if !sem.Unique && want.Count != q.Want {
				t.Errorf("%s: cpu %d, published %d", q.Name, want.Count, q.Want)
			}
			for _, o := range []Options{{Host: true}, {Host: true, MaxTableRows: 1000}} {
				res, st, err := Engine{Options: o}.CountStats(ctx, prob)
				if err != nil || res.Count != want.Count {
					t.Errorf("%s (%s, %+v): geneva host %d (%v), cpu %d", q.Name, sem, o, res.Count, err, want.Count)
				}
				if o.MaxTableRows == 0 {
					t.Logf("%s %-10s %14d  %d steps, %d counted, %d chunks", q.Name, sem, res.Count, st.Steps, st.Counted, st.Chunks)
				}
			}
		}
	}
}

// TestHostChunking checks that tiny tables make the executor chunk, rerun and split, and still
// count right.
func TestHostChunking(t *testing.T) {
	g := gen.RandomGraph(7, 40, 0.3, 1, 1)
	p, err := pattern.Parse("(a)-(b)-(c)-(a), (a)-(d), (a)-(e), (a)-(f)")
	if err != nil {
		t.Fatal(err)
	}
	want := oracle.Count(g, p, engine.Semantics{})
	for _, rows := range []uint64{1, 2, 5, 50} {
		_, st, err := Engine{Options: Options{Host: true, MaxTableRows: rows}}.CountStats(context.Background(), &engine.Problem{Data: g, Pattern: p})
		if err != nil {
			t.Fatal(err)
		}
		res, _ := Engine{Options: Options{Host: true, MaxTableRows: rows}}.Count(context.Background(), &engine.Problem{Data: g, Pattern: p})
		if res.Count != want {
			t.Errorf("rows %d: %d, want %d", rows, res.Count, want)
		}
		t.Logf("rows %d: %d steps, %d chunks, %d reruns, %d windows", rows, st.Steps, st.Chunks, st.Retries, st.Windows)
		if rows <= 2 && st.Windows == 0 || rows == 2 && st.Retries == 0 {
			t.Errorf("%d-row tables: %d windows, %d reruns", rows, st.Windows, st.Retries)
		}
	}
	// Tables that start at one row grow to what the count needs, without chunking further.
	_, st, err := Engine{Options: Options{Host: true, FirstTableRows: 1}}.CountStats(context.Background(), &engine.Problem{Data: g, Pattern: p})
	if err != nil || st.Retries == 0 {
		t.Errorf("one-row first tables: %d reruns (err %v), want some", st.Retries, err)
	}
	// A budget below one table row fails cleanly.
	_, err = Engine{Options: Options{Host: true, HostBudget: 8}}.Count(context.Background(), &engine.Problem{Data: g, Pattern: p})
	if !errors.Is(err, engine.ErrMemory) {
		t.Errorf("8-byte budget: %v, want ErrMemory", err)
	}
}

// TestHostCancel: a cancelled count returns promptly with Partial set.
func TestHostCancel(t *testing.T) {
	g := gen.RandomGraph(3, 120, 0.3, 0, 0)
	p, _ := pattern.Parse("(a)-(b)-(c)-(d)-(e)-(a)")
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	res, err := Engine{Options: Options{Host: true, MaxTableRows: 50}}.Count(ctx, &engine.Problem{Data: g, Pattern: p,
		Progress: func(float64) {
			if n++; n == 3 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) || !res.Partial {
		t.Fatalf("cancelled count: %v (partial %v)", err, res.Partial)
	}
}

func TestWithoutGPU(t *testing.T) {
	if _, err := gpu.Open(context.Background()); err == nil {
		t.Skip("a GPU is present")
	}
	g := gen.RandomGraph(1, 30, 0.3, 0, 0)
	p, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	_, err := Engine{}.Count(context.Background(), &engine.Problem{Data: g, Pattern: p})
	if !errors.Is(err, gpu.ErrNoGPU) {
		t.Fatalf("Count without a GPU: %v, want an error wrapping gpu.ErrNoGPU", err)
	}
}

// TestCompileKernel compiles the kernels for sm_90 with NVRTC when it is present (no GPU needed).
func TestCompileKernel(t *testing.T) {
	if _, err := gpu.NVRTCVersion(); err != nil {
		t.Skipf("NVRTC not available: %v", err)
	}
	img, err := gpu.CompileSource(kernelSource, "geneva.cu", "sm_90", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("geneva.cu: %d-byte cubin", len(img))
}

// TestKernelSyntax checks the kernels with clang's CUDA front end (no CUDA needed).
func TestKernelSyntax(t *testing.T) { cudacheck.Syntax(t, "geneva.cu", kernelSource) }

// TestEncode checks the descriptor layout the kernels read.
func TestEncode(t *testing.T) {
	b := &gpuBackend{partIndex: map[core.Part]int{3: 0, core.UnionPart: 1}, listOff: []uint64{0, 5}, listLen: []uint32{5, 7}}
	s := &core.Step{Kind: core.Extension, Width: 2, New: []core.NewVertex{
		{Vertex: 1, Source: -1, Label: pattern.Label{Value: 4}},
		{Vertex: 2, Source: 0, Part: 3, Label: pattern.Wildcard},
	}, Less: []core.ColumnPair{{A: 0, B: 2}}, NonAdjacent: []core.ColumnPair{{A: 1, B: 3}}}
	d, err := b.encode(s)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(d)
	want := "[0 2 2 1 1 0 1 0 4294967295 0 0 4 1 5 0 7 0 0 1 0 2 0 0 0 0 2 1 3]"
	if got != want {
		t.Errorf("descriptor %s, want %s", got, want)
	}
	// A counting step: a falling-factorial class of one set with one parent, then a terms class
	// of two sets (one with a wildcard label and two parents).
	c := &core.Step{Kind: core.Counting, Width: 3, Classes: []core.CountClass{
		{Kind: core.CountFalling, K: 2, Sets: []core.CountSet{{Label: pattern.Label{Value: 4}, Parents: []core.Parent{{Column: 1, Part: 3}}}}},
		{Kind: core.CountTerms, K: 2, Sets: []core.CountSet{
			{Label: pattern.Label{Value: 2}, Parents: []core.Parent{{Column: 0, Part: 3}}},
			{Label: pattern.Wildcard, Parents: []core.Parent{{Column: 0, Part: 3}, {Column: 2, Part: core.UnionPart}}},
		}, Terms: []core.CountTerm{{Coef: 1, Factors: []uint8{1, 2}}, {Coef: -1, Factors: []uint8{3}}}},
	}}
	if d, err = b.encode(c); err != nil {
		t.Fatal(err)
	}
	got = fmt.Sprint(d)
	want = "[2 3 2 0 0 0 1 0 0 2 1 0 0 4 1 1 0 2 2 2 2 0 2 1 0 0 1 0 2 0 0 2 1 1 2 1 2 4294967295 1 3]"
	if got != want {
		t.Errorf("counting descriptor %s, want %s", got, want)
	}
	// Beyond the kernel's limits: an error, not a descriptor the kernel misreads.
	c.Classes[1].Sets = append(c.Classes[1].Sets, c.Classes[1].Sets...)
	c.Classes[1].Sets = append(c.Classes[1].Sets, c.Classes[1].Sets[0])
	if _, err := b.encode(c); err == nil {
		t.Error("a class of 5 sets encoded")
	}
}

// TestCountFromPlan: a count that starts from another plan's candidates (--engine auto hands
// over the CPU plan it decided with) gives the oracle's count, whatever options that plan had.
func TestCountFromPlan(t *testing.T) {
	seeds, _ := proptest.Seeds(t, 60, 20)
	ctx := context.Background()
	n := 0
	for o := range proptest.WithOracle(seeds, nil) {
		c, sem, want := o.Case, o.Sem, o.Want
		base := plan.Build(c.G, c.P, plan.Options{Induced: sem.Induced, Unique: sem.Unique, MultiplyAutomorphisms: true})
		res, err := Engine{Options: Options{Host: true}}.CountFrom(ctx, &engine.Problem{Data: c.G, Pattern: c.P, Semantics: sem}, base)
		if err != nil || res.Count != want {
			t.Errorf("count from the CPU plan %d (err %v), oracle %d\n%s", res.Count, err, want,
				c.Describe(sem, "host, CountFrom", "./engine/geneva -run TestCountFromPlan"))
		}
		n++
	}
	t.Logf("%d counts", n)
}
