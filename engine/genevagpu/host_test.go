package genevagpu

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"submatch/engine"
	"submatch/gen"
	"submatch/geneva"
	"submatch/gpu"
	"submatch/internal/oracle"
	"submatch/internal/proptest"
	"submatch/pattern"
)

// hostVariants are the engine settings the property test runs on the host backend: the paper's
// phases, the SV-match variant, and budgets small enough to force chunking, reruns and splits.
var hostVariants = []struct {
	name string
	o    Options
}{
	{"phases", Options{Host: true}},
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
	ctx := context.Background()
	checked, failures := 0, 0
	for o := range proptest.WithOracle(seeds, nil) {
		c, sem, want := o.Case, o.Sem, o.Want
		checked++
		for _, v := range hostVariants {
			prob := &engine.Problem{Data: c.G, Pattern: c.P, Semantics: sem}
			res, err := Engine{Options: v.o}.Count(ctx, prob)
			if err != nil || res.Count != want {
				t.Errorf("%s: count %d (err %v), oracle %d\n%s", v.name, res.Count, err, want,
					c.Describe(sem, v.name, "./engine/genevagpu -run TestHostProperty"))
				failures++
			}
			if c.Seed%4 == 0 && want <= 2000 && v.o.HostBudget == 0 {
				if msg := proptest.CompareLists(ctx, Engine{Options: v.o}, c, prob); msg != "" {
					t.Errorf("%s: %s\n%s", v.name, msg, c.Describe(sem, v.name, "./engine/genevagpu -run TestHostProperty"))
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

// TestEncode checks the descriptor layout the kernels read.
func TestEncode(t *testing.T) {
	b := &gpuBackend{partIndex: map[geneva.Part]int{3: 0, geneva.UnionPart: 1}, listOff: []uint64{0, 5}, listLen: []uint32{5, 7}}
	s := &geneva.Step{Kind: geneva.Extension, Width: 2, New: []geneva.NewVertex{
		{Vertex: 1, Source: -1, Label: pattern.Label{Value: 4}},
		{Vertex: 2, Source: 0, Part: 3, Label: pattern.Wildcard},
	}, Less: []geneva.ColumnPair{{A: 0, B: 2}}, NonAdjacent: []geneva.ColumnPair{{A: 1, B: 3}}}
	got := fmt.Sprint(b.encode(s))
	want := "[0 2 2 1 1 0 1 0 4294967295 0 0 4 1 5 0 7 0 0 1 0 2 0 0 0 0 2 1 3]"
	if got != want {
		t.Errorf("descriptor %s, want %s", got, want)
	}
}
