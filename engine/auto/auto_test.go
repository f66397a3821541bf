package auto

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// fakeEngine stands for a GPU engine: it counts calls and returns a fixed count or error.
type fakeEngine struct {
	name  string
	count uint64
	err   error
	calls *int
}

func (f fakeEngine) Name() string { return f.name }

func (f fakeEngine) Count(ctx context.Context, p *engine.Problem) (engine.Result, error) {
	*f.calls++
	if f.err != nil {
		return engine.Result{}, f.err
	}
	return engine.Result{Count: f.count}, nil
}

func (f fakeEngine) Matches(ctx context.Context, p *engine.Problem) iter.Seq2[[]uint32, error] {
	return func(yield func([]uint32, error) bool) {
		*f.calls++
		yield([]uint32{7, 7, 7}, nil)
	}
}

// reusingFake is a fake engine that can start from the decision's plan (planReuser); base
// records the plan it was given.
type reusingFake struct {
	fakeEngine
	base **plan.Plan
}

func (f reusingFake) CountFrom(ctx context.Context, p *engine.Problem, base *plan.Plan) (engine.Result, error) {
	*f.base = base
	return f.Count(ctx, p)
}

// listingFake is a fake engine that declares it lists matches.
type listingFake struct{ fakeEngine }

func (listingFake) ListsMatches() bool { return true }

// fixture is a problem, fake GPU engines and a GPU probe that records whether it was called.
type fixture struct {
	prob                  *engine.Problem
	stmatchRuns, genRuns  int
	gpuChecks             int
	gpuErr                error
	stmatchErr            error
	genevaLists, noEngine bool
	// reuse makes the fake stmatch a planReuser; stmatchBase is the plan it was given.
	reuse       bool
	stmatchBase *plan.Plan
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	g := gen.RandomGraphM(3, 150, 900, 1, 1)
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(e)-(a)") // levels a, b, c, d; e counted
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{prob: &engine.Problem{Data: g, Pattern: p, Threads: 1}}
}

// rules returns rules with fake engines and GPU, and the given rates (the rest default).
func (f *fixture) rules(r Rules) *Rules {
	r.GPU = func(ctx context.Context) (string, error) {
		f.gpuChecks++
		if f.gpuErr != nil {
			return "", f.gpuErr
		}
		return "fake GPU", nil
	}
	r.Lookup = func(name string) (engine.Engine, error) {
		if f.noEngine {
			return nil, errors.New("not built in")
		}
		switch name {
		case "stmatch":
			fe := fakeEngine{name: "stmatch", count: 1001, err: f.stmatchErr, calls: &f.stmatchRuns}
			if f.reuse {
				return reusingFake{fe, &f.stmatchBase}, nil
			}
			return fe, nil
		case "geneva":
			fe := fakeEngine{name: "geneva", count: 1002, calls: &f.genRuns}
			if f.genevaLists {
				return listingFake{fe}, nil
			}
			return fe, nil
		}
		return engine.Lookup(name)
	}
	return &r
}

// slowCPU makes every search look large enough for a GPU (the threshold is 0.3 nodes).
const slowCPU = 1

func cpuCount(t *testing.T, p *engine.Problem) uint64 {
	t.Helper()
	res, err := cpu.Engine{}.Count(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return res.Count
}

func TestSmallSearchStaysOnCPUWithoutOpeningTheGPU(t *testing.T) {
	f := newFixture(t)
	e := Engine{Rules: f.rules(Rules{CPUNodesPerSecond: 1e15})}
	res, d, err := e.CountDecision(context.Background(), f.prob)
	if err != nil {
		t.Fatal(err)
	}
	if d.Engine != "cpu" || f.gpuChecks != 0 || f.stmatchRuns+f.genRuns != 0 {
		t.Fatalf("decision %+v, %d GPU checks, %d+%d GPU runs", d, f.gpuChecks, f.stmatchRuns, f.genRuns)
	}
	if !strings.Contains(d.Reason, "below the GPU threshold") {
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
	f.gpuErr = gpu.ErrNoGPU
	e := Engine{Rules: f.rules(Rules{CPUNodesPerSecond: slowCPU})}
	res, d, err := e.CountDecision(context.Background(), f.prob)
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

func TestPicksTheFastestPredictedEngine(t *testing.T) {
	cases := []struct {
		name  string
		rules Rules
		want  string
	}{
		{"stmatch fast", Rules{CPUNodesPerSecond: slowCPU, STMatchNodesPerSecond: 1e12, STMatchWarpNodesPerSecond: 1e12,
			GenevaRowsPerSecond: 1e-3, GPUStartSeconds: 1e-9}, "stmatch"},
		{"geneva fast", Rules{CPUNodesPerSecond: slowCPU, STMatchNodesPerSecond: 1e-3, GenevaRowsPerSecond: 1e15,
			GPUStartSeconds: 1e-9}, "geneva"},
		{"stmatch held back by its heaviest subtree", Rules{CPUNodesPerSecond: slowCPU, STMatchNodesPerSecond: 1e15,
			STMatchWarpNodesPerSecond: 1e-6, GenevaRowsPerSecond: 1e-3, GPUStartSeconds: 1e-9}, "cpu"},
		{"GPUs slow", Rules{CPUNodesPerSecond: 1e4, STMatchNodesPerSecond: 1, STMatchWarpNodesPerSecond: 1,
			GenevaRowsPerSecond: 1, GPUStartSeconds: 1e-9}, "cpu"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			e := Engine{Rules: f.rules(c.rules)}
			res, d, err := e.CountDecision(context.Background(), f.prob)
			if err != nil {
				t.Fatal(err)
			}
			if d.Engine != c.want || f.gpuChecks != 1 || d.GPU != "fake GPU" || len(d.Predictions) != 3 {
				t.Fatalf("decision %+v", d)
			}
			if !strings.Contains(d.Reason, "predicted cpu ") {
				t.Errorf("reason %q", d.Reason)
			}
			want := map[string]uint64{"stmatch": 1001, "geneva": 1002, "cpu": cpuCount(t, f.prob)}[c.want]
			if res.Count != want {
				t.Errorf("count %d, want %d from %s", res.Count, want, c.want)
			}
			if (c.want == "stmatch") != (f.stmatchRuns == 1) || (c.want == "geneva") != (f.genRuns == 1) {
				t.Errorf("runs: stmatch %d, geneva %d", f.stmatchRuns, f.genRuns)
			}
		})
	}
}

// TestDelegationReusesThePlan: an engine that can start from a plan gets the one the decision
// built (its candidates are not filtered again).
func TestDelegationReusesThePlan(t *testing.T) {
	f := newFixture(t)
	f.reuse = true
	e := Engine{Rules: f.rules(Rules{CPUNodesPerSecond: slowCPU, STMatchNodesPerSecond: 1e12, STMatchWarpNodesPerSecond: 1e12,
		GenevaRowsPerSecond: 1e-3, GPUStartSeconds: 1e-9})}
	res, d, err := e.CountDecision(context.Background(), f.prob)
	if err != nil {
		t.Fatal(err)
	}
	if d.Engine != "stmatch" || res.Count != 1001 || f.stmatchRuns != 1 {
		t.Fatalf("decision %+v, count %d, %d runs", d, res.Count, f.stmatchRuns)
	}
	if f.stmatchBase == nil || f.stmatchBase != d.Plan() {
		t.Errorf("stmatch was given plan %p, the decision's is %p", f.stmatchBase, d.Plan())
	}
}

func TestThresholdScalesWithThreads(t *testing.T) {
	f := newFixture(t)
	f.prob.Threads = 3
	e := Engine{Rules: f.rules(Rules{CPUNodesPerSecond: 1e15, CPUThreadGain: 0.5, GPUStartSeconds: 2})}
	d, err := e.Decide(context.Background(), f.prob, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * 1e15 * (1 + 0.5*2); d.Threshold != want || d.Threads != 3 {
		t.Errorf("threshold %g with %d threads, want %g", d.Threshold, d.Threads, want)
	}
}

func TestGPUFailureFallsBackToCPU(t *testing.T) {
	f := newFixture(t)
	f.stmatchErr = errors.New("kernel exploded")
	e := Engine{Rules: f.rules(Rules{CPUNodesPerSecond: slowCPU, STMatchNodesPerSecond: 1e15, STMatchWarpNodesPerSecond: 1e15,
		GenevaRowsPerSecond: 1e-3, GPUStartSeconds: 1e-9})}
	res, d, err := e.CountDecision(context.Background(), f.prob)
	if err != nil {
		t.Fatal(err)
	}
	if d.Engine != "cpu" || f.stmatchRuns != 1 || !strings.Contains(d.Reason, "stmatch failed (kernel exploded), counted on cpu") {
		t.Fatalf("decision %+v", d)
	}
	if res.Count != cpuCount(t, f.prob) {
		t.Errorf("count %d", res.Count)
	}
	// Overflow is an answer, not a failure: it is returned as it is.
	f.stmatchErr = engine.ErrOverflow
	if _, d, err := e.CountDecision(context.Background(), f.prob); !errors.Is(err, engine.ErrOverflow) || d.Engine != "stmatch" {
		t.Errorf("overflow: decision %s, error %v", d, err)
	}
}

func TestListing(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	fast := Rules{CPUNodesPerSecond: slowCPU, STMatchNodesPerSecond: 1e15, STMatchWarpNodesPerSecond: 1e15,
		GenevaRowsPerSecond: 1e15, GPUStartSeconds: 1e-9}
	e := Engine{Rules: f.rules(fast)}
	// Neither fake declares listing: the CPU lists, without planning twice or opening the GPU.
	d, err := e.Decide(ctx, f.prob, true)
	if err != nil {
		t.Fatal(err)
	}
	if d.Engine != "cpu" || d.Plan() != nil || f.gpuChecks != 0 || !strings.Contains(d.Reason, "listing") {
		t.Fatalf("decision %+v", d)
	}
	got, err := engine.CollectMatches(ctx, e, f.prob, 0)
	want, _ := engine.CollectMatches(ctx, cpu.Engine{}, f.prob, 0)
	if err != nil || len(got) != len(want) || len(got) == 0 {
		t.Fatalf("%d matches (error %v), cpu engine %d", len(got), err, len(want))
	}
	// An engine that declares listing is considered; stmatch still is not.
	f.genevaLists = true
	d, err = e.Decide(ctx, f.prob, true)
	if err != nil || d.Engine != "geneva" || len(d.Predictions) != 2 {
		t.Fatalf("decision %+v, error %v", d, err)
	}
	got, _ = engine.CollectMatches(ctx, e, f.prob, 0)
	if len(got) != 1 || got[0][0] != 7 || f.genRuns != 1 {
		t.Errorf("listing went to %v (geneva runs %d)", got, f.genRuns)
	}
}

func TestNoGPUEngineBuiltIn(t *testing.T) {
	f := newFixture(t)
	f.noEngine = true
	e := Engine{Rules: f.rules(Rules{CPUNodesPerSecond: slowCPU})}
	res, d, err := e.CountDecision(context.Background(), f.prob)
	if err != nil || d.Engine != "cpu" || d.Plan() != nil || d.Estimated || f.gpuChecks != 0 {
		t.Fatalf("decision %+v, error %v", d, err)
	}
	if res.Count != cpuCount(t, f.prob) {
		t.Errorf("count %d", res.Count)
	}
}

func TestStmatchNeedsACandidateSpace(t *testing.T) {
	f := newFixture(t)
	opts := plan.Options{MultiplyAutomorphisms: true, SpaceLimit: -1}
	if why := stmatchIneligible(plan.Build(f.prob.Data, f.prob.Pattern, opts)); why == "" {
		t.Error("a plan without a candidate space is eligible for stmatch")
	}
	opts.SpaceLimit = 0
	if why := stmatchIneligible(plan.Build(f.prob.Data, f.prob.Pattern, opts)); why != "" {
		t.Errorf("plan with a candidate space: %s", why)
	}
}

func TestEmptyPlan(t *testing.T) {
	f := newFixture(t)
	p, _ := pattern.Parse("(a:5)-(b)")
	f.prob.Pattern = p
	e := Engine{Rules: f.rules(Rules{CPUNodesPerSecond: slowCPU})}
	res, d, err := e.CountDecision(context.Background(), f.prob)
	if err != nil || res.Count != 0 || d.Engine != "cpu" || f.gpuChecks != 0 {
		t.Fatalf("count %d, decision %+v, error %v", res.Count, d, err)
	}
}

func TestCancelledWhilePlanning(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e := Engine{Rules: f.rules(Rules{})}
	res, _, err := e.CountDecision(ctx, f.prob)
	if !errors.Is(err, context.Canceled) || !res.Partial {
		t.Errorf("partial %v, error %v", res.Partial, err)
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
	d := Decision{Engine: "cpu", Reason: "estimated 3.1e5 search nodes, below the GPU threshold 2e8"}
	if got := d.String(); got != "cpu (auto: estimated 3.1e5 search nodes, below the GPU threshold 2e8)" {
		t.Errorf("String() = %q", got)
	}
}

// TestCliqueDecision: a clique is decided without a plan, between the CPU engine's clique
// counter and stmatch (its clique kernel), by the CPU time predicted from the edges; the GPU is
// looked for only when that is above the GPU's start-up. Listing a clique decides as usual.
func TestCliqueDecision(t *testing.T) {
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)")
	if err != nil {
		t.Fatal(err)
	}
	fast := Rules{CPUNodesPerSecond: slowCPU, STMatchNodesPerSecond: 1e15, STMatchWarpNodesPerSecond: 1e15, GenevaRowsPerSecond: 1e15}
	slow := fast
	slow.CliqueCPUSecondsPerEdge = 1
	for _, c := range []struct {
		name      string
		rules     Rules
		gpuErr    error
		want      string
		gpuChecks int
		reason    string
	}{
		{"small graph", fast, nil, "cpu", 0, "below the GPU's start-up"},
		{"large graph", slow, nil, "stmatch", 1, "clique kernel"},
		{"large graph, no GPU", slow, gpu.ErrNoGPU, "cpu", 1, "but no GPU"},
	} {
		f := newFixture(t)
		f.prob.Pattern, f.gpuErr = p, c.gpuErr
		e := Engine{Rules: f.rules(c.rules)}
		res, d, err := e.CountDecision(context.Background(), f.prob)
		if err != nil || d.Engine != c.want || d.Plan() != nil || f.gpuChecks != c.gpuChecks ||
			!strings.Contains(d.Reason, "4-clique") || !strings.Contains(d.Reason, c.reason) {
			t.Fatalf("%s: decision %+v (%d GPU checks), error %v", c.name, d, f.gpuChecks, err)
		}
		want := cpuCount(t, f.prob)
		if c.want == "stmatch" {
			want = 1001 // the fake stmatch engine's count
		}
		if res.Count != want {
			t.Errorf("%s: count %d, want %d", c.name, res.Count, want)
		}
		if d, err := e.Decide(context.Background(), f.prob, true); err != nil || strings.Contains(d.Reason, "clique") {
			t.Errorf("%s: listing a clique: %+v, %v", c.name, d, err)
		}
	}
}
