package core

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// PhaseKind tells extension phases from elimination phases (Section 5).
type PhaseKind uint8

const (
	// Extension matches new query vertices along tree edges of one label with one of the eight
	// matching patterns of Fig. 1.
	Extension PhaseKind = iota
	// Elimination drops embeddings that miss non-tree edges of one label between matched
	// vertices (Algorithm 7).
	Elimination
	// Counting is a step kind only (no phase has it): the last step of a count that counts the
	// closing vertices of Plan.Counted from the sizes of their candidate sets instead of
	// matching them (Step.Classes).
	Counting
)

// The eight matching patterns of Fig. 1. u_s1 and u_s2 are matched query vertices (sources); the
// new vertices hang off them by edges of one label. "Same label" below means one vertex-label
// constraint. Priorities (Section 5.5): by the number of new vertices first (5-7 over 1-4 over 0),
// then by efficiency: 5, 6, 7, then 1, 3, 4, 2, then 0.
const (
	// Pattern0 matches one vertex u_1 from one source (single-vertex matching).
	Pattern0 = iota
	// Pattern1 matches two vertices of the same label from one source.
	Pattern1
	// Pattern2 matches one vertex from each of two sources, the two of the same label.
	Pattern2
	// Pattern3 matches two vertices of different labels from one source.
	Pattern3
	// Pattern4 matches one vertex from each of two sources, the two of different labels.
	Pattern4
	// Pattern5 matches u_1..u_n (n >= 3) of one label from one source.
	Pattern5
	// Pattern6 matches u_1..u_n of one label and u_n+1..u_n+m of another from one source
	// (n+m >= 3).
	Pattern6
	// Pattern7 matches u_1..u_n of one label from u_s1 and u_n+1..u_n+m of one label from u_s2
	// (n+m >= 3).
	Pattern7
)

// patternRank orders the patterns by the two-level priority of Section 5.5 (0: highest).
var patternRank = [8]int{Pattern5: 0, Pattern6: 1, Pattern7: 2, Pattern1: 3, Pattern3: 4, Pattern4: 5, Pattern2: 6, Pattern0: 7}

// Pattern sets passed to the planner: the core may use patterns 0-4 only, the first phase of a
// cycle 0, 1 and 3 (Section 6).
const (
	corePatterns    = 1<<Pattern0 | 1<<Pattern1 | 1<<Pattern2 | 1<<Pattern3 | 1<<Pattern4
	initialPatterns = 1<<Pattern0 | 1<<Pattern1 | 1<<Pattern3
	treeInitial     = initialPatterns | 1<<Pattern5 | 1<<Pattern6
	allPatterns     = 0xff
)

// Phase is one step of a GENEVA plan; every edge of a phase carries EdgeLabel, so the phase needs
// one ELP (a wildcard label needs every ELP).
type Phase struct {
	Kind PhaseKind
	// Pattern is the Fig. 1 pattern of an extension phase.
	Pattern int
	// Initial marks the first phase of a connected component: its source is matched by the
	// phase itself, from the ELP's vertices, rather than read from the embeddings. An initial
	// phase without edges matches an isolated query vertex from the vertex set.
	Initial   bool
	EdgeLabel pattern.Label
	// Edges are, for an extension phase, its tree edges (U the source, V the new vertex), for an
	// elimination phase the non-tree edges it checks.
	Edges []pattern.Edge
	// Vertices are the query vertices an extension phase matches, in the order they are appended
	// to the embedding (an initial phase's source first).
	Vertices []int
}

// Plan is GENMATCHORDER's output.
type Plan struct {
	Phases []Phase
	// Order lists the query vertices in the order the phases match them.
	Order []int
	// Restrictions break the query's automorphisms along Order, then the counted vertices (for
	// unique counts).
	Restrictions []plan.Restriction
	// Counted are the closing vertices that no phase matches (PlanCounting): a final counting
	// step counts their admissible data vertices for every embedding of the rest.
	Counted []CountedClass
}

// MatchOrder decomposes q into extension and elimination phases with GENMATCHORDER (Algorithm 8,
// Section 6), component by component (largest first): it takes the 2-core, finds its smallest
// cycle and matches it first (the initial phase with pattern 1, 3 or 0, then patterns 0-4 inside
// the cycle), then the rest of the core with patterns 0-4, then the trees with any pattern.
// Whenever matched vertices have unchecked edges between them, those edges are checked first,
// one elimination phase per edge label. Among candidate extensions the highest-priority pattern
// wins; ties go to the one whose new vertices have the most unmatched neighbours (the draft's
// rule), then to the first found.
func MatchOrder(q *pattern.Pattern) *Plan { return MatchOrderEstimated(q, nil) }

// MatchOrderEstimated is GENMATCHORDER made cost-aware: the same skeleton (components largest
// first; the smallest cycle, the rest of the core and the trees in that order; eliminations as
// soon as their edges are matched; the same pattern sets at each stage), but among the candidate
// extensions it takes the one with the smallest estimated growth of the embeddings per vertex it
// matches (Estimates.logGrowth), the paper's priorities breaking near-ties; among shortest cycles
// it starts with the one whose vertices have the fewest candidates. The paper's purely
// structural choice can grow the intermediate tables by orders of magnitude more than needed
// (github Q_18: 4e11 rows at one depth against 2e8 for the final count). est nil gives MatchOrder.
func MatchOrderEstimated(q *pattern.Pattern, est *Estimates) *Plan { return matchOrder(q, est, 0) }

// matchOrder plans the query without the vertices of skip (an independent set whose removal
// leaves every component of q connected and non-empty); the restrictions follow the phases'
// order, then skip's vertices in increasing order.
func matchOrder(q *pattern.Pattern, est *Estimates, skip uint32) *Plan {
	active := (uint32(1)<<q.NumVertices() - 1) &^ skip
	pl := &planner{q: q, active: active, core: twoCoreOf(q, active), est: est}
	comps := componentsOf(q, active)
	slices.SortStableFunc(comps, func(a, b uint32) int { return bits.OnesCount32(b) - bits.OnesCount32(a) })
	for _, comp := range comps {
		pl.component(comp)
	}
	pl.out.Order = pl.order
	full := slices.Clone(pl.order)
	for m := skip; m != 0; m &= m - 1 {
		full = append(full, bits.TrailingZeros32(m))
	}
	pl.out.Restrictions = plan.SymmetryRestrictions(q, full)
	return &pl.out
}

// planner carries GENMATCHORDER's state.
type planner struct {
	q       *pattern.Pattern
	active  uint32 // the vertices to plan
	core    uint32
	matched uint32
	checked map[[2]int]bool
	order   []int
	out     Plan
	est     *Estimates // nil: the paper's choice
}

// component plans one connected component.
func (pl *planner) component(comp uint32) {
	if bits.OnesCount32(comp) == 1 {
		u := bits.TrailingZeros32(comp)
		pl.add(Phase{Kind: Extension, Pattern: Pattern0, Initial: true, EdgeLabel: pattern.Wildcard, Vertices: []int{u}})
		return
	}
	core := pl.core & comp
	cycle := smallestCycle(pl.q, core, pl.est)
	if cycle != 0 {
		pl.extend(cycle, initialPatterns, true)
	} else {
		pl.extend(comp, treeInitial, true)
	}
	for comp&^pl.matched != 0 {
		if pl.eliminate() {
			continue
		}
		switch {
		case cycle&^pl.matched != 0:
			pl.extend(cycle, corePatterns, false)
		case core&^pl.matched != 0:
			pl.extend(core, corePatterns, false)
		default:
			pl.extend(comp, allPatterns, false)
		}
	}
	pl.eliminate()
}

// add appends a phase and records what it matches and checks.
func (pl *planner) add(ph Phase) {
	if pl.checked == nil {
		pl.checked = map[[2]int]bool{}
	}
	for _, u := range ph.Vertices {
		pl.matched |= 1 << u
		pl.order = append(pl.order, u)
	}
	for _, e := range ph.Edges {
		pl.checked[edgeKey(e.U, e.V)] = true
	}
	pl.out.Phases = append(pl.out.Phases, ph)
}

func edgeKey(u, v int) [2]int { return [2]int{min(u, v), max(u, v)} }

// eliminate adds one elimination phase per edge label for the unchecked edges between matched
// vertices (labels in order of first appearance) and reports whether it added any.
func (pl *planner) eliminate() bool {
	var phases []Phase
	for _, e := range pl.q.Edges() {
		if pl.matched&(1<<e.U) == 0 || pl.matched&(1<<e.V) == 0 || pl.checked[edgeKey(e.U, e.V)] {
			continue
		}
		i := slices.IndexFunc(phases, func(ph Phase) bool { return ph.EdgeLabel == e.Label })
		if i < 0 {
			phases = append(phases, Phase{Kind: Elimination, EdgeLabel: e.Label})
			i = len(phases) - 1
		}
		phases[i].Edges = append(phases[i].Edges, e)
	}
	for _, ph := range phases {
		pl.add(ph)
	}
	return len(phases) > 0
}

// extend adds the best extension phase whose new vertices lie in allowed and whose pattern is in
// the set patterns (a bit per pattern). An initial phase also picks its source from allowed.
func (pl *planner) extend(allowed uint32, patterns int, initial bool) {
	var best *Phase
	bestScore, bestGrowth := 0, 0.0
	consider := func(ph Phase) {
		if patterns&(1<<ph.Pattern) == 0 {
			return
		}
		score := pl.unmatchedNeighbours(ph.Vertices)
		growth := 0.0
		if pl.est != nil {
			growth = pl.est.logGrowth(pl.q, pl.matched, &ph)
		}
		// Growths within 5% of each other count as equal.
		better := best == nil || growth < bestGrowth-0.05
		if !better && (growth <= bestGrowth+0.05) {
			better = patternRank[ph.Pattern] < patternRank[best.Pattern] ||
				patternRank[ph.Pattern] == patternRank[best.Pattern] && score > bestScore
		}
		if better {
			ph := ph
			best, bestScore, bestGrowth = &ph, score, growth
		}
	}
	free := allowed &^ pl.matched
	sources := pl.matched
	if initial {
		sources = free
	}
	// groups[s] are the free neighbours of source s by edge label, then vertex label.
	type group struct {
		edge, vertex pattern.Label
		members      []int
	}
	groups := make([][]group, pl.q.NumVertices())
	for s := range pl.q.NumVertices() {
		if sources&(1<<s) == 0 {
			continue
		}
		for u := range pl.q.NumVertices() {
			if u == s || free&(1<<u) == 0 || !pl.q.Adjacent(s, u) {
				continue
			}
			el, _ := pl.q.EdgeLabel(s, u)
			vl := pl.q.VertexLabel(u)
			i := slices.IndexFunc(groups[s], func(g group) bool { return g.edge == el && g.vertex == vl })
			if i < 0 {
				groups[s] = append(groups[s], group{edge: el, vertex: vl})
				i = len(groups[s]) - 1
			}
			groups[s][i].members = append(groups[s][i].members, u)
		}
	}
	// phase builds the extension matching, from each source s of srcs, the vertices news[i].
	phase := func(pat int, el pattern.Label, srcs []int, news [][]int) Phase {
		ph := Phase{Kind: Extension, Pattern: pat, Initial: initial, EdgeLabel: el}
		if initial {
			ph.Vertices = append(ph.Vertices, srcs[0])
		}
		for i, s := range srcs {
			for _, u := range news[i] {
				ph.Edges = append(ph.Edges, pattern.Edge{U: s, V: u, Label: el})
				ph.Vertices = append(ph.Vertices, u)
			}
		}
		return ph
	}
	for s, gs := range groups {
		for i, g := range gs {
			one := []int{s}
			for a, u := range g.members {
				consider(phase(Pattern0, g.edge, one, [][]int{{u}}))
				for _, v := range g.members[a+1:] {
					consider(phase(Pattern1, g.edge, one, [][]int{{u, v}}))
				}
			}
			if len(g.members) >= 3 {
				consider(phase(Pattern5, g.edge, one, [][]int{g.members}))
			}
			for _, h := range gs[i+1:] {
				if h.edge != g.edge {
					continue
				}
				for _, u := range g.members {
					for _, v := range h.members {
						consider(phase(Pattern3, g.edge, one, [][]int{{u, v}}))
					}
				}
				if len(g.members)+len(h.members) >= 3 {
					consider(phase(Pattern6, g.edge, one, [][]int{append(slices.Clone(g.members), h.members...)}))
				}
			}
			if initial {
				continue
			}
			// Two sources: s and a later source t, one edge label.
			for t := s + 1; t < len(groups); t++ {
				for _, h := range groups[t] {
					if h.edge != g.edge {
						continue
					}
					pair := []int{s, t}
					for _, u := range g.members {
						for _, v := range h.members {
							if u == v {
								continue
							}
							pat := Pattern4
							if g.vertex == h.vertex {
								pat = Pattern2
							}
							consider(phase(pat, g.edge, pair, [][]int{{u}, {v}}))
						}
					}
					if len(g.members)+len(h.members) >= 3 && !overlaps(g.members, h.members) {
						consider(phase(Pattern7, g.edge, pair, [][]int{g.members, h.members}))
					}
				}
			}
		}
	}
	if best == nil {
		// Unreachable for a connected component: some free allowed vertex always has a
		// matched (or, initially, free) neighbour in allowed.
		panic(fmt.Sprintf("geneva: no extension for vertices %b (matched %b)", allowed, pl.matched))
	}
	pl.add(*best)
}

// unmatchedNeighbours counts the edges from vs to vertices neither matched nor in vs.
func (pl *planner) unmatchedNeighbours(vs []int) int {
	var in uint32
	for _, u := range vs {
		in |= 1 << u
	}
	c := 0
	for _, u := range vs {
		c += bits.OnesCount32(pl.q.NeighborMask(u) & pl.active &^ pl.matched &^ in)
	}
	return c
}

func overlaps(a, b []int) bool {
	for _, u := range a {
		if slices.Contains(b, u) {
			return true
		}
	}
	return false
}

// twoCore returns the 2-core of q: what remains after repeatedly removing vertices of degree at
// most one (the trees hang off it).
func twoCore(q *pattern.Pattern) uint32 { return twoCoreOf(q, uint32(1)<<q.NumVertices()-1) }

// twoCoreOf is the 2-core of the subgraph of q induced by the vertex set within.
func twoCoreOf(q *pattern.Pattern, within uint32) uint32 {
	core := within
	for changed := true; changed; {
		changed = false
		for u := range q.NumVertices() {
			if core&(1<<u) != 0 && bits.OnesCount32(q.NeighborMask(u)&core) <= 1 {
				core &^= 1 << u
				changed = true
			}
		}
	}
	return core
}

// componentsOf returns the connected components of the subgraph of q induced by within.
func componentsOf(q *pattern.Pattern, within uint32) []uint32 {
	var comps []uint32
	for left := within; left != 0; {
		comp := reach(q, within, bits.TrailingZeros32(left))
		comps = append(comps, comp)
		left &^= comp
	}
	return comps
}

// reach returns the vertices of within reachable from u (in within) over edges inside within.
func reach(q *pattern.Pattern, within uint32, u int) uint32 {
	seen := uint32(1) << u
	for frontier := seen; frontier != 0; {
		var next uint32
		for m := frontier; m != 0; m &= m - 1 {
			next |= q.NeighborMask(bits.TrailingZeros32(m))
		}
		next &= within &^ seen
		seen |= next
		frontier = next
	}
	return seen
}

// smallestCycle returns the vertices of a shortest cycle within the vertex set core (0 when
// core has none): for every edge (a, b) inside core, the shortest a-b path avoiding that edge.
// With estimates, ties go to the cycle whose vertices have the fewest candidates (sum of logs).
func smallestCycle(q *pattern.Pattern, core uint32, est *Estimates) uint32 {
	var best uint32
	bestLen, bestCost := 0, 0.0
	cost := func(cyc uint32) float64 {
		if est == nil {
			return 0
		}
		c := 0.0
		for m := cyc; m != 0; m &= m - 1 {
			c += safeLog(est.Candidates[bits.TrailingZeros32(m)])
		}
		return c
	}
	for _, e := range q.Edges() {
		if core&(1<<e.U) == 0 || core&(1<<e.V) == 0 {
			continue
		}
		// BFS from e.U to e.V inside core, not over the edge itself.
		parent := make([]int, q.NumVertices())
		for i := range parent {
			parent[i] = -1
		}
		parent[e.U] = e.U
		queue := []int{e.U}
		for len(queue) > 0 && parent[e.V] < 0 {
			x := queue[0]
			queue = queue[1:]
			for nb := q.NeighborMask(x) & core; nb != 0; nb &= nb - 1 {
				y := bits.TrailingZeros32(nb)
				if parent[y] >= 0 || x == e.U && y == e.V {
					continue
				}
				parent[y] = x
				queue = append(queue, y)
			}
		}
		if parent[e.V] < 0 {
			continue
		}
		cyc := uint32(1 << e.U)
		for x := e.V; x != e.U; x = parent[x] {
			cyc |= 1 << x
		}
		if n, c := bits.OnesCount32(cyc), cost(cyc); best == 0 || n < bestLen || n == bestLen && c < bestCost {
			best, bestLen, bestCost = cyc, n, c
		}
	}
	return best
}
