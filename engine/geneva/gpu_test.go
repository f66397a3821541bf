package geneva

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	_ "github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/pattern"
)

// EnvResults names a file to which the GPU tests append one tab-separated line per comparison
// (case, variant, cpu count, gpu count, verdict, kernel ms, call ms, cpu ms, launches, chunks,
// windows, peak device bytes), for scripts/gpu-check.sh.
const EnvResults = "SUBMATCH_GENEVA_RESULTS"

// caseTimeout bounds one GPU count (breadth-first matching of the largest result sets takes
// long); a count that runs out of time is recorded as "timeout", not as a mismatch.
// SUBMATCH_GENEVA_CASE_TIMEOUT (a Go duration) overrides it.
var caseTimeout = func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("SUBMATCH_GENEVA_CASE_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return 20 * time.Second
}()

func needGPU(t *testing.T) *gpu.Device {
	t.Helper()
	devs, err := gpu.Open(context.Background())
	if err != nil || len(devs) == 0 {
		t.Skipf("no GPU: %v", err)
	}
	return devs[0]
}

func cpuCount(t *testing.T, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics) (uint64, time.Duration) {
	t.Helper()
	e, _ := engine.Lookup("cpu")
	t0 := time.Now()
	res, err := e.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: sem})
	if err != nil {
		t.Fatalf("cpu count: %v", err)
	}
	return res.Count, time.Since(t0)
}

// compare counts with the GPU engine (variant o) and the CPU engine and records the line.
func compare(t *testing.T, name, variant string, o Options, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, want int64) {
	t.Helper()
	cpu, cpuT := cpuCount(t, g, p, sem)
	if want >= 0 && uint64(want) != cpu {
		t.Errorf("%s: cpu %d, published %d", name, cpu, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	res, st, err := Engine{Options: o}.CountStats(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: sem})
	verdict := "ok"
	switch {
	case res.Partial:
		verdict = "timeout"
	case err != nil:
		verdict = "ERROR"
		t.Errorf("%s %s (%s): %v", name, variant, sem, err)
	case res.Count != cpu:
		verdict = "MISMATCH"
		t.Errorf("%s %s (%s): geneva %d, cpu %d", name, variant, sem, res.Count, cpu)
	}
	t.Logf("%-34s %-8s %-12s %14d %-8s kernel %9.3f ms call %9.3f ms cpu %9.3f ms launches %d chunks %d windows %d peak %s counted %d",
		name, variant, sem, res.Count, verdict, ms(st.Kernel), ms(st.Total), ms(cpuT), st.Launches, st.Chunks, st.Windows, gpu.FormatBytes(st.PeakBytes), st.Counted)
	if path := os.Getenv(EnvResults); path != "" {
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "%s %s\t%s\t%d\t%d\t%s\t%.3f\t%.3f\t%.3f\t%d\t%d\t%d\t%d\n", name, sem, variant, cpu, res.Count, verdict,
				ms(st.Kernel), ms(st.Total), ms(cpuT), st.Launches, st.Chunks, st.Windows, st.PeakBytes)
			f.Close()
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// tinyTables is the "tiny" variant: 256 KiB of tables, so that every large count chunks.
var tinyTables = Options{TableBudget: 256 << 10}

var gpuVariants = []struct {
	name string
	o    Options
}{{"tail", Options{}}, {"phases", Options{NoTailCount: true}}, {"sv", Options{SingleVertex: true}}, {"paper", Options{PaperOrder: true}}}

func suite(t *testing.T, dir, data string, limit int) {
	needGPU(t)
	g, qs := sharedtest.Suite(t, dir, data, limit)
	for _, q := range qs {
		for _, v := range gpuVariants {
			compare(t, dir+" "+q.Name, v.name, v.o, g, q.Pattern, engine.Semantics{}, int64(q.Want))
		}
	}
	for _, q := range qs {
		compare(t, dir+" "+q.Name, "tiny", tinyTables, g, q.Pattern, engine.Semantics{}, int64(q.Want))
	}
}

func TestGPUGitHub(t *testing.T) { suite(t, "github-gmatch", "data.graph", 0) }

func TestGPUHPRD(t *testing.T) { suite(t, "hprd-subgraphmatching", "HPRD.graph", 20) }

func TestGPUWikiVote(t *testing.T) {
	needGPU(t)
	g := sharedtest.WikiVote(t)
	for _, c := range sharedtest.WikiVotePatterns(t) {
		for _, sem := range proptest.AllSemantics {
			for _, v := range gpuVariants {
				compare(t, "wiki-Vote "+c.Name, v.name, v.o, g, c.Pattern, sem, -1)
			}
		}
	}
}

// TestGPUProperty runs the property cases (random labelled graphs and patterns of 1-10
// vertices, every convention) on the GPU against the oracle, phases and SV.
func TestGPUProperty(t *testing.T) {
	needGPU(t)
	seeds, _ := proptest.Seeds(t, 300, 300)
	ctx := context.Background()
	checked := 0
	for o := range proptest.WithOracle(seeds, nil) {
		for _, v := range gpuVariants {
			res, err := Engine{Options: v.o}.Count(ctx, &engine.Problem{Data: o.G, Pattern: o.P, Semantics: o.Sem})
			if err != nil || res.Count != o.Want {
				t.Errorf("%s: geneva %d (%v), oracle %d\n%s", v.name, res.Count, err, o.Want, o.Describe(o.Sem, v.name, "(GPU) -run TestGPUProperty"))
			}
		}
		checked++
	}
	t.Logf("%d (problem, semantics) checked on the GPU", checked)
	if path := os.Getenv(EnvResults); path != "" {
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			verdict := "ok"
			if t.Failed() {
				verdict = "MISMATCH"
			}
			fmt.Fprintf(f, "property cases (%d) vs oracle\tphases+sv\t%d\t%d\t%s\t0\t0\t0\t0\t0\t0\t0\n", checked, checked, checked, verdict)
			f.Close()
		}
	}
}

// TestGPUDense runs proptest's dense cases (near-cliques on dense graphs) on the GPU against
// the oracle, phases and SV.
func TestGPUDense(t *testing.T) {
	needGPU(t)
	seeds, _ := proptest.Seeds(t, 100, 100)
	ctx := context.Background()
	for o := range proptest.WithOracleDense(seeds, nil) {
		for _, v := range gpuVariants {
			res, err := Engine{Options: v.o}.Count(ctx, &engine.Problem{Data: o.G, Pattern: o.P, Semantics: o.Sem})
			if err != nil || res.Count != o.Want {
				t.Errorf("%s: geneva %d (%v), oracle %d\n%s", v.name, res.Count, err, o.Want, o.Describe(o.Sem, v.name, "(GPU) -run TestGPUDense"))
			}
		}
	}
}

func TestGPURandom(t *testing.T) {
	needGPU(t)
	for seed := uint64(1); seed <= 20; seed++ {
		c := proptest.MakeLarger(seed)
		g, p := c.G, c.P
		for _, sem := range proptest.AllSemantics {
			name := fmt.Sprintf("random seed %d", seed)
			compare(t, name, "phases", Options{}, g, p, sem, -1)
			compare(t, name, "tiny", tinyTables, g, p, sem, -1)
		}
	}
}

// TestGPUListing lists on the GPU and compares with the oracle's matches.
func TestGPUListing(t *testing.T) {
	needGPU(t)
	ctx := context.Background()
	for o := range proptest.WithOracle(proptest.SeedsUpTo(60), nil) {
		if o.Want > 5000 {
			continue
		}
		prob := &engine.Problem{Data: o.G, Pattern: o.P, Semantics: o.Sem}
		if msg := proptest.CompareLists(ctx, Engine{}, o.Case, prob); msg != "" {
			t.Errorf("%s\n%s", msg, o.Describe(o.Sem, "gpu", "(GPU) -run TestGPUListing"))
		}
	}
}

// TestGPUBudgetTooSmall: a count limit below the inputs fails with ErrMemory, and the next
// count, without a limit, is unaffected.
func TestGPUBudgetTooSmall(t *testing.T) {
	needGPU(t)
	g := gen.RandomGraph(5, 2000, 0.05, 2, 1)
	p, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	_, err := Engine{}.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, GPUMemoryLimit: 1024})
	if !errors.Is(err, engine.ErrMemory) {
		t.Errorf("1 KiB limit: %v, want ErrMemory", err)
	}
	t.Logf("1 KiB limit: %v", err)
	compare(t, "random 2000 triangle after a failed count", "phases", Options{}, g, p, engine.Semantics{}, -1)
}
