package auto_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/auto"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/engine/stmatch"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/pattern"
)

// measuredFactor is how far from a recorded time the CPU engine's prediction may be: the model's
// spread over the recorded cases (docs/benchmarks.md, issue 21, branch autoooc: 0.84-2.05x on
// R-MAT scales 16-20, where the rates before were 1.3-3.3x).
const measuredFactor = 2.5

// TestPredictionsAgainstMeasured: the CPU engine's predictions on one thread, as auto makes them
// (its plan, its estimate), against the count times measured on one thread of the 2-core machine
// (user CPU seconds, whole count). The prediction is for a GPU host's core, cpu.HostCoreSlowdown
// times slower. A change of the rates, of the estimate or of the plans that moves one of these
// outside measuredFactor fails here. The times are of 2026-12-05 (branch predbig); those recorded
// on 2026-12-03 (1.98, 5.38 and 4.5 s), where the rates were fitted, were about twice these, and
// the build of 2026-12-03 (72cb2e9) also took 1.05-1.12, 2.84 and 2.29 CPU seconds on 2026-12-05:
// the machine, not the engine, changed (docs/benchmarks.md, branch predbig). Since 2026-12-06 the
// triangles are the clique counter's (branch cputri: 0.23 and 0.82 CPU s, whole process, medians
// of 3, where the general search took 1.0 and 2.85) and wiki-Vote's 4-cycles a shape (38 ms,
// decided without predictions: branch cpushapes), so the search's case is wiki-Vote's 5-cycles
// (one run, 191.8 CPU s under a load of 5-7).
func TestPredictionsAgainstMeasured(t *testing.T) {
	if testing.Short() {
		t.Skip("generates R-MAT graphs of 1.5 and 3 million edges")
	}
	rmat := func(scale int) func(t *testing.T) *graph.Graph {
		return func(t *testing.T) *graph.Graph {
			g, err := gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: 27, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			return g
		}
	}
	wikiVote := func(t *testing.T) *graph.Graph { return sharedtest.WikiVote(t) }
	for _, c := range []struct {
		name     string
		data     func(t *testing.T) *graph.Graph
		query    string
		measured float64 // seconds, one thread
	}{
		// gen rmat --scale 16 --edge-factor 27 --seed 1: 1,462,314 edges, 42,276,385 triangles.
		{"R-MAT 16 triangles", rmat(16), "(a)-(b)-(c)-(a)", 0.23},
		{"R-MAT 17 triangles", rmat(17), "(a)-(b)-(c)-(a)", 0.82},
		{"wiki-Vote 5-cycles", wikiVote, "(a)-(b)-(c)-(d)-(e)-(a)", 191.8},
	} {
		t.Run(c.name, func(t *testing.T) {
			pat, err := pattern.Parse(c.query)
			if err != nil {
				t.Fatal(err)
			}
			d := decide(t, c.data(t), pat, 1, 0, 0)
			got := d.Predictions[0].Seconds / cpu.HostCoreSlowdown
			if d.Predictions[0].Engine != "cpu" || got > c.measured*measuredFactor || got < c.measured/measuredFactor {
				t.Errorf("predicted %.2f s on this machine's core, measured %.2f s: %s", got, c.measured, d.Explain())
			}
		})
	}
}

// decide is auto's decision for counting pat in g on threads with every GPU engine built in, a
// GPU present with free bytes of memory (total in all) and its kernels cached, and a long
// estimate budget; it fails the test when no engine was compared.
func decide(t *testing.T, g *graph.Graph, pat *pattern.Pattern, threads int, free, total uint64) auto.Decision {
	t.Helper()
	return decideWithin(t, g, pat, threads, free, total, 0)
}

// decideWithin is decide with --gpu-memory limit (Problem.GPUMemoryLimit; 0: none).
func decideWithin(t *testing.T, g *graph.Graph, pat *pattern.Pattern, threads int, free, total, limit uint64) auto.Decision {
	t.Helper()
	if free == 0 {
		free, total = 130<<30, 140<<30
	}
	a := auto.Engine{Rules: &auto.Rules{
		GPU:    func(context.Context) (string, error) { return "NVIDIA H200", nil },
		Memory: func(context.Context) (uint64, uint64) { return free, total },
		Engines: func() []engine.Engine {
			return []engine.Engine{cpu.Engine{}, stmatch.Engine{}, sgsi.Engine{}, &pbe.Engine{}}
		},
		KernelState:    func(string) gpu.KernelState { return gpu.KernelCached },
		EstimateBudget: time.Minute,
	}}
	d, err := a.Decide(context.Background(), &engine.Problem{Data: g, Pattern: pat, Threads: threads, GPUMemoryLimit: limit}, false)
	if err != nil {
		t.Fatal(err)
	}
	d.Release()
	if len(d.Predictions) == 0 {
		t.Fatalf("no predictions: %s", d)
	}
	return d
}

// TestOutOfCoreRMAT: on an unlabelled R-MAT graph beyond the GPU budget every out-of-core engine
// is priced (stmatch without the CPU plan's candidate space too), pbe at least InterSlowdown times
// the CPU engine (its inter stage on the host, priced as the plain search it runs, which on
// triangles is the CPU engine's own: cpu.GenericSeconds) and sgsi below it (its direct count: TestSGSIOnRMAT has the device's times);
// with the device's whole memory as small as the budget stmatch reads the graph over the bus
// (zero-copy), which the measurements put far behind the CPU engine on triangles (R-MAT scale
// 26: about 80 times its in-core kernel), and it is not chosen. (Which of the CPU engine and
// sgsi is chosen here is not asserted: at this size, 1.5 M edges, sgsi's time is mostly its
// start-up, 0.35 s, and neither was measured on the device.) Two of the host's threads: on 16
// the CPU engine's triangles of this graph are predicted at 0.21 s (1.0 CPU second on one thread
// of the 2-core machine), below any GPU engine's start-up, and no GPU is looked for.
func TestOutOfCoreRMAT(t *testing.T) {
	if testing.Short() {
		t.Skip("generates an R-MAT graph of 1.5 million edges")
	}
	g, err := gen.RMAT(gen.RMATOptions{Scale: 16, EdgeFactor: 27, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	pat, err := pattern.Parse("(a)-(b)-(c)-(a)")
	if err != nil {
		t.Fatal(err)
	}
	const budget = 8 << 20
	for _, c := range []struct {
		total uint64
		mode  string
	}{{140 << 30, "graph in managed memory"}, {budget, "graph in host memory (zero-copy)"}} {
		d := decide(t, g, pat, 2, budget, c.total)
		by := map[string]auto.Prediction{}
		for _, pr := range d.Predictions {
			if pr.Seconds < 0 {
				t.Errorf("%s left out: %s", pr.Engine, pr.Note)
			}
			by[pr.Engine] = pr
		}
		host := by["cpu"].Seconds
		if by["pbe"].Seconds < pbe.InterSlowdown*host || !by["pbe"].OutOfCore {
			t.Errorf("pbe below the CPU engine: %s", d.Explain())
		}
		if by["sgsi"].Seconds > host || !by["sgsi"].OutOfCore {
			t.Errorf("sgsi above the CPU engine: %s", d.Explain())
		}
		if st := by["stmatch"]; st.Mode != c.mode || !st.OutOfCore {
			t.Errorf("stmatch predicted %q, want %q: %s", st.Mode, c.mode, d.Explain())
		}
		if c.total == budget && d.Engine == "stmatch" {
			t.Errorf("chose %s", d.Explain())
		}
		// --explain: the decision's line, the predictions' heading, one line each, the chosen
		// one marked once.
		ex := d.Explain()
		if lines := strings.Split(ex, "\n"); len(lines) != len(d.Predictions)+2 || strings.Count(ex, "<- chosen") != 1 ||
			!strings.Contains(lines[1], "8.0 MiB of GPU memory") {
			t.Errorf("--explain:\n%s", ex)
		}
	}
}

// TestSGSIOnRMAT: auto against the device's calibration (H200, 16 cores, 2026-12-03,
// docs/benchmarks.md, issue 21, branch sgsi8) on R-MAT scale 20, edge factor 27 (25.8 M edges),
// with --gpu-memory 64MiB (about a quarter of sgsi's layout) on a GPU with room: triangles took
// 1.5 s with sgsi (its kernel compiled cold), 4.7 s on the CPU engine's 16 threads and 1.9 s with
// stmatch in managed memory, which --gpu-memory now rules out, so sgsi is chosen, predicted below
// the CPU engine and within its fit; 4-cliques took 2.1 s on the CPU engine and sgsi was cut at
// 30 s, so sgsi is priced above 30 s and the CPU engine is chosen (as auto chose there).
func TestSGSIOnRMAT(t *testing.T) {
	if testing.Short() {
		t.Skip("generates an R-MAT graph of 26 million edges")
	}
	g, err := gen.RMAT(gen.RMATOptions{Scale: 20, EdgeFactor: 27, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query, engine string
		sgsiAbove     float64 // sgsi's prediction at least this (seconds)
		sgsiBelow     float64 // and at most this
	}{
		{"(a)-(b)-(c)-(a)", "sgsi", 1.5 / 2.5, 1.5 * 2.5},
		{"(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)", "cpu", 30, math.Inf(1)},
	} {
		pat, err := pattern.Parse(c.query)
		if err != nil {
			t.Fatal(err)
		}
		d := decideWithin(t, g, pat, 16, 130<<30, 140<<30, 64<<20)
		by := map[string]auto.Prediction{}
		for _, pr := range d.Predictions {
			by[pr.Engine] = pr
		}
		s := by["sgsi"].Seconds
		if d.Engine != c.engine || s < c.sgsiAbove || s > c.sgsiBelow || (c.engine == "sgsi" && s > by["cpu"].Seconds) {
			t.Errorf("%s: chose %s, sgsi predicted %.2f s, want %s and sgsi in [%.2f, %.2f] s:\n%s", c.query, d.Engine, s, c.engine, c.sgsiAbove, c.sgsiBelow, d.Explain())
		}
		if strings.Contains(d.Explain(), "graph in managed memory") {
			t.Errorf("managed memory predicted within --gpu-memory:\n%s", d.Explain())
		}
	}
}
