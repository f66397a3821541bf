// Package oracle is the brute-force matcher the tests trust. It is deliberately simple and slow:
// it tries every injective assignment of data vertices to pattern vertices in pattern vertex
// order, checking each constraint as soon as both of its vertices are assigned. It reads the data
// graph only through Neighbors/NeighborEdgeLabels/VertexLabel (never the run index the engines
// use), building its own adjacency matrix (or map, for large graphs).
//
// Unique counting follows the definition directly: two embeddings f and g are the same subgraph
// iff g = f∘σ for an automorphism σ of the pattern (labels compared as constraints: an exact
// label equals only the same exact label, Any equals only Any). The oracle keeps an embedding
// iff it is the lexicographically smallest of its orbit {f∘σ : σ ∈ Aut(Q)}.
package oracle

import (
	"slices"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// Count returns the number of matches of p in g under sem.
func Count(g *graph.Graph, p *pattern.Pattern, sem engine.Semantics) uint64 {
	n, _ := CountWithin(g, p, sem, 0)
	return n
}

// CountWithin is Count with a work limit: it gives up (ok false) after visiting maxNodes search
// nodes (0: no limit). Tests use it to skip problems too large for brute force.
func CountWithin(g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, maxNodes uint64) (count uint64, ok bool) {
	m := newMatcher(g, p, sem, maxNodes)
	ok = m.run(func([]uint32) { count++ })
	return count, ok
}

// List returns every match of p in g under sem, each as the data vertex of every pattern vertex.
// Under unique semantics it returns the lexicographically smallest member of each orbit (see
// Canonical).
func List(g *graph.Graph, p *pattern.Pattern, sem engine.Semantics) [][]uint32 {
	out, _ := ListWithin(g, p, sem, 0)
	return out
}

// ListWithin is List with the work limit of CountWithin.
func ListWithin(g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, maxNodes uint64) ([][]uint32, bool) {
	var out [][]uint32
	m := newMatcher(g, p, sem, maxNodes)
	ok := m.run(func(f []uint32) { out = append(out, slices.Clone(f)) })
	return out, ok
}

// Valid reports whether f is an embedding of p in g under sem (ignoring Unique: any member of an
// orbit is valid).
func Valid(g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, f []uint32) bool {
	if len(f) != p.NumVertices() {
		return false
	}
	e := newAdjacency(g)
	for u := range f {
		if int(f[u]) >= g.NumVertices() || !p.VertexLabel(u).Matches(g.VertexLabel(f[u])) {
			return false
		}
		for w := 0; w < u; w++ {
			if !pairOK(p, e, sem.Induced, u, w, f[u], f[w]) {
				return false
			}
		}
	}
	return true
}

// Automorphisms returns every label-preserving automorphism of p (each as the image of every
// vertex), found by backtracking; the identity is always first. Their number can be up to n!, so
// callers keep patterns small or use AutomorphismsWithin.
func Automorphisms(p *pattern.Pattern) [][]int {
	auts, _ := AutomorphismsWithin(p, 0)
	return auts
}

// AutomorphismsWithin is Automorphisms with a work limit: it gives up (ok false) after visiting
// maxNodes search nodes (0: no limit).
func AutomorphismsWithin(p *pattern.Pattern, maxNodes uint64) (auts [][]int, ok bool) {
	var nodes uint64
	auts, ok = automorphisms(p, &nodes, maxNodes)
	return auts, ok
}

func automorphisms(p *pattern.Pattern, nodes *uint64, maxNodes uint64) ([][]int, bool) {
	n := p.NumVertices()
	var out [][]int
	sigma := make([]int, n)
	used := make([]bool, n)
	var rec func(u int) bool
	rec = func(u int) bool {
		if u == n {
			out = append(out, slices.Clone(sigma))
			return true
		}
		for v := 0; v < n; v++ {
			*nodes++
			if maxNodes > 0 && *nodes > maxNodes {
				return false
			}
			if used[v] || p.VertexLabel(u) != p.VertexLabel(v) || p.Degree(u) != p.Degree(v) {
				continue
			}
			ok := true
			for w := 0; w < u && ok; w++ {
				l1, a1 := p.EdgeLabel(u, w)
				l2, a2 := p.EdgeLabel(v, sigma[w])
				ok = a1 == a2 && l1 == l2
			}
			if !ok {
				continue
			}
			sigma[u], used[v] = v, true
			if !rec(u + 1) {
				return false
			}
			used[v] = false
		}
		return true
	}
	ok := rec(0)
	return out, ok
}

// Canonical returns the lexicographically smallest f∘σ over the automorphisms auts (as returned
// by Automorphisms): the representative of f's orbit.
func Canonical(auts [][]int, f []uint32) []uint32 {
	best := slices.Clone(f)
	cand := make([]uint32, len(f))
	for _, s := range auts {
		for u := range f {
			cand[u] = f[s[u]]
		}
		if slices.Compare(cand, best) < 0 {
			copy(best, cand)
		}
	}
	return best
}

// isCanonical reports whether f is the smallest of its orbit.
func isCanonical(auts [][]int, f []uint32) bool {
	for _, s := range auts {
		for u := range f {
			if c := f[s[u]]; c != f[u] {
				if c < f[u] {
					return false
				}
				break
			}
		}
	}
	return true
}

// adjacency answers "is a-b an edge, and with which label" from the graph's adjacency lists: a
// dense matrix for small graphs, a map for large ones.
type adjacency struct {
	n      int
	matrix []int64 // n*n entries: -1 for no edge, else the label
	edges  map[[2]uint32]uint32
}

const matrixLimit = 2048

func newAdjacency(g *graph.Graph) *adjacency {
	n := g.NumVertices()
	a := &adjacency{n: n}
	if n <= matrixLimit {
		a.matrix = make([]int64, n*n)
		for i := range a.matrix {
			a.matrix[i] = -1
		}
	} else {
		a.edges = map[[2]uint32]uint32{}
	}
	for v := 0; v < n; v++ {
		labels := g.NeighborEdgeLabels(uint32(v))
		for i, w := range g.Neighbors(uint32(v)) {
			l := uint32(0)
			if labels != nil {
				l = labels[i]
			}
			if a.matrix != nil {
				a.matrix[v*n+int(w)] = int64(l)
			} else {
				a.edges[[2]uint32{uint32(v), w}] = l
			}
		}
	}
	return a
}

func (a *adjacency) edge(u, v uint32) (label uint32, ok bool) {
	if a.matrix != nil {
		l := a.matrix[int(u)*a.n+int(v)]
		return uint32(l), l >= 0
	}
	label, ok = a.edges[[2]uint32{u, v}]
	return label, ok
}

// pairOK checks the constraint between pattern vertices u and w mapped to data vertices a and b.
func pairOK(p *pattern.Pattern, e *adjacency, induced bool, u, w int, a, b uint32) bool {
	if a == b {
		return false
	}
	dl, dataEdge := e.edge(a, b)
	pl, patEdge := p.EdgeLabel(u, w)
	if patEdge {
		return dataEdge && pl.Matches(dl)
	}
	return !induced || !dataEdge
}

type matcher struct {
	g        *graph.Graph
	p        *pattern.Pattern
	sem      engine.Semantics
	edges    *adjacency
	auts     [][]int
	maxNodes uint64
	nodes    uint64
}

func newMatcher(g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, maxNodes uint64) *matcher {
	return &matcher{g: g, p: p, sem: sem, edges: newAdjacency(g), maxNodes: maxNodes}
}

// run calls emit for every match; false if the node limit was hit.
func (m *matcher) run(emit func([]uint32)) bool {
	if m.sem.Unique {
		var ok bool
		if m.auts, ok = automorphisms(m.p, &m.nodes, m.maxNodes); !ok {
			return false
		}
	}
	n := m.p.NumVertices()
	f := make([]uint32, n)
	var rec func(u int) bool
	rec = func(u int) bool {
		if u == n {
			if !m.sem.Unique || isCanonical(m.auts, f) {
				emit(f)
			}
			return true
		}
		for a := 0; a < m.g.NumVertices(); a++ {
			m.nodes++
			if m.maxNodes > 0 && m.nodes > m.maxNodes {
				return false
			}
			if !m.p.VertexLabel(u).Matches(m.g.VertexLabel(uint32(a))) {
				continue
			}
			ok := true
			for w := 0; w < u && ok; w++ {
				ok = pairOK(m.p, m.edges, m.sem.Induced, u, w, uint32(a), f[w])
			}
			if !ok {
				continue
			}
			f[u] = uint32(a)
			if !rec(u + 1) {
				return false
			}
		}
		return true
	}
	return rec(0)
}
