package cpu

import (
	"fmt"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
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
	// CostPerSecond is the search's rate in set-operation steps per thread: plan.Estimate's Cost
	// with the postponed groups' part priced as this engine computes it (their intersections
	// kept between assignments, GroupStepCost in place of GroupCost). Dense patterns with hub
	// intersections are bound by these, not by nodes: STMatch's 24 patterns on wiki-Vote
	// (docs/benchmarks.md, issue 17). One thread on the 2-core machine (branch cpu17,
	// 2026-12-02) runs q1 at 7.5e8 such steps a second, q2 6.6e8, q3 6.5e8, q5 1.2e9, q6 2.2e9,
	// q7 9.6e8, q9 1.1e9, q12 2.8e8, q15 8.9e8, q23 7.9e8 (Cost alone spread them over
	// 6e8-6.3e9). The device's 16 threads ran at about 10 times this machine's one (q23 before
	// this branch: 7.9e9 steps in 1.1 s there, 11 s here). The upper middle is taken: scaled so
	// from two threads here, the CPU counts q3, q5, q12, q15 and q23 in 0.1-0.3 s on the device,
	// where stmatch's whole process takes 0.39-0.46 s.
	CostPerSecond = 1e9
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

// pairSumOf returns the pair sum the search of w's plan would take, or nil.
func pairSumOf(w *engine.Workload) *pairSum {
	if w.Plan == nil {
		return nil
	}
	return pairSumFor(w.Problem.Data, w.Plan)
}

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
// set-operation steps (see CostPerSecond) at CostPerSecond, whichever takes longer (the bounded
// nodes when the search was not estimated), on the problem's threads; for a clique the clique
// counter's time from the number of data edges. The postponed groups' steps are priced as
// Estimate.GroupKeptCost (each group's set kept while its parents stay, as the leaf counter
// keeps it): against the 16-core device host's times after the pair sum and the symmetry
// windows (docs/benchmarks.md, 2026-12-02 07:39 UTC) GroupStepCost put STMatch's q11, q14, q17
// and q21 at 3-10 times their measured time, GroupKeptCost at 0.8-4 times, and auto sent q14 (144
// ms on the CPU) to stmatch (549 ms).
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
		nodes, cost := e.Nodes, e.Cost-e.GroupCost+e.GroupKeptCost
		if w.Plan != nil && len(e.LevelNodes) == len(w.Plan.Levels) && nodes > 0 && lastSumSkipsLevel(w.Problem.Data, w.Plan) {
			// The last level is summed, not looped over (lastsum.go): its nodes and, in
			// proportion, the set operations below them drop out; the key's tables (about a
			// triangle listing's intersections) are taken as paid by the levels above.
			last := e.LevelNodes[len(e.LevelNodes)-1]
			cost *= 1 - last/nodes
			nodes -= last
			note += ", last level summed"
		} else if ps := pairSumOf(w); ps != nil && len(e.LevelNodes) == len(w.Plan.Levels) && nodes > 0 {
			// The levels after v1's are summed by wedge counters (pairsum.go): their nodes and,
			// in proportion, the set operations below them drop out, and the counters' pass over
			// the neighbourhoods of D1 and D2 is paid once a key instead.
			var below float64
			for _, n := range e.LevelNodes[ps.level+1:] {
				below += n
			}
			cost *= 1 - below/nodes
			cost += pairSumPassCost(w.Problem.Data, e.LevelNodes, ps.level)
			nodes -= below
			note += ", last levels summed by pairs"
		}
		seconds = nodes / (NodesPerSecond * gain)
		if c := cost / (CostPerSecond * gain); c > seconds {
			seconds, note = c, note+", set operations"
		}
	}
	return engine.Prediction{Seconds: seconds, Note: note}
}

// pairSumPassCost estimates the list entries the pair sum's counters read (pairsum.go), for a
// plan whose v1 is level p: one pass a key (an assignment of the levels before p) over the
// neighbourhoods of D1 and D2, whose sizes a key are taken from the estimated level nodes, each
// neighbourhood as long as the mean degree of a vertex at the end of an edge (Σd² / Σd: the
// sets are common neighbourhoods, where the hubs are). Without it the prediction left the pass
// out: STMatch's q18 on wiki-Vote, whose D2 holds about 22 vertices a key, was predicted at 2 s
// on 16 threads where the count takes over a minute (q4 and q6, about 45 and 19 vertices
// a key on 10^5 keys, take 90 and 81 ms).
func pairSumPassCost(g *graph.Graph, levelNodes []float64, p int) float64 {
	if p+1 >= len(levelNodes) || levelNodes[p] <= 0 {
		return 0
	}
	keys := 1.0
	if p > 0 {
		keys = levelNodes[p-1]
	}
	if keys <= 0 {
		return 0
	}
	var sum, squares float64
	for v := range g.NumVertices() {
		d := float64(g.Degree(uint32(v)))
		sum += d
		squares += d * d
	}
	if sum == 0 {
		return 0
	}
	d1 := levelNodes[p] / keys
	d2 := levelNodes[p+1] / levelNodes[p]
	return keys * (d1 + d2) * squares / sum
}
