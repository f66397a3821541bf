package cpu

import (
	"fmt"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/plan"
)

// The CPU engine's measured rates, from which it predicts its time (engine.Predictor) for
// --engine auto. Nodes are plan.Estimate.Nodes of its plan (the assignments its search makes);
// times are whole count calls.
const (
	// NodesPerSecond is the search rate per thread. Measured with one thread (2-core AMD EPYC,
	// 2026-11-23, search time = count call minus planning) against exact tree sizes: github
	// Q_18 13.4e6 nodes in 1.59 s (8.4e6/s), Q_17 5.7e5 in 42 ms (1.4e7/s), Q_16 9.6e4 in 9.6
	// ms, Q_9 7.8e4 in 6.6 ms, Q_3 1.9e5 in 17 ms (1.0-1.2e7/s); Q_20 3.6e6/s (long
	// intersections); wiki-Vote 4-cycle 7.0e7 nodes in 1.35 s on 2 threads (2.6e7/s a thread).
	NodesPerSecond = 1e7
	// CostPerSecond is the search's rate in set-operation steps (plan.Estimate.Cost: list entries
	// merged or binary-searched) per thread. Dense patterns with hub intersections are bound by
	// these, not by nodes: STMatch's 24 patterns on wiki-Vote, the CPU engine on the H100 host's
	// 16 cores (docs/benchmarks.md, issue 17; 2026-11-25): q1 2.6e10 steps in 7.8 s, q4 2.6e10 in
	// 6.1 s, q2 6.1e9 in 2.1 s, q3 2.2e9 in 0.73 s, q5 5.1e9 in 1.2 s, q9 5.5e9 in 1.2 s, q12 3.0e9
	// in 1.6 s, q15 2.3e9 in 0.47 s, q23 4.8e9 in 1.1 s: 1.9e8-4.8e8 steps a second per thread
	// (with ThreadGain's 10x on 16 threads), where NodesPerSecond predicted 0.02-0.3 s. Since
	// the leaf groups' cached prefixes and the hub rows (branch cpu17, 2026-12-02), one thread
	// on the 2-core machine runs q1 at 7.5e8 steps a second, q3 6.6e8, q4 5.8e8, q5 2.3e9, q6
	// 2.0e9, q7 3.1e9, q15 5.4e9, q23 6.3e9 (q23 and q7 were 7.2e8 and 7.7e8 before; the
	// device's threads ran at 0.6 times this machine's one): about 3.5e8-3.8e9 a thread on the
	// device. A middle value is taken: the CPU keeps the leaf-counted patterns it now does fast
	// (q5, q7, q15, q23), and the level-bound ones (q1, q4, q6) still go to a GPU.
	CostPerSecond = 1.2e9
	// ThreadGain is what each thread beyond the first adds, as a fraction of one thread's rate
	// (docs/benchmarks.md, thread scaling: 1.6-2.1x on 2 threads, 7-11x on 16).
	ThreadGain = 0.6
	// CliqueSecondsPerEdge is the clique counter's time for 4-cliques per data edge and thread,
	// taken as growing with k-3 for k-cliques (docs/benchmarks.md, 2 threads: R-MAT 16 4-cliques
	// 0.18 s, 3.2e-7 s an edge and thread; R-MAT 22 1.1e-6; wiki-Vote 5-cliques 22 ms on one
	// thread, 2.1e-7). Near a GPU's start-up cost (graphs of about a million edges) the low
	// figures count.
	CliqueSecondsPerEdge = 3e-7
)

// Capabilities implements engine.Describer.
func (Engine) Capabilities() engine.Capabilities {
	return engine.Capabilities{Device: engine.Host, Lists: true,
		Summary: "depth-first backtracking on all cores with work stealing; counts the last levels without enumerating them"}
}

// PlanOptions implements engine.Planner (the CPU engine is the planner auto decides on).
func (Engine) PlanOptions(p *engine.Problem, listing bool) (plan.Options, error) {
	return PlanOptions(p, listing)
}

// StartSeconds implements engine.Predictor: the CPU engine starts at once.
func (Engine) StartSeconds() float64 { return 0 }

// Predict implements engine.Predictor: the estimated search nodes at NodesPerSecond or its
// set-operation steps at CostPerSecond, whichever takes longer (the bounded nodes when the search
// was not estimated), on the problem's threads; for a clique the clique counter's time from the
// number of data edges.
func (Engine) Predict(w *engine.Workload) engine.Prediction {
	threads := max(1, w.Threads)
	gain := 1 + ThreadGain*float64(threads-1)
	if w.Clique != nil {
		s := CliqueSecondsPerEdge * float64(w.Clique.K-3) * float64(w.Problem.Data.NumEdges()) / gain
		return engine.Prediction{Seconds: s, Note: fmt.Sprintf("the clique counter on %d thread(s)", threads)}
	}
	seconds := w.Bound / (NodesPerSecond * gain)
	note := fmt.Sprintf("%d thread(s)", threads)
	if e := w.Estimate; e != nil {
		seconds = e.Nodes / (NodesPerSecond * gain)
		if c := e.Cost / (CostPerSecond * gain); c > seconds {
			seconds, note = c, note+", set operations"
		}
	}
	return engine.Prediction{Seconds: seconds, Note: note}
}
