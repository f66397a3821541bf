package auto_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/auto"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/engine/geneva"
	"github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/engine/stmatch"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
)

// TestChoicesOutOfCore: the engines' own predictions, with fake device figures, on wiki-Vote: a
// GPU with room keeps stmatch in core; a budget below the candidate space moves it to managed
// memory when the device's whole memory holds the graph, else to host memory (zero-copy), on a
// search the CPU's one thread takes far longer on (an induced count); the same budget given as
// --gpu-memory (Problem.GPUMemoryLimit) keeps it to zero-copy, managed memory being unbounded by
// it, and the reason says so; a budget that holds a fiftieth of the grid leaves stmatch for pbe
// on STMatch's q2 (a house, counted across pbe's parts as a shape), and a search that the host's
// threads finish within twice the out-of-core prediction stays on the CPU. sgsi and pbe are
// weighed only when their own layout does not fit, and lose on the other cases (as measured).
func TestChoicesOutOfCore(t *testing.T) {
	wv := sharedtest.WikiVote(t)
	const (
		// STMatch's q2 (a house) with a tail, and a 5-cycle: searches (a house and a 4-cycle
		// are shapes, which the CPU engine counts in well under a second since branch
		// cpushapes: q2 in 67 ms on 2 threads, below the GPU threshold).
		dense = "(a)-(b), (a)-(c), (a)-(e), (b)-(c), (b)-(d), (d)-(e), (c)-(f)"
		cycle = "(a)-(b)-(c)-(d)-(e)-(a)"
		// STMatch's q18, induced: predicted far above a minute on one thread of the CPU engine,
		// so that the GPU out of core wins by auto's 2x margin with the measured slowdowns. (The
		// pattern used before, q22 counting embeddings, is now priced at about 30 s a thread:
		// the CPU engine's tail order counts two twins from their common neighbourhood; q18's
		// embeddings at 77 s, q13 is counted from edge supports, q2 no longer leaves that margin,
		// q1 is counted by the last-level sum in under a second, and q9 breaks its a-b symmetry
		// since the plans keep a prefix of the restrictions. Induced counts postpone nothing.)
		heavy = "(a)-(b), (a)-(c), (a)-(d), (a)-(f), (a)-(g), (b)-(c), (b)-(d), (b)-(f), (b)-(g), (c)-(d), (c)-(e), (c)-(f), (c)-(g), (d)-(e), (e)-(f), (e)-(g), (f)-(g)"
	)
	for _, c := range []struct {
		name, query string
		threads     int
		free, total uint64
		engine      string
		mode        string
		limit       uint64 // --gpu-memory (0: none)
	}{
		{"in core", dense, 8, 80 << 30, 80 << 30, "stmatch", "", 0},
		{"managed", heavy, 1, 4 << 20, 80 << 30, "stmatch", "graph in managed memory", 0},
		{"--gpu-memory: not managed", heavy, 1, 80 << 30, 80 << 30, "stmatch", "graph in host memory (zero-copy)", 24 << 20},
		{"zero-copy", heavy, 1, 24 << 20, 24 << 20, "stmatch", "graph in host memory (zero-copy)", 0},
		// (A starved grid's q2 went to pbe, which counted the house across its parts as a shape:
		// 2.8 CPU s against the CPU engine's search's 4.1 s. The CPU engine now counts the
		// house as a shape too, in 67 ms, below the GPU threshold: that choice of pbe is not
		// exercised here any more.)
		{"cycle in core", cycle, 4, 80 << 30, 80 << 30, "stmatch", "", 0},
		{"cycle out of core stays on the CPU", cycle, 4, 4 << 20, 8 << 20, "cpu", "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			pat, err := pattern.Parse(c.query)
			if err != nil {
				t.Fatal(err)
			}
			a := auto.Engine{Rules: &auto.Rules{
				GPU:    func(context.Context) (string, error) { return "NVIDIA H200", nil },
				Memory: func(context.Context) (uint64, uint64) { return c.free, c.total },
				Engines: func() []engine.Engine {
					return []engine.Engine{cpu.Engine{}, stmatch.Engine{}, sgsi.Engine{}, &pbe.Engine{}}
				},
				// The kernels compiled: these are the choices of a warm cache (cold_test.go has a
				// fresh machine's, TestFreshMachine).
				KernelState:    func(string) gpu.KernelState { return gpu.KernelCached },
				EstimateBudget: time.Minute, // the choice must not depend on how busy the machine is
			}}
			d, err := a.Decide(context.Background(), &engine.Problem{Data: wv, Pattern: pat, Threads: c.threads, GPUMemoryLimit: c.limit, Semantics: engine.Semantics{Induced: c.query == heavy}}, false)
			if err != nil {
				t.Fatal(err)
			}
			d.Release()
			t.Logf("%s", d)
			if d.Engine != c.engine || d.Mode != c.mode {
				t.Fatalf("chose %s", d)
			}
			budget := c.free
			if c.limit > 0 {
				budget = min(budget, c.limit)
				if want := "not managed memory: it would exceed --gpu-memory 24.0 MiB"; !strings.Contains(d.Reason, want) || !strings.Contains(d.Explain(), want) {
					t.Errorf("reason and --explain:\n%s\nwant %q", d.Explain(), want)
				}
			}
			outOfCore := budget < 1<<30
			if got, want := !strings.Contains(d.Reason, "sgsi not eligible"), sgsi.GraphBytes(wv) > budget/2; got != want {
				t.Errorf("sgsi eligible %v with %d bytes free: %s", got, c.free, d.Reason)
			}
			if strings.Contains(d.Reason, "out of core") != outOfCore {
				t.Errorf("reason %q", d.Reason)
			}
		})
	}
}

// TestFreshMachine: the engines' own predictions and kernels on wiki-Vote with an H200 in core,
// STMatch's q2 with a tail on 4 threads: stmatch wins on a warm kernel cache; on a fresh machine (no kernel
// compiled, before the GPU starts and after) its compile is added and the CPU counts, and the
// reason says so. The pre-start answer alone (the GPU then found with the kernels compiled)
// changes nothing.
func TestFreshMachine(t *testing.T) {
	wv := sharedtest.WikiVote(t)
	pat, err := pattern.Parse("(a)-(b), (a)-(c), (a)-(e), (b)-(c), (b)-(d), (d)-(e), (c)-(f)") // (q2 alone is a shape: TestChoicesOutOfCore)
	if err != nil {
		t.Fatal(err)
	}
	decide := func(before, after gpu.KernelState) auto.Decision {
		t.Helper()
		var found atomic.Bool
		a := auto.Engine{Rules: &auto.Rules{
			GPU: func(context.Context) (string, error) {
				found.Store(true)
				return "NVIDIA H200", nil
			},
			Memory: func(context.Context) (uint64, uint64) { return 139 << 30, 140 << 30 },
			Engines: func() []engine.Engine {
				return []engine.Engine{cpu.Engine{}, stmatch.Engine{}, sgsi.Engine{}, &pbe.Engine{}, geneva.Engine{}}
			},
			KernelState: func(string) gpu.KernelState {
				if found.Load() {
					return after
				}
				return before
			},
			EstimateBudget: time.Minute,
		}}
		d, err := a.Decide(context.Background(), &engine.Problem{Data: wv, Pattern: pat, Threads: 4}, false)
		if err != nil {
			t.Fatal(err)
		}
		d.Release()
		t.Logf("%s", d)
		return d
	}
	warm := decide(gpu.KernelCached, gpu.KernelCached)
	if warm.Engine != "stmatch" || strings.Contains(warm.Reason, "compile") {
		t.Errorf("warm cache: %s", warm)
	}
	// (The reasons are compared when the estimates are: a loaded machine's time budget may cut
	// one estimate sooner than the other.)
	if d := decide(gpu.KernelNotCached, gpu.KernelCached); d.Engine != warm.Engine || strings.Contains(d.Reason, "compile") ||
		(d.Estimate.Probes == warm.Estimate.Probes && d.Estimate.Nodes == warm.Estimate.Nodes && d.Reason != warm.Reason) {
		t.Errorf("compiled once the GPU started: %s\nwarm: %s", d, warm)
	}
	cold := decide(gpu.KernelNotCached, gpu.KernelNotCached)
	if cold.Engine != "cpu" || !cold.GPUChecked {
		t.Fatalf("fresh machine: %s", cold)
	}
	if want := "; stmatch's kernel is not compiled on this machine yet: about 3.0 s once, then cached ("; !strings.Contains(cold.Reason, want) ||
		strings.Contains(cold.Reason, "geneva's kernel") { // geneva loses by far anyway
		t.Errorf("fresh machine's reason %q\nwants %q", cold.Reason, want)
	}
}

// TestChoicesReducedLabels (issue 21): on a labelled R-MAT graph (scale 16, 100 zipf labels:
// gen rmat's defaults otherwise) whose CSR is twice --gpu-memory, an induced count of a dense
// 6-vertex walk (gen queries' q_6_4 of it) keeps a tenth of the graph in the subgraph of its
// labels, which pbe counts in one part, with no inter stage, on the device engine in core: auto
// chooses it over stmatch with the whole graph in host memory (induced matches read the CSR) and
// the CPU's one thread. Before pbe's prediction saw the reduction it was priced with an inter
// stage at 25 s, and the CPU (sgsi with it among the engines) counted.
func TestChoicesReducedLabels(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 16, EdgeFactor: 16, VertexLabels: 100, LabelDistribution: gen.ZipfLabels, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	pat, err := pattern.Parse("(a:23)-(b:0)-(c:0)-(d:3)-(e:3)-(f:16)-(b), (b)-(d), (b)-(e)")
	if err != nil {
		t.Fatal(err)
	}
	const limit = 4_000_000
	a := auto.Engine{Rules: &auto.Rules{
		GPU:    func(context.Context) (string, error) { return "NVIDIA H200", nil },
		Memory: func(context.Context) (uint64, uint64) { return 139 << 30, 140 << 30 },
		Engines: func() []engine.Engine {
			return []engine.Engine{cpu.Engine{}, stmatch.Engine{}, &pbe.Engine{Partitioner: partition.Auto}}
		},
		KernelState:    func(string) gpu.KernelState { return gpu.KernelCached },
		EstimateBudget: time.Minute,
	}}
	p := &engine.Problem{Data: g, Pattern: pat, Semantics: engine.Semantics{Induced: true}, Threads: 1, GPUMemoryLimit: limit}
	d, err := a.Decide(context.Background(), p, false)
	if err != nil {
		t.Fatal(err)
	}
	d.Release()
	t.Logf("%s", d.Explain())
	if d.Engine != "pbe" || d.Mode != "GPU backend, one part" {
		t.Fatalf("chose %s", d)
	}
	for _, want := range []string{"stmatch, graph in host memory (zero-copy): ", "no inter stage"} {
		if !strings.Contains(d.Explain(), want) {
			t.Errorf("--explain does not say %q", want)
		}
	}
	var pb, host auto.Prediction
	for _, pr := range d.Predictions {
		switch pr.Engine {
		case "pbe":
			pb = pr
		case "cpu":
			host = pr
		}
	}
	if pb.OutOfCore || pb.Seconds <= 0 || pb.Seconds >= host.Seconds/2 {
		t.Errorf("pbe %+v against the host's %v s", pb, host.Seconds)
	}
	if partition.GraphBytes(g) <= limit/2 {
		t.Fatalf("the graph (%d bytes) fits the parts' budget: the test checks nothing", partition.GraphBytes(g))
	}
}
