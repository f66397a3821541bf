package plan

import (
	"math/bits"
	"slices"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// Matching orders by expected set size. Where several vertices tie in matchingOrder (the same
// rank and as many already-ordered neighbours: every step of a dense pattern), candidate counts
// say little about the sets the search will intersect: on wiki-Vote with 10 vertex labels every
// pattern vertex has about 200 candidates, but the candidates of one label pair are joined far
// more often than those of another. setSizes samples those joins, and the tie goes to the
// vertex whose set, given the vertices before it, is expected to be smallest (the independence
// estimate of GraphQL, CFL and RI's successors): |C(u)| times, for each ordered neighbour w, the
// fraction of C(u) a candidate of w is joined to.

// setSamples is how many candidates of a pattern vertex setSizes samples for each pattern edge.
const setSamples = 64

// setSizes estimates, for a plan's candidates, the mean number of candidates of u joined to a
// candidate of w through a pattern edge w-u (joins), from evenly spaced samples of C(w), each
// pair sampled once, when first asked for.
type setSizes struct {
	g     *graph.Graph
	pl    *Plan
	joins []float64 // [w*n+u], -1 until sampled
}

func newSetSizes(g *graph.Graph, pl *Plan) *setSizes {
	n := pl.Pattern.NumVertices()
	joins := make([]float64, n*n)
	for i := range joins {
		joins[i] = -1
	}
	return &setSizes{g: g, pl: pl, joins: joins}
}

// join returns the mean number of candidates of u among the matching neighbours of a candidate
// of w (w and u adjacent in the pattern).
func (s *setSizes) join(w, u int) float64 {
	n := s.pl.Pattern.NumVertices()
	if j := s.joins[w*n+u]; j >= 0 {
		return j
	}
	p := s.pl.Pattern
	vl := p.VertexLabel(u)
	el, _ := p.EdgeLabel(w, u)
	cw, cu := s.pl.Candidates[w], s.pl.CandidateBits[u]
	step := max(1, len(cw)/setSamples)
	hits, sampled := 0.0, 0
	for i := 0; i < len(cw); i += step {
		hits += joined(s.g, cw[i], vl, el, cu)
		sampled++
	}
	j := hits / float64(max(1, sampled))
	s.joins[w*n+u] = j
	return j
}

// setScan bounds the neighbours joined reads of one run: a longer run (a hub's) is read in
// setScan evenly spaced places and its count scaled, so that sampling stays cheap on graphs
// with hubs of millions of neighbours.
const setScan = 1024

// joined is (an estimate of, for long runs) the number of neighbours of x in cand through edges
// whose labels satisfy (vl, el).
func joined(g *graph.Graph, x uint32, vl, el pattern.Label, cand Bitset) float64 {
	runs := g.Runs(x)
	lo, hi := 0, len(runs)
	if !vl.Any {
		lo, hi = g.RunsWithVertexLabel(x, vl.Value)
	}
	n := 0.0
	for r := lo; r < hi; r++ {
		if !el.Matches(runs[r].EdgeLabel) {
			continue
		}
		nb := g.RunNeighbors(x, r)
		step := max(1, len(nb)/setScan)
		hits := 0
		for i := 0; i < len(nb); i += step {
			if cand.Has(nb[i]) {
				hits++
			}
		}
		n += float64(hits * step)
	}
	return n
}

// expected is the expected size of u's set when the vertices of placed are ordered before it.
func (s *setSizes) expected(u int, placed uint32) float64 {
	p := s.pl.Pattern
	c := float64(len(s.pl.Candidates[u]))
	e := c
	for nb := p.NeighborMask(u) & placed; nb != 0; nb &= nb - 1 {
		e *= s.join(bits.TrailingZeros32(nb), u) / max(1, c)
	}
	return e
}

// tieBreak returns, among the vertices of open that tie with best (matchingOrder's choice) on
// rank and on the number of neighbours in placed, the one of least expected set size, best when
// none is expected smaller than best's (unlabelled patterns, whose candidate sets look alike,
// keep matchingOrder's order).
func (s *setSizes) tieBreak(best int, open, placed uint32, rank func(int) int) int {
	p := s.pl.Pattern
	back := bits.OnesCount32(p.NeighborMask(best) & placed)
	pick, pickE := best, -1.0
	for rest := open; rest != 0; rest &= rest - 1 {
		u := bits.TrailingZeros32(rest)
		if u == best || rank(u) != rank(best) || bits.OnesCount32(p.NeighborMask(u)&placed) != back {
			continue
		}
		if pickE < 0 { // a tie: best's size is needed (sampled only now)
			pickE = s.expected(best, placed)
		}
		if e := s.expected(u, placed); e < pickE {
			pick, pickE = u, e
		}
	}
	return pick
}

// orderBySets replaces the plan's structure, arranged for order (matchingOrder's), by that of the
// order whose ties go by expected set size (Options.OrderBySets), when that plan enumerates no
// more vertices than this one and its multiplier is no smaller: the estimate ranks sets, not
// the counting of postponed vertices or the symmetry broken, so an order that gives up either is
// not taken on its word.
func (pl *Plan) orderBySets(g *graph.Graph, order []int, opts Options) {
	postponable := !opts.Enumerate && !opts.Induced
	alt, postponed := matchingOrder(pl.Pattern, pl.Candidates, postponable, newSetSizes(g, pl))
	if slices.Equal(alt, order) {
		return
	}
	tp := &Plan{Pattern: pl.Pattern, Candidates: pl.Candidates, CandidateBits: pl.CandidateBits, Empty: pl.Empty}
	tp.arrange(alt, postponed, opts, opts.Symmetry)
	if len(tp.Levels) <= len(pl.Levels) && tp.Multiplier >= pl.Multiplier {
		pl.setStructure(tp.structure())
	}
}
