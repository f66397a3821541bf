package plan

import (
	"math/bits"
	"sync/atomic"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/par"
	"github.com/submatch/submatch/internal/zeroed"
	"github.com/submatch/submatch/pattern"
)

// Bitset is a fixed-size set of data vertices.
type Bitset []uint64

// NewBitset returns an empty set over n vertices, its memory written (sets are or-ed into: see
// package zeroed).
func NewBitset(n int) Bitset { return zeroed.Make[uint64]((n + 63) / 64) }

// BitsetBytes is the memory of NewBitset(n): 8 bytes for every 64 vertices.
func BitsetBytes(n int) uint64 { return 8 * uint64((n+63)/64) }

// Has reports whether v is in the set.
func (b Bitset) Has(v uint32) bool { return b[v>>6]&(1<<(v&63)) != 0 }

// Set adds v.
func (b Bitset) Set(v uint32) { b[v>>6] |= 1 << (v & 63) }

// Clear removes v.
func (b Bitset) Clear(v uint32) { b[v>>6] &^= 1 << (v & 63) }

// SubsetOf reports whether every member of b is in c.
func (b Bitset) SubsetOf(c Bitset) bool {
	for i, w := range b {
		if w&^c[i] != 0 {
			return false
		}
	}
	return true
}

// Count returns the number of members.
func (b Bitset) Count() int {
	c := 0
	for _, w := range b {
		c += bits.OnesCount64(w)
	}
	return c
}

// CountRange returns the number of members in [lo, hi).
func (b Bitset) CountRange(lo, hi uint64) uint64 {
	if lo >= hi {
		return 0
	}
	wa, wb := lo>>6, (hi-1)>>6
	first := b[wa] &^ (1<<(lo&63) - 1)
	last := ^uint64(0) >> (63 - (hi-1)&63)
	if wa == wb {
		return uint64(bits.OnesCount64(first & last))
	}
	n := bits.OnesCount64(first) + bits.OnesCount64(b[wb]&last)
	for _, w := range b[wa+1 : wb] {
		n += bits.OnesCount64(w)
	}
	return uint64(n)
}

// labelCount is a (vertex label, edge label) requirement of a pattern vertex's neighbourhood.
type labelCount struct {
	vl, el uint32
	n      int
}

// neighbourLabelRequirements lists, for pattern vertex u, how many neighbours it has per exact
// (vertex label, edge label) pair. Neighbours with a wildcard on either label only count towards
// the degree.
func neighbourLabelRequirements(p *pattern.Pattern, u int) []labelCount {
	var reqs []labelCount
	for w := 0; w < p.NumVertices(); w++ {
		if !p.Adjacent(u, w) {
			continue
		}
		vl := p.VertexLabel(w)
		el, _ := p.EdgeLabel(u, w)
		if vl.Any || el.Any {
			continue
		}
		found := false
		for i := range reqs {
			if reqs[i].vl == vl.Value && reqs[i].el == el.Value {
				reqs[i].n++
				found = true
			}
		}
		if !found {
			reqs = append(reqs, labelCount{vl.Value, el.Value, 1})
		}
	}
	return reqs
}

// initialCandidates applies the label, degree and neighbour-label-frequency filters, visiting
// only the data vertices of u's label (filterVertices) when it has one.
func initialCandidates(g *graph.Graph, p *pattern.Pattern, u int, cancelled func() bool) Bitset {
	set := NewBitset(g.NumVertices())
	label := p.VertexLabel(u)
	deg := p.Degree(u)
	reqs := neighbourLabelRequirements(p, u)
	keep := func(vv uint32) {
		if g.Degree(vv) < deg {
			return
		}
		for _, r := range reqs {
			if len(g.NeighborsWith(vv, r.vl, r.el)) < r.n {
				return
			}
		}
		set.Set(vv)
	}
	if !label.Any {
		for i, vv := range g.VerticesWithLabel(label.Value) {
			if i%checkEvery == 0 && cancelled() {
				return set
			}
			keep(vv)
		}
		return set
	}
	for v := 0; v < g.NumVertices(); v++ {
		if v%checkEvery == 0 && cancelled() {
			return set
		}
		keep(uint32(v))
	}
	return set
}

// filterVertices is how many data vertices initialCandidates visits for pattern vertex u: those
// of its label, or all of them for a wildcard.
func filterVertices(g *graph.Graph, p *pattern.Pattern, u int) int {
	if l := p.VertexLabel(u); !l.Any {
		return len(g.VerticesWithLabel(l.Value))
	}
	return g.NumVertices()
}

// hasCandidateNeighbour reports whether data vertex v has a neighbour in cand reached by an
// edge whose labels satisfy (vl, el).
func hasCandidateNeighbour(g *graph.Graph, v uint32, vl, el pattern.Label, cand Bitset) bool {
	runs := g.Runs(v)
	if !vl.Any {
		// The runs are sorted by vertex label: skip to vl's, stop after them.
		for i, r := range runs {
			if r.VertexLabel < vl.Value || !el.Matches(r.EdgeLabel) {
				continue
			}
			if r.VertexLabel > vl.Value {
				return false
			}
			for _, w := range g.RunNeighbors(v, i) {
				if cand.Has(w) {
					return true
				}
			}
		}
		return false
	}
	for i, r := range runs {
		if !vl.Matches(r.VertexLabel) || !el.Matches(r.EdgeLabel) {
			continue
		}
		for _, w := range g.RunNeighbors(v, i) {
			if cand.Has(w) {
				return true
			}
		}
	}
	return false
}

// refine removes candidates that lack a candidate neighbour for some pattern neighbour, until
// nothing changes (or maxRounds rounds). This is the neighbourhood-consistency refinement of
// GraphQL/CFL/DP-iso reduced to its sound core: a data vertex v can host pattern vertex u only if
// every pattern neighbour w of u can be hosted by some neighbour of v.
//
// A round checks each u's candidates against those of its neighbours w in turn, but only against
// the neighbours whose candidates changed since u was last checked: a candidate that passed the
// check against an unchanged set passes it again (u's own set only shrinks). The rounds remove
// exactly what checking every pair every round would (wiki-Vote's labelled patterns: the
// confirming round, most of the cost, checks nothing).
func refine(g *graph.Graph, p *pattern.Pattern, cand []Bitset, maxRounds int, cancelled func() bool) {
	n := p.NumVertices()
	nbrs := make([][]refineNbr, n)
	checked := make([][]int, n) // checked[u][i]: version[nbrs[u][i].w] when u was checked against it
	for u := 0; u < n; u++ {
		for w := 0; w < n; w++ {
			if el, ok := p.EdgeLabel(u, w); ok {
				nbrs[u] = append(nbrs[u], refineNbr{w, p.VertexLabel(w), el})
				checked[u] = append(checked[u], -1)
			}
		}
	}
	version := make([]int, n) // bumped whenever cand[u] loses a vertex
	var stale []refineNbr
	for round := 0; round < maxRounds; round++ {
		changed := false
		for u := 0; u < n; u++ {
			stale = stale[:0]
			self := false
			for i, x := range nbrs[u] {
				if checked[u][i] != version[x.w] {
					stale = append(stale, x)
					checked[u][i] = version[x.w]
					self = self || x.w == u
				}
			}
			if len(stale) == 0 {
				continue
			}
			removed := false
			if !self && cand[u].Count()*len(stale) >= parallelRefineChecks {
				// Each word of cand[u] is checked against the others' sets, which no one
				// changes meanwhile, and only its own goroutine clears its bits: on all cores,
				// the same result.
				// Once a look at the context finds it ended, every word after it is skipped
				// (stop): the pass over a large set took its whole time after a deadline when
				// only the words that looked were skipped (R-MAT scale 20: up to 0.6 s).
				var any, stop atomic.Bool
				par.For(len(cand[u]), 0, func(wi int) {
					if wi%(checkEvery/64) == 0 && !stop.Load() && cancelled() {
						stop.Store(true)
					}
					if !stop.Load() && refineWord(g, cand, u, wi, stale) {
						any.Store(true)
					}
				})
				if cancelled() {
					return
				}
				removed = any.Load()
			} else {
				for wi := range cand[u] {
					if wi%(checkEvery/64) == 0 && cancelled() {
						return
					}
					removed = refineWord(g, cand, u, wi, stale) || removed
				}
			}
			if removed {
				version[u]++
				changed = true
			}
		}
		if !changed {
			return
		}
	}
}

// refineNbr is a pattern neighbour w of the vertex refine checks, with the labels an edge to it
// needs.
type refineNbr struct {
	w      int
	vl, el pattern.Label
}

// refineWord removes from word wi of cand[u] the candidates that lack a candidate neighbour for
// one of the neighbours in stale, and reports whether it removed any.
func refineWord(g *graph.Graph, cand []Bitset, u, wi int, stale []refineNbr) bool {
	removed := false
	for word := cand[u][wi]; word != 0; {
		b := bits.TrailingZeros64(word)
		word &^= 1 << b
		v := uint32(wi*64 + b)
		for _, x := range stale {
			if !hasCandidateNeighbour(g, v, x.vl, x.el, cand[x.w]) {
				cand[u].Clear(v)
				removed = true
				break
			}
		}
	}
	return removed
}

// parallelRefineChecks is how many candidate checks (candidates times neighbours to check them
// against) a pattern vertex's refinement needs to run on all cores (a variable for tests). It
// was 2^11: on the 16-core device host, a fresh process's small labelled counts (wiki-Vote, 10
// labels) were faster with the plan serial on 18 of STMatch's 24 patterns, median 0.4 ms
// (docs/benchmarks.md, 2026-12-03 device calls): waking the cores costs more than such work.
var parallelRefineChecks = 1 << 16
