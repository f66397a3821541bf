// Package auto owns the choice of engine behind --engine auto. It works from whatever engines
// are registered and never names one: the planner (the engine implementing engine.Planner, the
// CPU engine) builds its plan, the plan's search is bounded and, when the bound leaves the choice
// open, estimated (plan.Estimate, Knuth's random probes); every engine implementing
// engine.Predictor predicts its time from that, and the fastest runs. Devices are looked for only
// when the planner's predicted time exceeds the smallest start-up cost of an engine that needs
// one, so small jobs never pay for CUDA's start-up; while the GPU starts, the device engine
// expected to win prepares its count (engine.Preparer: stmatch's order search). A device engine
// that fails (other than by cancellation or overflow) is replaced by the planner.
//
// Once the GPU is found, its memory (lowered to --gpu-memory) is in the workload: an engine
// whose data does not fit predicts an out-of-core run instead (stmatch with its graph in host or
// managed memory, sgsi, pbe with its GPU backend; engine.Prediction.OutOfCore, Run), and such a
// prediction is taken only when it is outOfCoreMargin times faster than the rest, so that a
// graph too large for the GPU stays on the CPU unless the GPU is clearly ahead.
//
// The rates are those of a warm kernel cache. A device engine whose kernels (engine.KernelUser)
// the cache does not hold on this machine (gpu.KernelCacheState: before the GPU starts, from the
// cache's record of this host's devices; after, for the devices found) is predicted with their
// compile added, once: the start-up that decides whether to look for the GPU at all, and the
// engine's prediction (--explain says so). A warm cache, or one that cannot say, changes nothing.
//
// The rates behind the predictions live with each engine (engine/cpu/describe.go,
// engine/stmatch/describe.go, ...), each with the measurements it comes from
// (docs/DESIGN.md, "How --engine auto chooses").
package auto

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/plan"
)

// The estimate's bounds: it stops after maxProbes, or once it has read estimateWorkLimit list
// entries (about 3 ms), or once its probes have visited estimateNodeShare of the nodes it
// predicts for the whole search (so that small searches pay little for it: the github and HPRD
// queries lose 0-0.5 ms to it), whichever comes first, but not before minProbes (about 40 µs on
// the 16-level HPRD queries). The seed makes the decision reproducible.
const (
	maxProbes         = 4096
	minProbes         = 64
	estimateWorkLimit = 500_000
	estimateNodeShare = 0.003
	estimateSeed      = 1
)

// estimateTimeShare bounds the estimate's time to this share of the smallest start-up of a device
// engine (0.3 s for stmatch's): the estimate is made only when the plan's bound puts the
// planner's time above that start-up, and whatever engine it then chooses, device or host,
// its run is predicted from the estimate, which keeps the probes a small part of it (NodeShare
// for the host's; a device run takes at least its start-up). The work limit stops the estimate
// (1.4-17 ms on the 2-core test machine for STMatch's patterns on wiki-Vote), so that the same
// query gets the same choice however loaded the machine is; the budget is only a safety net
// against probes far slower than their list entries say (the estimate, and the choice, are then
// not reproducible: a debug log says so). It was a tenth of the start-up (30 ms) until
// 2026-12-05, which a machine ten times slower than the test machine reached.
const estimateTimeShare = 1

// Rules are the inputs of the decision that tests replace; a nil field means the default.
type Rules struct {
	// GPU reports the GPU a GPU engine would run on, or why there is none. It is called only
	// when the planner's predicted time is above a GPU engine's start-up cost. Default: gpu.Open.
	GPU func(ctx context.Context) (device string, err error)
	// Engines lists the engines to choose among (auto itself is skipped). Default: every
	// registered engine.
	Engines func() []engine.Engine
	// Memory reports the found GPU's free memory (what its budget leaves) and its whole
	// memory, after GPU succeeded (0: unknown, and the graph is taken to fit). Default: the
	// first device's figures from gpu.Open.
	Memory func(ctx context.Context) (free, total uint64)
	// KernelState reports whether a kernel file (engine.Kernel) is compiled on this machine; it
	// is asked before GPU is called and after. Default: gpu.KernelCacheState.
	KernelState func(file string) gpu.KernelState
	// EstimateBudget bounds the time of the search-size estimate behind a choice, a safety net
	// behind its work limit. Default (0): the smallest start-up of a device engine
	// (estimateTimeShare). Tests set a long one, so that a choice does not depend on how busy
	// the machine is even where the safety net would stop it.
	EstimateBudget time.Duration
}

func (r Rules) withDefaults() Rules {
	if r.GPU == nil {
		r.GPU = openGPU
	}
	if r.Memory == nil {
		r.Memory = gpuMemory
	}
	if r.Engines == nil {
		r.Engines = engine.Engines
	}
	if r.KernelState == nil {
		r.KernelState = gpu.KernelCacheState
	}
	return r
}

// openGPU opens the GPUs (once per process; gpu.Open caches the outcome).
func openGPU(ctx context.Context) (string, error) {
	devs, err := gpu.Open(ctx)
	if err != nil {
		return "", err
	}
	if len(devs) == 0 {
		return "", gpu.ErrNoGPU
	}
	return devs[0].String(), nil
}

// gpuMemory reports the first device's free and whole memory (0, 0 without one).
func gpuMemory(ctx context.Context) (free, total uint64) {
	devs, err := gpu.Open(ctx)
	if err != nil || len(devs) == 0 {
		return 0, 0
	}
	return devs[0].Budget().Available(), devs[0].Info().TotalMem
}

// outOfCoreMargin is how many times faster than the others an out-of-core prediction
// (engine.Prediction.OutOfCore) must be for auto to take it: the rates of those runs are the
// least certain (each from one or two device runs), and the host is the safe choice.
const outOfCoreMargin = 2

// Prediction is the predicted time of one engine.
type Prediction struct {
	Engine  string
	Seconds float64
	// Note says what dominates the prediction or why the engine was left out (Seconds < 0).
	Note string
	// OutOfCore and Mode are the engine's (engine.Prediction): a run with the graph beyond the
	// GPU's memory, in the configuration Mode names.
	OutOfCore bool
	Mode      string
	// Compile is the part of Seconds that compiles kernels the cache does not hold on this
	// machine (Cold names them): paid once, then cached.
	Compile float64
	Cold    []engine.Kernel

	run engine.Engine // the engine configured for the prediction, when not the registered one
}

// weighed is the prediction's time as compared: an out-of-core one's run times
// outOfCoreMargin (its compile is as certain as any other's).
func (p Prediction) weighed() float64 {
	if p.OutOfCore {
		return (p.Seconds-p.Compile)*outOfCoreMargin + p.Compile
	}
	return p.Seconds
}

// Decision is the engine auto chose for a problem, and why.
type Decision struct {
	// Engine is the name of the chosen engine.
	Engine string
	// Reason says why, in a few words for people (count --explain prints it).
	Reason string
	// Listing is set when the decision is for Matches rather than Count.
	Listing bool
	// Estimated is set when the search was estimated; Estimate is then the estimate and
	// Threshold the search nodes above which a device engine is considered (the planner's
	// predicted time equals the smallest start-up there).
	Estimated bool
	Estimate  plan.Estimate
	Threshold float64
	// RunPlan, when not nil, is the plan the planner counts with in place of the one built
	// (engine.RunPlanner), and RunEstimate its estimate, which the planner's prediction read.
	RunPlan     *plan.Plan
	RunEstimate plan.Estimate
	// Bound is plan.NodeBound of the plan (0 when no plan was built).
	Bound float64
	// Threads is the host thread count the predictions assumed.
	Threads int
	// GPUChecked is set when the GPU was looked for; GPU then names it, or GPUErr says why there
	// is none.
	GPUChecked bool
	GPU        string
	GPUErr     error
	// Predictions lists the predicted times of the engines compared (when a GPU was found).
	Predictions []Prediction
	// GPUMemory is the GPU memory the predictions assumed (the problem's --gpu-memory, else
	// the device's free memory; 0: unknown), DeviceMemory the device's whole memory.
	GPUMemory, DeviceMemory uint64
	// Mode names the configuration of the chosen engine when the predictions chose one
	// (Prediction.Mode: "graph in host memory (zero-copy)"); "" for the registered engine.
	Mode string

	run engine.Engine // the engine configured for Mode

	plan     *plan.Plan // the planner's plan, when built
	planTime time.Duration
	among    *contenders // the engines Decide chose among, kept for CountWith and MatchesWith
	// prepared is the count of the chosen engine, started while the GPU was looked for
	// (engine.Preparer), until CountWith takes it or Release drops it; preparedFor names the
	// engine.
	prepared    engine.Prepared
	preparedFor string
}

// Release drops the count that Decide may have started preparing for the chosen engine (its
// planning, in the background). CountWith takes it over; a caller that decides without counting
// with CountWith calls Release. Releasing twice, or a decision with nothing prepared, is harmless.
func (d *Decision) Release() {
	if d.prepared != nil {
		d.prepared.Release()
		d.prepared, d.preparedFor = nil, ""
	}
}

// String renders the decision as count --explain prints it: "cpu (auto: ...)", or with the
// chosen configuration: "stmatch, graph in host memory (zero-copy) (auto: ...)".
func (d Decision) String() string {
	if d.Mode != "" {
		return d.Engine + ", " + d.Mode + " (auto: " + d.Reason + ")"
	}
	return d.Engine + " (auto: " + d.Reason + ")"
}

// Explain renders the decision for count --explain: String's line, then, when engines were
// compared, one line per prediction (its time, an out-of-core one also as weighed, what it rests
// on, or why the engine was left out), the chosen one marked.
func (d Decision) Explain() string {
	var b strings.Builder
	b.WriteString(d.String())
	if len(d.Predictions) == 0 {
		return b.String()
	}
	fmt.Fprintf(&b, "\npredicted on %d thread(s)", d.Threads)
	if d.GPUChecked && d.GPU != "" {
		b.WriteString(" and " + d.GPU)
		if d.GPUMemory > 0 {
			b.WriteString(" with " + gpu.FormatBytes(d.GPUMemory) + " of GPU memory")
		}
	}
	fmt.Fprintf(&b, " (an out-of-core run weighed %dx; the least weighed time is chosen):", outOfCoreMargin)
	for _, pr := range d.Predictions {
		name := pr.Engine
		if pr.Mode != "" {
			name += ", " + pr.Mode
		}
		switch {
		case pr.Seconds < 0:
			fmt.Fprintf(&b, "\n  %s: left out (%s)", pr.Engine, pr.Note)
			continue
		case pr.OutOfCore:
			fmt.Fprintf(&b, "\n  %s: %s out of core, weighed %s (%s)", name, seconds(pr.Seconds), seconds(pr.weighed()), pr.Note)
		default:
			fmt.Fprintf(&b, "\n  %s: %s (%s)", name, seconds(pr.Seconds), pr.Note)
		}
		if pr.Compile > 0 {
			b.WriteString(", with " + seconds(pr.Compile) + " of kernel compile")
		}
		if pr.Engine == d.Engine && pr.Mode == d.Mode {
			b.WriteString("  <- chosen")
		}
	}
	return b.String()
}

// chosen returns the engine to run for d among c: the configured one when d has a Mode.
func (d *Decision) chosen(c contenders) (engine.Engine, bool) {
	if d.run != nil {
		return d.run, true
	}
	eng, ok := c.byName[d.Engine]
	return eng, ok
}

// Plan returns the planner's plan the decision was made on (nil when none was built).
func (d Decision) Plan() *plan.Plan { return d.plan }

// Engine is the auto engine; the zero value uses the default rules.
type Engine struct {
	// Rules, when set, replaces the defaults (nil fields keep theirs).
	Rules *Rules
}

func init() { engine.Register(Engine{}) }

// Name implements engine.Engine.
func (Engine) Name() string { return "auto" }

// Capabilities implements engine.Describer.
func (Engine) Capabilities() engine.Capabilities {
	return engine.Capabilities{Device: engine.Host, Lists: true,
		Summary: "chooses per query the engine predicted to finish first"}
}

func (e Engine) rules() Rules {
	if e.Rules == nil {
		return Rules{}.withDefaults()
	}
	return e.Rules.withDefaults()
}

// contenders are the engines a decision is among.
type contenders struct {
	host      engine.Engine // the planner
	planner   engine.Planner
	hostPred  engine.Predictor // nil when the planner does not predict
	devices   []engine.Engine  // predictors that need a device
	minStart  float64          // the smallest start-up among devices
	byName    map[string]engine.Engine
	listing   bool
	noDevices string // why there are none, when there are none
}

func (e Engine) contenders(r Rules, listing bool) (contenders, error) {
	c := contenders{byName: map[string]engine.Engine{}, listing: listing, minStart: math.Inf(1)}
	for _, eng := range r.Engines() {
		if eng.Name() == e.Name() {
			continue
		}
		c.byName[eng.Name()] = eng
		if pl, ok := eng.(engine.Planner); ok && c.planner == nil {
			c.host, c.planner = eng, pl
			c.hostPred, _ = eng.(engine.Predictor)
			continue
		}
		pr, ok := eng.(engine.Predictor)
		caps := engine.Describe(eng)
		if !ok || (caps.Device == engine.Host && !caps.OutOfCore) || (listing && !caps.Lists) {
			continue
		}
		c.devices = append(c.devices, eng)
		c.minStart = min(c.minStart, pr.StartSeconds())
	}
	if c.planner == nil {
		return c, errors.New("auto: no registered engine plans (import engine/cpu)")
	}
	if len(c.devices) == 0 {
		c.noDevices = "no GPU engine is built in"
		if listing {
			c.noDevices = "listing, and no GPU engine lists matches"
		}
	}
	return c, nil
}

// Decide chooses the engine for counting (listing false) or listing the matches of p, without
// running it. It builds and estimates the planner's plan unless no device engine could run the
// job anyway; it waits for the GPU only when the estimate says a device engine could finish
// first (on a data graph above smallGraphBytes it starts looking for it at once, beside the
// planning, and a CPU choice may then leave that lookup unfinished: it is not waited for).
// While it waits for the GPU it starts preparing the count of the device engine the
// predictions favour (engine.Preparer; counting only), which CountWith takes over: a caller that
// does not count with CountWith calls Decision.Release. An error is returned only when planning
// fails (bad problem, memory limit, ctx ended).
func (e Engine) Decide(ctx context.Context, p *engine.Problem, listing bool) (Decision, error) {
	r := e.rules()
	c, err := e.contenders(r, listing)
	if err != nil {
		return Decision{}, err
	}
	d := Decision{Engine: c.host.Name(), Listing: listing, Threads: p.ThreadCount(), among: &c}
	for _, eng := range r.Engines() {
		if sc, ok := eng.(engine.Shortcut); ok && eng.Name() != e.Name() {
			if ok, why := sc.Takes(p, listing); ok {
				c.byName[eng.Name()] = eng
				d.Engine, d.Reason = eng.Name(), why
				return d, nil
			}
		}
	}
	if len(c.devices) == 0 {
		d.Reason = c.noDevices
		return d, nil
	}
	w := &engine.Workload{Problem: p, Listing: listing, Threads: d.Threads}
	lookup := gpuLookup{ctx: ctx, open: r.GPU}
	if !smallGraph(p) {
		// On a graph above smallGraphBytes the plan and the estimate take as long as CUDA's
		// start or longer (R-MAT scale 22, 106 M edges: 1.3 s on the device host, which then
		// waited for the GPU after them), and the count that follows takes seconds, beside which
		// a start that turns out not to be needed (the driver's teardown at exit) is small: look
		// for the GPU now, beside the planning.
		lookup.start()
	}

	var what string // what the host's prediction rests on, for the reason
	hostW := w      // the workload of the host's prediction: the plan it runs (runWorkload)
	cl, isClique := plan.AsClique(p.Data, p.Pattern)
	if isClique && !listing {
		w.Clique = &cl
	}
	// The GPU's start-up: the least among the device engines, with the compile of kernels that
	// the cache does not hold on this machine (as far as it can say before the GPU starts).
	// The cache is asked only once a host time reaches the warm start-up (c.minStart), the
	// least it can be: below that the compile cannot change the choice, and asking costs a
	// count of a small graph a few hundred microseconds (the kernels' sources hashed, the
	// cache's index read and its files looked up, once a process).
	gpuStart, compile := c.minStart, 0.0
	asked := false
	startFor := func(host float64) float64 {
		if host >= c.minStart && !asked {
			gpuStart, compile = startSeconds(c, w, r.KernelState)
			asked = true
		}
		return gpuStart
	}
	// coldNote is said of a host time below gpuStart that would have been above without the
	// compile.
	coldNote := func(host float64) string {
		if host < c.minStart {
			return ""
		}
		return " (with " + seconds(compile) + " of kernel compile: not cached on this machine yet)"
	}
	if w.Clique != nil {
		what = fmt.Sprintf("a %d-clique", cl.K)
	} else {
		start := time.Now()
		opts, err := c.planner.PlanOptions(p, listing)
		if err != nil {
			return d, err
		}
		pl, err := plan.BuildContext(ctx, p.Data, p.Pattern, opts)
		if err != nil {
			return d, err
		}
		d.plan, w.Plan = pl, pl
		if pl.Empty {
			d.planTime = time.Since(start)
			d.Reason = "some pattern vertex has no candidate"
			return d, nil
		}
		// A bound from the plan settles small searches without probing.
		d.Bound, w.Bound = pl.NodeBound(), pl.NodeBound()
		hp, err := hostPrediction(ctx, c, w, d.Threads)
		if err != nil {
			d.planTime = time.Since(start)
			return d, err
		}
		s := hp.Seconds
		d.Threshold = threshold(d.Bound, s, startFor(s))
		if s < gpuStart {
			d.planTime = time.Since(start)
			d.Reason = "at most " + sci(d.Bound) + " search nodes (bound from the plan), below the GPU threshold " + sci(d.Threshold) + coldNote(s)
			return d, nil
		}
		eopts := plan.EstimateOptions{Seed: estimateSeed, Probes: maxProbes,
			MinProbes: minProbes, WorkLimit: estimateWorkLimit, NodeShare: estimateNodeShare,
			Budget: time.Duration(estimateTimeShare * c.minStart * float64(time.Second))}
		if e.rules().EstimateBudget > 0 {
			eopts.Budget = e.rules().EstimateBudget
		}
		if t, ok := c.planner.(engine.EstimateTuner); ok {
			t.TuneEstimate(p, &eopts)
		}
		est, err := pl.Estimate(ctx, p.Data, eopts)
		d.planTime = time.Since(start)
		if err != nil {
			return d, err
		}
		overBudget(est, eopts)
		d.Estimated, d.Estimate, w.Estimate = true, est, &est
		what = "estimated " + sci(est.Nodes) + " search nodes"
		if hw, err := runWorkload(ctx, c, w, eopts, listing); err != nil {
			return d, err
		} else if hw != w {
			hostW, d.RunPlan, d.RunEstimate = hw, hw.Plan, *hw.Estimate
			what += " (" + sci(hw.Estimate.Nodes) + " in the plan " + c.host.Name() + " runs)"
		}
	}
	host, err := hostPrediction(ctx, c, hostW, d.Threads)
	if err != nil {
		return d, err
	}
	hostSeconds := host.Seconds
	startFor(hostSeconds)
	if d.Estimated {
		// The threshold again from the estimate's own prediction: the plan's bound priced the
		// bound's search, and a prediction that prices counts by what the engine runs (edge
		// supports, leaf sums) is not proportional to nodes, so the bound's threshold could
		// read "5.2e7 search nodes, below the GPU threshold 4.3e7".
		d.Threshold = threshold(d.Estimate.Nodes, hostSeconds, gpuStart)
	}
	below, above := ", below the GPU threshold "+sci(d.Threshold)+coldNote(hostSeconds), ", above the GPU threshold "+sci(d.Threshold)
	if w.Clique != nil {
		what += ": " + c.host.Name() + " predicted " + seconds(hostSeconds) + " on " + strconv.Itoa(d.Threads) + " thread(s)"
		below, above = ", below the GPU's start-up "+seconds(gpuStart)+coldNote(hostSeconds), ", above the GPU's start-up "+seconds(gpuStart)
	}
	if hostSeconds < gpuStart {
		d.Reason = what + below
		return d, nil
	}
	// Before the GPU is known the device engines' predictions are their best: the graph in
	// their memory, the kernels compiled. When the host beats even those on a graph any GPU
	// holds, the GPU is not looked for: CUDA's start and the driver's teardown at exit (a few
	// hundred milliseconds) would be paid for a choice already made.
	best, preds, err := predict(ctx, c, w, host, assumeCached)
	if err != nil {
		return d, err
	}
	if best.Engine == c.host.Name() && smallGraph(p) {
		d.Predictions = preds
		d.Reason = what + "; predicted " + describe(preds) + " (the device engines at their best: the graph in GPU memory, their kernels cached), so the GPU was not looked for"
		return d, nil
	}
	// Look for the GPU (CUDA's start: a few hundred milliseconds) and meanwhile start preparing
	// the count of the device engine that the predictions favour (engine.Preparer), so that its
	// planning overlaps the start instead of following it. The predictions are made again with
	// the GPU's name once it is known; the preparation is dropped when no GPU is found or the
	// choice differs.
	d.GPUChecked = true
	found := lookup.start()
	if !listing {
		pick, _, err := predict(ctx, c, w, host, r.KernelState)
		if err != nil {
			return d, err
		}
		if pick.Engine != c.host.Name() && pick.run == nil {
			if pr, ok := c.byName[pick.Engine].(engine.Preparer); ok {
				d.prepared, d.preparedFor = pr.PrepareCount(ctx, p, d.plan), pick.Engine
			}
		}
	}
	gpuFound := <-found
	d.GPU, d.GPUErr = gpuFound.name, gpuFound.err
	if d.GPUErr != nil {
		d.Release()
		why, _, _ := strings.Cut(d.GPUErr.Error(), "; ") // the first cause; GPUErr has them all
		d.Reason = what + above + ", but no GPU: " + why
		return d, nil
	}
	w.GPU = d.GPU
	d.GPUMemory, d.DeviceMemory = r.Memory(ctx)
	if p.GPUMemoryLimit > 0 && (d.GPUMemory == 0 || p.GPUMemoryLimit < d.GPUMemory) {
		d.GPUMemory = p.GPUMemoryLimit
	}
	w.GPUMemory, w.DeviceMemory, w.HostSeconds = d.GPUMemory, d.DeviceMemory, hostSeconds
	pick, preds, err := predict(ctx, c, w, host, r.KernelState)
	if err != nil {
		d.Release()
		return d, err
	}
	d.Predictions = preds
	d.Engine, d.Mode, d.run = pick.Engine, pick.Mode, pick.run
	if d.Engine != d.preparedFor || d.run != nil {
		d.Release()
	}
	d.Reason = what + "; predicted " + describe(d.Predictions)
	if d.Mode != "" {
		d.Reason += "; " + d.Engine + " runs with the " + d.Mode
	}
	d.Reason += describeCold(d.Predictions, pick)
	return d, nil
}

// coldCompile is what eng's run for w spends compiling the kernels (engine.KernelUser) that
// state says the kernel cache does not hold on this machine, and those kernels.
func coldCompile(eng engine.Engine, w *engine.Workload, state func(file string) gpu.KernelState) (float64, []engine.Kernel) {
	ku, ok := eng.(engine.KernelUser)
	if !ok {
		return 0, nil
	}
	var s float64
	var cold []engine.Kernel
	for _, k := range ku.Kernels(w) {
		if state(k.File) == gpu.KernelNotCached {
			s += k.ColdSeconds
			cold = append(cold, k)
		}
	}
	return s, cold
}

// startSeconds is the least start-up among c's device engines for w, each with the compile of
// its kernels that state says are not cached (coldCompile), and the compile of that least one.
func startSeconds(c contenders, w *engine.Workload, state func(file string) gpu.KernelState) (start, compile float64) {
	start = math.Inf(1)
	for _, eng := range c.devices {
		cold, _ := coldCompile(eng, w, state)
		if s := eng.(engine.Predictor).StartSeconds() + cold; s < start {
			start, compile = s, cold
		}
	}
	return start, compile
}

// describeCold says, for the reason, which predictions include a first compile that matters:
// the chosen one's (pick), and those that would have been chosen without it. "; stmatch's kernel
// is not compiled on this machine yet: about 6.5 s once, then cached (...)".
func describeCold(preds []Prediction, pick Prediction) string {
	var out []string
	for _, pr := range preds {
		if pr.Seconds < 0 || len(pr.Cold) == 0 {
			continue
		}
		warm := pr
		warm.Seconds, warm.Compile = pr.Seconds-pr.Compile, 0
		if pr.Engine != pick.Engine && warm.weighed() >= pick.weighed() {
			continue
		}
		what := pr.Engine + "'s kernel is"
		if len(pr.Cold) > 1 {
			var files []string
			for _, k := range pr.Cold {
				files = append(files, k.File)
			}
			what = pr.Engine + "'s kernels (" + strings.Join(files, ", ") + ") are"
		}
		out = append(out, what+" not compiled on this machine yet: about "+seconds(pr.Compile)+" once, then cached")
	}
	if len(out) == 0 {
		return ""
	}
	return "; " + strings.Join(out, "; ") + " (`submatch gpu-info --compile` compiles every kernel ahead)"
}

// describe lists predictions for the reason: an out-of-core one with its note and the margin
// it is weighed with.
func describe(preds []Prediction) string {
	var out []string
	for _, pr := range preds {
		switch {
		case pr.Seconds < 0:
			out = append(out, pr.Engine+" not eligible ("+pr.Note+")")
		case pr.OutOfCore:
			out = append(out, fmt.Sprintf("%s %s out of core (%s; weighed %dx)", pr.Engine, seconds(pr.Seconds), pr.Note, outOfCoreMargin))
		default:
			out = append(out, pr.Engine+" "+seconds(pr.Seconds))
		}
	}
	return strings.Join(out, ", ")
}

// predict returns the predicted times of the planner (host) and of every device engine for w,
// each with the compile of its kernels that state says are not cached (coldCompile), and the
// prediction of least time, out-of-core ones weighed with outOfCoreMargin; an error only when
// ctx ends meanwhile (a device engine whose prediction fails otherwise is not eligible).
func predict(ctx context.Context, c contenders, w *engine.Workload, host Prediction, state func(file string) gpu.KernelState) (Prediction, []Prediction, error) {
	preds := []Prediction{host}
	best := preds[0]
	for _, eng := range c.devices {
		pr, err := eng.(engine.Predictor).Predict(ctx, w)
		if err != nil {
			if ctx.Err() != nil {
				return best, preds, fmt.Errorf("auto: %w", err)
			}
			pr = engine.Prediction{Seconds: -1, Note: "its prediction failed: " + err.Error()}
		}
		pred := Prediction{Engine: eng.Name(), Seconds: pr.Seconds, Note: pr.Note,
			OutOfCore: pr.OutOfCore, Mode: pr.Mode, run: pr.Run}
		if pr.Eligible() {
			pred.Compile, pred.Cold = coldCompile(eng, w, state)
			pred.Seconds += pred.Compile
		}
		preds = append(preds, pred)
		if pr.Eligible() && preds[len(preds)-1].weighed() < best.weighed() {
			best = preds[len(preds)-1]
		}
	}
	return best, preds, nil
}

// assumeCached is the kernel cache's state taken for every kernel before the GPU is known.
func assumeCached(string) gpu.KernelState { return gpu.KernelCached }

// smallGraphBytes bounds the data graphs on which the host's win over the device engines'
// best predictions (in core) stands without knowing the GPU: their CSR fits any GPU's memory.
var smallGraphBytes uint64 = 256 << 20 // a variable so that tests can take the large graphs' path

// smallGraph reports whether p's data graph, as a CSR, is under smallGraphBytes.
func smallGraph(p *engine.Problem) bool {
	if p.Data == nil {
		return false
	}
	n, m := uint64(p.Data.NumVertices()), p.Data.NumEdges()
	return 8*(n+1)+8*m < smallGraphBytes
}

// runWorkload returns w with the plan the planner counts with in place of w's plan, estimated
// with opts, when the planner runs another (engine.RunPlanner: the CPU engine may count with a
// plan that breaks all of the pattern's symmetry); else w itself.
func runWorkload(ctx context.Context, c contenders, w *engine.Workload, opts plan.EstimateOptions, listing bool) (*engine.Workload, error) {
	rp, ok := c.planner.(engine.RunPlanner)
	if !ok || listing || w.Plan == nil {
		return w, nil
	}
	run, _ := rp.RunPlan(ctx, w.Problem, w.Plan)
	if run == nil || run == w.Plan {
		return w, ctx.Err()
	}
	est, err := run.Estimate(ctx, w.Problem.Data, opts)
	if err != nil {
		return w, err
	}
	overBudget(est, opts)
	hw := *w
	hw.Plan, hw.Estimate, hw.Bound = run, &est, run.NodeBound()
	return &hw, nil
}

// overBudget logs an estimate that its time budget (the safety net) stopped: the choice made
// from it depends on the machine's load.
func overBudget(est plan.Estimate, opts plan.EstimateOptions) {
	if est.OverBudget {
		slog.Debug("auto: the search-size estimate stopped at its time budget (the choice depends on the machine's load)",
			"budget", opts.Budget, "probes", est.Probes, "scanned", est.Scanned, "work_limit", opts.WorkLimit)
	}
}

// threshold is the search nodes at which the planner's time, seconds for nodes, reaches start:
// the size above which a device engine is considered.
func threshold(nodes, seconds, start float64) float64 {
	if seconds <= 0 {
		return math.Inf(1)
	}
	return nodes * start / seconds
}

// hostPrediction is the planner's predicted time for w on threads, with what it rests on (its
// engine.Prediction's note, else the threads); a planner that does not predict is taken as
// always fast enough (0 s). The error is the prediction's (ctx ended).
func hostPrediction(ctx context.Context, c contenders, w *engine.Workload, threads int) (Prediction, error) {
	host := Prediction{Engine: c.host.Name(), Note: fmt.Sprintf("%d thread(s)", threads)}
	if c.hostPred == nil {
		return host, ctx.Err()
	}
	pr, err := c.hostPred.Predict(ctx, w)
	if err != nil {
		return host, fmt.Errorf("auto: %w", err)
	}
	host.Seconds = pr.Seconds
	if pr.Note != "" {
		host.Note = pr.Note
	}
	return host, nil
}

// Count implements engine.Engine: it decides, then counts with the chosen engine.
func (e Engine) Count(ctx context.Context, p *engine.Problem) (engine.Result, error) {
	res, _, err := e.CountDecision(ctx, p)
	return res, err
}

// CountDecision is Count that also returns the decision (with the engine that actually ran).
func (e Engine) CountDecision(ctx context.Context, p *engine.Problem) (engine.Result, Decision, error) {
	d, err := e.Decide(ctx, p, false)
	if err != nil {
		res := engine.Result{PlanTime: d.planTime}
		if ctx.Err() != nil {
			res.Partial = true
		}
		return res, d, err
	}
	return e.CountWith(ctx, p, &d)
}

// CountWith counts with the engine d chose (d from Decide for p, counting), from the count Decide
// started preparing for it when there is one. When a device engine fails for a reason other than
// cancellation or overflow, the count is redone by the planner and d says so.
func (e Engine) CountWith(ctx context.Context, p *engine.Problem, d *Decision) (engine.Result, Decision, error) {
	c, err := e.decidedAmong(d, false)
	if err != nil {
		d.Release()
		return engine.Result{}, *d, err
	}
	prepared := d.prepared
	if d.preparedFor != d.Engine {
		d.Release()
		prepared = nil
	}
	d.prepared, d.preparedFor = nil, ""
	if d.Engine != c.host.Name() {
		var res engine.Result
		eng, ok := d.chosen(c)
		if !ok {
			err = fmt.Errorf("engine %q is not registered", d.Engine)
		} else if prepared != nil {
			res, err = prepared.Count(ctx)
		} else if fp, reuse := eng.(engine.PlanReuser); reuse && d.plan != nil {
			res, err = fp.CountFrom(ctx, p, d.plan)
		} else {
			res, err = eng.Count(ctx, p)
		}
		if err == nil || ctx.Err() != nil || errors.Is(err, engine.ErrOverflow) {
			return res, *d, err
		}
		d.Reason += "; " + d.Engine + " failed (" + err.Error() + "), counted on " + c.host.Name()
		d.Engine = c.host.Name()
	}
	if d.plan == nil {
		res, err := c.host.Count(ctx, p)
		return res, *d, err
	}
	res, err := c.planner.CountPlan(ctx, p, d.plan, d.planTime)
	return res, *d, err
}

// Matches implements engine.Engine: it decides, then lists with the chosen engine.
func (e Engine) Matches(ctx context.Context, p *engine.Problem) iter.Seq2[[]uint32, error] {
	return func(yield func([]uint32, error) bool) {
		d, err := e.Decide(ctx, p, true)
		if err != nil {
			yield(nil, err)
			return
		}
		e.MatchesWith(ctx, p, &d)(yield)
	}
}

// MatchesWith lists with the engine d chose (d from Decide for p, listing).
func (e Engine) MatchesWith(ctx context.Context, p *engine.Problem, d *Decision) iter.Seq2[[]uint32, error] {
	c, err := e.decidedAmong(d, true)
	if err != nil {
		return func(yield func([]uint32, error) bool) { yield(nil, err) }
	}
	if eng, ok := d.chosen(c); ok && d.Engine != c.host.Name() {
		return eng.Matches(ctx, p)
	}
	if d.plan == nil {
		return c.host.Matches(ctx, p)
	}
	return c.planner.MatchesPlan(ctx, p, d.plan)
}

// decidedAmong returns the engines d was decided among, scanning the registry again only for a
// Decision that Decide did not make.
func (e Engine) decidedAmong(d *Decision, listing bool) (contenders, error) {
	if d.among != nil {
		return *d.among, nil
	}
	return e.contenders(e.rules(), listing)
}

// sci formats a count with two significant digits: 3.1e5, 120, 0.3, 0.
func sci(x float64) string {
	if x < 1000 {
		if x == math.Trunc(x) || x >= 10 {
			return strconv.FormatFloat(x, 'f', 0, 64)
		}
		return strconv.FormatFloat(x, 'g', 2, 64)
	}
	s := strconv.FormatFloat(x, 'e', 1, 64) // 3.1e+05
	mant, exp, _ := strings.Cut(s, "e")
	mant = strings.TrimSuffix(mant, ".0")
	return mant + "e" + strings.TrimLeft(strings.TrimPrefix(exp, "+"), "0")
}

// seconds formats a predicted time.
func seconds(s float64) string {
	switch {
	case s >= 10:
		return strconv.FormatFloat(s, 'f', 0, 64) + " s"
	case s >= 1:
		return strconv.FormatFloat(s, 'f', 1, 64) + " s"
	}
	return strconv.FormatFloat(s*1000, 'f', 0, 64) + " ms"
}

// gpuLookup looks for the GPU (Rules.GPU) once, on a goroutine of its own, from the first call
// of start; start returns the channel its result arrives on.
type gpuLookup struct {
	ctx   context.Context
	open  func(context.Context) (string, error)
	found chan gpuFound
}

// gpuFound is a GPU lookup's result: the GPU's name, or why there is none.
type gpuFound struct {
	name string
	err  error
}

func (l *gpuLookup) start() <-chan gpuFound {
	if l.found == nil {
		l.found = make(chan gpuFound, 1)
		go func() {
			name, err := l.open(l.ctx)
			l.found <- gpuFound{name, err}
		}()
	}
	return l.found
}
