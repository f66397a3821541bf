package engine

import (
	"context"
	"flag"
	"fmt"
	"iter"
	"time"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// An engine describes itself through the optional interfaces below, so that the choice of
// engine (package engine/auto) and the command line work from whatever is registered and never
// name an engine: a new engine is one folder that registers itself, plus one import line in the
// command.

// Device is what an engine runs on.
type Device string

const (
	// Host engines run on the CPU cores.
	Host Device = "cpu"
	// GPU engines need an NVIDIA GPU (opened through package gpu).
	GPU Device = "gpu"
)

// Capabilities is what an engine says about itself.
type Capabilities struct {
	// Device is what it runs on.
	Device Device
	// Lists is set when Matches lists matches (on the device for a GPU engine). An engine that
	// does not list may still implement Matches by refusing with an error.
	Lists bool
	// Summary is one line for the command's help.
	Summary string
	// OutOfCore is set by a host engine that also runs out of core on a GPU (pbe, whose
	// prediction is for its GPU backend): --engine auto weighs its prediction with the GPU
	// engines'.
	OutOfCore bool
}

// Describer is implemented by engines that describe themselves. An engine that does not is taken
// as a host engine that lists.
type Describer interface {
	Capabilities() Capabilities
}

// Describe returns e's capabilities, or those of a listing host engine when e does not say.
func Describe(e Engine) Capabilities {
	if d, ok := e.(Describer); ok {
		return d.Capabilities()
	}
	return Capabilities{Device: Host, Lists: true}
}

// Planner is implemented by the engine whose plan (package plan) the choice of engine is made
// on: it builds the plan once, the others predict their times from it and may start from it
// (PlanReuser), and it counts or lists from it when it is chosen itself. The CPU engine is the
// planner.
type Planner interface {
	// PlanOptions are the options the engine would plan p with.
	PlanOptions(p *Problem, listing bool) (plan.Options, error)
	// CountPlan counts p's matches from pl (built with PlanOptions; planTime is what building
	// it took, reported in the result).
	CountPlan(ctx context.Context, p *Problem, pl *plan.Plan, planTime time.Duration) (Result, error)
	// MatchesPlan lists p's matches from pl.
	MatchesPlan(ctx context.Context, p *Problem, pl *plan.Plan) iter.Seq2[[]uint32, error]
}

// EstimateTuner is implemented by a planner whose prediction (Predictor) prices an estimate
// made with options of its own (plan.EstimateOptions.RowDegree: the lists its search intersects
// as bit rows): --engine auto lets it set them on the estimate it makes of the plan.
type EstimateTuner interface {
	TuneEstimate(p *Problem, opts *plan.EstimateOptions)
}

// RunPlanner is implemented by a planner whose count may run another plan than the one built
// with its PlanOptions (one that breaks more of the pattern's symmetry, say); note says why, ""
// when it runs pl. --engine auto predicts the planner's time from an estimate of the plan it runs.
type RunPlanner interface {
	RunPlan(ctx context.Context, p *Problem, pl *plan.Plan) (run *plan.Plan, note string)
}

// PlanReuser is implemented by engines that can start from the planner's plan (reusing its
// filtered candidates, which take seconds on graphs with hundreds of millions of edges) instead
// of filtering again.
type PlanReuser interface {
	CountFrom(ctx context.Context, p *Problem, base *plan.Plan) (Result, error)
}

// Preparer is implemented by engines whose count can start before the choice of engine is
// final: --engine auto starts preparing the device engine its predictions favour (its own
// planning, which takes a few hundred milliseconds for dense patterns) while it looks for the
// device, and counts from the preparation once the device is there.
type Preparer interface {
	// PrepareCount starts preparing a count of p in the background, from base (the planner's
	// plan of p, or nil) as PlanReuser's CountFrom does. The preparation stops when ctx ends or
	// Release is called.
	PrepareCount(ctx context.Context, p *Problem, base *plan.Plan) Prepared
}

// Prepared is a count being prepared (Preparer). Exactly one of Count and Release is called.
type Prepared interface {
	// Count waits for the preparation to finish and counts.
	Count(ctx context.Context) (Result, error)
	// Release abandons the preparation; it returns at once.
	Release()
}

// Workload is what an engine predicts its time from: the problem and what the planner learnt of
// it.
type Workload struct {
	Problem *Problem
	// Listing is set for Matches, clear for Count.
	Listing bool
	// Threads is the number of host threads the problem runs on (Problem.Threads resolved).
	Threads int
	// Clique is set for a clique pattern (plan.AsClique); no plan is built for it then.
	Clique *plan.Clique
	// Plan is the planner's plan (nil for a clique).
	Plan *plan.Plan
	// Bound is Plan.NodeBound(), an upper bound on the planner's search nodes; Estimate, when
	// set, is the estimate of the search (plan.Estimate), made only when the bound leaves the
	// choice open.
	Bound    float64
	Estimate *plan.Estimate
	// GPU names the GPU a GPU engine would run on ("" when none was looked for or found).
	GPU string
	// GPUMemory is the device memory a GPU engine may use (the problem's GPUMemoryLimit, else
	// the device's free memory) and DeviceMemory the device's whole memory, both known once the
	// GPU is found (0: unknown; engines then predict as if the graph fitted).
	GPUMemory, DeviceMemory uint64
	// HostSeconds is the planner's predicted time on Threads threads (0: not known), for
	// engines whose search runs partly on the host or whose rates were measured against it.
	HostSeconds float64

	// upwardSquares memoises UpwardSquares (upwardKnown: computed).
	upwardSquares float64
	upwardKnown   bool
}

// UpwardSquares is plan.UpwardSquares of the problem's data graph: the clique counters' work,
// which several engines' predictions of one decision read (the CPU engine's clique counter,
// stmatch's clique kernel, sgsi's direct count). It is computed on the first call (a sampled
// pass over the graph) and kept; a Workload is not shared between goroutines.
func (w *Workload) UpwardSquares() float64 {
	if !w.upwardKnown {
		w.upwardSquares, w.upwardKnown = plan.UpwardSquares(w.Problem.Data), true
	}
	return w.upwardSquares
}

// InCore reports whether bytes (what an engine's kernels read from the data graph) leave
// at least half of the GPU memory for the search's own buffers; an unknown GPU memory is taken
// as large enough (the in-core predictions of old).
func (w *Workload) InCore(bytes uint64) bool {
	return w.GPUMemory == 0 || bytes <= w.GPUMemory/2
}

// OutOfCoreOnly is the common part of the predictions of engines that run only out of core and
// scale the planner's time (sgsi, pbe): w must have a data graph whose layout, graphBytes of it,
// does not fit (InCore), and a host prediction (HostSeconds). It returns the layout's bytes, or
// ok false and the ineligible prediction to return.
func (w *Workload) OutOfCoreOnly(graphBytes func(*graph.Graph) uint64) (need uint64, ineligible Prediction, ok bool) {
	if w.Problem == nil || w.Problem.Data == nil {
		return 0, Prediction{Seconds: -1, Note: "no data graph"}, false
	}
	need = graphBytes(w.Problem.Data)
	if w.InCore(need) {
		return need, Prediction{Seconds: -1, Note: "its layout fits the GPU: in core, where the other GPU engines are faster"}, false
	}
	if w.HostSeconds <= 0 {
		return need, Prediction{Seconds: -1, Note: "no host prediction to scale"}, false
	}
	return need, Prediction{}, true
}

// Prediction is an engine's predicted time for a workload.
type Prediction struct {
	// Seconds is the predicted time of the whole call, start-up included; negative when the
	// engine cannot take the workload (Note says why).
	Seconds float64
	// Note says what dominates the prediction, or why the engine cannot take the workload.
	Note string
	// OutOfCore is set when the prediction is for a run with the data graph beyond the GPU
	// memory (partitions, spills, or the graph in host memory): such rates are less certain, and
	// --engine auto takes the run only with a margin over the host.
	OutOfCore bool
	// Run, when set, is the engine configured as predicted (stmatch with its graph in host
	// memory, pbe with its GPU backend), which --engine auto runs if it chooses this
	// prediction; Mode then names the configuration for --explain ("graph in host memory").
	Run  Engine
	Mode string
}

// Eligible reports whether the engine can take the workload.
func (p Prediction) Eligible() bool { return p.Seconds >= 0 }

// Shortcut is implemented by engines that count some problems without a search, from closed
// forms over a few local counts of the graph (the motif census: induced counts of small
// unlabelled patterns, which every search engine finds only by enumerating the matches).
// --engine auto gives a problem that such an engine takes to it before it plans.
type Shortcut interface {
	// Takes reports whether the engine counts p (listing: lists its matches) without a
	// search, and why (auto's reason).
	Takes(p *Problem, listing bool) (ok bool, why string)
}

// PatternChecker is implemented by engines that count only some patterns (the motif census:
// connected 3- to 5-vertex patterns of wildcard labels). CheckPattern returns why the engine does
// not take p (a count of it would fail with the same error), at once, without a data graph or a
// device, so that a command can refuse it before it loads anything.
type PatternChecker interface {
	CheckPattern(p *pattern.Pattern) error
}

// Predictor is implemented by engines that predict their time, so that --engine auto can choose
// among them. Predictions come from measured rates (each engine keeps its own, with the
// measurements they come from).
type Predictor interface {
	// StartSeconds is what the engine spends before it searches, in a fresh process (a GPU
	// context, kernel cache, uploads; 0 for the host). Devices are looked for only when the
	// planner's predicted time is above the smallest of these.
	StartSeconds() float64
	// Predict predicts the engine's time for w. A prediction that does real work (samples the
	// graph, estimates its own tables, plans) checks ctx between chunks of it and, once ctx has
	// ended, returns an error wrapping ctx.Err() (--engine auto then stops, its count partial);
	// a prediction made from w's figures alone may ignore ctx.
	Predict(ctx context.Context, w *Workload) (Prediction, error)
}

// PredictionStopped is the check a Predict makes before its work and between chunks of it: nil
// while ctx runs, else an error that names the engine and wraps ctx.Err().
func PredictionStopped(ctx context.Context, engine string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: prediction stopped: %w", engine, err)
	}
	return nil
}

// Kernel is a GPU kernel that an engine's run compiles (NVRTC) before it searches, unless the
// kernel cache holds it already: on a machine's first run, seconds that the engine's rates, all
// measured on a warm cache, leave out.
type Kernel struct {
	// File is the kernel's file name as registered with gpu.RegisterKernel ("stmatch.cu"), by
	// which gpu.KernelCacheState looks it up.
	File string
	// ColdSeconds is the compile's time when the cache does not hold it: each engine's figure,
	// measured and scaled where it is defined.
	ColdSeconds float64
}

// KernelUser is implemented by device engines whose runs compile kernels at run time: --engine
// auto adds their compile to the engine's prediction when the kernel cache does not hold them
// on this machine.
type KernelUser interface {
	// Kernels lists the kernels a run for w compiles before it searches. It is also called
	// before the plan is built and before the GPU is found (w.Plan, w.GPU unset), and so
	// depends on w's shape only (Problem, Listing, Clique).
	Kernels(w *Workload) []Kernel
}

// Configurable is implemented by engines that have flags of their own. RegisterFlags adds them to
// fs, each named after the engine ("geneva-order" for the engine "geneva"), and returns the
// function that, once fs is parsed, checks their values and returns the engine they configure.
type Configurable interface {
	RegisterFlags(fs *flag.FlagSet) (configure func() (Engine, error))
}

// Engines returns every registered engine, by name.
func Engines() []Engine { return engines.All() }

// LayoutReporter is implemented by engines that lay the data graph out in a structure of their own
// (GENEVA's interval-PCSR; the partitions of the out-of-core engines to come): `submatch stats
// --formats` reports, for each, what laying out a graph takes.
type LayoutReporter interface {
	LayoutReport(ctx context.Context, g *graph.Graph) (Layout, error)
}

// Layout is an engine's report on its layout of a graph.
type Layout struct {
	// Title heads the report for people; Lines follow it.
	Title string
	Lines []string
	// Data is the report as JSON (any value encoding/json encodes).
	Data any
}
