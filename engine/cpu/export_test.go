package cpu

import (
	"context"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/plan"
)

// EveryVertexAHub gives every vertex of degree one or more a hub row when on (for the external
// tests: their graphs are far below the default degree); the returned func restores the default.
// A row is filled at its first use (hubFillAfter 0), unless SetHubFillAfter sets another count
// after it.
func EveryVertexAHub(on bool) func() {
	saved, savedAfter := hubMinDegree, hubFillAfter
	if on {
		hubMinDegree, hubFillAfter = 1, 0
	}
	return func() { hubMinDegree, hubFillAfter = saved, savedAfter }
}

// SetHubFillAfter sets how many times a worker merges with a hub's list before it fills the
// hub's row; the returned func restores the count before.
func SetHubFillAfter(n uint8) func() {
	saved := hubFillAfter
	hubFillAfter = n
	return func() { hubFillAfter = saved }
}

// HoldHubRows, when on, makes every other hub row look claimed by a worker that never fills it
// (as when another worker is filling it): the search must then merge with those hubs' lists
// wherever it would have read their rows. The returned func restores the default.
func HoldHubRows(on bool) func() {
	saved := hubRowHeld
	if on {
		hubRowHeld = func(r int) bool { return r%2 == 0 }
	}
	return func() { hubRowHeld = saved }
}

// LastSum turns the last-level sum (lastsum.go) on or off; the returned func restores it.
func LastSum(on bool) func() {
	saved := lastSumEnabled
	lastSumEnabled = on
	return func() { lastSumEnabled = saved }
}

// UniqueByEmbeddings sets how a unique count chooses between its plan and the embeddings plan
// (0 by prediction, 1 the embeddings plan whenever it applies, -1 never); the returned func
// restores it.
func UniqueByEmbeddings(mode int) func() {
	saved := uniqueByEmbeddingsMode
	uniqueByEmbeddingsMode = mode
	return func() { uniqueByEmbeddingsMode = saved }
}

// UniqueByEmbeddingsUsed is how many counts have taken the embeddings plan so far.
func UniqueByEmbeddingsUsed() int64 { return uniqueByEmbeddingsUsed.Load() }

// PairSum turns the pair sum (pairsum.go) on or off; the returned func restores it.
func PairSum(on bool) func() {
	saved := pairSumEnabled
	pairSumEnabled = on
	return func() { pairSumEnabled = saved }
}

// PairSumUsed is how many workers have applied the pair sum so far.
func PairSumUsed() int64 { return pairSumUsed.Load() }

// SymmetryBreak sets how a count of embeddings whose plan keeps the pattern's symmetry chooses
// between it and the plan that breaks it (0 by prediction, 1 the latter whenever the pattern has
// automorphisms, -1 never); the returned func restores it.
func SymmetryBreak(mode int) func() {
	saved := symmetryBreakMode
	symmetryBreakMode = mode
	return func() { symmetryBreakMode = saved }
}

// SymmetryBreakUsed is how many counts have taken the symmetry-breaking plan so far.
func SymmetryBreakUsed() int64 { return symmetryBreakUsed.Load() }

// Supports sets when counts take edge supports (support.go: 0 when the search is large, 1
// whenever they apply, -1 never) and whether workers keep rows of them (off: every lookup
// binary-searches the parent's list); the returned func restores both.
func Supports(mode int, rows bool) func() {
	saved, savedLimit := supportMode, supportRowLimit
	supportMode = mode
	if !rows {
		supportRowLimit = 0
	}
	return func() { supportMode, supportRowLimit = saved, savedLimit }
}

// SupportsUsed is how many counts have taken edge supports so far.
func SupportsUsed() int64 { return supportUsed.Load() }

// SupportsSkew adds delta to every count's collisions (a wrong formula, for the test that the
// oracle tests catch one); the returned func restores it.
func SupportsSkew(delta int64) func() {
	saved := supportSkew
	supportSkew = delta
	return func() { supportSkew = saved }
}

// SupportPassCost is supportPassCost (tests).
func SupportPassCost(g *graph.Graph) float64 { return supportPassCost(g) }

// SupportMarks sets supportMarkRatio (0: supportLast never marks a row of neighbours; 1<<30:
// it always does); the returned func restores it.
func SupportMarks(ratio int) func() {
	saved := supportMarkRatio
	supportMarkRatio = ratio
	return func() { supportMarkRatio = saved }
}

// runPlan returns the problem and the plan the count of p runs (choosePlan), ok false when it
// has none to run.
func runPlan(p *engine.Problem) (*engine.Problem, *plan.Plan, bool) {
	ctx := context.Background()
	opts, err := PlanOptions(p, false)
	if err != nil {
		return nil, nil, false
	}
	pl, err := plan.BuildContext(ctx, p.Data, p.Pattern, opts)
	if err != nil || pl.Empty {
		return nil, nil, false
	}
	c := choosePlan(ctx, p, pl)
	return c.problem, c.plan, true
}

// PairSumFactor reports whether the count of p runs a plan whose pair sum counts a postponed
// group as a factor (factorGroup), without edge supports (tests: coverage of a sweep).
func PairSumFactor(p *engine.Problem) bool {
	rp, pl, ok := runPlan(p)
	if !ok || supportFor(rp, pl) != nil {
		return false
	}
	ps := pairSumFor(p.Data, pl)
	return ps != nil && ps.cg != nil
}

// SupportFixed reports whether the count of p takes edge supports (as supportMode allows) with
// a fixed level whose neighbours supportLast may mark (tests: coverage of a sweep).
func SupportFixed(p *engine.Problem) bool {
	rp, pl, ok := runPlan(p)
	if !ok {
		return false
	}
	sp := supportFor(rp, pl)
	return sp != nil && sp.fixed >= 0
}

// TailOrder sets how a count of embeddings chooses a tail order (tailorder.go: 0 by prediction,
// 1 one of the candidates whenever there is one, each count the next, -1 never); the returned
// func restores it.
func TailOrder(mode int) func() {
	saved := tailOrderMode
	tailOrderMode = mode
	return func() { tailOrderMode = saved }
}

// TailOrderUsed is how many counts have taken a tail order so far.
func TailOrderUsed() int64 { return tailOrderUsed.Load() }
