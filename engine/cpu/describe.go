package cpu

import (
	"context"
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
	// STMatch's patterns whose time the nodes bound (issue 17, branch autoc, one thread): q21
	// 2.0e7 nodes in 1.85 s, q14 9.4e6 in 0.67 s, q17 8.4e7 in 12 s, q23 4.5e6 in 0.72 s
	// (6-14e6/s).
	NodesPerSecond = 1e7
	// CostPerSecond is the search's rate in set-operation steps per thread: plan.Estimate's Cost
	// with the postponed groups' part priced as this engine computes it (their intersections
	// kept between assignments, GroupKeptCost in place of GroupCost), and the lists of the
	// vertices with hub rows priced as rows, a step per element tested (TuneEstimate). Dense
	// patterns with hub intersections are bound by these, not by nodes: STMatch's 24 patterns
	// on wiki-Vote. One thread on the 2-core machine (issue 17, branch autoc, 2026-12-02) ran
	// the 14 of them that the steps or the nodes bound and that finish in 20 s at 0.3-3.4 times
	// the time these rates and NodesPerSecond give (docs/benchmarks.md): a root mean square log
	// error of 1.95x, against 1.84x for the least-squares rates (7.1e6 nodes and 1.26e9 steps a
	// second), which put q21 at 1.56 times its time; these keep q2 (0.73) and q21 (1.11), which
	// the device's times leave on either side of stmatch, apart. Without the rows the
	// steps of q2 and q21 ran at 8.6e8 and 2.6e9 a second.
	CostPerSecond = 1e9
	// CountedNodesPerSecond is the rate per thread of the last level's nodes where the search
	// counts them by a test each instead of searching them (no postponed vertex below, not
	// listing): the lists' part of their cost is in the steps (CostPerSecond), and this is
	// added to the larger of the nodes' and the steps' times. Before (issue 21, branch
	// autoooc) they were search nodes at NodesPerSecond, which priced the triangles of R-MAT
	// scale 26 (1.76e9 edges, 1.6e11 triangles, 98% of the nodes on the last level) at 97
	// minutes on the device host's 16 threads. Fitted on one thread of the 2-core machine
	// (2026-12-03, docs/benchmarks.md): wiki-Vote's 4-cycles (6.4e7 counted nodes, 4.1-5.1 s)
	// and R-MAT triangles of scales 16-19 (6.2e7-6.7e8 counted nodes, 2.0-37 s), which this
	// rate and the steps put at 0.8-2x their time; dense STMatch patterns whose probes miss
	// most of the last levels (q22: 5.6e8 of 1.9e9 at auto's work limit) stay above stmatch.
	CountedNodesPerSecond = 2e7
	// LastCountedPerSecond is the rate per thread of the last level's nodes where nothing is
	// postponed below it and the search counts the level's set by a test a candidate (searchFrom:
	// plan.Plan.Admits on a set already intersected, or a bit of a hub row), which is most of
	// the nodes of a triangle count: the set's intersection is in the steps (CostPerSecond), so
	// a counted node is a few nanoseconds of a loop. At CountedNodesPerSecond they were priced
	// like the edge supports' nodes (two adjacency tests and two support reads each): R-MAT
	// triangles (edge factor 27), 98% of whose nodes are counted ones, were put at 3.4 and 3.3
	// times the device host's 16 threads at scales 20 and 22 (15.9 s for 4.67 s, 90.6 s for
	// 27.7 s; now 4.6 and 28.1 s), the counted level two thirds or more of the prediction
	// (issue 21, branch predbig). On the 2-core machine (2026-12-05, perf, 2 threads) the test
	// loop (Admits and searchFrom) was 10% of R-MAT 18's triangle count (8.3e7 counted nodes)
	// and the intersections and clips 75% (1.95e9 steps); on wiki-Vote's 4-cycles 17.5% (6.4e7)
	// and 66% (1.1e9): 2.2-3.2e8 counted nodes a second at CostPerSecond's steps.
	LastCountedPerSecond = 2.5e8
	// MarkedCountSpeedup is how many times faster than CountedNodesPerSecond the last level's
	// counted nodes run where the edge supports' adjacency tests against a fixed level read a
	// bit row (supportCounter.mark, branch cpudense) instead of searching a neighbour list. On
	// the H200 device host's 16 threads (2026-12-05) STMatch's q13 and q10 on wiki-Vote, whose
	// counted nodes are 97% and most of the prediction, took 350-372 and 247-267 ms against
	// 839 and 436 ms predicted at CountedNodesPerSecond (2.3x and 1.7x); on the 2-core machine
	// the rows cut their CPU time by a third. auto then chose stmatch for q13 (780-797 ms).
	MarkedCountSpeedup = 2
	// ThreadGain is what each thread beyond the first adds, as a fraction of one thread's rate:
	// the device host's 16 threads ran STMatch's patterns 10-14 times faster than its one
	// (docs/benchmarks.md, "The CPU engine's thread scaling on the device host"; 1+0.7x15 =
	// 11.5), two threads on the 2-core machine 1.6-1.9 times faster than one (issue 17, branch
	// autoc).
	ThreadGain = 0.7
	// HostCoreSlowdown is how many times slower than one core of the 2-core machine where the
	// rates here were measured one core of a GPU host is taken to be (auto compares the CPU with
	// a GPU only where there is one): the H200 device host's 16 threads counted the 12 of
	// STMatch's patterns on wiki-Vote that take over 100 ms there 4-8 times faster than one
	// thread here (median 5.5; its whole processes, less about 25 ms of start and load, against
	// the count calls here), which with
	// its thread scaling (ThreadGain) is a core about 2 times slower (docs/benchmarks.md, issue
	// 17, branch autoc).
	HostCoreSlowdown = 2
	// CliqueSecondsPerSquare is the clique counter's time for 4-cliques per unit of
	// plan.UpwardSquares (the squared upward degrees summed) and thread, taken as growing with
	// k-3 for k-cliques. 2 threads on the 2-core machine (2026-12-03, issue 21, branch autoooc),
	// CPU time over the units: R-MAT edge factor 27 scales 16-20 (1.5-26 M edges) 1.0, 0.94,
	// 0.92, 0.92, 0.91e-8; wiki-Vote's 4-cliques (STMatch's q8) 20 ms on one thread for 3.6e6
	// units. Per data edge (CliqueSecondsPerEdge before, 3e-7) the same counts took 1.1e-6 to
	// 2.2e-6 seconds an edge, rising with the scale: R-MAT scale 26 was put 8 times too low.
	// Halved from 9e-9 (issue 21, branch predbig): the device host's 16 threads counted R-MAT
	// scale 20's 4-cliques (edge factor 27) in 3.2 s, whole process, against 9.9 s predicted;
	// on 2026-12-05 the 2-core machine's CPU time per unit was 3.9-4.5e-9 at scales 16-21
	// (edge factor 16) and 18 (27), the same each scale, as the 2026-12-03 build's times there
	// were about half those recorded on 2026-12-03.
	CliqueSecondsPerSquare = 4.5e-9
	// TriangleSquareShare is the clique counter's time for triangles (its marked upward
	// neighbours: cliques.go) per unit of plan.UpwardSquares, as a share of
	// CliqueSecondsPerSquare (where k-3 would price them at nothing). One thread on the 2-core
	// machine at load 6-13 (2026-12-06, branch cputri), CPU time of the whole process over the
	// units, medians of 3: R-MAT scales 16-20, edge factor 16: 1.6, 2.6, 2.7, 2.4, 4.3e-9; 27:
	// 1.7, 2.0, 1.9, 3.0, 3.7e-9 (median 2.5e-9, rising with the scale as the marks leave the
	// cache). 0.6 is 2.7e-9 a unit, within 0.6-1.6x of each.
	TriangleSquareShare = 0.6
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

// TuneEstimate implements engine.EstimateTuner: the estimate that Predict reads prices the lists
// of the vertices that get hub rows (hubs.go) as the search intersects them, a test per element
// of the other lists' intersection (plan.EstimateOptions.RowDegree).
func (Engine) TuneEstimate(p *engine.Problem, opts *plan.EstimateOptions) {
	opts.RowDegree = hubRowDegree(p.Data, hubBudget(p))
}

// StartSeconds implements engine.Predictor: the CPU engine starts at once.
func (Engine) StartSeconds() float64 { return 0 }

// Predict implements engine.Predictor: the estimated search nodes at NodesPerSecond or its
// set-operation steps (see CostPerSecond) at CostPerSecond, whichever takes longer (the bounded
// nodes when the search was not estimated), on the problem's threads of a GPU host's cores
// (HostCoreSlowdown); for a clique, a triangle count included (cliqueOf), the clique counter's
// time from the squared upward degrees (engine.Workload.UpwardSquares).
// The work is Terms: the postponed groups' steps priced as Estimate.GroupKeptCost (each
// group's set kept while its parents stay, as the leaf counter keeps it: against the 16-core
// device host's times GroupStepCost put STMatch's q11, q14, q17 and q21 at 3-10 times their
// measured time, GroupKeptCost at 0.8-4 times), less the levels a last-level sum or a pair sum
// counts, plus the pair sum's pass. --engine auto estimates the plan the engine runs
// (RunPlan) with the hub rows priced (TuneEstimate). Its passes over the graph are sampled or take
// a few milliseconds (pairSumPassCost, supportPassCost, UpwardSquares): ctx is checked before them.
func (Engine) Predict(ctx context.Context, w *engine.Workload) (engine.Prediction, error) {
	if err := engine.PredictionStopped(ctx, "cpu"); err != nil {
		return engine.Prediction{}, err
	}
	return predict(w), nil
}

// predict is Predict's prediction.
func predict(w *engine.Workload) engine.Prediction {
	threads := max(1, w.Threads)
	gain := threadGain(threads)
	if c := cliqueOf(w); c != nil {
		s := CliqueSeconds(c.K, w.UpwardSquares(), threads)
		return engine.Prediction{Seconds: s, Note: fmt.Sprintf("the clique counter on %d thread(s)", threads)}
	}
	if p, ok := shapePrediction(w, threads); ok {
		return p
	}
	seconds := w.Bound / (NodesPerSecond * gain)
	note := fmt.Sprintf("%d thread(s)", threads)
	if w.Estimate != nil {
		t := Engine{}.Terms(w)
		if t.Summed != "" {
			note += ", " + t.Summed
		}
		var steps bool
		seconds, steps = searchSeconds(t.Nodes, t.LevelSteps+t.GroupSteps+t.PassSteps, gain)
		if steps {
			note += ", set operations"
		}
		seconds += t.Counted / (t.countedRate() * gain)
	}
	return engine.Prediction{Seconds: seconds, Note: note}
}

// cliqueOf is the clique the CPU engine counts w's pattern as (asClique), nil where it
// searches: w.Clique, or in a count a triangle, which auto leaves to the planner
// (plan.AsClique: the other engines search triangles) and the CPU engine does not.
func cliqueOf(w *engine.Workload) *plan.Clique {
	if w.Clique != nil || w.Listing || !countCliquesApart || w.Problem == nil || w.Problem.Data == nil || w.Problem.Pattern == nil {
		return w.Clique
	}
	if c, ok := asClique(w.Problem); ok {
		return &c
	}
	return nil
}

// CliqueSeconds is the clique counter's predicted time for k-cliques on threads threads of a
// graph whose squared upward degrees sum to upwardSquares (plan.UpwardSquares):
// CliqueSecondsPerSquare a unit, times k-3, or TriangleSquareShare for triangles. pbe's inter
// stage, which counts the cliques that span its parts with the same counter, prices it from
// this.
func CliqueSeconds(k int, upwardSquares float64, threads int) float64 {
	weight := float64(k - 3)
	if k <= 3 {
		weight = TriangleSquareShare
	}
	return CliqueSecondsPerSquare * weight * upwardSquares / threadGain(threads)
}

// SupportPassSeconds is the predicted time of one pass over g's edges that counts each edge's
// common neighbours from its endpoint of higher (degree, id) (edgeSupports' pass: supportPassCost
// list entries at CostPerSecond) on threads threads. pbe's inter stage, which counts the
// diamonds that span its parts with such a pass, prices it from this.
func SupportPassSeconds(g *graph.Graph, threads int) float64 {
	return supportPassCost(g) / (CostPerSecond * threadGain(threads))
}

// threadGain is how many of one core of the 2-core machine where the rates were measured the
// given threads of a GPU host stand for (ThreadGain, HostCoreSlowdown).
func threadGain(threads int) float64 {
	return (1 + ThreadGain*float64(max(1, threads)-1)) / HostCoreSlowdown
}

// searchSeconds is the time of a search's nodes at NodesPerSecond or of its set-operation steps
// at CostPerSecond, whichever takes longer, at gain (threadGain); steps reports that the steps
// did.
func searchSeconds(nodes, steps, gain float64) (seconds float64, bySteps bool) {
	seconds = nodes / (NodesPerSecond * gain)
	if c := steps / (CostPerSecond * gain); c > seconds {
		return c, true
	}
	return seconds, false
}

// GenericSeconds is the predicted time on threads threads of the plain depth-first search of an
// estimated plan (e, of a plan that postpones no vertex: plan.Options.Enumerate), with none of
// this engine's special paths (clique counter, last-level sums, pair sums, edge supports): the
// levels' nodes but the last at NodesPerSecond or their set operations (the narrowed levels'
// steps, Estimate.NarrowCost, else Cost) at CostPerSecond, whichever takes longer, and the last
// level's nodes counted by a test a candidate (LastCountedPerSecond). Other engines whose search
// is such a plain one (pbe's inter-partition stage on the host) price it from this.
func GenericSeconds(e *plan.Estimate, threads int) float64 { return genericSeconds(e, threads, false) }

// CountedSeconds is GenericSeconds of an estimated plan that postpones vertices (counted, not
// enumerated: plan.Options without Enumerate), with the postponed groups' intersections
// (Estimate.GroupCost, each at every complete assignment: none kept between them) among its set
// operations; none of this engine's special paths. pbe's inter stage on the host, which counts
// such positions at once (a counted tail, a leaf's seeds), prices them from this.
func CountedSeconds(e *plan.Estimate, threads int) float64 { return genericSeconds(e, threads, true) }

// genericSeconds is GenericSeconds, with the groups' intersections too when groups is set
// (CountedSeconds).
func genericSeconds(e *plan.Estimate, threads int, groups bool) float64 {
	if e == nil || len(e.LevelNodes) == 0 {
		return 0
	}
	gain := threadGain(threads)
	last := e.LevelNodes[len(e.LevelNodes)-1]
	steps := e.Cost - e.GroupCost
	if e.NarrowCost > 0 {
		steps = e.NarrowCost
	}
	if groups {
		steps += e.GroupCost
	}
	s, _ := searchSeconds(max(0, e.Nodes-last), steps, gain)
	return s + last/(LastCountedPerSecond*gain)
}

// Terms are the parts of the work the CPU engine's search is predicted to do for an estimated
// workload (Predict prices them): the search nodes it enumerates, the set-operation steps of the
// levels' sets and of the postponed groups' sets, and the list entries a pair sum's counters
// read. Summed says which levels are summed rather than enumerated ("" when none).
type Terms struct {
	Nodes, LevelSteps, GroupSteps, PassSteps float64
	// Counted is the last level's nodes where it is counted by a test a candidate rather
	// than searched (CountedNodesPerSecond); they are not in Nodes.
	Counted float64
	// CountedSpeedup, when above 1, is how many times faster than CountedNodesPerSecond the
	// counted nodes run (MarkedCountSpeedup).
	CountedSpeedup float64
	// CountedByTest is set when the counted nodes are the last level's set tested a candidate
	// each with nothing postponed below and no edge looked up (LastCountedPerSecond), not edge
	// supports' lookups or an induced count's non-adjacency tests.
	CountedByTest bool
	Summed        string
}

// countedRate is the rate per thread at which the search counts t's counted nodes.
func (t Terms) countedRate() float64 {
	if t.CountedByTest {
		return LastCountedPerSecond
	}
	return CountedNodesPerSecond * max(1, t.CountedSpeedup)
}

// Terms returns the parts of w's predicted work (zero without an estimate or for a clique).
func (Engine) Terms(w *engine.Workload) Terms {
	e := w.Estimate
	if e == nil || w.Clique != nil {
		return Terms{}
	}
	t := Terms{Nodes: e.Nodes, LevelSteps: e.Cost - e.GroupCost, GroupSteps: e.GroupKeptCost}
	if e.NarrowCost > 0 {
		// The lists clipped to the levels' windows before they are intersected (bounds).
		t.LevelSteps = e.NarrowCost
	}
	if w.Plan == nil || len(e.LevelNodes) != len(w.Plan.Levels) || e.Nodes <= 0 {
		return t
	}
	if lastSumSkipsLevel(w.Problem.Data, w.Plan) {
		// The last level is summed, not looped over (lastsum.go): its nodes and, in
		// proportion, the set operations below them drop out; the key's tables (about a
		// triangle listing's intersections) are taken as paid by the levels above.
		keep := 1 - e.LevelNodes[len(e.LevelNodes)-1]/e.Nodes
		t.Nodes *= keep
		t.LevelSteps *= keep
		t.GroupSteps *= keep
		t.Summed = "last level summed"
	} else if lastSumPairs(w.Problem.Data, w.Plan) {
		// The last level is summed with a key of every earlier level, its set D = S_E
		// (lastSumPairs): the key's table tests each pair of D once where the loop intersects
		// e's set for each of D's elements, about half the groups' steps, and the last
		// level's data vertices are not search nodes.
		t.Nodes -= e.LevelNodes[len(e.LevelNodes)-1]
		t.GroupSteps /= 2
		t.Summed = "last level summed by pairs"
	} else if ps := pairSumOf(w); ps != nil {
		// The levels after v1's are summed by wedge counters (pairsum.go): their nodes and,
		// in proportion, the levels' set operations below them drop out, and the counters'
		// pass over the neighbourhoods of D1 and D2 is paid once a key instead. The postponed
		// groups, when there are any, are e, which the counters count, and the factor group
		// (factorGroup), one product a key: their steps drop out whole (they were kept in
		// proportion: STMatch's q4 on wiki-Vote, 72 ms on the 16-core device host, was put at
		// 200 ms, then 110; branch pred13).
		var below float64
		for _, n := range e.LevelNodes[ps.level+1:] {
			below += n
		}
		keep := 1 - below/e.Nodes
		t.Nodes *= keep
		t.LevelSteps *= keep
		t.GroupSteps = 0
		t.PassSteps = pairSumPassCost(w.Problem.Data, e.LevelNodes, ps.level)
		t.Summed = "last levels summed by pairs"
	} else if sp := supportForPrediction(w); sp != nil {
		// The postponed vertices are counted from edge supports (support.go): a lookup or two
		// per assignment of the last level instead of the groups' intersections, so the last
		// level's nodes are priced as counted ones and the groups' steps drop out; the supports'
		// pass over the graph is paid once. (The quotient's count, for a pair, is left out: it
		// is a smaller pattern, a clique for STMatch's q3. The level nodes are the estimated
		// plan's; the engine then searches plan.Unfiltered's, whose sets are not narrowed by
		// the candidate filter: a few more nodes, not priced.) Against the engine's own work
		// on wiki-Vote (issue 17, branch pred13): q13's 8.107e7 counted nodes and 3.84e6 above
		// (8.11e7 and 3.86e6 in plan.Unfiltered's search), two adjacency tests and two support
		// reads per counted node, and its quotient (STMatch's q6, the wheel) 0.47 s of 6.4 s CPU in
		// a one-thread count; the last level, 97% of the prediction, was estimated at 1.12e8
		// before plan's estimate counted it below every candidate of the level before it.
		t.Counted = e.LevelNodes[len(e.LevelNodes)-1]
		t.Nodes -= t.Counted
		t.GroupSteps = 0
		t.PassSteps = supportPassCost(w.Problem.Data)
		t.Summed = "postponed vertices counted from edge supports"
		if sp.marks(w.Problem.Data) {
			// The last level's tests against the fixed level read a bit row, not a
			// neighbour list (supportCounter.mark): the counted nodes run faster.
			t.CountedSpeedup = MarkedCountSpeedup
			t.Summed += " with a marked row"
		}
	} else if !w.Listing && len(w.Plan.Groups) == 0 {
		// The last level, with nothing below it, is counted by a test a candidate of its set
		// (searchFrom), not searched: its nodes are priced at LastCountedPerSecond where that
		// test is a bit and a few comparisons (plan.Plan.Admits), at CountedNodesPerSecond
		// where it also looks up an edge a NonAdjacent level (an induced count: each a binary
		// search in a neighbour list; gen queries' q_6_4 induced on R-MAT 16 with 100 zipf
		// labels, 5.0e7 counted nodes, took 5.0 CPU seconds on one thread of the 2-core machine).
		t.Counted = e.LevelNodes[len(e.LevelNodes)-1]
		t.Nodes -= t.Counted
		t.CountedByTest = len(w.Plan.Levels[len(w.Plan.Levels)-1].NonAdjacent) == 0
		t.Summed = "last level counted"
	}
	return t
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

// supportPassCost estimates the list entries edgeSupports reads: for every edge, the list of its
// endpoint of lower (degree, id), scanned against the other's marks, plus the marking of each
// vertex's own list. The sum runs over every vertex of a graph of up to supportSampleVertices
// vertices, else over an evenly spaced sample of that many, scaled up.
func supportPassCost(g *graph.Graph) float64 {
	n := g.NumVertices()
	if n == 0 {
		return 0
	}
	stride := max(1, n/supportSampleVertices)
	var sum float64
	for x := 0; x < n; x += stride {
		dx := g.Degree(uint32(x))
		sum += float64(dx)
		for _, y := range g.Neighbors(uint32(x)) {
			if dy := g.Degree(y); dy < dx || (dy == dx && int(y) < x) {
				sum += float64(dy)
			}
		}
	}
	return sum * float64(n) / float64((n+stride-1)/stride)
}

// supportSampleVertices bounds the vertices supportPassCost visits.
const supportSampleVertices = 1 << 16

// supportForPrediction returns the support plan the count of w would use (supportFor), or nil
// when w lists, has no problem, or counts its postponed vertices otherwise.
func supportForPrediction(w *engine.Workload) *supportPlan {
	if w.Listing || w.Problem == nil {
		return nil
	}
	return supportFor(w.Problem, w.Plan)
}
