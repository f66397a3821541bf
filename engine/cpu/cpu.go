// Package cpu is the CPU backtracking engine. It runs a plan from package plan depth-first:
// each level intersects candidate-space lists (or the CSR's label runs), narrowed to its
// symmetry window and checked for injectivity and induced non-adjacency; the last level is
// counted by size, and postponed vertices (leaves, cycle-closing and isolated vertices) are
// counted combinatorially, their common neighbours intersected from cached prefixes (only the
// parents that changed are intersected again). The neighbourhoods of the highest-degree data
// vertices are bit rows (hubs.go), filled once the search has met the hub a few times: a set is
// narrowed by a hub's row, a load per element, instead of being merged with its list. When the
// last level has one postponed vertex hanging on it (and at most one other postponed vertex), the
// two are counted for all of the level's data vertices at once (lastsum.go): the edges between
// the level's set and the postponed vertex's other parents' common neighbours, counted once for
// the data vertices of their parents and corrected for each assignment by inclusion-exclusion
// over its used vertices and the other postponed vertex (STMatch's q1, two triangles sharing a
// vertex, counts its second triangle's edges once per shared vertex). Postponed vertices on one
// or two joined parents are counted from edge supports (support.go: |N(x) ∩ N(y)| of every data
// edge, one pass), and where they are two vertices their collisions are the embeddings of the
// pattern with the two merged, counted once and taken off (STMatch's q3). Embedding counts of
// symmetric patterns are multiplied by |Aut|: the plan breaks symmetry, its counted vertices
// narrowed to their symmetry windows (plan.Window), where the plan's rule or the
// estimates of both plans (symmetryBroken) say so. Root
// candidates are shared among worker goroutines that steal work from each other.
//
// Cliques of three or more vertices with uniform labels (asClique) are counted apart, in
// cliques.go: each root's upward neighbourhood becomes a bit matrix and the rest of the clique is
// counted with ANDs and popcounts, 64 candidates a word; for a triangle it is marked and the
// other members' upward lists are scanned against the marks.
package cpu

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/plan"
)

// Engine is the CPU engine; the zero value is ready to use.
type Engine struct{}

func init() { engine.Register(Engine{}) }

// Name implements engine.Engine.
func (Engine) Name() string { return "cpu" }

// refineRounds bounds the plan's neighbourhood refinement for the CPU engine's plans. On STMatch's
// labelled patterns the first round removes about 40% of the candidates and the second 1-2%, and
// a candidate left in costs the search one failed intersection, about what checking it costs.
// One round was faster than refinement to a fixpoint on 19 of 24 of those counts on the H200
// host (docs/benchmarks.md, 2026-12-03 14:29 UTC) and even within noise on HPRD's and GitHub's
// queries; counts do not depend on it.
const refineRounds = 1

// PlanOptions returns the plan options Count (enumerate false) or Matches (enumerate true)
// builds its plan with, or an error wrapping engine.ErrMemory when p.MemoryLimit is below what
// the search needs. Callers that build the plan themselves (to inspect it first) pass it to
// CountPlan or MatchesPlan.
func PlanOptions(p *engine.Problem, enumerate bool) (plan.Options, error) {
	if p.Data == nil || p.Pattern == nil {
		return plan.Options{}, fmt.Errorf("cpu engine: problem needs a data graph and a pattern")
	}
	opts := plan.Options{Induced: p.Semantics.Induced, Unique: p.Semantics.Unique, Enumerate: enumerate,
		MultiplyAutomorphisms: !enumerate, PrefixSymmetry: true, OrderBySets: !enumerate && orderBySets, RefineRounds: refineRounds}
	if p.MemoryLimit > 0 {
		required := requiredMemory(p)
		if required > p.MemoryLimit {
			return plan.Options{}, fmt.Errorf("cpu engine: %w: candidate sets and search buffers need up to %d bytes, the limit is %d",
				engine.ErrMemory, required, p.MemoryLimit)
		}
		// What is left bounds the optional candidate space (4-byte entries plus offsets).
		opts.SpaceLimit = int(min((p.MemoryLimit-required)/8, plan.DefaultSpaceLimit))
		if opts.SpaceLimit == 0 {
			opts.SpaceLimit = -1
		}
	}
	return opts, nil
}

// spaceLimitLeft is plan.Options.SpaceLimit for a plan built while plans live are held (a plan
// choice's base plan and the plans it compares): under a memory limit, what the limit leaves once
// their candidate spaces are charged (each index once: rebuilt plans share them), so that the
// spaces held at once stay within it (-1: no room); 0 (the default) without a limit.
func spaceLimitLeft(p *engine.Problem, live ...*plan.Plan) int {
	if p.MemoryLimit == 0 {
		return 0
	}
	left := memoryLeft(p)
	left -= min(left, spaceBytes(live...))
	if n := int(min(left/8, plan.DefaultSpaceLimit)); n > 0 {
		return n
	}
	return -1
}

// spaceBytes is the memory the candidate spaces of plans hold together, each index once.
func spaceBytes(plans ...*plan.Plan) uint64 {
	seen := map[*plan.EdgeIndex]bool{}
	var b uint64
	for _, pl := range plans {
		if pl == nil {
			continue
		}
		for _, idx := range pl.Space {
			if idx != nil && !seen[idx] {
				seen[idx] = true
				b += idx.Bytes()
			}
		}
	}
	return b
}

// spaceHeld, when set (tests), is called with the plans held whenever a plan choice has built
// one: the candidate spaces of those plans are in memory at once.
var spaceHeld func(live ...*plan.Plan)

// orderBySets sets plan.Options.OrderBySets for counts (a variable for measurements).
var orderBySets = true

func buildPlan(ctx context.Context, p *engine.Problem, enumerate bool) (*plan.Plan, error) {
	opts, err := PlanOptions(p, enumerate)
	if err != nil {
		return nil, err
	}
	return plan.BuildContext(ctx, p.Data, p.Pattern, opts)
}

// memoryLeft is what p's memory limit leaves beside requiredMemory (0 where it leaves nothing, or
// without a limit).
func memoryLeft(p *engine.Problem) uint64 {
	return p.MemoryLimit - min(p.MemoryLimit, requiredMemory(p))
}

// requiredMemory bounds what a count needs besides the optional candidate space: a candidate
// bit set and list per pattern vertex, and three buffers per level per worker as long as the
// largest degree.
func requiredMemory(p *engine.Problem) uint64 {
	n := uint64(p.Data.NumVertices())
	k := uint64(p.Pattern.NumVertices())
	threads := uint64(p.ThreadCount())
	perVertex := n/8 + 8 + 4*n
	perWorker := 3 * k * 4 * uint64(p.Data.MaxDegree())
	return k*perVertex + threads*perWorker
}

// stopOnDone sets stop when ctx ends; the returned func releases the watcher.
func stopOnDone(ctx context.Context, stop *atomic.Bool) func() bool {
	return context.AfterFunc(ctx, func() { stop.Store(true) })
}

// Count implements engine.Engine.
func (Engine) Count(ctx context.Context, p *engine.Problem) (engine.Result, error) {
	return Engine{}.CountChecked(ctx, p, nil)
}

// CountChecked is Count on a data graph whose checks may still be running (formats.LoadChecking:
// its bounds are checked, not yet its rules): it plans, which only reads the graph, then calls
// checked (when not nil) before it counts, and returns checked's error, if any, instead of a
// count. The plan thus runs beside the checks, off a small count's serial path.
func (Engine) CountChecked(ctx context.Context, p *engine.Problem, checked func() error) (engine.Result, error) {
	if checked == nil {
		checked = func() error { return nil }
	}
	if c, ok := asClique(p); ok && countCliquesApart {
		if err := checked(); err != nil {
			return engine.Result{}, err
		}
		return countCliques(ctx, p, c, 0)
	}
	if sh, ok := shapeFor(p); ok {
		if err := checked(); err != nil {
			return engine.Result{}, err
		}
		return countShape(ctx, p, sh, 0)
	}
	start := time.Now()
	pl, err := buildPlan(ctx, p, false)
	planTime := time.Since(start)
	if cerr := checked(); cerr != nil {
		return engine.Result{}, cerr
	}
	if err != nil {
		if ctx.Err() != nil {
			return engine.Result{Partial: true, PlanTime: planTime}, err
		}
		return engine.Result{}, err
	}
	return Engine{}.CountPlan(ctx, p, pl, planTime)
}

// CountPlan is Count with the plan already built (plan.BuildContext with PlanOptions(p, false));
// planTime is reported as the result's PlanTime. It may run another plan (choosePlan), or count
// a shape without one (shapes.go).
func (Engine) CountPlan(ctx context.Context, p *engine.Problem, pl *plan.Plan, planTime time.Duration) (engine.Result, error) {
	if sh, ok := shapeFor(p); ok {
		return countShape(ctx, p, sh, planTime) // (before choosePlan's plans and estimates)
	}
	t0 := time.Now()
	c := choosePlan(ctx, p, pl)
	res, err := countPlan(ctx, c.problem, c.plan, planTime+time.Since(t0))
	if c.divisor <= 1 {
		return res, err
	}
	if !errors.Is(err, engine.ErrOverflow) {
		// Exact when complete; a partial count of embeddings divided is still a lower bound.
		res.Count /= c.divisor
		return res, err
	}
	// The embeddings overflow 64 bits where the unique matches may not: count those.
	return countPlan(ctx, p, pl, planTime+time.Since(t0))
}

// RunPlan returns the plan CountPlan runs for problem p when given pl (built with
// PlanOptions(p, false)), for --explain, with a line saying why when it is not pl (choosePlan).
// It estimates as CountPlan does, so it costs what CountPlan's choice costs.
func (Engine) RunPlan(ctx context.Context, p *engine.Problem, pl *plan.Plan) (*plan.Plan, string) {
	if sh, ok := shapeFor(p); ok {
		return pl, fmt.Sprintf("the CPU engine counts this pattern as a shape, without the plan: the %s counter (passes over the edges' common neighbours and the wedges)", sh.Name())
	}
	c := choosePlan(ctx, p, pl)
	if sp := supportFor(c.problem, c.plan); sp != nil {
		if c.note != "" {
			c.note += "\n"
		}
		c.note += supportNote(sp, c.plan.Pattern)
	}
	return c.plan, c.note
}

// planChoice is the plan a count runs (choosePlan): on problem, with its count divided by
// divisor when above 1; note says why it is not the plan built (empty when it is).
type planChoice struct {
	problem *engine.Problem
	plan    *plan.Plan
	divisor uint64
	note    string
}

// choosePlan picks the plan CountPlan runs for problem p given pl: the embeddings plan of a
// unique count, its count divided by |Aut(p)| (uniqueByEmbeddings), the plan that breaks all of
// the pattern's symmetry (symmetryBroken), or pl itself.
func choosePlan(ctx context.Context, p *engine.Problem, pl *plan.Plan) planChoice {
	if ep, alt, aut := uniqueByEmbeddings(ctx, p, pl); alt != nil {
		note := fmt.Sprintf("the CPU engine counts the embeddings with this plan and divides by |Aut| = %d (predicted faster than the plan of unique matches)", aut)
		if tail, tnote := tailOrdered(ctx, ep, alt, alt, pl); tail != nil {
			alt, note = tail, note+"\n"+tnote
		}
		return planChoice{ep, alt, aut, note}
	}
	c := planChoice{p, pl, 1, ""}
	if alt := symmetryBroken(ctx, p, pl); alt != nil {
		c = planChoice{p, alt, 1, "the CPU engine runs this plan, which breaks all of the pattern's symmetry (predicted faster than the default plan)"}
	}
	if alt, note := tailOrdered(ctx, p, pl, c.plan); alt != nil {
		c = planChoice{p, alt, 1, note}
	}
	return c
}

// symmetryBreakMode chooses whether a count of embeddings whose plan keeps some of the pattern's
// symmetry (so as to count postponed vertices it would otherwise enumerate) runs the plan that
// breaks all of it instead: 0 by their predicted times, 1 whenever that plan breaks more, -1
// never (tests).
var symmetryBreakMode = 0

// symmetryBreakUsed counts the counts that took the symmetry-breaking plan (tests).
var symmetryBreakUsed atomic.Int64

// symmetryBroken returns, for a count of embeddings (not induced: induced plans always break
// symmetry) of a symmetric pattern whose plan pl keeps some of the symmetry (Multiplier below
// |Aut(p)|), the plan that breaks all of it (plan.SymmetryBreak: one embedding per orbit of
// Aut(p) is found, and the count is multiplied by |Aut(p)|, plan.Plan.Multiplier), its counted
// vertices narrowed to their symmetry windows (plan.Options.GroupWindows) rather than
// enumerated, when that plan is predicted to take under half the time; else nil. The default plan keeps the symmetry whenever breaking it would
// enumerate a vertex it counts (and windows cost the leaf counter's size cache and the
// last-level sum: a 4-cycle, STMatch's q1 and q5 keep it), but on dense patterns the |Aut(p)|
// times smaller search wins: STMatch's q21 (|Aut| = 48) on wiki-Vote, 6x less CPU time.
func symmetryBroken(ctx context.Context, p *engine.Problem, pl *plan.Plan) *plan.Plan {
	if p.Semantics.Unique || p.Semantics.Induced || pl.Empty || symmetryBreakMode < 0 {
		return nil
	}
	if _, ok := asClique(p); ok || (symmetryBreakMode == 0 && pl.NodeBound() < uniqueAltMinNodes) {
		return nil
	}
	if !keepsSymmetry(pl) {
		return nil // the plan that breaks it all would multiply by no more: not built
	}
	opts, err := PlanOptions(p, false)
	if err != nil {
		return nil
	}
	opts.Symmetry, opts.GroupWindows = plan.SymmetryBreak, true
	opts.SpaceLimit = spaceLimitLeft(p, pl)
	alt, err := plan.Rebuild(ctx, p.Data, pl, opts)
	if spaceHeld != nil && err == nil {
		spaceHeld(pl, alt)
	}
	if err != nil || alt.Empty || alt.Multiplier <= pl.Multiplier || (symmetryBreakMode == 0 && !predictedFaster(ctx, p, alt, pl)) {
		return nil
	}
	symmetryBreakUsed.Add(1)
	p.Logger().Debug("cpu: counting with the symmetry-breaking plan", "multiplier", alt.Multiplier, "plan", alt.Describe())
	return alt
}

// keepsSymmetry reports whether plan pl multiplies by less than |Aut| of its pattern (counted
// from the stabiliser chain of pl's vertices, levels then groups), or |Aut| overflows: only then
// can the plan that breaks all symmetry multiply by more (its Multiplier is |Aut| or 1).
// symmetryBroken asks it before it builds that plan: an asymmetric pattern (STMatch's with 10
// distinct vertex labels) was rebuilt in full to find Multiplier 1 again, 10-20% of its plan.
func keepsSymmetry(pl *plan.Plan) bool {
	full := pl.Order()
	for _, lg := range pl.Groups {
		full = append(full, lg.Vertices...)
	}
	aut, ok := plan.RestrictionsAutomorphisms(plan.SymmetryRestrictions(pl.Pattern, full))
	return !ok || aut > pl.Multiplier
}

// predictedFaster reports whether plan alt is predicted (from estimates of both searches, the
// postponed groups priced as the leaf counter keeps their sets: plan.Estimate.GroupKeptCost) to
// take under half the time of plan pl on problem p's data graph: estimates are rough, and a
// wrong switch costs more than a missed one.
func predictedFaster(ctx context.Context, p *engine.Problem, alt, pl *plan.Plan) bool {
	return predictedSeconds(ctx, p, alt, fullEstimate) < predictedSeconds(ctx, p, pl, fullEstimate)/2
}

// uniqueByEmbeddingsMode chooses between the two plans of a unique count: 0 by their predicted
// times, 1 the embeddings plan whenever it applies, -1 never (tests).
var uniqueByEmbeddingsMode = 0

// uniqueByEmbeddingsUsed counts the counts that took the embeddings plan (tests).
var uniqueByEmbeddingsUsed atomic.Int64

// uniqueAltMinNodes is the plan's node bound under which a count keeps its plan without building
// another (uniqueByEmbeddings, symmetryBroken): a small search costs less than a second plan and
// two estimates.
const uniqueAltMinNodes = 1e6

// uniqueByEmbeddings returns, for a count of unique non-induced matches of a symmetric pattern
// (pl is its plan), the problem of counting the embeddings instead, its plan and |Aut(p)| to
// divide them by, when that plan is predicted to take under half the time; else a nil plan. unique = embeddings /
// |Aut(p)| exactly (every subgraph is the image of |Aut(p)| embeddings), and the embeddings
// plan is free of the symmetry restrictions that keep a unique plan from counting vertices it
// would otherwise enumerate: two triangles sharing a vertex (STMatch's q1) take the last-level
// sum as embeddings (0.3 s on wiki-Vote here) and enumerate their last level as unique matches
// (27 s).
func uniqueByEmbeddings(ctx context.Context, p *engine.Problem, pl *plan.Plan) (*engine.Problem, *plan.Plan, uint64) {
	if !p.Semantics.Unique || p.Semantics.Induced || pl.Empty || uniqueByEmbeddingsMode < 0 {
		return nil, nil, 0
	}
	if _, ok := asClique(p); ok {
		return nil, nil, 0 // the clique counter counts unique cliques as fast
	}
	opts, err := PlanOptions(p, false)
	if err != nil {
		return nil, nil, 0
	}
	aut, ok := pl.Automorphisms(opts)
	if !ok || aut < 2 || (uniqueByEmbeddingsMode == 0 && pl.NodeBound() < uniqueAltMinNodes) {
		return nil, nil, 0
	}
	ep := *p
	ep.Semantics.Unique = false
	eopts, err := PlanOptions(&ep, false)
	if err != nil {
		return nil, nil, 0
	}
	// The same candidates and candidate-space indexes: only the order and symmetry differ.
	eopts.SpaceLimit = spaceLimitLeft(p, pl)
	alt, err := plan.Rebuild(ctx, p.Data, pl, eopts)
	if spaceHeld != nil && err == nil {
		spaceHeld(pl, alt)
	}
	if err != nil || alt.Empty {
		return nil, nil, 0
	}
	if uniqueByEmbeddingsMode == 0 && !predictedFaster(ctx, p, alt, pl) {
		return nil, nil, 0
	}
	uniqueByEmbeddingsUsed.Add(1)
	return &ep, alt, aut
}

// countPlan is CountPlan for the plan it runs: with edge supports where they apply (support.go),
// counted again without them if their sum overflows where the count may not.
func countPlan(ctx context.Context, p *engine.Problem, pl *plan.Plan, planTime time.Duration) (engine.Result, error) {
	if pl.Empty {
		return engine.Result{PlanTime: planTime}, ctx.Err()
	}
	if c, ok := asClique(p); ok && countCliquesApart {
		return countCliques(ctx, p, c, planTime)
	}
	if supportFor(p, pl) != nil {
		if res, err, done := countWithSupports(ctx, p, pl, planTime); done {
			return res, err
		}
	}
	return searchPlan(ctx, p, pl, planTime, nil)
}

// countWithSupports counts with edge supports (support.go) in pl's order, over the plan whose
// candidates are not filtered (plan.Unfiltered: the quotient's embeddings taken off cover every
// assignment); done is false when that plan does not take them or their sum overflows (the
// caller then counts without them).
func countWithSupports(ctx context.Context, p *engine.Problem, pl *plan.Plan, planTime time.Duration) (res engine.Result, err error, done bool) {
	opts, err := PlanOptions(p, false)
	if err != nil {
		return engine.Result{}, nil, false
	}
	upl, err := plan.Unfiltered(ctx, p.Data, pl, opts)
	if err != nil {
		if ctx.Err() != nil {
			return engine.Result{Partial: true, PlanTime: planTime}, err, true
		}
		return engine.Result{}, nil, false
	}
	sp := supportShape(p.Data, upl)
	if sp == nil || upl.Empty {
		return engine.Result{}, nil, false
	}
	res, err = searchPlan(ctx, p, upl, planTime, sp)
	return res, err, !errors.Is(err, engine.ErrOverflow)
}

// searchPlan runs the search of plan pl, its postponed vertices counted from edge supports when
// sp is not nil.
func searchPlan(ctx context.Context, p *engine.Problem, pl *plan.Plan, planTime time.Duration, sp *supportPlan) (engine.Result, error) {
	var stop atomic.Bool
	release := stopOnDone(ctx, &stop)
	defer release()
	var sc *supportCount
	if sp != nil {
		var ok bool
		var err error
		if sc, ok, err = prepareSupports(ctx, p, pl, sp, &stop); err != nil {
			return engine.Result{}, err
		} else if !ok {
			return engine.Result{Partial: true, PlanTime: planTime}, ctx.Err()
		}
		supportUsed.Add(1)
	}

	if len(pl.Levels) == 0 {
		// Only postponed vertices (isolated ones): one combinatorial count.
		w := newWorker(p.Data, pl, &stop)
		w.runRoot(0)
		count, ok := mulChecked(w.count, pl.Multiplier)
		if w.overflow || !ok {
			return engine.Result{}, engine.ErrOverflow
		}
		return engine.Result{Count: count, PlanTime: planTime}, nil
	}

	setupStart := time.Now()
	roots := pl.Candidates[pl.Levels[0].Vertex]
	indexLimit := denseIndexLimit
	if p.MemoryLimit > 0 {
		indexLimit = int(min(uint64(indexLimit), memoryLeft(p)/8))
	}
	index := candidateIndexes(p.Data, pl, indexLimit)
	hubs := hubRowsFor(p, pl)
	threads := p.ThreadCount()
	sched := newScheduler(roots, threads, &stop)
	// Waiting workers must see the stop flag set when they are woken: set it here, before the
	// wake-up, rather than rely on stopOnDone's func running first (when it ran second, a worker
	// woken too early waited again, and forever, for workers that had stopped).
	releaseWake := context.AfterFunc(ctx, func() {
		stop.Store(true)
		sched.wake()
	})
	defer releaseWake()

	var (
		mu       sync.Mutex
		total    uint64
		overflow bool
	)
	work := func() {
		w := newWorker(p.Data, pl, &stop)
		w.sched = sched
		w.rampPoll = !sched.ramped.Load()
		w.candIndex = index
		w.setHubs(hubs)
		if sc != nil {
			w.leaves.support = newSupportCounter(sc, p.Data)
			w.lastSum, w.pairSum = nil, nil
		}
		runWorker(w, sched, p.Progress)
		mu.Lock()
		defer mu.Unlock()
		var ok bool
		if total, ok = addChecked(total, w.count); !ok || w.overflow {
			overflow = true
			stop.Store(true)
			sched.wake()
		}
	}
	// One worker starts at once; the others join only if the count is still running after
	// rampUpDelay, so that small jobs pay for no idle workers. The first worker's own poll starts
	// them (a timer too, in case its search nodes are slow to come).
	sched.begin(rampUpDelay, work)
	ramp := time.AfterFunc(max(rampUpDelay, time.Millisecond), sched.rampUp)
	sched.wait()
	ramp.Stop()
	logSteps(ctx, p, planTime, sched.start.Sub(setupStart), time.Since(sched.start), sched, time.Duration(sched.rampAt.Load()))
	if sc != nil && !overflow {
		// The sum of |S_d| |S_e| less the collisions; a partial sum less all of them is a lower
		// bound of the partial count.
		switch {
		case total >= sc.collisions:
			total -= sc.collisions
		case ctx.Err() != nil:
			total = 0
		default:
			return engine.Result{}, fmt.Errorf("cpu engine: edge supports summed to %d, below the quotient's %d collisions", total, sc.collisions)
		}
	}
	total, ok := mulChecked(total, pl.Multiplier) // one match per orbit of Aut(p)
	if overflow || !ok {
		return engine.Result{}, engine.ErrOverflow
	}
	if err := ctx.Err(); err != nil {
		return engine.Result{Count: total, Partial: true, PlanTime: planTime}, err
	}
	return engine.Result{Count: total, PlanTime: planTime}, nil
}

// logSteps writes, at debug level, where a count's time went: the plan (filters, refinement,
// candidate space), the setup (candidate indexes, hub rows, scheduler), the search (first worker
// started to all joined), how many workers ran, and when the second joined (after rampUpDelay;
// 0: the first worker finished alone).
func logSteps(ctx context.Context, p *engine.Problem, plan, setup, search time.Duration, s *scheduler, ramp time.Duration) {
	log := p.Logger()
	if !log.Enabled(ctx, slog.LevelDebug) {
		return
	}
	s.mu.Lock()
	workers := s.workers
	s.mu.Unlock()
	log.LogAttrs(ctx, slog.LevelDebug, "cpu: steps", slog.Duration("plan", plan), slog.Duration("setup", setup),
		slog.Duration("search", search), slog.Int("workers", workers), slog.Duration("ramp", ramp),
		slog.Int("roots", len(s.roots)))
}

// hubRowsFor chooses the hub rows (filled on demand) for a count of plan pl when some set of it
// intersects two lists or more, within what p's memory limit leaves (an eighth of it, beside the candidate space and
// the candidate indexes).
func hubRowsFor(p *engine.Problem, pl *plan.Plan) *hubRows {
	uses := false
	for _, l := range pl.Levels {
		uses = uses || len(l.Backward) >= 2
	}
	for _, lg := range pl.Groups {
		uses = uses || len(lg.Parents) >= 2
	}
	if !uses {
		return nil
	}
	return buildHubRows(p.Data, hubBudget(p))
}

// hubBudget is the memory p's hub rows may take: an eighth of what p's memory limit leaves
// beside the candidate space and the candidate indexes, at most hubMaxBytes.
func hubBudget(p *engine.Problem) uint64 {
	if p.MemoryLimit > 0 {
		return memoryLeft(p) / 8
	}
	return hubMaxBytes
}

// rampUpDelay is how long a count runs on one worker before the others join (a variable so
// that tests can make every worker join at once, with 0). The first worker reads the clock in
// its search to start them: a runtime timer under a millisecond does not fire sooner while the
// other Ps are idle (their thread waits for it in epoll_wait, whose timeout is in whole
// milliseconds: branch lab2 measured 250 µs timers firing after 1.05-1.2 ms), and the search of
// a small count (2-5 ms on the device host) ran its first millisecond on one core.
var rampUpDelay = 100 * time.Microsecond

// runWorker takes root chunks until none is left, then stolen subtrees until all work is done.
func runWorker(w *worker, s *scheduler, progress func(float64)) {
	for !w.stopped {
		lo, hi, ok := s.rootChunk()
		if !ok {
			break
		}
		for k := hi - 1; k >= lo; k-- { // heaviest first (see rootChunk)
			if !w.runRoot(s.roots[k]) {
				break
			}
		}
		d := s.done.Add(int64(hi - lo))
		if progress != nil {
			progress(float64(d) / float64(len(s.roots)))
		}
	}
	for !w.stopped {
		t, ok := s.take()
		if !ok {
			return
		}
		w.runTask(t)
	}
	if w.overflow {
		s.stop.Store(true)
		s.wake()
	}
}

// Matches implements engine.Engine. Matches are produced by one goroutine in a deterministic
// order.
func (Engine) Matches(ctx context.Context, p *engine.Problem) iter.Seq2[[]uint32, error] {
	return func(yield func([]uint32, error) bool) {
		pl, err := buildPlan(ctx, p, true)
		if err != nil {
			yield(nil, err)
			return
		}
		Engine{}.MatchesPlan(ctx, p, pl)(yield)
	}
}

// MatchesPlan is Matches with the plan already built (plan.BuildContext with
// PlanOptions(p, true)).
func (Engine) MatchesPlan(ctx context.Context, p *engine.Problem, pl *plan.Plan) iter.Seq2[[]uint32, error] {
	return func(yield func([]uint32, error) bool) {
		if pl.Empty {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
			}
			return
		}
		var stop atomic.Bool
		release := stopOnDone(ctx, &stop)
		defer release()
		w := newWorker(p.Data, pl, &stop)
		consumerStopped := false
		w.emit = func(m []uint32) bool {
			if !yield(m, nil) {
				consumerStopped = true
				return false
			}
			return !w.shouldStop()
		}
		roots := pl.Candidates[pl.Levels[0].Vertex]
		for i, c := range roots {
			if !w.runRoot(c) {
				break
			}
			if p.Progress != nil && i%64 == 0 {
				p.Progress(float64(i+1) / float64(len(roots)))
			}
		}
		if !consumerStopped {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
			}
		}
	}
}
