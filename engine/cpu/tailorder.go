package cpu

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// Orders that end with a counted tail. The default order (plan's matchingOrder: most
// already-ordered neighbours first) postpones only the vertices that happen to close the order,
// one or none on a dense pattern. On STMatch's dense 7-vertex patterns a larger independent set of
// the pattern can end the order instead: every member then has all of its neighbours enumerated
// before it, so the leaf counter (with the last-level sum or the pair sum where they apply)
// counts the members from set sizes where the default order enumerates all but one of them, the
// scheme GraphPi counts by inclusion-exclusion. q22 on wiki-Vote (a triangle joined to a 4-cycle,
// whose two pairs of opposite vertices are twins) is the clearest: enumerating the triangle and
// one pair, then counting the other pair from the size of its common neighbourhood, takes 3.3 s
// on two threads where the default order (the last level counted alone) was cut at 12 s.
//
// tailOrdered builds, for each maximal independent set I of the pattern larger than the default
// plan's counted vertices, the plans of the orders "V∖I connected, then I" (tailOrders: each
// enumerated vertex in turn last), with the default symmetry rule and with all symmetry broken
// (windows on the counted vertices), ranks them by a cheap prediction and returns the best when
// its full prediction is under half the default plan's (the rule predictedFaster applies to the
// symmetry-breaking plan). The plans are the plan package's (plan.Options.Order): the counting
// itself is the leaf counter's and its sums', exact in every convention the plan accepts;
// induced counts postpone nothing and are left alone.

// tailOrderMode chooses whether counts try the tail orders: 0 by predicted times, 1 take a
// candidate whenever there is one, each count the next (tests: every candidate plan runs on
// small graphs), -1 never.
var tailOrderMode = 0

// tailOrderPick rotates tailOrderMode 1's choice.
var tailOrderPick atomic.Uint64

// tailOrderUsed counts the counts that took a tail order (tests).
var tailOrderUsed atomic.Int64

// tailOrderMinSeconds is the predicted time (one thread) under which a count keeps its plan: the
// candidates' plans and screening cost 10-100 ms of planning on wiki-Vote, 4-14% more CPU on
// STMatch's q10 and q11 (predicted 5.0 and 1.1 s), none of whose candidates wins; the dense
// 7-vertex patterns that gain are predicted at 280-1,730 s.
const tailOrderMinSeconds = 20

// maxTailSets bounds the independent sets tried (each costs up to two plans and two screening
// estimates an order, and it has one order more than it leaves enumerated).
const maxTailSets = 8

// tailOrdered returns the plan of a tail order for problem p (a count of embeddings, not induced)
// whose default plan is pl, with a note for --explain, or nil when none is predicted to take
// under half the time of plan run (pl, or the plan that breaks its symmetry when that was chosen)
// or run's prediction fails. Plans held are other plans the caller holds (their candidate spaces
// are charged under a memory limit).
//
// Under a memory limit (--memory bounds the candidate spaces held at once, not each plan's) the
// candidates are built and screened without candidate spaces (their estimates then intersect
// the graph's label runs: the ranking may differ from the unlimited one, and the winner's
// prediction is compared without its space, which only makes it harder to win), and the winner's
// space is built once, within what the limit leaves beside pl's, run's and held's.
func tailOrdered(ctx context.Context, p *engine.Problem, pl, run *plan.Plan, held ...*plan.Plan) (*plan.Plan, string) {
	if p.Semantics.Unique || p.Semantics.Induced || pl.Empty || tailOrderMode < 0 {
		return nil, ""
	}
	if _, ok := asClique(p); ok || (tailOrderMode == 0 && pl.NodeBound() < uniqueAltMinNodes) {
		return nil, ""
	}
	counted := 0
	for _, lg := range pl.Groups {
		counted += len(lg.Vertices)
	}
	sets := tailSets(p.Pattern, counted)
	if len(sets) == 0 {
		return nil, ""
	}
	opts, err := PlanOptions(p, false)
	if err != nil {
		return nil, ""
	}
	limited := p.MemoryLimit > 0
	if limited {
		opts.SpaceLimit = -1
	}
	limit := math.Inf(1) // the predicted time to beat
	if tailOrderMode == 0 {
		t := predictedSeconds(ctx, p, run, fullEstimate)
		if math.IsInf(t, 1) || math.IsNaN(t) {
			return nil, "" // run's estimate failed: nothing to compare with
		}
		if t < tailOrderMinSeconds {
			return nil, "" // the candidates' plans and estimates would cost more than they save
		}
		limit = t / 2
	}
	best, bestTime := (*plan.Plan)(nil), math.Inf(1)
	var bestOpts plan.Options
	var all []*plan.Plan // every candidate, for tailOrderMode 1
	var allOpts []plan.Options
	var orders [][]int
	for _, set := range sets {
		for _, o := range tailOrders(p.Pattern, pl.Candidates, set) {
			if !slices.ContainsFunc(orders, func(x []int) bool { return slices.Equal(x, o) }) {
				orders = append(orders, o)
			}
		}
	}
	for _, order := range orders {
		set := tailSet(p.Pattern, order)
		// Whether the plan of the default symmetry rule broke all of the symmetry (a flag, not
		// that plan: a losing candidate's candidate space is not held while the next is built).
		keptNone := false
		for _, broken := range []bool{false, true} {
			if broken && keptNone {
				continue // the default rule broke all of the symmetry already: the same plan
			}
			o := opts
			o.Order = order
			if broken {
				o.Symmetry, o.GroupWindows = plan.SymmetryBreak, true
			}
			alt, err := plan.Rebuild(ctx, p.Data, pl, o)
			if spaceHeld != nil && err == nil {
				spaceHeld(append(append([]*plan.Plan{pl, run, best, alt}, held...), all...)...)
			}
			if err == nil && !broken {
				keptNone = !keepsSymmetry(alt)
			}
			if err != nil || alt.Empty || !countsAll(alt, set) {
				continue
			}
			if tailOrderMode > 0 {
				all, allOpts = append(all, alt), append(allOpts, o)
				continue
			}
			if t := predictedSeconds(ctx, p, alt, screenEstimate); t < bestTime {
				best, bestTime, bestOpts = alt, t, o
			}
		}
		if ctx.Err() != nil {
			return nil, ""
		}
	}
	if len(all) > 0 {
		k := int(tailOrderPick.Add(1)) % len(all)
		best, bestOpts = all[k], allOpts[k]
	} else if best != nil && predictedSeconds(ctx, p, best, fullEstimate) >= limit {
		best = nil // the screening's winner, estimated as the default plan was, is not faster
	}
	if best == nil {
		return nil, ""
	}
	if limited {
		all = nil
		bestOpts.SpaceLimit = spaceLimitLeft(p, append([]*plan.Plan{pl, run}, held...)...)
		if best, err = plan.Rebuild(ctx, p.Data, pl, bestOpts); err != nil {
			return nil, ""
		}
		if spaceHeld != nil {
			spaceHeld(append([]*plan.Plan{pl, run, best}, held...)...)
		}
	}
	tailOrderUsed.Add(1)
	var names []string
	for _, lg := range best.Groups {
		for _, u := range lg.Vertices {
			names = append(names, p.Pattern.Name(u))
		}
	}
	return best, fmt.Sprintf("the CPU engine runs this plan, whose order ends with %s counted (predicted faster than the default plan)", strings.Join(names, ", "))
}

// fullEstimate is the estimate predictions compare plans by (predictedFaster); screenEstimate, an eighth of its work, ranks the
// candidates (their predictions differ by factors; the default plan and the winner get the full
// one): on wiki-Vote the screening of STMatch's q10 and q13, none of whose candidates wins, took
// 100 and 80 ms of planning on the loaded VM with full estimates, as long as their counts' 3-4%.
var (
	fullEstimate   = plan.EstimateOptions{Seed: 1, Probes: 4096, MinProbes: 64, WorkLimit: 500_000}
	screenEstimate = plan.EstimateOptions{Seed: 1, Probes: 512, MinProbes: 64, WorkLimit: 62_500}
)

// predictedSeconds is the CPU engine's predicted time of plan x on one thread, from an
// estimate with opts; +Inf when the estimate fails.
func predictedSeconds(ctx context.Context, p *engine.Problem, x *plan.Plan, opts plan.EstimateOptions) float64 {
	est, err := x.Estimate(ctx, p.Data, opts)
	if err != nil {
		return math.Inf(1)
	}
	return predict(&engine.Workload{Problem: p, Plan: x, Estimate: &est, Threads: 1}).Seconds
}

// countsAll reports whether plan pl counts every vertex of set (as members of its leaf groups):
// symmetry restrictions the groups cannot take demote members to levels (plan's groupLeaves), and
// such a plan is not the tail order asked for.
func countsAll(pl *plan.Plan, set uint32) bool {
	var got uint32
	for _, lg := range pl.Groups {
		for _, u := range lg.Vertices {
			got |= 1 << u
		}
	}
	return got&set == set
}

// tailSets returns the maximal independent sets of p's vertices (bit masks) of more than counted
// members, none isolated (isolated vertices are counted by every order), whose complement is
// connected (so that each enumerated vertex after the first has an enumerated neighbour), the
// largest first, at most maxTailSets. Patterns beyond 16 vertices are not searched.
func tailSets(p *pattern.Pattern, counted int) []uint32 {
	n := p.NumVertices()
	if n < 4 || n > 16 {
		return nil
	}
	all := uint32(1)<<n - 1
	var isolated uint32
	for u := range n {
		if p.Degree(u) == 0 {
			isolated |= 1 << u
		}
	}
	var sets []uint32
	for s := uint32(1); s <= all; s++ {
		if s&isolated != 0 || bits.OnesCount32(s) <= max(counted, 1) || !independent(p, s) || !connected(p, all&^s&^isolated) {
			continue
		}
		maximal := true
		for u := range n {
			if s&(1<<u) == 0 && isolated&(1<<u) == 0 && p.NeighborMask(u)&s == 0 {
				maximal = false
				break
			}
		}
		if maximal {
			sets = append(sets, s)
		}
	}
	slices.SortStableFunc(sets, func(a, b uint32) int { return bits.OnesCount32(b) - bits.OnesCount32(a) })
	return sets[:min(len(sets), maxTailSets)]
}

// independent reports whether no two vertices of s are adjacent in p.
func independent(p *pattern.Pattern, s uint32) bool {
	for r := s; r != 0; r &= r - 1 {
		if p.NeighborMask(bits.TrailingZeros32(r))&s != 0 {
			return false
		}
	}
	return true
}

// connected reports whether the vertices of s induce a connected subgraph of p (false for none).
func connected(p *pattern.Pattern, s uint32) bool {
	if s == 0 {
		return false
	}
	seen := uint32(1) << bits.TrailingZeros32(s)
	for grown := true; grown; {
		grown = false
		for r := seen; r != 0; r &= r - 1 {
			if next := seen | p.NeighborMask(bits.TrailingZeros32(r))&s; next != seen {
				seen, grown = next, true
			}
		}
	}
	return seen == s
}

// tailOrders returns the matching orders that enumerate the vertices outside set (and not
// isolated), then count set's vertices and the isolated ones: the rest ordered greedily
// (greedyOrder), and for each vertex v of the rest whose removal leaves it connected, the others
// ordered greedily, then v. Which vertex is enumerated last decides whether the last-level sum
// applies (it needs one counted vertex hanging on the last level, the other not: STMatch's
// q19 with a and g counted wants b, their only difference, last).
func tailOrders(p *pattern.Pattern, cands [][]uint32, set uint32) [][]int {
	n := p.NumVertices()
	var rest, tail uint32
	for u := range n {
		if set&(1<<u) == 0 && p.Degree(u) > 0 {
			rest |= 1 << u
		}
	}
	var tailVertices []int
	for u := range n {
		if rest&(1<<u) == 0 {
			tailVertices = append(tailVertices, u)
			tail |= 1 << u
		}
	}
	orders := [][]int{append(greedyOrder(p, cands, rest), tailVertices...)}
	for r := rest; r != 0; r &= r - 1 {
		v := bits.TrailingZeros32(r)
		others := rest &^ (1 << v)
		if others == 0 || !connected(p, others) || p.NeighborMask(v)&others == 0 {
			continue
		}
		o := append(greedyOrder(p, cands, others), v)
		o = append(o, tailVertices...)
		if !slices.ContainsFunc(orders, func(x []int) bool { return slices.Equal(x, o) }) {
			orders = append(orders, o)
		}
	}
	return orders
}

// tailSet is the set of non-isolated vertices at the end of order whose neighbours all come
// before them (the set a tail order counts).
func tailSet(p *pattern.Pattern, order []int) uint32 {
	var set, before uint32
	for _, u := range order {
		before |= 1 << u
	}
	for k := len(order) - 1; k >= 0; k-- {
		u := order[k]
		before &^= 1 << u
		if p.Degree(u) == 0 {
			continue
		}
		if p.NeighborMask(u)&^before != 0 {
			break
		}
		set |= 1 << u
	}
	return set
}

// greedyOrder orders the vertices of rest (connected in p), each after the first with the most
// neighbours already ordered (ties to fewer candidates, then the lower index; the first: the most
// neighbours in rest, then fewer candidates).
func greedyOrder(p *pattern.Pattern, cands [][]uint32, rest uint32) []int {
	n := p.NumVertices()
	var order []int
	var placed uint32
	for rest&^placed != 0 {
		best, bestBack := -1, -1
		for u := range n {
			if rest&^placed&(1<<u) == 0 {
				continue
			}
			back := bits.OnesCount32(p.NeighborMask(u) & placed)
			if placed == 0 {
				back = bits.OnesCount32(p.NeighborMask(u) & rest)
			}
			if back > bestBack || (back == bestBack && len(cands[u]) < len(cands[best])) {
				best, bestBack = u, back
			}
		}
		order = append(order, best)
		placed |= 1 << best
	}
	return order
}
