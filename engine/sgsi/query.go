package sgsi

import (
	"math"
	"math/bits"
	"slices"

	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// query is a pattern compiled for one data graph: the query vertices' signatures and labels for
// the filter, then (once the candidate sets are known) the join order and its steps.
type query struct {
	p       *pattern.Pattern
	n       int
	sigs    []uint32 // sigWords per query vertex
	vlabels []uint32 // exact label, or anyLabel
	order   []int    // join order; order[0] starts the table
	pos     []int    // pattern vertex -> its column (position in order)
	steps   []step   // steps[i] adds order[i+1] to tables of width i+1
	// joined is the number of vertices the steps join (order[:joined]); the leaves after them
	// (order[joined:], counted, not joined: leaves.go) are in leafGroups, by collision class in
	// leafClasses (indices into leafGroups); counted reports whether any are.
	joined      int
	leafGroups  []leafGroup
	leafClasses [][]int
	tails       []leafTail // counted too (leaves.go): their a and b follow the groups' in order
	// chains are the tails of two inner vertices or more (chains.go), pairs the pairs of tails
	// whose labels may coincide (pairs.go), counted too.
	chains []chainTail
	pairs  []pairTail
	// tailCap caps the inner vertices of b's tail (absent: no cap; 0: b is no tail's): how
	// far the tails reach, chosen by weighTails.
	tailCap map[int]int
	// aut is what each match the joins find stands for: |Aut(p)| when plan counts embeddings
	// as unique matches, else 1.
	aut uint64
	// late is the vertices the core order puts after all the others (chooseLate: they are
	// then closing vertices, counted by the leaf step).
	late uint32
}

// link is one edge between the vertex a step adds and a vertex already in the table.
type link struct {
	col int   // the table column of the earlier vertex
	key lgKey // its label graph: the edge's label (or anyEdge) and the new vertex's label
}

// step is one join iteration (SGSI's Algorithm 2): it adds query vertex u to every row.
type step struct {
	u int
	// first is the linking edge whose lists fill the preallocated buffers (Algorithm 3: the
	// rarest label; byShortest takes another for the rows where its list is shorter); cartesian is set when u has no earlier neighbour (a disconnected pattern):
	// the buffers then hold C(u) for every row.
	first     link
	cartesian bool
	// others are intersected with the buffers; nonadj (induced counts) are subtracted.
	others []link
	nonadj []link
	// less lists the columns whose vertex must be smaller than u's, greater those whose vertex
	// must be larger (the symmetry-breaking restrictions of unique counts).
	less, greater []int
}

// sgsiOrder is SGSI's Algorithm 1: score |C(u)|/deg(u), the least first, then the least among
// the vertices linked to those chosen; each choice multiplies its neighbours' scores by the
// frequency of the edge label between them. The frequency is a count of adjacency entries, so
// with one edge label every link multiplies a score by 2|E|: the vertices linked to the most
// chosen ones come last (issue 21: a dense walk's core after its paths and leaves).
func (q *query) sgsiOrder(cands []uint64, freq func(uint64) uint64, edgeLabels bool) {
	q.greedyOrder(cands, func(best, w int, score []float64, _ []int) {
		score[w] *= math.Max(1, float64(freq(edgeKey(q.p, best, w, edgeLabels))))
	}, func(int) int { return 0 })
}

// coreOrder (the default; Options.PaperOrder and --sgsi-paper-order take SGSI's instead) orders as the cpu engine's plan does
// (plan.matchingOrder), with SGSI's score for ties: the 2-core's vertices first, then the other
// vertices of two links or more, leaves last; the first the least |C(u)|/deg(u), then among the
// vertices linked to those chosen the most links to them, then the least score, each link
// multiplying the score by its label's share of the adjacency entries (at most 1: a rare label
// makes a vertex sooner, where Algorithm 1's counts make every link a penalty).
func (q *query) coreOrder(cands []uint64, freq func(uint64) uint64, edgeLabels bool) {
	p := q.p
	all := float64(max(1, freq(anyEdge)))
	ranks := plan.Ranks(p)
	q.greedyOrder(cands, func(best, w int, score []float64, back []int) {
		back[w]++
		score[w] *= min(1, float64(freq(edgeKey(p, best, w, edgeLabels)))/all)
	}, func(u int) int {
		if q.late>>u&1 != 0 {
			return 3
		}
		return ranks[u]
	})
}

// greedyOrder sets q.order: each next vertex the least by (linked to those chosen first, rank,
// most links to them, score), then update(best, w, score, back) for each neighbour w of the
// vertex chosen, which may change w's score and links back[w]. A disconnected pattern
// continues with the least of the rest.
func (q *query) greedyOrder(cands []uint64, update func(best, w int, score []float64, back []int), rank func(int) int) {
	p, n := q.p, q.n
	score := make([]float64, n)
	back := make([]int, n)
	for u := range n {
		score[u] = float64(cands[u]) / float64(max(1, p.Degree(u)))
	}
	better := func(u, best int) bool {
		if rank(u) != rank(best) {
			return rank(u) < rank(best)
		}
		if back[u] != back[best] {
			return back[u] > back[best]
		}
		return score[u] < score[best]
	}
	chosen := uint32(0)
	q.order = q.order[:0]
	for len(q.order) < n {
		best := -1
		linked := false
		for u := range n {
			if chosen&(1<<u) != 0 {
				continue
			}
			l := p.NeighborMask(u)&chosen != 0
			if best < 0 || (l && !linked) || (l == linked && better(u, best)) {
				best, linked = u, l
			}
		}
		q.order = append(q.order, best)
		chosen |= 1 << best
		for m := p.NeighborMask(best); m != 0; m &= m - 1 {
			update(best, bits.TrailingZeros32(m), score, back)
		}
	}
}

func compileQuery(p *pattern.Pattern) *query {
	n := p.NumVertices()
	q := &query{p: p, n: n, sigs: make([]uint32, sigWords*n), vlabels: make([]uint32, n)}
	for u := range n {
		sig := q.sigs[u*sigWords : (u+1)*sigWords]
		l := p.VertexLabel(u)
		q.vlabels[u] = anyLabel
		if !l.Any {
			q.vlabels[u] = l.Value
			sig[0] = labelBit(l.Value)
		}
		for m := p.NeighborMask(u); m != 0; m &= m - 1 {
			w := bits.TrailingZeros32(m)
			el, _ := p.EdgeLabel(u, w)
			wl := p.VertexLabel(w)
			if el.Any || wl.Any {
				continue // a wildcard pair may hash anywhere: it constrains nothing
			}
			addPair(sig, pairGroup(el.Value, wl.Value))
		}
	}
	return q
}

// edgeKey is the label graph that pattern edge (u, w) is matched in.
func edgeKey(p *pattern.Pattern, u, w int, edgeLabels bool) uint64 {
	l, _ := p.EdgeLabel(u, w)
	if l.Any || (!edgeLabels && l.Value == 0) {
		return anyEdge
	}
	return uint64(l.Value)
}

// plan chooses the join order (order) and builds the steps. cands[u] is |C(u)|; freq(key) the
// number of adjacency entries of an edge label (of every neighbour label); edgeLabels whether
// the graph has edge labels.
//
// embeddings (a count of embeddings, not a listing) counts each subgraph once under the unique
// restrictions; the count is then q.aut times the joins' (embeddings = unique matches x
// |Aut(p)|, induced or not).
//
// leaves (a count, not induced: Options.JoinLeaves off) moves the pattern's leaves and then the
// order's closing vertices (plan.ClosingVertices: every neighbour joined before them, as the
// cpu engine's plan postpones them; only when there are leaves) to the end of the order and
// counts those that plan.GroupLeaves can count (leaves.go) instead of joining them.
func (q *query) plan(cands []uint64, freq func(uint64) uint64, edgeLabels, induced, unique, embeddings, core, leaves bool) {
	p, n := q.p, q.n
	if core {
		q.coreOrder(cands, freq, edgeLabels)
	} else {
		q.sgsiOrder(cands, freq, edgeLabels)
	}
	var postponed []int
	if leaves && !induced && embeddings {
		q.order, postponed = splitLeaves(p, q.order)
		// Closing vertices join the leaf step when it runs anyway (the pattern has leaves).
		// Without leaves they stay joined: the last join is the device's direct count, which
		// counts its rows without writing them, and moving closing vertices to the host's leaf
		// step instead (faster in the host emulation, where both run on the host) has not been
		// measured against it on a device.
		rest, closing := plan.ClosingVertices(p, q.order)
		if len(postponed) > 0 && len(closing) > 0 {
			q.order, postponed = rest, append(postponed, closing...)
		}
	}
	var restr []plan.Restriction
	q.aut = 1
	if unique || embeddings {
		// (Restrictions constrain the matches whatever order joins them: those of the order
		// with the leaves last hold after GroupLeaves moves some of them into the joins.)
		restr = plan.SymmetryRestrictions(p, append(slices.Clone(q.order), postponed...))
	}
	if !unique && embeddings {
		// Each subgraph once, times |Aut(p)|: the tables |Aut(p)| times smaller.
		if aut, ok := plan.RestrictionsAutomorphisms(restr); ok {
			q.aut = aut
		} else {
			restr = nil // (|Aut(p)| beyond uint64: every embedding, as listed)
		}
	}
	q.planLeaves(postponed, restr, edgeLabels) // (after restr is final: it orders the groups)
	q.pos = make([]int, n)
	for i, u := range q.order {
		q.pos[u] = i
	}
	// lt[c]: the columns whose vertex is smaller than column c's in every match, by the
	// restrictions and their transitive closure (a link reads the side of its lists that the
	// restrictions leave, lgKey.dir; a row pruned through a column placed later has no match).
	lt := make([]uint32, n)
	for _, r := range restr {
		lt[q.pos[r.Greater]] |= 1 << q.pos[r.Less]
	}
	for range n {
		for c := range n {
			for m := lt[c]; m != 0; m &= m - 1 {
				lt[c] |= lt[bits.TrailingZeros32(m)]
			}
		}
	}
	dir := func(j, i int) uint8 {
		switch {
		case lt[i]>>j&1 != 0:
			return upperSide
		case lt[j]>>i&1 != 0:
			return lowerSide
		}
		return bothSides
	}
	q.steps = q.steps[:0]
	for i := 1; i < q.joined; i++ {
		u := q.order[i]
		st := step{u: u, cartesian: true}
		for j := range i {
			w := q.order[j]
			if !p.Adjacent(u, w) {
				if induced {
					st.nonadj = append(st.nonadj, link{col: j, key: lgKey{anyEdge, q.vlabels[u], dir(j, i)}})
				}
				continue
			}
			l := link{col: j, key: lgKey{edgeKey(p, u, w, edgeLabels), q.vlabels[u], dir(j, i)}}
			if st.cartesian || freq(l.key.edge) < freq(st.first.key.edge) {
				if !st.cartesian {
					st.others = append(st.others, st.first)
				}
				st.first, st.cartesian = l, false
				continue
			}
			st.others = append(st.others, l)
		}
		for _, r := range restr {
			switch {
			case r.Greater == u && q.pos[r.Less] < i:
				st.less = append(st.less, q.pos[r.Less])
			case r.Less == u && q.pos[r.Greater] < i:
				st.greater = append(st.greater, q.pos[r.Greater])
			}
		}
		q.steps = append(q.steps, st)
	}
}

// counted reports whether the leaf step counts any vertex (a group or a tail).
func (q *query) counted() bool {
	return len(q.leafGroups) > 0 || len(q.tails) > 0 || len(q.chains) > 0 || len(q.pairs) > 0
}

// tailLimit is the most inner vertices b's tail may have (tailCap).
func (q *query) tailLimit(b int) int {
	if c, ok := q.tailCap[b]; ok {
		return c
	}
	return q.n
}
