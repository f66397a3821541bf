package stmatch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// EnvResults names a file to which the GPU tests append one tab-separated line per comparison
// (case, cpu count, gpu count, verdict, gpu kernel ms, gpu call ms, warps), for scripts/gpu-check.sh.
const EnvResults = "SUBMATCH_STMATCH_RESULTS"

func needGPU(t *testing.T) *gpu.Device {
	t.Helper()
	d, err := device(context.Background())
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	return d
}

func record(t *testing.T, name string, cpu, got uint64, st Stats) {
	verdict := "ok"
	if cpu != got {
		verdict = "MISMATCH"
	}
	p := os.Getenv(EnvResults)
	if p == "" {
		return
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Logf("results file: %v", err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s\t%d\t%d\t%s\t%.3f\t%.3f\t%d\n", name, cpu, got, verdict,
		float64(st.Kernel.Microseconds())/1000, float64(st.Total.Microseconds())/1000, st.Warps)
}

// compare counts on the GPU and the CPU; it returns the GPU stats.
func compare(t *testing.T, name string, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, want int64) Stats {
	t.Helper()
	return compareOn(t, name, g, p, sem, want, nil)
}

// compareOn is compare on the GPUs listed (nil: all).
func compareOn(t *testing.T, name string, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, want int64, gpus []int) Stats {
	t.Helper()
	return compareWith(t, name, g, p, sem, want, gpus, Options{})
}

// compareWith is compareOn with the engine's options o.
func compareWith(t *testing.T, name string, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, want int64, gpus []int, o Options) Stats {
	t.Helper()
	t0 := time.Now()
	cpu := cpuCount(t, g, p, sem)
	cpuTime := time.Since(t0)
	prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, GPUs: gpus}
	res, st, err := CountOptions(context.Background(), prob, o)
	if err != nil || res.Partial {
		t.Errorf("%s: stmatch count: %v (partial %v)", name, err, res.Partial)
		record(t, name, cpu, res.Count, st)
		return st
	}
	record(t, name, cpu, res.Count, st)
	if res.Count != cpu {
		t.Errorf("%s (%s): stmatch %d, cpu %d", name, sem, res.Count, cpu)
	}
	if want >= 0 && uint64(want) != cpu {
		t.Errorf("%s: cpu %d, published %d", name, cpu, want)
	}
	t.Logf("%-28s %-14s %14d  cpu %9.3f ms  gpu kernel %9.3f ms  call %9.3f ms  launches %d warps %d levels %d buffers %s query kernel %v (%d launches, compile %.0f ms)",
		name, sem, res.Count, ms(cpuTime), ms(st.Kernel), ms(st.Total), st.Launches, st.Warps, st.Levels, gpu.FormatBytes(st.BufferBytes),
		st.QueryKernel, st.QueryLaunches, ms(st.QueryCompile))
	return st
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func expectedSuite(t *testing.T, dir, data string, limit int) {
	needGPU(t)
	g, qs := sharedtest.Suite(t, dir, data, limit)
	for _, q := range qs {
		compare(t, filepath.Base(dir)+" "+q.Name, g, q.Pattern, engine.Semantics{}, int64(q.Want))
	}
}

func TestGPUGitHub(t *testing.T) { expectedSuite(t, "github-gmatch", "data.graph", 0) }

func TestGPUHPRD(t *testing.T) { expectedSuite(t, "hprd-subgraphmatching", "HPRD.graph", 20) }

// githubQueries loads the github-gmatch data graph and the named queries (Q_0 ...), or logs why
// not and returns none when the data is not available.
func githubQueries(t *testing.T, names ...string) (*graph.Graph, []*pattern.Pattern) {
	t.Helper()
	dir := filepath.Join(testenv.Dir(), "github-gmatch")
	g, err := formats.Load(filepath.Join(dir, "data.graph"), formats.Options{})
	if err != nil {
		t.Logf("github data not available: %v", err)
		return nil, nil
	}
	var ps []*pattern.Pattern
	for _, q := range names {
		p, err := formats.LoadPattern(filepath.Join(dir, "query_graph", q+".graph"), formats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return g, ps
}

// TestGPUHeldOut compares the github queries in $SUBMATCH_TESTDATA/github-extra (the held-out
// gMatch queries that scripts/gpu-check.sh copies from $SUBMATCH_EXTRA_QUERIES; not in the
// repository) on one GPU and, where there are several, on all of them.
func TestGPUHeldOut(t *testing.T) {
	needGPU(t)
	extra := filepath.Join(testenv.Dir(), "github-extra")
	names, _ := filepath.Glob(filepath.Join(extra, "*.graph"))
	if len(names) == 0 {
		t.Skipf("no held-out queries in %s", extra)
	}
	g, err := formats.Load(filepath.Join(testenv.Dir(), "github-gmatch", "data.graph"), formats.Options{})
	if err != nil {
		t.Skipf("github data: %v", err)
	}
	devs, _ := devices(context.Background(), nil)
	for _, name := range names {
		p, err := formats.LoadPattern(name, formats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		q := strings.TrimSuffix(filepath.Base(name), ".graph")
		compareOn(t, "github "+q, g, p, engine.Semantics{}, -1, []int{0})
		compareWith(t, "github "+q+", classes unrolled", g, p, engine.Semantics{}, -1, []int{0}, Options{UnrollClasses: true})
		if len(devs) > 1 {
			all := make([]int, len(devs))
			for k := range all {
				all[k] = k
			}
			compareOn(t, fmt.Sprintf("github %s, %d GPUs", q, len(devs)), g, p, engine.Semantics{}, -1, all)
		}
	}
}

func TestGPUWikiVote(t *testing.T) {
	needGPU(t)
	g := sharedtest.WikiVote(t)
	for _, c := range []struct{ name, pat string }{
		{"triangle", "(a)-(b)-(c)-(a)"},
		{"4-clique", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)"},
		{"4-cycle", "(a)-(b)-(c)-(d)-(a)"},
	} {
		p, err := pattern.Parse(c.pat)
		if err != nil {
			t.Fatal(err)
		}
		for _, sem := range semantics {
			if c.name == "4-cycle" && !sem.Unique {
				continue
			}
			want := int64(-1)
			if c.name == "triangle" && sem.Unique {
				want = 608389
			}
			compare(t, "wiki-Vote "+c.name+" "+sem.String(), g, p, sem, want)
		}
	}
}

func TestGPURandom(t *testing.T) {
	needGPU(t)
	n := 0
	for seed := uint64(1); seed <= 40; seed++ {
		c := proptest.MakeLarger(seed)
		g, p := c.G, c.P
		// An eighth of the seeds run the per-query kernel from the first launch (the others
		// start generic: their counts end before a background compile would be used). Each
		// needs its own NVRTC compile, about 5 s on the H100 host: a quarter took the test to
		// 112 s, and the device check must fit one 10-minute call.
		var o Options
		switch seed % 4 {
		case 1:
			if seed%8 == 1 {
				o.Kernel = KernelQuery
			}
		case 2: // on the graph's adjacency lists, as for graphs too large for a candidate space
			o.NoSpace = true
		case 3: // leaf products one candidate at a time, isolated vertices enumerated
			o.NoUnrollLeaves, o.NoIsolatedLeaves = true, true
		case 0: // half of these: leaf products unrolled for collision classes of several groups too
			o.UnrollClasses = seed%8 == 0
		}
		for _, sem := range semantics {
			compareWith(t, fmt.Sprintf("random seed %d %s", seed, sem), g, p, sem, -1, nil, o)
			n++
		}
	}
	t.Logf("%d random cases", n)
}

// TestGPUDense runs proptest's dense cases (near-cliques on dense graphs: chains of reused sets
// under symmetry windows) on the GPU, with a candidate space and on the adjacency lists, against
// the oracle.
func TestGPUDense(t *testing.T) {
	needGPU(t)
	seeds, _ := proptest.Seeds(t, 100, 100)
	n := 0
	for o := range proptest.WithOracleDense(seeds, nil) {
		for _, opts := range []Options{{}, {NoSpace: true}} {
			compareWith(t, fmt.Sprintf("dense seed %d %s (no space %v)", o.Seed, o.Sem, opts.NoSpace), o.G, o.P, o.Sem, int64(o.Want), nil, opts)
			n++
		}
	}
	t.Logf("%d dense cases", n)
}

// EnvVersions names a file to which TestGPUVersions appends one tab-separated line per case and
// variant (case, variant, cpu count, gpu count, verdict, kernel ms (best of 2), units), for
// scripts/gpu-check.sh's before/after table.
const EnvVersions = "SUBMATCH_STMATCH_VERSIONS"

// TestGPUVersions runs the slow cases with the v1 kernel and with v2 with and without each of
// its features, every count against the CPU engine's.
func TestGPUVersions(t *testing.T) {
	needGPU(t)
	type bcase struct {
		name string
		g    *graph.Graph
		p    *pattern.Pattern
		sem  engine.Semantics
	}
	var cases []bcase
	wv := sharedtest.WikiVote(t)
	for _, c := range []struct {
		name, pat string
		sem       engine.Semantics
	}{
		{"wiki-Vote 4-clique embeddings", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)", engine.Semantics{}},
		{"wiki-Vote 4-cycle unique", "(a)-(b)-(c)-(d)-(a)", engine.Semantics{Unique: true}},
		{"wiki-Vote diamond unique", "(a)-(b)-(c)-(d)-(a), (a)-(c)", engine.Semantics{Unique: true}},
	} {
		p, err := pattern.Parse(c.pat)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, bcase{c.name, wv, p, c.sem})
	}
	names := []string{"Q_3", "Q_4", "Q_6", "Q_9"}
	gh, ghq := githubQueries(t, names...)
	for i, p := range ghq {
		cases = append(cases, bcase{"github " + names[i], gh, p, engine.Semantics{}})
	}
	variants := []struct {
		name string
		o    Options
	}{
		{"v1", Options{V1: true}},
		{"v2-nosplit", Options{NoSplit: true}},
		{"v2-noreuse", Options{NoReuse: true}},
		{"v2-noleaves", Options{NoLeaves: true}},
		{"v2-nosteal", Options{NoSteal: true}},
		{"v2-slice1ms", Options{Slice: time.Millisecond}},
		{"v2-donate2ms", Options{DonateAfter: 2 * time.Millisecond}},
		{"v2-donate50us", Options{DonateAfter: 50 * time.Microsecond}},
		{"v2-generic", Options{Kernel: KernelGeneric}},
		{"v2-query", Options{Kernel: KernelQuery}},
		{"v2-nospace", Options{NoSpace: true}},
		{"v2-pieces", Options{PieceCap: minPieceCap}},
		{"v2-nounroll", Options{NoUnroll: true}},
		{"v2-nounroll-leaves", Options{NoUnrollLeaves: true}},
		{"v2-unroll-classes", Options{UnrollClasses: true}},
		// Two runs on this GPU stand for two GPUs; they take turns, so the kernel time shown is
		// one run's share, not the count's.
		{"v2-two-runs-one-gpu", Options{replicas: 2}},
		{"v2", Options{}},
		{"cliques", Options{Kernel: KernelCliques}},
	}
	// The table compares the plan kernels: clique patterns take the clique kernel only in the
	// last variant.
	for i := range variants[:len(variants)-1] {
		variants[i].o.PlanCliques = true
	}
	out := os.Getenv(EnvVersions)
	for _, c := range cases {
		cpu := cpuCount(t, c.g, c.p, c.sem)
		for _, v := range variants {
			var best time.Duration
			var st Stats
			var got uint64
			for rep := 0; rep < 2; rep++ {
				res, s, err := CountOptions(context.Background(), &engine.Problem{Data: c.g, Pattern: c.p, Semantics: c.sem}, v.o)
				if err != nil || res.Partial {
					t.Fatalf("%s %s: %v (partial %v)", c.name, v.name, err, res.Partial)
				}
				got, st = res.Count, s
				if rep == 0 || s.Kernel < best {
					best = s.Kernel
				}
				if got != cpu {
					break
				}
			}
			verdict := "ok"
			if got != cpu {
				verdict = "MISMATCH"
				t.Errorf("%s %s: stmatch %d, cpu %d", c.name, v.name, got, cpu)
			}
			t.Logf("%-32s %-11s %14d %s kernel %9.3f ms units %d leaf groups %d launches %d donated %d spilled %d taken %d query kernel %v (%d launches, compile %.0f ms)",
				c.name, v.name, got, verdict, ms(best), st.Units, st.Groups, st.Launches, st.Donated, st.Spilled, st.Taken, st.QueryKernel, st.QueryLaunches, ms(st.QueryCompile))
			if out != "" {
				if f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
					fmt.Fprintf(f, "%s\t%s\t%d\t%d\t%s\t%.3f\t%d\n", c.name, v.name, cpu, got, verdict, ms(best), st.Units)
					f.Close()
				}
			}
		}
	}
}

// TestGPUPieces bounds every level's buffer to minPieceCap (32 candidates), so that the sets of
// wiki-Vote (degrees up to 1,065), github and dense random graphs are computed in pieces, with
// the generic and the per-query kernel, with and without a candidate space, and compares the
// counts and listings with the CPU engine's; the pieces must have happened (Stats.Pieces).
func TestGPUPieces(t *testing.T) {
	needGPU(t)
	var pieces uint64
	// run counts with each of the options (buffers bounded to minPieceCap) against one CPU count.
	run := func(name string, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, opts ...Options) {
		t.Helper()
		// All cores: single-threaded induced counts of the dense random cases took minutes.
		cpu := cpuCountThreads(t, g, p, sem, 0)
		for _, o := range opts {
			o.PieceCap = minPieceCap
			how := fmt.Sprintf("%s (kernel %d, no space %v, no leaves %v)", name, o.Kernel, o.NoSpace, o.NoLeaves)
			res, st, err := CountOptions(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: sem}, o)
			if err != nil || res.Partial {
				t.Errorf("%s: %v (partial %v)", how, err, res.Partial)
				continue
			}
			record(t, how, cpu, res.Count, st)
			if res.Count != cpu {
				t.Errorf("%s (%s): stmatch %d, cpu %d", how, sem, res.Count, cpu)
			}
			pieces += st.Pieces
			t.Logf("%-60s %-14s %12d kernel %8.3f ms, %d later pieces, %d donated, %d spilled", how, sem, res.Count, ms(st.Kernel), st.Pieces, st.Donated, st.Spilled)
		}
	}
	kernels := []KernelChoice{KernelGeneric, KernelQuery}
	wv := sharedtest.WikiVote(t)
	for _, c := range []struct{ name, pat string }{
		{"triangle", "(a)-(b)-(c)-(a)"},
		{"4-clique", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)"},
		{"4-cycle", "(a)-(b)-(c)-(d)-(a)"},
	} {
		for _, sem := range semantics {
			if c.name == "4-cycle" && sem != (engine.Semantics{Unique: true}) {
				continue // the CPU count of the others takes seconds
			}
			run("pieces wiki-Vote "+c.name, wv, mustParse(c.pat), sem,
				Options{Kernel: KernelGeneric}, Options{Kernel: KernelQuery},
				Options{Kernel: KernelGeneric, NoSpace: true}, Options{Kernel: KernelQuery, NoSpace: true})
		}
	}
	names := []string{"Q_0", "Q_3", "Q_6", "Q_9"}
	gh, ghq := githubQueries(t, names...)
	for i, p := range ghq {
		run("pieces github "+names[i], gh, p, engine.Semantics{}, Options{Kernel: KernelGeneric}, Options{Kernel: KernelQuery})
	}
	for seed := uint64(1); seed <= 16; seed++ {
		vl := int(seed % 2)
		g := gen.RandomGraphM(seed*11, 40+int(seed%3)*20, 600+int(seed%4)*200, vl, 1)
		p := gen.RandomPattern(seed*17, 2+int(seed%4), gen.PatternOptions{EdgeProb: 0.6, VertexLabels: vl, Wildcard: 0.5})
		for _, sem := range semantics {
			// The per-query kernel on a quarter of the seeds: each is a new NVRTC compile (5 s).
			run(fmt.Sprintf("pieces random %d", seed), g, p, sem,
				Options{Kernel: kernels[boolInt(seed%4 == 1)], NoSpace: seed%4 >= 2, NoLeaves: seed%3 == 0})
		}
	}
	t.Logf("%d later pieces in all", pieces)
	if pieces == 0 {
		t.Error("no set was computed in pieces")
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestGPUIsolatedLeaves counts patterns with isolated vertices (counted from their candidate
// lists, alone and in collision classes with leaves: the default) against the CPU engine, and
// once with them enumerated as levels (Options.NoIsolatedLeaves) where that takes milliseconds:
// with two isolated vertices the enumeration has 10^14 leaves to visit.
func TestGPUIsolatedLeaves(t *testing.T) {
	needGPU(t)
	wv := sharedtest.WikiVote(t)
	embeddings, unique := engine.Semantics{}, engine.Semantics{Unique: true}
	for _, c := range []struct {
		pat        string
		sems       []engine.Semantics
		enumerated bool
	}{
		{"(a)-(b)-(c)-(a), (d)", []engine.Semantics{embeddings, unique}, true},
		{"(a)-(b)-(c)-(a), (d), (e)", []engine.Semantics{embeddings, unique}, false},
		{"(a)-(b), (a)-(c), (d), (e)", []engine.Semantics{embeddings, unique}, false},
		// The CPU engine's embeddings count of this one takes minutes (its leaf class of d and
		// e is not memoised).
		{"(a)-(b)-(c)-(d)-(a), (e)", []engine.Semantics{unique}, false},
	} {
		for _, sem := range c.sems {
			compareWith(t, "isolated wiki-Vote "+c.pat, wv, mustParse(c.pat), sem, -1, nil, Options{})
			compareWith(t, "isolated, classes unrolled, wiki-Vote "+c.pat, wv, mustParse(c.pat), sem, -1, nil, Options{UnrollClasses: true})
			if c.enumerated {
				compareWith(t, "enumerated isolated wiki-Vote "+c.pat, wv, mustParse(c.pat), sem, -1, nil, Options{NoIsolatedLeaves: true})
			}
		}
	}
	for seed := uint64(1); seed <= 12; seed++ {
		g := gen.RandomGraphM(seed, 300, 1500, 3, 1) // the patterns' labels 0-2 all occur
		p := mustParse([]string{"(a:0)-(b)-(c:1), (d:1)", "(a)-(b)-(c)-(a), (d:2), (e)", "(a:1)-(b:1), (c), (d:0)"}[seed%3])
		for _, sem := range []engine.Semantics{embeddings, unique} {
			compareWith(t, fmt.Sprintf("isolated random %d %s", seed, p), g, p, sem, -1, nil, Options{NoUnrollLeaves: seed%4 == 0, UnrollClasses: seed%4 == 1})
		}
	}
	// A class of a leaf and an isolated vertex of a rare label: lists short enough for
	// leaf_batch to count each lane's candidate alone (class_count_t<true>) with UnrollClasses.
	for seed := uint64(1); seed <= 6; seed++ {
		g := gen.RandomGraphM(seed, 300, 1500, 8, 1)
		p := mustParse("(a:0)-(b:1)-(e:0)-(a), (a)-(c:2), (d:2)")
		for _, sem := range []engine.Semantics{embeddings, unique} {
			for _, uc := range []bool{false, true} {
				compareWith(t, fmt.Sprintf("isolated rare-label class %d, classes unrolled %v", seed, uc), g, p, sem, -1, nil, Options{UnrollClasses: uc})
			}
		}
	}
}

// TestGPUCancel: a count cancelled after its first time slice (from the progress callback, which
// runs between launches) returns at once with Partial set and the matches of that slice, fewer
// than the full count; a deadline during the count does the same.
func TestGPUCancel(t *testing.T) {
	needGPU(t)
	g := sharedtest.WikiVote(t)
	p, _ := pattern.Parse("(a)-(b)-(c)-(d)-(a)")
	sem := engine.Semantics{Unique: true}
	const full = 57654491 // wiki-Vote 4-cycles (compared with the CPU in TestGPUWikiVote)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Progress: func(float64) { cancel() }}
	res, st, err := CountOptions(ctx, prob, Options{Slice: time.Millisecond})
	t.Logf("cancelled after the first slice: count %d partial %v err %v, %d launches, %d tasks spilled", res.Count, res.Partial, err, st.Launches, st.Spilled)
	if !res.Partial || !errors.Is(err, context.Canceled) || st.Launches != 1 || res.Count >= full {
		t.Errorf("cancelled count: partial %v, err %v, %d launches, count %d; want partial, Canceled, 1 launch, fewer than %d",
			res.Partial, err, st.Launches, res.Count, full)
	}
	ctx, cancel2 := context.WithTimeout(context.Background(), 8*time.Millisecond)
	defer cancel2()
	t0 := time.Now()
	res, st, err = CountOptions(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: sem}, Options{Slice: time.Millisecond})
	took := time.Since(t0)
	t.Logf("8 ms timeout: count %d partial %v err %v after %v (%d launches)", res.Count, res.Partial, err, took, st.Launches)
	if err == nil && !res.Partial {
		if res.Count != full {
			t.Errorf("finished within the timeout with %d, want %d", res.Count, full)
		}
		return
	}
	if !res.Partial || !errors.Is(err, context.DeadlineExceeded) || took > 5*time.Second {
		t.Errorf("timed-out count: partial %v, err %v after %v; want partial and DeadlineExceeded promptly", res.Partial, err, took)
	}
}

// TestGPUStopLatency: a count or a listing whose context ends returns within a second of it,
// on the plan kernel (a dense 7-vertex pattern, STMatch's q20, and the per-query kernel), the
// clique kernel (7-cliques) and listing; and a cold NVRTC compile (seconds) does not hold up a
// cancelled count (compileCtx).
func TestGPUStopLatency(t *testing.T) {
	d := needGPU(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	t0 := time.Now()
	_, err := compileCtx(ctx, d, kernelSource+fmt.Sprintf("\n// cold %d\n", time.Now().UnixNano()), "cold.cu")
	cancel()
	var stopped *gpu.CompileStopped
	if took := time.Since(t0); !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &stopped) || took > time.Second {
		t.Errorf("cold compile under a 200 ms deadline: %v after %v (want a *gpu.CompileStopped)", err, took)
	}
	g := sharedtest.WikiVote(t)
	const q20 = "(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (a)-(g), (b)-(c), (b)-(d), (b)-(e), (b)-(f), (b)-(g), (c)-(e), (c)-(f), (c)-(g), (d)-(e), (d)-(f), (d)-(g), (e)-(f)"
	const k7 = "(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (a)-(g), (b)-(c), (b)-(d), (b)-(e), (b)-(f), (b)-(g), (c)-(d), (c)-(e), (c)-(f), (c)-(g), (d)-(e), (d)-(f), (d)-(g), (e)-(f), (e)-(g), (f)-(g)"
	for _, c := range []struct {
		name, pat string
		o         Options
		after     time.Duration
	}{
		{"q20 tiered", q20, Options{}, 300 * time.Millisecond},
		{"q20 tiered, 1.5 s", q20, Options{}, 1500 * time.Millisecond},
		{"q20 per-query kernel", q20, Options{Kernel: KernelQuery}, 300 * time.Millisecond},
		{"7-clique kernel", k7, Options{}, 300 * time.Millisecond},
		{"7-clique plan kernel", k7, Options{PlanCliques: true}, 300 * time.Millisecond},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), c.after)
		t0 := time.Now()
		res, st, err := CountOptions(ctx, &engine.Problem{Data: g, Pattern: mustParse(c.pat)}, c.o)
		late := time.Since(t0) - c.after
		cancel()
		t.Logf("%s: deadline %v, returned %v after it: count %d partial %v err %v (%d launches, kernel %v)", c.name, c.after, late, res.Count, res.Partial, err, st.Launches, st.Kernel)
		if err == nil && !res.Partial {
			continue // finished first
		}
		if !res.Partial || !errors.Is(err, context.DeadlineExceeded) || late > time.Second {
			t.Errorf("%s: partial %v, err %v, %v after the deadline; want partial, DeadlineExceeded within 1 s", c.name, res.Partial, err, late)
		}
	}
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	t0 = time.Now()
	rows := 0
	var lerr error
	for _, err := range (Engine{}).Matches(ctx, &engine.Problem{Data: g, Pattern: mustParse(q20)}) {
		if err != nil {
			lerr = err
			break
		}
		rows++
	}
	late := time.Since(t0) - 300*time.Millisecond
	t.Logf("listing q20: %d rows, %v, returned %v after the deadline", rows, lerr, late)
	if lerr != nil && late > time.Second {
		t.Errorf("listing: %v after the deadline", late)
	}
}

// TestGPUListing lists on the GPU and compares the matches (as a sorted multiset) with the CPU
// engine's: small github queries, wiki-Vote triangles and 4-cycles (608,389 and 57.6M... the
// 4-cycles only counted: listing them all would take minutes of host time), random graphs in all
// conventions, and a listing stopped early by its consumer.
func TestGPUListing(t *testing.T) {
	needGPU(t)
	cpuEngine, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, o Options) {
		t.Helper()
		hash := func(e engine.Engine, threads int) (uint64, uint64, error) {
			var n, sum uint64
			for m, err := range e.Matches(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: threads}) {
				if err != nil {
					return n, sum, err
				}
				n++
				// An order-independent fingerprint of the multiset of matches.
				h := uint64(14695981039346656037)
				for _, v := range m {
					h = (h ^ uint64(v)) * 1099511628211
				}
				sum += h * 0x9e3779b97f4a7c15
			}
			return n, sum, nil
		}
		t0 := time.Now()
		gn, gs, err := hash(Engine{Options: o}, 0)
		gt := time.Since(t0)
		if err != nil {
			t.Errorf("%s: stmatch listing: %v", name, err)
			return
		}
		cn, cs, err := hash(cpuEngine, 1)
		if err != nil {
			t.Fatal(err)
		}
		verdict := "ok"
		if gn != cn || gs != cs {
			verdict = "MISMATCH"
			t.Errorf("%s (%s): stmatch lists %d matches (fingerprint %x), cpu %d (%x)", name, sem, gn, gs, cn, cs)
		}
		record(t, "list "+name+" "+sem.String(), cn, gn, Stats{Total: gt})
		t.Logf("list %-36s %-14s %10d matches %s in %v", name, sem, gn, verdict, gt)
	}
	names := []string{"Q_0", "Q_1", "Q_2", "Q_5", "Q_7", "Q_10"}
	gh, ghq := githubQueries(t, names...)
	for i, p := range ghq {
		check("github "+names[i], gh, p, engine.Semantics{}, Options{})
	}
	wv := sharedtest.WikiVote(t)
	tri := mustParse("(a)-(b)-(c)-(a)")
	check("wiki-Vote triangle", wv, tri, engine.Semantics{Unique: true}, Options{})
	check("wiki-Vote triangle", wv, tri, engine.Semantics{}, Options{})
	check("wiki-Vote triangle, no space", wv, tri, engine.Semantics{}, Options{NoSpace: true})
	check("wiki-Vote triangle, pieces", wv, tri, engine.Semantics{}, Options{PieceCap: minPieceCap})
	check("wiki-Vote triangle, no space, pieces", wv, tri, engine.Semantics{Unique: true}, Options{NoSpace: true, PieceCap: minPieceCap})
	check("wiki-Vote edge, pieces", wv, mustParse("(a)-(b)"), engine.Semantics{}, Options{PieceCap: minPieceCap})
	check("wiki-Vote edge", wv, mustParse("(a)-(b)"), engine.Semantics{Unique: true}, Options{})
	// Listing from several devices (fanIn): two runs on this GPU stand for two GPUs.
	check("wiki-Vote triangle, two runs", wv, tri, engine.Semantics{}, Options{replicas: 2})
	check("wiki-Vote triangle, two runs, pieces", wv, tri, engine.Semantics{Unique: true}, Options{replicas: 2, PieceCap: minPieceCap})
	for seed := uint64(1); seed <= 12; seed++ {
		g := gen.RandomGraphM(seed, 300, 3000, int(seed%3), 1+int(seed%2))
		p := gen.RandomPattern(seed*5, 1+int(seed%6), gen.PatternOptions{EdgeProb: 0.4, VertexLabels: int(seed % 3), EdgeLabels: 1 + int(seed%2), Wildcard: 0.2})
		for _, sem := range semantics {
			// Graphs without edge labels also list without a candidate space.
			check(fmt.Sprintf("random %d %s", seed, p), g, p, sem, Options{NoSpace: seed%2 == 0 && sem.Unique, replicas: 1 + int(seed%3/2)})
		}
	}
	// A consumer that stops after 1000 matches, on one run and on two.
	for _, runs := range []int{1, 2} {
		n := 0
		for _, err := range (Engine{Options: Options{replicas: runs}}).Matches(context.Background(), &engine.Problem{Data: wv, Pattern: tri}) {
			if err != nil {
				t.Fatal(err)
			}
			if n++; n == 1000 {
				break
			}
		}
		if n != 1000 {
			t.Errorf("stopped listing on %d runs: %d matches, want 1000", runs, n)
		}
	}
	// A listing cancelled while rows stream (after 1000 of them) must end in the cancellation,
	// not look complete: the refused batches are the devices' rows that were not listed.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last error
	n := 0
	for _, err := range (Engine{Options: Options{replicas: 2, Slice: time.Millisecond}}).Matches(ctx, &engine.Problem{Data: wv, Pattern: mustParse("(a)-(b)-(c)-(d)-(a)")}) {
		if err != nil {
			last = err
			break
		}
		if n++; n == 1000 {
			cancel()
		}
	}
	if n < 1000 || !errors.Is(last, context.Canceled) {
		t.Errorf("4-cycles listed on two runs, cancelled after 1000: %d matches, error %v", n, last)
	}
}

// TestGPULeafOverflow: a 21-leaf star in a 40-clique has more than 2^64 embeddings; the
// kernel's checked leaf arithmetic must report ErrOverflow, and the unique count must fit.
func TestGPULeafOverflow(t *testing.T) {
	needGPU(t)
	g, p := starInClique(t)
	_, st, err := CountStats(context.Background(), &engine.Problem{Data: g, Pattern: p})
	if !errors.Is(err, engine.ErrOverflow) || st.Groups == 0 {
		t.Errorf("star embeddings: %v (leaf groups %d), want ErrOverflow", err, st.Groups)
	}
	compare(t, "40-clique 21-star unique", g, p, engine.Semantics{Unique: true}, -1)
}

// TestGPULeafNearOverflow: without symmetry breaking (NoMultiply) one root's leaf product is
// falling(200, 8), about 2^61, and the 31 others' are small: the total, 2.2e18, fits in 64 bits
// and must be counted exactly, not reported as an overflow. (The plan roots at a, so this checks
// leaf_product_t's arithmetic; leaf_batch's butterfly sum is reviewed, not reached here.)
func TestGPULeafNearOverflow(t *testing.T) {
	needGPU(t)
	b := graph.NewBuilder(graph.BuilderOptions{})
	next := int64(33)
	leaf := func(a int64) {
		if err := b.SetVertexLabel(next, 2); err != nil {
			t.Fatal(err)
		}
		if err := b.AddEdge(a, next, 0); err != nil {
			t.Fatal(err)
		}
		next++
	}
	if err := b.SetVertexLabel(0, 1); err != nil {
		t.Fatal(err)
	}
	for a := int64(1); a <= 32; a++ {
		if err := b.AddEdge(0, a, 0); err != nil {
			t.Fatal(err)
		}
		n := 8
		if a == 32 {
			n = 200
		}
		for k := 0; k < n; k++ {
			leaf(a)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	p := mustParse("(x:1)-(a:0), (a)-(l1:2), (a)-(l2:2), (a)-(l3:2), (a)-(l4:2), (a)-(l5:2), (a)-(l6:2), (a)-(l7:2), (a)-(l8:2)")
	for _, o := range []Options{{NoMultiply: true}, {NoMultiply: true, NoUnrollLeaves: true}, {}} {
		compareWith(t, fmt.Sprintf("leaf product near overflow, no multiply %v, leaf products unrolled %v", o.NoMultiply, !o.NoUnrollLeaves), g, p, engine.Semantics{}, -1, nil, o)
	}
}

// TestGPUHubs checks the hub bitmaps (every list given one: hubMin 1) against the CPU engine on
// random and dense cases, with a candidate space and on the adjacency lists, once with the
// per-query kernel; and on wiki-Vote (its real hubs) with a work queue that starts too small
// and short slices, so that the host grows the queue between launches.
func TestGPUHubs(t *testing.T) {
	needGPU(t)
	n := 0
	for seed := uint64(1); seed <= 12; seed++ {
		c := proptest.MakeLarger(seed)
		o := Options{hubMin: 1, NoSpace: seed%2 == 0}
		if seed == 3 {
			o.Kernel = KernelQuery
		}
		for _, sem := range semantics {
			st := compareWith(t, fmt.Sprintf("hubs: random seed %d %s (no space %v)", seed, sem, o.NoSpace), c.G, c.P, sem, -1, nil, o)
			if st.HubRows == 0 && st.Launches > 0 {
				t.Errorf("random seed %d %s: no list had a bitmap with hubMin 1", seed, sem)
			}
			n++
		}
	}
	seeds, _ := proptest.Seeds(t, 40, 20)
	for oc := range proptest.WithOracleDense(seeds, nil) {
		for _, ns := range []bool{false, true} {
			compareWith(t, fmt.Sprintf("hubs: dense seed %d %s (no space %v)", oc.Seed, oc.Sem, ns), oc.G, oc.P, oc.Sem, int64(oc.Want), nil, Options{hubMin: 1, NoSpace: ns})
			n++
		}
	}
	g := sharedtest.WikiVote(t)
	for _, c := range []struct{ name, pat string }{
		{"diamond", "(a)-(b)-(c)-(a), (b)-(d)-(c)"},
		{"4-clique", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)"},
	} {
		p, err := pattern.Parse(c.pat)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []Options{{}, {NoSpace: true}, {NoHubs: true}, {Slice: time.Millisecond, queueSlots: 8}} {
			st := compareWith(t, fmt.Sprintf("hubs: wiki-Vote %s %+v", c.name, o), g, p, engine.Semantics{}, -1, nil, o)
			t.Logf("  hub rows %d (%s), launches %d, longest %v, spilled %d, most queued %d, queue grown %d times to %d slots",
				st.HubRows, gpu.FormatBytes(st.HubBytes), st.Launches, st.MaxLaunch, st.Spilled, st.MaxQueued, st.QueueGrown, st.QueueSlots)
			if o.queueSlots > 0 && st.MaxQueued > 0 && st.QueueGrown == 0 {
				t.Errorf("wiki-Vote %s: %d tasks left in a queue of %d slots, and it did not grow", c.name, st.MaxQueued, o.queueSlots)
			}
			n++
		}
	}
	t.Logf("%d cases", n)
}
