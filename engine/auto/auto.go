// Package auto owns the choice of engine behind --engine auto: it builds the CPU engine's plan,
// estimates the size of its search (plan.Estimate, Knuth's random probes), predicts how long the
// CPU engine and each GPU engine would take from that estimate and a few measured rates, and runs
// the fastest. The GPU is opened only when the CPU's predicted time exceeds what a GPU engine
// spends before its first kernel, so small jobs never pay for CUDA's start-up. The GPU engines are
// found through the engine registry (the command line links them in), so this package does not
// depend on them.
//
// The rates and costs the rule uses are the constants below, each with the measurement it comes
// from; they are meant to be re-tuned as the engines change (docs/DESIGN.md, "How --engine auto
// chooses").
package auto

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/plan"
)

// The measured rates and costs of the rule. Nodes are plan.Estimate.Nodes of the CPU engine's
// plan (the assignments its search makes); times are whole count calls.
const (
	// CPUNodesPerSecond is the CPU engine's search rate per thread. Measured with one thread
	// (2-core AMD EPYC, 2026-11-23, search time = count call minus planning) against exact tree
	// sizes: github Q_18 13.4e6 nodes in 1.59 s (8.4e6/s), Q_17 5.7e5 in 42 ms (1.4e7/s), Q_16
	// 9.6e4 in 9.6 ms, Q_9 7.8e4 in 6.6 ms, Q_3 1.9e5 in 17 ms (1.0-1.2e7/s); Q_20 3.6e6/s (long
	// intersections); wiki-Vote 4-cycle 7.0e7 nodes in 1.35 s on 2 threads (2.6e7/s per thread).
	CPUNodesPerSecond = 1e7
	// CPUThreadGain is what each thread beyond the first adds, as a fraction of one thread's
	// rate (docs/benchmarks.md, thread scaling: 1.6-2.1x on 2 threads, 7-11x on 16).
	CPUThreadGain = 0.6
	// GPUStartSeconds is what a GPU engine spends in a fresh process before its kernels run:
	// CUDA context, kernel cache, uploads (docs/benchmarks.md: stmatch 0.2-0.24 s for the small
	// github queries on the H100, GENEVA 0.35-0.4 s whole process for the same).
	GPUStartSeconds = 0.3
	// STMatchNodesPerSecond is the stmatch kernel's throughput in CPU search nodes (H100,
	// 2026-11-23, with the work queue; docs/benchmarks.md "stmatch engine on the H100"): github
	// Q_18 13.4e6 nodes in 64 ms (2.1e8/s: deep plan, small sets), Q_3 1.9e5 in 1.7 ms (1.1e8/s),
	// wiki-Vote 4-cycle unique 7.0e7 in 20 ms (3.5e9/s). The low end is taken.
	STMatchNodesPerSecond = 2e8
	// STMatchWarpNodesPerSecond is the rate at which the heaviest level-1 subtree is searched.
	// Before the work queue one warp searched it alone (Q_18, 9.1e6 of its 13.4e6 nodes below
	// one level-1 vertex: 50 s, 2e5 nodes/s); now idle warps take halves of it, and Q_18 as a
	// whole takes 64 ms, so the subtree goes at least at 1.4e8 nodes/s.
	STMatchWarpNodesPerSecond = 1e8
	// GenevaRowsPerSecond is the GENEVA engine's rate in rows of its tables, taken as search
	// nodes plus embeddings (it enumerates every embedding breadth-first). The bound comes from
	// the only measured job large enough for the choice to matter: github Q_18, 1.2e9 embeddings,
	// unfinished after 10 s on the H100 (docs/benchmarks.md; Q_14 and Q_20 ran at 2e10 rows/s,
	// but the CPU engine does those in 14-50 ms).
	GenevaRowsPerSecond = 1e8
	// CliqueCPUSecondsPerEdge is the CPU clique counter's time for 4-cliques per data edge and
	// thread, taken as growing with k-3 for k-cliques (docs/benchmarks.md, 2 threads: R-MAT 16
	// 4-cliques 0.18 s, 3.2e-7 s an edge and thread; R-MAT 22 1.1e-6; wiki-Vote 5-cliques 22 ms
	// on one thread, 2.1e-7). Near the GPU's start-up cost (graphs of about a million edges)
	// the low figures count.
	CliqueCPUSecondsPerEdge = 3e-7
)

// STMatchMaxLevels is the most enumerated levels the stmatch kernel runs.
const STMatchMaxLevels = 32

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

// Rules are the inputs of the decision that tests replace; the zero value of each field means
// the default above (the GPU found through gpu.Open, engines through engine.Lookup).
type Rules struct {
	CPUNodesPerSecond         float64
	CPUThreadGain             float64
	GPUStartSeconds           float64
	STMatchNodesPerSecond     float64
	STMatchWarpNodesPerSecond float64
	GenevaRowsPerSecond       float64
	CliqueCPUSecondsPerEdge   float64
	// GPU reports the GPU a GPU engine would run on, or why there is none. It is called only
	// when the estimated CPU time is above the GPU's start-up cost.
	GPU func(ctx context.Context) (device string, err error)
	// Lookup finds a registered engine by name.
	Lookup func(name string) (engine.Engine, error)
}

func (r Rules) withDefaults() Rules {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&r.CPUNodesPerSecond, CPUNodesPerSecond)
	def(&r.CPUThreadGain, CPUThreadGain)
	def(&r.GPUStartSeconds, GPUStartSeconds)
	def(&r.STMatchNodesPerSecond, STMatchNodesPerSecond)
	def(&r.STMatchWarpNodesPerSecond, STMatchWarpNodesPerSecond)
	def(&r.GenevaRowsPerSecond, GenevaRowsPerSecond)
	def(&r.CliqueCPUSecondsPerEdge, CliqueCPUSecondsPerEdge)
	if r.GPU == nil {
		r.GPU = openGPU
	}
	if r.Lookup == nil {
		r.Lookup = engine.Lookup
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

// Lister is implemented by engines that say whether their Matches lists matches. --engine auto
// lists with a GPU engine only when it implements Lister and ListsMatches reports true; the CPU
// engine always lists.
type Lister interface {
	ListsMatches() bool
}

// The GPU engines auto chooses among, in order of preference on equal predictions.
var gpuEngines = []string{"stmatch", "geneva"}

// Prediction is the predicted time of one engine.
type Prediction struct {
	Engine  string
	Seconds float64
	// Note says what dominates the prediction or why the engine was left out (Seconds < 0).
	Note string
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
	// Threshold the estimated nodes above which a GPU engine is considered (the CPU's predicted
	// time equals GPUStartSeconds there).
	Estimated bool
	Estimate  plan.Estimate
	Threshold float64
	// Bound is plan.NodeBound of the plan (0 when no plan was built); below Threshold it
	// settles the choice without an estimate.
	Bound float64
	// Threads is the CPU thread count the prediction assumed.
	Threads int
	// GPUChecked is set when the GPU was looked for; GPU then names it, or GPUErr says why there
	// is none.
	GPUChecked bool
	GPU        string
	GPUErr     error
	// Predictions lists the predicted times of the engines compared (when a GPU was found).
	Predictions []Prediction

	plan     *plan.Plan // the CPU engine's plan, when built
	planTime time.Duration
}

// String renders the decision as count --explain prints it: "cpu (auto: ...)".
func (d Decision) String() string { return d.Engine + " (auto: " + d.Reason + ")" }

// Plan returns the CPU engine's plan the decision was made on (nil when none was built).
func (d Decision) Plan() *plan.Plan { return d.plan }

// Engine is the auto engine; the zero value uses the default rules.
type Engine struct {
	// Rules, when set, replaces the defaults (zero fields keep theirs).
	Rules *Rules
}

func init() { engine.Register(Engine{}) }

// Name implements engine.Engine.
func (Engine) Name() string { return "auto" }

func (e Engine) rules() Rules {
	if e.Rules == nil {
		return Rules{}.withDefaults()
	}
	return e.Rules.withDefaults()
}

// Decide chooses the engine for counting (listing false) or listing the matches of p, without
// running it. It builds and estimates the CPU engine's plan unless no GPU engine could run the
// job anyway; it opens the GPU only when the estimate says a GPU engine could finish first. An
// error is returned only when planning fails (bad problem, memory limit, ctx ended).
func (e Engine) Decide(ctx context.Context, p *engine.Problem, listing bool) (Decision, error) {
	r := e.rules()
	d := Decision{Engine: "cpu", Listing: listing, Threads: threads(p)}
	var candidates []engine.Engine
	for _, name := range gpuEngines {
		eng, err := r.Lookup(name)
		if err != nil {
			continue
		}
		if listing {
			if l, ok := eng.(Lister); !ok || !l.ListsMatches() {
				continue
			}
		}
		candidates = append(candidates, eng)
	}
	if len(candidates) == 0 {
		if listing {
			d.Reason = "listing, and no GPU engine lists matches"
		} else {
			d.Reason = "no GPU engine is built in"
		}
		return d, nil
	}

	if c, ok := plan.AsClique(p.Data, p.Pattern); ok && !listing {
		return e.decideClique(ctx, r, d, p, c, candidates), nil
	}
	start := time.Now()
	opts, err := cpu.PlanOptions(p, listing)
	if err != nil {
		return d, err
	}
	pl, err := plan.BuildContext(ctx, p.Data, p.Pattern, opts)
	if err != nil {
		return d, err
	}
	d.plan = pl
	if pl.Empty {
		d.planTime = time.Since(start)
		d.Reason = "some pattern vertex has no candidate"
		return d, nil
	}
	// The CPU's predicted rate, and the node count where its time reaches the GPU's start-up
	// cost. A bound from the plan below that settles small searches without probing.
	cpuRate := r.CPUNodesPerSecond * (1 + r.CPUThreadGain*float64(d.Threads-1))
	d.Threshold = r.GPUStartSeconds * cpuRate
	if d.Bound = pl.NodeBound(); d.Bound < d.Threshold {
		d.planTime = time.Since(start)
		d.Reason = "at most " + sci(d.Bound) + " search nodes (bound from the plan), below the GPU threshold " + sci(d.Threshold)
		return d, nil
	}
	est, err := pl.Estimate(ctx, p.Data, plan.EstimateOptions{Seed: estimateSeed, Probes: maxProbes,
		MinProbes: minProbes, WorkLimit: estimateWorkLimit, NodeShare: estimateNodeShare})
	d.planTime = time.Since(start)
	if err != nil {
		return d, err
	}
	d.Estimated, d.Estimate = true, est
	cpuSeconds := est.Nodes / cpuRate
	nodes := "estimated " + sci(est.Nodes) + " search nodes"
	if cpuSeconds < r.GPUStartSeconds {
		d.Reason = nodes + ", below the GPU threshold " + sci(d.Threshold)
		return d, nil
	}
	d.GPUChecked = true
	d.GPU, d.GPUErr = r.GPU(ctx)
	if d.GPUErr != nil {
		why, _, _ := strings.Cut(d.GPUErr.Error(), "; ") // the first cause; GPUErr has them all
		d.Reason = nodes + ", above the GPU threshold " + sci(d.Threshold) + ", but no GPU: " + why
		return d, nil
	}

	// Predicted GPU times. stmatch breaks symmetry and multiplies by |Aut| as the CPU engine does
	// (its tree is the plan's); GENEVA does not multiply: its tables are the plan's times
	// Multiplier (roughly: the CPU plan breaks symmetry where it does not).
	mult := float64(pl.Multiplier)
	d.Predictions = append(d.Predictions, Prediction{Engine: "cpu", Seconds: cpuSeconds,
		Note: fmt.Sprintf("%d thread(s)", d.Threads)})
	best := d.Predictions[0]
	for _, eng := range candidates {
		pr := Prediction{Engine: eng.Name()}
		switch eng.Name() {
		case "stmatch":
			if why := stmatchIneligible(pl); why != "" {
				pr.Seconds, pr.Note = -1, why
			} else {
				spread := est.Nodes / r.STMatchNodesPerSecond
				heavy := est.HeaviestSubtree / r.STMatchWarpNodesPerSecond
				pr.Seconds = r.GPUStartSeconds + spread + heavy
				pr.Note = "throughput"
				if heavy > spread {
					pr.Note = "the heaviest level-1 subtree, about " + sci(est.HeaviestSubtree) + " nodes"
				}
			}
		case "geneva":
			rows := est.Nodes*mult + est.Matches*mult
			pr.Seconds = r.GPUStartSeconds + rows/r.GenevaRowsPerSecond
			pr.Note = "about " + sci(rows) + " table rows"
		default:
			pr.Seconds, pr.Note = -1, "no cost model"
		}
		d.Predictions = append(d.Predictions, pr)
		if pr.Seconds >= 0 && pr.Seconds < best.Seconds {
			best = pr
		}
	}
	d.Engine = best.Engine
	var preds []string
	for _, pr := range d.Predictions {
		if pr.Seconds < 0 {
			preds = append(preds, pr.Engine+" not eligible ("+pr.Note+")")
			continue
		}
		preds = append(preds, pr.Engine+" "+seconds(pr.Seconds))
	}
	d.Reason = nodes + ", above the GPU threshold " + sci(d.Threshold) + "; predicted " + strings.Join(preds, ", ")
	return d, nil
}

// decideClique chooses between the CPU engine's clique counter and stmatch's clique kernel for
// a clique pattern, without a plan (the plan's estimate predicts the general search, 13-16x
// slower than either counter). The CPU's time is predicted from the data graph's edges
// (CliqueCPUSecondsPerEdge); the GPU is looked for only when that is above GPUStartSeconds.
func (e Engine) decideClique(ctx context.Context, r Rules, d Decision, p *engine.Problem, c plan.Clique, candidates []engine.Engine) Decision {
	cpuRate := 1 + r.CPUThreadGain*float64(d.Threads-1)
	cpuSeconds := r.CliqueCPUSecondsPerEdge * float64(c.K-3) * float64(p.Data.NumEdges()) / cpuRate
	what := fmt.Sprintf("a %d-clique: the CPU clique counter predicted %s on %d thread(s)", c.K, seconds(cpuSeconds), d.Threads)
	if !slices.ContainsFunc(candidates, func(eng engine.Engine) bool { return eng.Name() == "stmatch" }) {
		d.Reason = what + "; stmatch is not built in"
		return d
	}
	if cpuSeconds < r.GPUStartSeconds {
		d.Reason = what + ", below the GPU's start-up " + seconds(r.GPUStartSeconds)
		return d
	}
	d.GPUChecked = true
	if d.GPU, d.GPUErr = r.GPU(ctx); d.GPUErr != nil {
		why, _, _ := strings.Cut(d.GPUErr.Error(), "; ")
		d.Reason = what + ", above the GPU's start-up " + seconds(r.GPUStartSeconds) + ", but no GPU: " + why
		return d
	}
	d.Engine = "stmatch"
	d.Reason = what + "; stmatch's clique kernel (R-MAT 22 4-cliques: 1.3 s whole process on an H200, the CPU 43 s on 2 cores)"
	return d
}

// stmatchIneligible says why the stmatch engine cannot run a plan ("" when it can): its kernel
// walks the candidate space and keeps a fixed stack of levels.
func stmatchIneligible(pl *plan.Plan) string {
	switch {
	case pl.Space == nil:
		return "needs a candidate space"
	case len(pl.Levels) > STMatchMaxLevels:
		return fmt.Sprintf("more than %d levels", STMatchMaxLevels)
	}
	return ""
}

// threads is the worker count the CPU engine would use.
func threads(p *engine.Problem) int {
	if p.Threads > 0 {
		return p.Threads
	}
	return max(1, runtime.GOMAXPROCS(0))
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

// planReuser is implemented by engines that can start from the plan Decide built (reusing its
// filtered candidates, which take seconds on graphs with hundreds of millions of edges) instead
// of filtering again.
type planReuser interface {
	CountFrom(ctx context.Context, p *engine.Problem, base *plan.Plan) (engine.Result, error)
}

// CountWith counts with the engine d chose (d from Decide for p, counting). When a GPU engine
// fails for a reason other than cancellation or overflow, the count is redone on the CPU and d
// says so.
func (e Engine) CountWith(ctx context.Context, p *engine.Problem, d *Decision) (engine.Result, Decision, error) {
	if d.Engine != "cpu" {
		eng, err := e.rules().Lookup(d.Engine)
		if err == nil {
			var res engine.Result
			if fp, ok := eng.(planReuser); ok && d.plan != nil {
				res, err = fp.CountFrom(ctx, p, d.plan)
			} else {
				res, err = eng.Count(ctx, p)
			}
			if err == nil || ctx.Err() != nil || errors.Is(err, engine.ErrOverflow) {
				return res, *d, err
			}
		}
		d.Reason += "; " + d.Engine + " failed (" + err.Error() + "), counted on cpu"
		d.Engine = "cpu"
	}
	if d.plan == nil {
		res, err := cpu.Engine{}.Count(ctx, p)
		return res, *d, err
	}
	res, err := cpu.Engine{}.CountPlan(ctx, p, d.plan, d.planTime)
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
	if d.Engine != "cpu" {
		if eng, err := e.rules().Lookup(d.Engine); err == nil {
			return eng.Matches(ctx, p)
		}
	}
	if d.plan == nil {
		return cpu.Engine{}.Matches(ctx, p)
	}
	return cpu.Engine{}.MatchesPlan(ctx, p, d.plan)
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
