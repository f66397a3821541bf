package auto

import (
	"context"
	"errors"
	"iter"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// hostFake is the CPU engine (the planner) with a fixed predicted time.
type hostFake struct {
	cpu.Engine
	seconds float64
}

func (h hostFake) Predict(ctx context.Context, _ *engine.Workload) (engine.Prediction, error) {
	return engine.Prediction{Seconds: h.seconds}, engine.PredictionStopped(ctx, "cpu")
}

// deviceFake stands for a GPU engine: it predicts a fixed time, counts its calls and returns a
// fixed count or error.
type deviceFake struct {
	name    string
	count   uint64
	err     error
	seconds float64 // predicted; < 0: not eligible
	start   float64
	lists   bool
	calls   *int
	seen    **engine.Workload // the last workload it predicted for
	// outOfCore, mode and run are its prediction's (engine.Prediction) once the GPU's memory
	// is known (before, it predicts in core).
	outOfCore bool
	mode      string
	run       engine.Engine
	// kernels are what it compiles (engine.KernelUser).
	kernels []engine.Kernel
	// predicting, when set, is called as each prediction starts (before it checks its context).
	predicting func()
}

func (f deviceFake) Name() string { return f.name }

func (f deviceFake) Kernels(*engine.Workload) []engine.Kernel { return f.kernels }

func (f deviceFake) Capabilities() engine.Capabilities {
	return engine.Capabilities{Device: engine.GPU, Lists: f.lists}
}

func (f deviceFake) StartSeconds() float64 { return f.start }

func (f deviceFake) Predict(ctx context.Context, w *engine.Workload) (engine.Prediction, error) {
	if f.predicting != nil {
		f.predicting()
	}
	if err := engine.PredictionStopped(ctx, f.name); err != nil {
		return engine.Prediction{}, err
	}
	if f.seen != nil {
		*f.seen = w
	}
	if !f.outOfCore || w.GPUMemory == 0 {
		return engine.Prediction{Seconds: f.seconds, Note: "fake"}, nil
	}
	return engine.Prediction{Seconds: f.seconds, Note: "fake", OutOfCore: true, Mode: f.mode, Run: f.run}, nil
}

func (f deviceFake) Count(ctx context.Context, p *engine.Problem) (engine.Result, error) {
	*f.calls++
	if f.err != nil {
		return engine.Result{}, f.err
	}
	return engine.Result{Count: f.count}, nil
}

func (f deviceFake) Matches(ctx context.Context, p *engine.Problem) iter.Seq2[[]uint32, error] {
	return func(yield func([]uint32, error) bool) {
		*f.calls++
		yield([]uint32{7, 7, 7}, nil)
	}
}

// reusingFake also starts from the decision's plan (engine.PlanReuser); base records it.
type reusingFake struct {
	deviceFake
	base **plan.Plan
}

func (f reusingFake) CountFrom(ctx context.Context, p *engine.Problem, base *plan.Plan) (engine.Result, error) {
	*f.base = base
	return f.Count(ctx, p)
}

// preparingFake also prepares its counts (engine.Preparer); rec says what happened to them.
type preparingFake struct {
	deviceFake
	rec *prepRecord
}

type prepRecord struct {
	started            chan struct{} // closed by PrepareCount
	base               *plan.Plan
	counted, released  int
	prepares, fallback int // PrepareCount calls; counts not from a preparation
}

func (f preparingFake) PrepareCount(ctx context.Context, p *engine.Problem, base *plan.Plan) engine.Prepared {
	f.rec.prepares++
	f.rec.base = base
	close(f.rec.started)
	return fakePrepared{f}
}

func (f preparingFake) Count(ctx context.Context, p *engine.Problem) (engine.Result, error) {
	f.rec.fallback++
	return f.deviceFake.Count(ctx, p)
}

type fakePrepared struct{ f preparingFake }

func (pr fakePrepared) Count(ctx context.Context) (engine.Result, error) {
	pr.f.rec.counted++
	return pr.f.deviceFake.Count(ctx, nil)
}

func (pr fakePrepared) Release() { pr.f.rec.released++ }

// fixture is a problem, a host with a set predicted time, fake device engines and a GPU probe
// that records whether it was called.
type fixture struct {
	prob          *engine.Problem
	host          float64 // the host's predicted seconds
	a, b          deviceFake
	aRuns, bRuns  int
	gpuChecks     int
	gpuErr        error
	noDevices     bool
	reuse         bool
	aBase         *plan.Plan
	aSaw          *engine.Workload
	listingBLists bool
	prepare       bool        // gpu-a prepares its counts (preparingFake)
	awaitPrep     bool        // the GPU is found only once gpu-a's count is being prepared
	prep          *prepRecord // what happened to them
	// free and total are the GPU's memory figures Rules.Memory reports (0: unknown).
	free, total uint64
	// before and after, when set, are the kernel cache's answers (Rules.KernelState) before the
	// GPU is found and after (a missing file: unknown); asked records the questions.
	before, after map[string]gpu.KernelState
	found         atomic.Bool
	asked         atomic.Int32
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	g := gen.RandomGraphM(3, 150, 900, 1, 1)
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(e)-(a)")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{prob: &engine.Problem{Data: g, Pattern: p, Threads: 1}, host: 1e-6}
	f.a = deviceFake{name: "gpu-a", count: 1001, seconds: 10, start: 0.3, lists: true, calls: &f.aRuns, seen: &f.aSaw}
	f.b = deviceFake{name: "gpu-b", count: 1002, seconds: 10, start: 0.5, calls: &f.bRuns}
	return f
}

// engine returns an auto engine over the fixture's engines.
func (f *fixture) engine() Engine {
	return Engine{Rules: &Rules{
		GPU: func(ctx context.Context) (string, error) {
			f.gpuChecks++
			if f.gpuErr != nil {
				return "", f.gpuErr
			}
			if f.awaitPrep {
				// The count of gpu-a, favoured, is prepared while the GPU is looked for.
				select {
				case <-f.prep.started:
				case <-time.After(10 * time.Second):
					return "", errors.New("gpu-a's count was not prepared while the GPU was looked for")
				}
			}
			f.found.Store(true)
			return "fake GPU", nil
		},
		Memory: func(context.Context) (uint64, uint64) { return f.free, f.total },
		KernelState: func(file string) gpu.KernelState {
			f.asked.Add(1)
			if f.found.Load() {
				return f.after[file]
			}
			return f.before[file]
		},
		Engines: func() []engine.Engine {
			es := []engine.Engine{hostFake{seconds: f.host}}
			if f.noDevices {
				return es
			}
			var a engine.Engine = f.a
			if f.reuse {
				a = reusingFake{f.a, &f.aBase}
			}
			if f.prepare {
				if f.prep == nil {
					f.prep = &prepRecord{started: make(chan struct{})}
				}
				a = preparingFake{f.a, f.prep}
			}
			b := f.b
			b.lists = f.listingBLists
			return append(es, a, b, Engine{})
		},
	}}
}

func cpuCount(t *testing.T, p *engine.Problem) uint64 {
	t.Helper()
	res, err := cpu.Engine{}.Count(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return res.Count
}

func TestSmallSearchStaysOnTheHostWithoutOpeningTheGPU(t *testing.T) {
	f := newFixture(t)
	res, d, err := f.engine().CountDecision(context.Background(), f.prob)
	if err != nil {
		t.Fatal(err)
	}
	if d.Engine != "cpu" || f.gpuChecks != 0 || f.aRuns+f.bRuns != 0 || d.Estimated {
		t.Fatalf("decision %+v, %d GPU checks, %d+%d GPU runs", d, f.gpuChecks, f.aRuns, f.bRuns)
	}
	if !strings.Contains(d.Reason, "bound from the plan") || !strings.Contains(d.Reason, "below the GPU threshold 1.3e13") {
		t.Errorf("reason %q", d.Reason)
	}
	if res.Count != cpuCount(t, f.prob) {
		t.Errorf("count %d, cpu engine %d", res.Count, cpuCount(t, f.prob))
	}
	if d.Plan() == nil {
		t.Error("the decision kept no plan for the CPU engine")
	}
}

func TestLargeSearchWithoutGPU(t *testing.T) {
	f := newFixture(t)
	f.host, f.gpuErr = 100, gpu.ErrNoGPU
	res, d, err := f.engine().CountDecision(context.Background(), f.prob)
	if err != nil {
		t.Fatal(err)
	}
	if d.Engine != "cpu" || f.gpuChecks != 1 || !d.Estimated || d.GPUErr == nil {
		t.Fatalf("decision %+v, %d GPU checks", d, f.gpuChecks)
	}
	if !strings.Contains(d.Reason, "but no GPU: "+gpu.ErrNoGPU.Error()) || !strings.Contains(d.Reason, "estimated") {
		t.Errorf("reason %q", d.Reason)
	}
	if res.Count != cpuCount(t, f.prob) {
		t.Errorf("count %d, cpu engine %d", res.Count, cpuCount(t, f.prob))
	}
}

func TestPicksTheFastestPrediction(t *testing.T) {
	for _, c := range []struct {
		name       string
		host, a, b float64
		want       string
	}{
		{"a fastest", 100, 1, 2, "gpu-a"},
		{"b fastest", 100, 2, 1, "gpu-b"},
		{"a not eligible", 100, -1, 50, "gpu-b"},
		{"devices slow", 100, 200, 300, "cpu"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.host, f.a.seconds, f.b.seconds = c.host, c.a, c.b
			res, d, err := f.engine().CountDecision(context.Background(), f.prob)
			if err != nil {
				t.Fatal(err)
			}
			// The host beating every device engine's best prediction needs no GPU.
			checks, name := 1, "fake GPU"
			if c.want == "cpu" {
				checks, name = 0, ""
			}
			if d.Engine != c.want || f.gpuChecks != checks || d.GPU != name || len(d.Predictions) != 3 {
				t.Fatalf("decision %+v", d)
			}
			if !strings.Contains(d.Reason, "predicted cpu ") {
				t.Errorf("reason %q", d.Reason)
			}
			want := map[string]uint64{"gpu-a": 1001, "gpu-b": 1002, "cpu": cpuCount(t, f.prob)}[c.want]
			if res.Count != want {
				t.Errorf("count %d, want %d from %s", res.Count, want, c.want)
			}
			if (c.want == "gpu-a") != (f.aRuns == 1) || (c.want == "gpu-b") != (f.bRuns == 1) {
				t.Errorf("runs: a %d, b %d", f.aRuns, f.bRuns)
			}
			// The devices predicted from the planner's plan and its estimate.
			if f.aSaw == nil || f.aSaw.Plan != d.Plan() || f.aSaw.Estimate == nil || f.aSaw.GPU != name {
				t.Errorf("workload %+v", f.aSaw)
			}
		})
	}
}

// TestDelegationReusesThePlan: an engine that can start from a plan gets the one the decision
// built (its candidates are not filtered again).
func TestDelegationReusesThePlan(t *testing.T) {
	f := newFixture(t)
	f.reuse, f.host, f.a.seconds = true, 100, 1
	res, d, err := f.engine().CountDecision(context.Background(), f.prob)
	if err != nil {
		t.Fatal(err)
	}
	if d.Engine != "gpu-a" || res.Count != 1001 || f.aRuns != 1 {
		t.Fatalf("decision %+v, count %d, %d runs", d, res.Count, f.aRuns)
	}
	if f.aBase == nil || f.aBase != d.Plan() {
		t.Errorf("gpu-a was given plan %p, the decision's is %p", f.aBase, d.Plan())
	}
}

// TestPreparesWhileLookingForTheGPU: the count of the device engine favoured by the predictions
// is prepared (from the decision's plan) while the GPU is looked for (the fake GPU answers only
// once it has started), and counted from; it is dropped when no GPU is found, when another
// engine is chosen, or when the caller releases the decision.
func TestPreparesWhileLookingForTheGPU(t *testing.T) {
	f := newFixture(t)
	f.prepare, f.awaitPrep, f.host, f.a.seconds = true, true, 100, 1
	res, d, err := f.engine().CountDecision(context.Background(), f.prob)
	if err != nil {
		t.Fatal(err)
	}
	if d.Engine != "gpu-a" || res.Count != 1001 || f.aRuns != 1 {
		t.Fatalf("decision %+v, count %d, %d runs", d, res.Count, f.aRuns)
	}
	if r := f.prep; r.prepares != 1 || r.counted != 1 || r.released != 0 || r.fallback != 0 || r.base != d.Plan() || d.Plan() == nil {
		t.Errorf("prepared %d, counted from it %d, released %d, counted without %d; base %p, plan %p",
			r.prepares, r.counted, r.released, r.fallback, r.base, d.Plan())
	}

	// No GPU: the preparation is dropped and the host counts.
	f = newFixture(t)
	f.prepare, f.host, f.a.seconds, f.gpuErr = true, 100, 1, gpu.ErrNoGPU
	res, d, err = f.engine().CountDecision(context.Background(), f.prob)
	if err != nil {
		t.Fatal(err)
	}
	if r := f.prep; d.Engine != "cpu" || res.Count != cpuCount(t, f.prob) || r.prepares != 1 || r.released != 1 || r.counted != 0 || f.aRuns != 0 {
		t.Errorf("no GPU: decision %s, count %d, prepared %d, released %d, counted from it %d", d, res.Count, r.prepares, r.released, r.counted)
	}

	// Another engine favoured: nothing is prepared.
	f = newFixture(t)
	f.prepare, f.host, f.a.seconds, f.b.seconds = true, 100, 2, 1
	if _, d, err = f.engine().CountDecision(context.Background(), f.prob); err != nil || d.Engine != "gpu-b" || f.prep.prepares != 0 {
		t.Errorf("gpu-b favoured: decision %s, %d preparations, error %v", d, f.prep.prepares, err)
	}

	// Listing: nothing is prepared.
	f = newFixture(t)
	f.prepare, f.host, f.a.seconds = true, 100, 1
	if d, err = f.engine().Decide(context.Background(), f.prob, true); err != nil || d.Engine != "gpu-a" || f.prep.prepares != 0 {
		t.Errorf("listing: decision %s, %d preparations, error %v", d, f.prep.prepares, err)
	}

	// Released by the caller: dropped once, and a count made anyway does without it.
	f = newFixture(t)
	f.prepare, f.host, f.a.seconds = true, 100, 1
	e := f.engine()
	if d, err = e.Decide(context.Background(), f.prob, false); err != nil {
		t.Fatal(err)
	}
	d.Release()
	d.Release()
	if res, _, err = e.CountWith(context.Background(), f.prob, &d); err != nil || res.Count != 1001 {
		t.Fatalf("count after release: %d, %v", res.Count, err)
	}
	if r := f.prep; r.released != 1 || r.counted != 0 || r.fallback != 1 {
		t.Errorf("released %d times, counted from the preparation %d, without %d", r.released, r.counted, r.fallback)
	}
}

func TestDeviceFailureFallsBackToTheHost(t *testing.T) {
	f := newFixture(t)
	f.host, f.a.seconds, f.a.err = 100, 1, errors.New("kernel exploded")
	res, d, err := f.engine().CountDecision(context.Background(), f.prob)
	if err != nil {
		t.Fatal(err)
	}
	if d.Engine != "cpu" || f.aRuns != 1 || !strings.Contains(d.Reason, "gpu-a failed (kernel exploded), counted on cpu") {
		t.Fatalf("decision %+v", d)
	}
	if res.Count != cpuCount(t, f.prob) {
		t.Errorf("count %d", res.Count)
	}
	// Overflow is an answer, not a failure: it is returned as it is.
	f.a.err = engine.ErrOverflow
	if _, d, err := f.engine().CountDecision(context.Background(), f.prob); !errors.Is(err, engine.ErrOverflow) || d.Engine != "gpu-a" {
		t.Errorf("overflow: decision %s, error %v", d, err)
	}
}

func TestListing(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.host, f.a.seconds, f.b.seconds = 100, 2, 1
	e := f.engine()
	// Only gpu-a lists: gpu-b, faster, is not considered.
	d, err := e.Decide(ctx, f.prob, true)
	if err != nil || d.Engine != "gpu-a" || len(d.Predictions) != 2 {
		t.Fatalf("decision %+v, error %v", d, err)
	}
	got, _ := engine.CollectMatches(ctx, e, f.prob, 0)
	if len(got) != 1 || got[0][0] != 7 || f.aRuns != 1 {
		t.Errorf("listing went to %v (gpu-a runs %d)", got, f.aRuns)
	}
	// With no listing device engine the host lists, without planning twice or opening the GPU.
	f.a.lists, f.gpuChecks = false, 0
	e = f.engine()
	d, err = e.Decide(ctx, f.prob, true)
	if err != nil || d.Engine != "cpu" || d.Plan() != nil || f.gpuChecks != 0 || !strings.Contains(d.Reason, "listing") {
		t.Fatalf("decision %+v (%d GPU checks), error %v", d, f.gpuChecks, err)
	}
	got, err = engine.CollectMatches(ctx, e, f.prob, 0)
	want, _ := engine.CollectMatches(ctx, cpu.Engine{}, f.prob, 0)
	if err != nil || len(got) != len(want) || len(got) == 0 {
		t.Fatalf("%d matches (error %v), cpu engine %d", len(got), err, len(want))
	}
}

func TestNoDeviceEngineBuiltIn(t *testing.T) {
	f := newFixture(t)
	f.noDevices, f.host = true, 100
	res, d, err := f.engine().CountDecision(context.Background(), f.prob)
	if err != nil || d.Engine != "cpu" || d.Plan() != nil || d.Estimated || f.gpuChecks != 0 {
		t.Fatalf("decision %+v, error %v", d, err)
	}
	if res.Count != cpuCount(t, f.prob) {
		t.Errorf("count %d", res.Count)
	}
}

func TestNoPlanner(t *testing.T) {
	e := Engine{Rules: &Rules{Engines: func() []engine.Engine { return []engine.Engine{deviceFake{name: "x"}} }}}
	if _, err := e.Decide(context.Background(), newFixture(t).prob, false); err == nil || !strings.Contains(err.Error(), "no registered engine plans") {
		t.Errorf("error %v", err)
	}
}

func TestEmptyPlan(t *testing.T) {
	f := newFixture(t)
	p, _ := pattern.Parse("(a:5)-(b)")
	f.prob.Pattern, f.host = p, 100
	res, d, err := f.engine().CountDecision(context.Background(), f.prob)
	if err != nil || res.Count != 0 || d.Engine != "cpu" || f.gpuChecks != 0 {
		t.Fatalf("count %d, decision %+v, error %v", res.Count, d, err)
	}
}

func TestCancelledWhilePlanning(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, _, err := f.engine().CountDecision(ctx, f.prob)
	if !errors.Is(err, context.Canceled) || !res.Partial {
		t.Errorf("partial %v, error %v", res.Partial, err)
	}
}

// TestCancelledWhilePredicting: a context that ends during any of gpu-a's predictions (before the
// GPU is looked for, for the preparation, once the GPU is found) stops the decision there: the
// count is partial, with the context's error, no device engine counts, and a preparation started
// is released. A prediction past the last (call 4) is never made: the count runs on gpu-a.
func TestCancelledWhilePredicting(t *testing.T) {
	for at := 1; at <= 4; at++ {
		f := newFixture(t)
		f.prepare, f.host, f.a.seconds = true, 100, 1
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		f.a.predicting = func() {
			if calls++; calls == at {
				cancel()
			}
		}
		res, d, err := f.engine().CountDecision(ctx, f.prob)
		cancel()
		r := f.prep
		if at == 4 {
			if err != nil || d.Engine != "gpu-a" || res.Count != 1001 || calls != 3 {
				t.Errorf("not cancelled: decision %s, count %d, %d predictions, error %v", d, res.Count, calls, err)
			}
			continue
		}
		if !errors.Is(err, context.Canceled) || !res.Partial || f.aRuns+f.bRuns != 0 || calls != at {
			t.Errorf("cancelled in prediction %d: partial %v, %d device runs, %d predictions, error %v", at, res.Partial, f.aRuns+f.bRuns, calls, err)
		}
		if r.prepares != r.released || r.counted != 0 || r.prepares != max(0, at-2) {
			t.Errorf("cancelled in prediction %d: prepared %d, released %d, counted from it %d", at, r.prepares, r.released, r.counted)
		}
	}
}

// The registered engine with the default rules: on a machine without a GPU (CI) it must count
// like the CPU engine whatever the estimate says.
func TestRegisteredDefault(t *testing.T) {
	e, err := engine.Lookup("auto")
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	res, err := e.Count(context.Background(), f.prob)
	if err != nil || res.Count != cpuCount(t, f.prob) {
		t.Errorf("count %d, error %v, cpu engine %d", res.Count, err, cpuCount(t, f.prob))
	}
}

func TestFormatting(t *testing.T) {
	for x, want := range map[float64]string{0: "0", 0.3: "0.3", 42: "42", 999: "999", 1000: "1e3", 310000: "3.1e5", 2e8: "2e8", 1.26e12: "1.3e12"} {
		if got := sci(x); got != want {
			t.Errorf("sci(%g) = %q, want %q", x, got, want)
		}
	}
	d := Decision{Engine: "cpu", Reason: "estimated 3.1e5 search nodes"}
	if got := d.String(); got != "cpu (auto: estimated 3.1e5 search nodes)" {
		t.Errorf("String() = %q", got)
	}
}

// TestCliqueDecision: a clique is decided without a plan, from the predictions for the clique
// (Workload.Clique); the GPU is looked for only when the host's is above a start-up. Listing a
// clique decides as usual.
func TestCliqueDecision(t *testing.T) {
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		host      float64
		gpuErr    error
		want      string
		gpuChecks int
		reason    string
	}{
		{"small graph", 0.01, nil, "cpu", 0, "below the GPU's start-up 300 ms"},
		{"large graph", 100, nil, "gpu-a", 1, "predicted cpu 100 s"},
		{"large graph, no GPU", 100, gpu.ErrNoGPU, "cpu", 1, "but no GPU"},
	} {
		f := newFixture(t)
		f.prob.Pattern, f.gpuErr, f.host, f.a.seconds = p, c.gpuErr, c.host, 1
		res, d, err := f.engine().CountDecision(context.Background(), f.prob)
		if err != nil || d.Engine != c.want || d.Plan() != nil || f.gpuChecks != c.gpuChecks ||
			!strings.Contains(d.Reason, "4-clique") || !strings.Contains(d.Reason, c.reason) {
			t.Fatalf("%s: decision %+v (%d GPU checks), error %v", c.name, d, f.gpuChecks, err)
		}
		if c.want == "gpu-a" && (f.aSaw == nil || f.aSaw.Clique == nil || f.aSaw.Clique.K != 4) {
			t.Errorf("%s: gpu-a predicted for %+v", c.name, f.aSaw)
		}
		want := cpuCount(t, f.prob)
		if c.want == "gpu-a" {
			want = 1001
		}
		if res.Count != want {
			t.Errorf("%s: count %d, want %d", c.name, res.Count, want)
		}
		if d, err := f.engine().Decide(context.Background(), f.prob, true); err != nil || strings.Contains(d.Reason, "clique") {
			t.Errorf("%s: listing a clique: %+v, %v", c.name, d, err)
		}
	}
}

// TestLookupBesidePlanning: on a data graph above smallGraphBytes the GPU is looked for from the
// start of the decision, beside the planning, even where the host's prediction then settles the
// choice without it (the fixture's host takes a microsecond); on a smaller graph it is not looked
// for at all then.
func TestLookupBesidePlanning(t *testing.T) {
	saved := smallGraphBytes
	defer func() { smallGraphBytes = saved }()
	for _, large := range []bool{false, true} {
		smallGraphBytes = saved
		if large {
			smallGraphBytes = 1
		}
		f := newFixture(t)
		d, err := f.engine().Decide(context.Background(), f.prob, false)
		if err != nil {
			t.Fatal(err)
		}
		d.Release()
		if d.Engine != "cpu" || d.GPUChecked {
			t.Fatalf("large %v: chose %s (GPU checked %v), want the host without waiting for the GPU", large, d, d.GPUChecked)
		}
		deadline := time.Now().Add(5 * time.Second)
		for large && !f.found.Load() && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if f.found.Load() != large {
			t.Errorf("large %v: the GPU looked for %v", large, f.found.Load())
		}
	}
}

// TestKernelCacheAskedLate: a host time below every device engine's warm start-up settles the
// choice without asking the kernel cache (its check hashes the kernels' sources, a few hundred
// microseconds of a small count); one above it asks, so that a fresh machine's compile is
// weighed.
func TestKernelCacheAskedLate(t *testing.T) {
	for _, c := range []struct {
		host  float64
		asked bool
	}{{1e-6, false}, {100, true}} {
		f := newFixture(t)
		f.host = c.host
		f.a.kernels = []engine.Kernel{{File: "a.cu", ColdSeconds: 6.5}}
		d, err := f.engine().Decide(context.Background(), f.prob, false)
		if err != nil {
			t.Fatal(err)
		}
		d.Release()
		if got := f.asked.Load() > 0; got != c.asked {
			t.Errorf("host %v s: kernel cache asked %v (%d times), want %v; %s", c.host, got, f.asked.Load(), c.asked, d)
		}
	}
}
