package sgsi

import (
	"math"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/internal/predicttest"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestPredict: sgsi is predicted only out of core; a count of a connected pattern with an
// estimate as the direct count does it (the bytes, the last level's matches, the rows of the
// tables before it), more bytes through less memory; a listing, or a count without an estimate,
// from the host's time on one thread.
func TestPredict(t *testing.T) {
	g := gen.RandomGraphM(3, 150, 900, 1, 1)
	need := GraphBytes(g)
	triangle, err := pattern.Parse(tri)
	if err != nil {
		t.Fatal(err)
	}
	w := &engine.Workload{Problem: &engine.Problem{Data: g, Pattern: triangle}, Threads: 4, HostSeconds: 1}
	if pr := predicttest.Must(t, Engine{}, w); pr.Eligible() {
		t.Errorf("unknown memory (in core): %+v", pr)
	}
	w.GPUMemory = 2 * need
	if pr := predicttest.Must(t, Engine{}, w); pr.Eligible() {
		t.Errorf("in core: %+v", pr)
	}
	w.GPUMemory = need
	pr := predicttest.Must(t, Engine{}, w)
	if want := startSeconds + OneThreadSlowdown*4.0; !pr.OutOfCore || pr.Seconds != want {
		t.Errorf("out of core without an estimate: %+v, want %v s", pr, want)
	}
	w.Estimate = &plan.Estimate{LevelNodes: []float64{150, 900, 3e9}}
	direct := predicttest.Must(t, Engine{}, w)
	if want := startSeconds + 3e9/CountedPerSecond; !direct.OutOfCore || direct.Seconds < want || direct.Seconds > want+0.01 {
		t.Errorf("the direct count: %+v, want about %v s", direct, want)
	}
	w.GPUMemory = need / 16
	if less := predicttest.Must(t, Engine{}, w); less.Seconds <= direct.Seconds {
		t.Errorf("a 16th of the memory: %+v, not above %+v", less, direct)
	}
	w.Listing = true
	if pr := predicttest.Must(t, Engine{}, w); pr.Seconds != startSeconds+OneThreadSlowdown*4.0 {
		t.Errorf("a listing: %+v", pr)
	}
	w.Listing = false
	w.HostSeconds = 0
	if pr := predicttest.Must(t, Engine{}, w); pr.Eligible() {
		t.Errorf("no host prediction: %+v", pr)
	}
}

// TestDirectFit: the direct count's model (directSeconds) against the device's times that its
// constants were fitted to (describe.go: the whole process less the graph's load, or sgsi's own
// total and start-up), within fitFactor; a change of the constants or of the model that moves
// one outside fails here. The layouts' sizes are GraphBytes of the graphs measured, the levels
// the CPU plan's estimate of them (the last: the triangles counted, over 6).
func TestDirectFit(t *testing.T) {
	const fitFactor = 1.35
	g := gen.RandomGraphM(3, 150, 900, 1, 1) // (only the pattern and the estimate count)
	for _, c := range []struct {
		name     string
		query    string
		need     uint64
		mem      uint64
		levels   []float64
		measured float64
	}{
		// Unlabelled R-MAT edge factor 27, seed 1, H200, 2026-12-03 (docs/benchmarks.md, issue
		// 21, branch sgsi8).
		{"scale 20 triangles at 64MiB", tri, 231_923_020, 64 << 20, []float64{5.9e5, 2.6e7, 1.246e9}, 0.94},
		{"scale 22 triangles at 256MiB", tri, 968_000_000, 256 << 20, []float64{2.3e6, 1.06e8, 6.43e9}, 2.06},
		{"scale 24 triangles at 1GiB", tri, 3_940_000_000, 1 << 30, []float64{9.2e6, 4.34e8, 3.23e10}, 8.0},
		// SGSI's FR size: 30.3 and 36.4 s whole process, 2.5 s of it the graph's load.
		{"FR size triangles at 4GiB", tri, 15_700_000_000, 4 << 30, []float64{3.7e7, 1.76e9, 1.59e11}, 27.8},
		{"FR size triangles at 1GiB", tri, 15_700_000_000, 1 << 30, []float64{3.7e7, 1.76e9, 1.59e11}, 33.9},
		// 4-cycles at scale 20 were cut at 20 s (sgsi and every other engine): at least that.
		{"scale 20 4-cycles at 64MiB", "(a)-(b)-(c)-(d)-(a)", 231_923_020, 64 << 20, []float64{5.9e5, 2.6e7, 8.1e10, 1.96e12}, 20},
	} {
		p, err := pattern.Parse(c.query)
		if err != nil {
			t.Fatal(err)
		}
		w := &engine.Workload{Problem: &engine.Problem{Data: g, Pattern: p}, GPUMemory: c.mem,
			Estimate: &plan.Estimate{LevelNodes: c.levels}}
		s, what, ok := directSeconds(w, c.need, nil)
		s += startSeconds
		over := c.measured * fitFactor
		if c.name == "scale 20 4-cycles at 64MiB" {
			over = math.Inf(1) // (cut: a lower bound)
		}
		if !ok || s > over || s < c.measured/fitFactor {
			t.Errorf("%s: predicted %.2f s (%s), measured %.2f s", c.name, s, what, c.measured)
		}
	}
}

const tri = "(a)-(b)-(c)-(a)"

// TestPredictStops: a prediction stops once its context ends, before it starts and during the
// estimate of sgsi's tables (estimateJoin: its filter's draws, its probes), which checks it
// between chunks: on an unlabelled R-MAT of 2^13 vertices (every vertex a candidate of every
// pattern vertex) an 8-vertex walk's prediction checks it many times.
func TestPredictStops(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 13, EdgeFactor: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	p, err := gen.RandomWalkQuery(g, 8, gen.QuerySeed(1, 8, 0), gen.QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := &engine.Workload{Problem: &engine.Problem{Data: g, Pattern: p}, Threads: 2, HostSeconds: 1,
		GPUMemory: GraphBytes(g) / 4, Estimate: &plan.Estimate{LevelNodes: make([]float64, p.NumVertices())}}
	checks := predicttest.Stops(t, Engine{}, w)
	t.Logf("%d checks", checks)
	if checks < 8 {
		t.Errorf("the prediction checked its context %d times: not between the estimate's chunks", checks)
	}
	w.GPUMemory = 0 // (in core: not eligible, without an estimate)
	predicttest.Stops(t, Engine{}, w)
}
