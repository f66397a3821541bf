package plan

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/submatch/submatch/pattern"
)

// Restriction requires the data vertex of pattern vertex Less to have a smaller id than the data
// vertex of Greater.
type Restriction struct{ Less, Greater int }

// SymmetryRestrictions returns restrictions that keep exactly one embedding of every orbit of
// Aut(p) acting on embeddings (Grochow and Kellis; GraphZero/GraphPi use the same idea): walk the
// vertices in the given order; for each vertex v, find its orbit under the automorphisms that fix
// every earlier vertex, require v < w for every other w in that orbit, then fix v.
//
// Automorphisms preserve vertex and edge label constraints exactly (a wildcard only maps to a
// wildcard). They are found by a small backtracking search, so the group is never enumerated.
func SymmetryRestrictions(p *pattern.Pattern, order []int) []Restriction {
	return StabilizerRestrictions(p, nil, order)
}

// StabilizerRestrictions is SymmetryRestrictions for the automorphisms of p that fix every
// vertex of fixed: restrictions that keep exactly one embedding of every orbit of that subgroup
// (the vertices of fixed take none; order lists the others, any it also lists are skipped).
func StabilizerRestrictions(p *pattern.Pattern, fixed, order []int) []Restriction {
	return (&autMapper{p: p}).stabilizerRestrictions(fixed, order)
}

// StabilizerRestrictionsContext is StabilizerRestrictions, looking at ctx before each of its
// searches and every 1,024 nodes of one (autSearch): ctx's error once it has ended. (A 31-cycle's
// or a 30-leaf star's took 25-118 ms on the 2-core VM under load.)
func StabilizerRestrictionsContext(ctx context.Context, p *pattern.Pattern, fixed, order []int) ([]Restriction, error) {
	return mapperContext(ctx, p, func(m *autMapper) []Restriction { return m.stabilizerRestrictions(fixed, order) })
}

// mapperContext returns f's answer by an autMapper of p that stops when ctx ends, or ctx's error.
func mapperContext[T any](ctx context.Context, p *pattern.Pattern, f func(*autMapper) T) (T, error) {
	m := &autMapper{p: p, stop: func() bool { return ctx.Err() != nil }}
	out := f(m)
	if m.stopped {
		var zero T
		return zero, ctx.Err()
	}
	return out, nil
}

// stabilizerRestrictions is StabilizerRestrictions by m's searches (nil when m stopped).
func (m *autMapper) stabilizerRestrictions(fixed, order []int) []Restriction {
	p := m.p
	n := p.NumVertices()
	color := refinedColors(p)
	fixed = append(make([]int, 0, n), fixed...)
	var out []Restriction
	for _, v := range order {
		if slices.Contains(fixed, v) {
			continue
		}
		for w := 0; w < n; w++ {
			// An automorphism keeps colour refinement's colours, so only equal colours can swap.
			if w != v && color[w] == color[v] && m.exists(fixed, v, w) {
				out = append(out, Restriction{Less: v, Greater: w})
			}
			if m.stopped {
				return nil
			}
		}
		fixed = append(fixed, v)
	}
	return out
}

// autGroup returns every automorphism of p (image of each vertex), or nil when there are more
// than limit.
func autGroup(p *pattern.Pattern, limit int) [][]int {
	return autGroupOf(newAutSearch(p), limit)
}

// autGroupOf is autGroup with the search s (nil too when s is stopped).
func autGroupOf(s *autSearch, limit int) [][]int {
	var out [][]int
	s.search(0, func() bool {
		out = append(out, slices.Clone(s.image))
		return len(out) <= limit
	})
	if len(out) > limit || s.stopped {
		return nil
	}
	return out
}

// restrictionsFromGroup returns what SymmetryRestrictions(p, order) returns, from the group
// aut of p (autGroup): the same stabiliser chain, by filtering the group's permutations instead
// of searching for each pair.
func restrictionsFromGroup(aut [][]int, order []int) []Restriction {
	if len(aut) == 0 {
		return nil
	}
	n := len(aut[0])
	stab := slices.Clone(aut)
	var out []Restriction
	for _, v := range order {
		var images uint64
		for _, sigma := range stab {
			images |= 1 << sigma[v]
		}
		for w := 0; w < n; w++ {
			if w != v && images&(1<<w) != 0 {
				out = append(out, Restriction{Less: v, Greater: w})
			}
		}
		stab = slices.DeleteFunc(stab, func(sigma []int) bool { return sigma[v] != v })
	}
	return out
}

// refinedColors partitions the pattern's vertices by colour refinement (1-dimensional
// Weisfeiler-Leman): start from the label constraint and degree, then repeatedly split by the
// multiset of (neighbour colour, edge label). Vertices an automorphism can exchange always end in
// the same class.
func refinedColors(p *pattern.Pattern) []int {
	n := p.NumVertices()
	keys := make([]string, n)
	for u := 0; u < n; u++ {
		keys[u] = fmt.Sprintf("%v/%d", p.VertexLabel(u), p.Degree(u))
	}
	color := canonicalColors(keys)
	for round := 0; round < n; round++ {
		for u := 0; u < n; u++ {
			var nb []string
			for w := 0; w < n; w++ {
				if el, ok := p.EdgeLabel(u, w); ok {
					nb = append(nb, fmt.Sprintf("%d:%v", color[w], el))
				}
			}
			slices.Sort(nb)
			keys[u] = fmt.Sprintf("%d|%s", color[u], strings.Join(nb, ","))
		}
		next := canonicalColors(keys)
		if slices.Equal(next, color) {
			break
		}
		color = next
	}
	return color
}

// canonicalColors numbers distinct keys in order of first appearance.
func canonicalColors(keys []string) []int {
	ids := map[string]int{}
	out := make([]int, len(keys))
	for i, k := range keys {
		id, ok := ids[k]
		if !ok {
			id = len(ids)
			ids[k] = id
		}
		out[i] = id
	}
	return out
}

// AutomorphismCount returns |Aut(p)| (for tests and reports; it enumerates the group, so use it
// on small patterns only).
func AutomorphismCount(p *pattern.Pattern) uint64 {
	s := newAutSearch(p)
	var count uint64
	s.search(0, func() bool { count++; return true })
	return count
}

// autMapper answers whether automorphisms of p exist by one autSearch each; with stop, each
// search asks it at its first node and every autCheck+1 nodes, and once it said stop (stopped)
// every answer is false.
type autMapper struct {
	p       *pattern.Pattern
	stop    func() bool
	stopped bool
}

// exists reports whether an automorphism fixes every vertex in fixed and maps v to w.
func (m *autMapper) exists(fixed []int, v, w int) bool {
	from := append(slices.Clone(fixed), v)
	return m.mapping(from, append(slices.Clone(fixed), w))
}

// mapping reports whether an automorphism of p maps from[i] to to[i] for every i.
func (m *autMapper) mapping(from, to []int) bool {
	if m.stopped {
		return false
	}
	s := newAutSearch(m.p)
	for i, u := range from {
		if s.image[u] >= 0 {
			if s.image[u] != to[i] {
				return false
			}
			continue
		}
		if !s.assign(u, to[i]) {
			return false
		}
	}
	s.stop = m.stop
	found := false
	s.search(0, func() bool { found = true; return false })
	m.stopped = s.stopped
	return found && !s.stopped
}

type autSearch struct {
	p     *pattern.Pattern
	n     int
	image []int  // image[u] = sigma(u) or -1
	used  uint32 // images taken
	// stop, when set, is asked at the search's first node and every autCheck+1 nodes after it
	// whether to stop; stopped says it did (the search then returns false as if found had).
	stop    func() bool
	nodes   uint32
	stopped bool
}

// autCheck+1 is how many nodes an autSearch with a stop makes between two calls of it.
const autCheck = 1<<10 - 1

func newAutSearch(p *pattern.Pattern) *autSearch {
	s := &autSearch{p: p, n: p.NumVertices(), image: make([]int, p.NumVertices())}
	for i := range s.image {
		s.image[i] = -1
	}
	return s
}

// compatible reports whether mapping u to x keeps labels, degree and every edge/non-edge to the
// vertices already mapped.
func (s *autSearch) compatible(u, x int) bool {
	p := s.p
	if s.used&(1<<x) != 0 || p.VertexLabel(u) != p.VertexLabel(x) || p.Degree(u) != p.Degree(x) {
		return false
	}
	for y := 0; y < s.n; y++ {
		iy := s.image[y]
		if iy < 0 {
			continue
		}
		l1, e1 := p.EdgeLabel(u, y)
		l2, e2 := p.EdgeLabel(x, iy)
		if e1 != e2 || (e1 && l1 != l2) {
			return false
		}
	}
	return true
}

func (s *autSearch) assign(u, x int) bool {
	if !s.compatible(u, x) {
		return false
	}
	s.image[u] = x
	s.used |= 1 << x
	return true
}

func (s *autSearch) unassign(u int) {
	s.used &^= 1 << s.image[u]
	s.image[u] = -1
}

// search extends the partial map; each complete automorphism is reported to found, which returns
// false to stop. It returns false when stopped.
func (s *autSearch) search(_ int, found func() bool) bool {
	if s.stop != nil {
		if s.nodes&autCheck == 0 && s.stop() { // (the first node, then every autCheck+1)
			s.stopped = true
		}
		s.nodes++
		if s.stopped {
			return false
		}
	}
	// Next vertex: an unmapped one with the most mapped neighbours (keeps the search local).
	best, bestScore := -1, -1
	for u := 0; u < s.n; u++ {
		if s.image[u] >= 0 {
			continue
		}
		score := 0
		for y := 0; y < s.n; y++ {
			if s.image[y] >= 0 && s.p.Adjacent(u, y) {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = u, score
		}
	}
	if best < 0 {
		return found()
	}
	free := ^s.used
	if s.n < 32 {
		free &= 1<<s.n - 1
	}
	for free != 0 {
		x := bits.TrailingZeros32(free)
		free &^= 1 << x
		if s.assign(best, x) {
			cont := s.search(0, found)
			s.unassign(best)
			if !cont {
				return false
			}
		}
	}
	return true
}

// QuotientShare returns, for two pattern vertices d and e of pl that no restriction of pl
// involves and that every automorphism of the pattern maps onto {d, e}, the number s such that
// exactly 1/s of the maps that send d and e to one data vertex (the embeddings of the pattern
// with d and e merged) pass pl's restrictions: s = |Aut(p)| / |{σ ∈ Aut(p) : σ(r.Less) <
// σ(r.Greater) for every restriction r}|. Restrictions from a stabiliser chain keep, of every
// orbit of Aut(p) acting on maps injective on the restricted vertices, the same share, and such an
// orbit of merging maps stays merging when Aut(p) keeps {d, e}. ok is false when these
// conditions fail or the group has more than limit elements.
func (pl *Plan) QuotientShare(d, e, limit int) (share uint64, ok bool) {
	if len(pl.Restrictions) == 0 {
		return 1, true
	}
	for _, r := range pl.Restrictions {
		if r.Less == d || r.Less == e || r.Greater == d || r.Greater == e {
			return 0, false
		}
	}
	aut := autGroup(pl.Pattern, limit)
	if aut == nil {
		return 0, false
	}
	kept := 0
	for _, sigma := range aut {
		if !(sigma[d] == d && sigma[e] == e) && !(sigma[d] == e && sigma[e] == d) {
			return 0, false
		}
		pass := true
		for _, r := range pl.Restrictions {
			pass = pass && sigma[r.Less] < sigma[r.Greater]
		}
		if pass {
			kept++
		}
	}
	if kept == 0 || len(aut)%kept != 0 {
		return 0, false
	}
	return uint64(len(aut) / kept), true
}
