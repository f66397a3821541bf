package csm

import (
	"math/bits"
	"slices"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// A pattern's items are the constraints a match must meet: one per pattern vertex (its label,
// the vertex alive) and one per pattern pair that constrains the data pair (an edge with its label;
// under induced semantics also a non-edge). A match of G_new that is not one of G_old violates
// at least one item in G_old; counting it at its first violated item i (items before i hold in
// both graphs, item i holds in G_new only, items after i hold in G_new) counts it exactly once.
// Item i can only fail in G_old on a changed element, so each term is a search anchored there:
// on a changed vertex for a vertex item, on a changed pair (both orientations) for a pair item.
// Destroyed matches are the same with the graphs exchanged.

// pairItem is a pattern pair that constrains its data pair.
type pairItem struct {
	a, b int
	adj  bool          // an edge (else, induced only: a non-edge)
	el   pattern.Label // the edge's label constraint
}

// valid reports whether a data pair in state s meets the item.
func (it *pairItem) valid(s PairState) bool { return pairValid(it.adj, it.el, s) }

// pairValid reports whether a data pair in state s meets a pair item: an edge with label el
// (adj), or no edge.
func pairValid(adj bool, el pattern.Label, s PairState) bool {
	if adj {
		return s.Present && el.Matches(s.Label)
	}
	return !s.Present
}

// edgeCheck requires an edge with a label to the data vertex of an earlier level.
type edgeCheck struct {
	pos int
	el  pattern.Label
}

// otherCheck requires the pair with an earlier level's vertex to meet its item in the other graph.
type otherCheck struct {
	pos int
	it  *pairItem
}

// level is one pattern vertex of a term's order, with every check against earlier levels.
type level struct {
	w       int
	vl      pattern.Label
	parents []edgeCheck // earlier pattern neighbours
	nonAdj  []int       // induced: earlier non-neighbours (no data edge allowed)
	otherV  bool        // the vertex item must hold in the other graph
	otherP  []otherCheck
	above   []int // positions whose data vertex must be smaller (symmetry restrictions)
	below   []int // positions whose data vertex must be larger
	// inj: the earlier positions whose data vertex the candidate may equal (labels that may
	// collide; parents never: the candidate is their neighbour).
	inj []int
	// injCheck: the inj positions whose data vertex free must look for among the candidates;
	// injSure counts the others, which are surely among them (pattern neighbours of every parent
	// with its exact edge label and the level's exact vertex label: their edges to the parents'
	// data vertices were checked when they were placed).
	injCheck []int
	injSure  uint64
	// exact: the vertex label and every parent edge label are exact, so candidates are the
	// intersection of one run per parent.
	exact bool
	// plain: no check beyond the parents' edges, injectivity and the other graph (the last level
	// is then counted from the intersection's size).
	plain bool
	// countable: plain but for non-edges (induced), which are subtracted from the candidates, so
	// that the last level is still counted from their number.
	countable bool
	// deps: the positions a plain level's free count depends on (parents and inj), when there
	// are at most memoDeps of them (else nil: not memoised).
	deps []int
	// twin: the level before is plain with the same exact vertex label and the same parents
	// (positions and exact edge labels), and neither is a parent of the other: in a tail, a group
	// of r such levels draws r distinct vertices from the same c free candidates,
	// c(c-1)...(c-r+1) ways.
	twin bool
}

// memoDeps bounds the positions a memoised count may depend on.
const memoDeps = 6

// term is the search anchored at one item.
type term struct {
	vertex int // the vertex item's pattern vertex, or -1
	pair   int // the pair item's index, or -1
	levels []level
	// tail: the levels tail.. are plain, none is a parent of another, and their vertex labels
	// are distinct, so a count multiplies their free candidates instead of enumerating them;
	// tailV / tailP: some of them checks the other graph's vertices / pairs.
	tail         int
	tailV, tailP bool
	// tailTwins: some tail level is a twin (its group is then counted only when no candidate
	// can fail an other-graph check: twins may have different such checks).
	tailTwins bool
	// sumLevel: the one tail level whose count depends on the level just before the tail, with
	// that level as its only parent and no injectivity to look up (a path's or a tree's last
	// edge), or -1. The tail's count is then its other levels' product times the sum, over the
	// level before it, of that level's free candidates: the last enumerated level is summed in
	// one loop instead of searched candidate by candidate.
	sumLevel int
}

// program is one standing pattern prepared for the delta searches.
type program struct {
	p       *pattern.Pattern
	n       int
	induced bool
	unique  bool
	pairs   []pairItem
	terms   []term // n vertex terms, then one per pair item
}

func newProgram(p *pattern.Pattern, sem engine.Semantics) *program {
	n := p.NumVertices()
	pr := &program{p: p, n: n, induced: sem.Induced, unique: sem.Unique}
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			if el, ok := p.EdgeLabel(a, b); ok {
				pr.pairs = append(pr.pairs, pairItem{a: a, b: b, adj: true, el: el})
			} else if sem.Induced {
				pr.pairs = append(pr.pairs, pairItem{a: a, b: b})
			}
		}
	}
	var rs []plan.Restriction
	if sem.Unique {
		// Restrictions keep one embedding per orbit whatever the data order; any vertex order
		// of the pattern gives a valid set.
		ident := make([]int, n)
		for i := range ident {
			ident[i] = i
		}
		rs = plan.SymmetryRestrictions(p, ident)
	}
	for a := 0; a < n; a++ {
		pr.terms = append(pr.terms, pr.makeTerm(order(p, []int{a}), a, -1, rs))
	}
	for i := range pr.pairs {
		it := &pr.pairs[i]
		pr.terms = append(pr.terms, pr.makeTerm(order(p, []int{it.a, it.b}), -1, i, rs))
	}
	return pr
}

// order extends start to every pattern vertex: next the vertex with most ordered neighbours
// (ties: the higher degree, then an exact label), so that each level has a parent to draw
// candidates from whenever the pattern is connected.
func order(p *pattern.Pattern, start []int) []int {
	n := p.NumVertices()
	out := append([]int(nil), start...)
	var done uint32
	for _, v := range start {
		done |= 1 << v
	}
	for len(out) < n {
		best, bestKey := -1, -1
		for v := 0; v < n; v++ {
			if done&(1<<v) != 0 {
				continue
			}
			key := bits.OnesCount32(p.NeighborMask(v)&done)*1024 + p.Degree(v)*2
			if !p.VertexLabel(v).Any {
				key++
			}
			if key > bestKey {
				best, bestKey = v, key
			}
		}
		out = append(out, best)
		done |= 1 << best
	}
	return out
}

func (pr *program) makeTerm(ord []int, vertex, pair int, rs []plan.Restriction) term {
	t := term{vertex: vertex, pair: pair, levels: make([]level, len(ord))}
	posOf := make([]int, pr.n)
	for k, w := range ord {
		posOf[w] = k
	}
	pairIndex := func(a, b int) int {
		if a > b {
			a, b = b, a
		}
		for i := range pr.pairs {
			if pr.pairs[i].a == a && pr.pairs[i].b == b {
				return i
			}
		}
		return -1
	}
	for k, w := range ord {
		lv := &t.levels[k]
		lv.w = w
		lv.vl = pr.p.VertexLabel(w)
		lv.otherV = pair >= 0 || w < vertex
		for j := 0; j < k; j++ {
			q := ord[j]
			if el, ok := pr.p.EdgeLabel(w, q); ok {
				lv.parents = append(lv.parents, edgeCheck{pos: j, el: el})
			} else {
				if pr.induced {
					lv.nonAdj = append(lv.nonAdj, j)
				}
				if plan.LabelsMayCollide(lv.vl, pr.p.VertexLabel(q)) {
					lv.inj = append(lv.inj, j)
				}
			}
			if pi := pairIndex(w, q); pi >= 0 && pair >= 0 && pi < pair {
				lv.otherP = append(lv.otherP, otherCheck{pos: j, it: &pr.pairs[pi]})
			}
		}
		lv.exact = !lv.vl.Any && len(lv.parents) > 0
		for _, pe := range lv.parents {
			lv.exact = lv.exact && !pe.el.Any
		}
		for _, r := range rs {
			switch {
			case r.Greater == w && posOf[r.Less] < k:
				lv.above = append(lv.above, posOf[r.Less])
			case r.Less == w && posOf[r.Greater] < k:
				lv.below = append(lv.below, posOf[r.Greater])
			}
		}
		for _, j := range lv.inj {
			if pr.surelyCandidate(lv, ord[j], ord) {
				lv.injSure++
			} else {
				lv.injCheck = append(lv.injCheck, j)
			}
		}
		lv.plain = lv.exact && len(lv.nonAdj) == 0 && len(lv.above) == 0 && len(lv.below) == 0
		lv.countable = lv.exact && len(lv.above) == 0 && len(lv.below) == 0
		if lv.plain && len(lv.parents)+len(lv.inj) <= memoDeps {
			for _, pe := range lv.parents {
				lv.deps = append(lv.deps, pe.pos)
			}
			lv.deps = append(lv.deps, lv.inj...)
		}
	}
	anchors := 2
	if vertex >= 0 {
		anchors = 1
	}
	for i := anchors + 1; i < len(ord); i++ {
		t.levels[i].twin = twins(&t.levels[i-1], &t.levels[i])
	}
	t.tail = len(ord)
	for i := len(ord) - 1; i >= anchors; i-- {
		lv := &t.levels[i]
		ok := lv.plain
		group := true // the levels i+1..j are twins of i
		for j := i + 1; j < len(ord) && ok; j++ {
			later := &t.levels[j]
			group = group && later.twin
			ok = later.vl.Value != lv.vl.Value || group
			for _, pe := range later.parents {
				ok = ok && pe.pos != i
			}
		}
		if !ok {
			break
		}
		t.tail = i
		t.tailV = t.tailV || lv.otherV
		t.tailP = t.tailP || len(lv.otherP) > 0
	}
	for i := t.tail + 1; i < len(ord); i++ {
		t.tailTwins = t.tailTwins || t.levels[i].twin
	}
	t.sumLevel = sumLevel(&t, anchors)
	return t
}

// sumLevel returns the term's sumLevel (see term).
func sumLevel(t *term, anchors int) int {
	k := t.tail - 1
	if k < anchors || t.tail == len(t.levels) || t.tailTwins || !t.levels[k].exact {
		return -1
	}
	dep := -1
	for i := t.tail; i < len(t.levels); i++ {
		lv := &t.levels[i]
		depends := slices.Contains(lv.inj, k)
		for _, pe := range lv.parents {
			depends = depends || pe.pos == k
		}
		if !depends {
			continue
		}
		if dep >= 0 || len(lv.parents) != 1 || lv.parents[0].pos != k || len(lv.injCheck) > 0 {
			return -1
		}
		dep = i
	}
	return dep
}

// surelyCandidate reports whether the data vertex of pattern vertex q, placed at an earlier
// level, is always among level lv's candidates: lv draws exact labels from its parents' runs
// with no non-edge subtracted, q has lv's exact vertex label and is a pattern neighbour of every
// parent with the same exact edge label.
func (pr *program) surelyCandidate(lv *level, q int, ord []int) bool {
	ql := pr.p.VertexLabel(q)
	if !lv.exact || len(lv.nonAdj) > 0 || ql.Any || ql.Value != lv.vl.Value {
		return false
	}
	for _, pe := range lv.parents {
		el, ok := pr.p.EdgeLabel(q, ord[pe.pos])
		if !ok || el.Any || pe.el.Any || el.Value != pe.el.Value {
			return false
		}
	}
	return true
}

// twins reports whether level b repeats level a: both plain, the same exact vertex label and the
// same parents with the same exact edge labels (so neither is the other's parent).
func twins(a, b *level) bool {
	if !a.plain || !b.plain || a.vl != b.vl || len(a.parents) != len(b.parents) {
		return false
	}
	for i := range a.parents {
		if a.parents[i] != b.parents[i] {
			return false
		}
	}
	return true
}
