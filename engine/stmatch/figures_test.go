package stmatch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// EnvFigures enables TestGPUFigures, which measures rather than checks: the STMatch chapter's
// comparison cases and the speedup from one GPU to all of them. Its rows go to the file the
// variable names (tab-separated: case, count, GPUs, kernel ms, call ms, cpu count or -, verdict).
const EnvFigures = "SUBMATCH_STMATCH_FIGURES"

// labelled returns g with its vertices labelled by a hash of their id into k labels (STMatch's
// labelled experiments give every vertex one of 10 random labels).
func labelled(t *testing.T, g *graph.Graph, k int, seed uint64) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(graph.BuilderOptions{})
	for v := uint32(0); v < uint32(g.NumVertices()); v++ {
		if err := b.SetVertexLabel(int64(v), uint32(splitmix(seed^uint64(v))%uint64(k))); err != nil {
			t.Fatal(err)
		}
	}
	for u := uint32(0); u < uint32(g.NumVertices()); u++ {
		for _, v := range g.Neighbors(u) {
			if u < v {
				if err := b.AddEdge(int64(u), int64(v), 0); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	lg, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return lg
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// TestGPUFigures measures (never fails on time): unlabelled wiki-Vote 5-, 6-, 7-cliques (unique,
// as STMatch counts); wiki-Vote with 10 random vertex labels and 24 random-walk queries of 5-7
// vertices; and heavier cases on one GPU against all GPUs. Every count is compared with the other
// device count and, where it is cheap, with the CPU engine.
func TestGPUFigures(t *testing.T) {
	out := os.Getenv(EnvFigures)
	if out == "" {
		t.Skipf("measurement only: set %s=FILE", EnvFigures)
	}
	needGPU(t)
	devs, _ := devices(context.Background(), nil)
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run := func(name string, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, gpus []int, withCPU bool, o Options) (uint64, Stats) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		best := Stats{}
		var count uint64
		for rep := 0; rep < 3; rep++ {
			res, st, err := CountOptions(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: sem, GPUs: gpus}, o)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return 0, st
			}
			count = res.Count
			if rep == 0 || st.Total < best.Total {
				best = st
			}
		}
		cpu, verdict := "-", "-"
		if withCPU {
			c := cpuCountThreads(t, g, p, sem, 0)
			cpu, verdict = fmt.Sprint(c), "ok"
			if c != count {
				verdict = "MISMATCH"
				t.Errorf("%s: gpu %d, cpu %d", name, count, c)
			}
		}
		fmt.Fprintf(f, "%s\t%d\t%d\t%.3f\t%.3f\t%s\t%s\n", name, count, len(gpus), ms(best.Kernel), ms(best.Total), cpu, verdict)
		t.Logf("%-52s %16d gpus %d kernel %9.3f ms call %9.3f ms donated %d spilled %d query kernel %v compile %.0f ms",
			name, count, len(gpus), ms(best.Kernel), ms(best.Total), best.Donated, best.Spilled, best.QueryKernel, ms(best.QueryCompile))
		return count, best
	}
	one := []int{0}
	// Each case runs on the generic kernel with the leaf products one candidate at a time, with
	// the defaults, with the leaf products unrolled for plans with collision classes of several
	// groups too (Options.UnrollClasses), and on the per-query kernel (its compile is paid by the
	// first of the three repetitions, so best-of-3 is the cached kernel's time).
	kernels := []struct {
		name string
		o    Options
	}{
		{"generic-nounroll-leaves", Options{Kernel: KernelGeneric, NoUnrollLeaves: true}},
		{"generic", Options{Kernel: KernelGeneric}},
		{"generic-unroll-classes", Options{Kernel: KernelGeneric, UnrollClasses: true}},
		{"query", Options{Kernel: KernelQuery}},
	}
	both := func(name string, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, withCPU bool) {
		var counts [4]uint64
		for k, kern := range kernels {
			counts[k], _ = run(name+" ["+kern.name+"]", g, p, sem, one, withCPU && k == 0, kern.o)
		}
		for k := 1; k < len(kernels); k++ {
			if counts[k] != counts[0] {
				t.Errorf("%s: %s %d, %s %d", name, kernels[0].name, counts[0], kernels[k].name, counts[k])
			}
		}
	}
	wv := sharedtest.WikiVote(t)
	for k := 5; k <= 7; k++ {
		both(fmt.Sprintf("wiki-Vote %d-clique unique", k), wv, proptest.Clique(t, k, "", ""), engine.Semantics{Unique: true}, k <= 5)
	}
	lwv := labelled(t, wv, 10, 1)
	for size := 5; size <= 7; size++ {
		for i := 0; i < 8; i++ {
			p, err := gen.RandomWalkQuery(lwv, size, gen.QuerySeed(1, size, i), gen.QueryOptions{Density: gen.Sparse})
			if err != nil {
				t.Fatal(err)
			}
			both(fmt.Sprintf("wiki-Vote 10 labels, %d vertices #%d", size, i), lwv, p, engine.Semantics{}, true)
		}
	}
	if gh, err := formats.Load(filepath.Join(testenv.Dir(), "github-gmatch", "data.graph"), formats.Options{}); err == nil {
		for _, q := range []string{"Q_17", "Q_18", "Q_20"} {
			p, err := formats.LoadPattern(filepath.Join(testenv.Dir(), "github-extra", q+".graph"), formats.Options{})
			if err != nil {
				t.Logf("held-out %s: %v", q, err)
				continue
			}
			both("github "+q, gh, p, engine.Semantics{}, false)
		}
	}
	if len(devs) < 2 {
		t.Logf("one GPU: no multi-GPU figures")
		return
	}
	all := make([]int, len(devs))
	for k := range all {
		all[k] = k
	}
	heavy := []struct {
		name string
		g    *graph.Graph
		p    *pattern.Pattern
		sem  engine.Semantics
	}{
		{"wiki-Vote 7-clique unique", wv, proptest.Clique(t, 7, "", ""), engine.Semantics{Unique: true}},
		{"wiki-Vote 8-clique unique", wv, proptest.Clique(t, 8, "", ""), engine.Semantics{Unique: true}},
		{"wiki-Vote 5-cycle unique", wv, mustParse("(a)-(b)-(c)-(d)-(e)-(a)"), engine.Semantics{Unique: true}},
	}
	if rm, err := gen.RMAT(gen.RMATOptions{Scale: 18, Seed: 1}); err == nil {
		heavy = append(heavy, struct {
			name string
			g    *graph.Graph
			p    *pattern.Pattern
			sem  engine.Semantics
		}{"rmat-18 5-clique unique", rm, proptest.Clique(t, 5, "", ""), engine.Semantics{Unique: true}})
	}
	for _, h := range heavy {
		c1, s1 := run(h.name+", 1 GPU", h.g, h.p, h.sem, one, false, Options{})
		cn, sn := run(fmt.Sprintf("%s, %d GPUs", h.name, len(devs)), h.g, h.p, h.sem, all, false, Options{})
		if c1 != cn {
			t.Errorf("%s: 1 GPU %d, %d GPUs %d", h.name, c1, len(devs), cn)
		}
		t.Logf("%s: speedup %.2fx (call), %.2fx (kernel)", h.name, float64(s1.Total)/float64(sn.Total), float64(s1.Kernel)/float64(sn.Kernel))
	}
}

func mustParse(s string) *pattern.Pattern {
	p, err := pattern.Parse(s)
	if err != nil {
		panic(err)
	}
	return p
}
