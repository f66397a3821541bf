// Package pattern owns query graphs: small undirected patterns of 1 to 32 vertices whose vertex
// and edge labels are either exact values or wildcards. Patterns come from the Cypher-like inline
// syntax (Parse) or from any data-graph file (FromGraph). A pattern may be disconnected.
package pattern

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/submatch/submatch/graph"
)

// MaxVertices is the largest pattern size.
const MaxVertices = 32

// Label is a vertex or edge label constraint: an exact value, or Any (matches every label).
type Label struct {
	Value uint32
	Any   bool
}

// Exact returns the label constraint that matches only v.
func Exact(v uint32) Label { return Label{Value: v} }

// Wildcard matches every label.
var Wildcard = Label{Any: true}

// Matches reports whether a data label satisfies the constraint.
func (l Label) Matches(v uint32) bool { return l.Any || l.Value == v }

func (l Label) String() string {
	if l.Any {
		return "*"
	}
	return strconv.FormatUint(uint64(l.Value), 10)
}

// Edge is an undirected pattern edge.
type Edge struct {
	U, V  int
	Label Label
}

// Pattern is an immutable query graph.
type Pattern struct {
	names        []string
	vertexLabels []Label
	edges        []Edge
	adj          [MaxVertices]uint32
	edgeLabel    map[[2]int]Label
}

// New builds a pattern from vertex labels and edges. names may be nil; otherwise it gives a name
// to each vertex (used in output headers). Self-loops, out-of-range endpoints and an edge given
// twice with different labels are errors; an edge given twice with one label is merged.
func New(vertexLabels []Label, edges []Edge, names []string) (*Pattern, error) {
	n := len(vertexLabels)
	if n == 0 {
		return nil, fmt.Errorf("pattern has no vertices")
	}
	if n > MaxVertices {
		return nil, fmt.Errorf("pattern has %d vertices, at most %d are supported", n, MaxVertices)
	}
	if names != nil && len(names) != n {
		return nil, fmt.Errorf("pattern has %d names for %d vertices", len(names), n)
	}
	p := &Pattern{vertexLabels: append([]Label(nil), vertexLabels...), edgeLabel: map[[2]int]Label{}}
	if names != nil {
		p.names = append([]string(nil), names...)
	}
	for _, e := range edges {
		if e.U < 0 || e.U >= n || e.V < 0 || e.V >= n {
			return nil, fmt.Errorf("pattern edge %d-%d has an endpoint outside 0..%d", e.U, e.V, n-1)
		}
		if e.U == e.V {
			return nil, fmt.Errorf("pattern edge %s-%s is a self-loop", p.Name(e.U), p.Name(e.V))
		}
		key := edgeKey(e.U, e.V)
		if old, ok := p.edgeLabel[key]; ok {
			if old != e.Label {
				return nil, fmt.Errorf("pattern edge %s-%s given with two labels, %s and %s", p.Name(e.U), p.Name(e.V), old, e.Label)
			}
			continue
		}
		p.edgeLabel[key] = e.Label
		p.adj[e.U] |= 1 << e.V
		p.adj[e.V] |= 1 << e.U
		p.edges = append(p.edges, Edge{U: key[0], V: key[1], Label: e.Label})
	}
	return p, nil
}

func edgeKey(u, v int) [2]int {
	if u > v {
		u, v = v, u
	}
	return [2]int{u, v}
}

// FromGraph turns a (small) data graph into a pattern with exact labels. Pattern vertices follow
// the order of the graph's original ids (the order of the file for the usual 0..n-1 ids), not the
// graph's internal numbering, so results list data vertices in the order the user wrote.
func FromGraph(g *graph.Graph) (*Pattern, error) {
	n := g.NumVertices()
	if n > MaxVertices {
		return nil, fmt.Errorf("pattern has %d vertices, at most %d are supported", n, MaxVertices)
	}
	byOriginal := make([]uint32, n) // pattern vertex -> graph vertex
	for v := range byOriginal {
		byOriginal[v] = uint32(v)
	}
	slices.SortFunc(byOriginal, func(a, b uint32) int { return cmp.Compare(g.OriginalID(a), g.OriginalID(b)) })
	index := make([]int, n) // graph vertex -> pattern vertex
	for u, v := range byOriginal {
		index[v] = u
	}
	labels := make([]Label, n)
	names := make([]string, n)
	var edges []Edge
	for u, v := range byOriginal {
		labels[u] = Exact(g.VertexLabel(v))
		names[u] = strconv.FormatInt(g.OriginalID(v), 10)
		els := g.NeighborEdgeLabels(v)
		for i, w := range g.Neighbors(v) {
			if index[w] > u {
				el := uint32(0)
				if els != nil {
					el = els[i]
				}
				edges = append(edges, Edge{U: u, V: index[w], Label: Exact(el)})
			}
		}
	}
	return New(labels, edges, names)
}

// NumVertices returns the number of pattern vertices.
func (p *Pattern) NumVertices() int { return len(p.vertexLabels) }

// NumEdges returns the number of pattern edges.
func (p *Pattern) NumEdges() int { return len(p.edges) }

// VertexLabel returns the label constraint of vertex u.
func (p *Pattern) VertexLabel(u int) Label { return p.vertexLabels[u] }

// Edges returns the edges (U < V), in the order first given.
func (p *Pattern) Edges() []Edge { return p.edges }

// Adjacent reports whether u and v are joined by an edge.
func (p *Pattern) Adjacent(u, v int) bool { return p.adj[u]&(1<<v) != 0 }

// EdgeLabel returns the label constraint of edge u-v (ok false when there is no edge).
func (p *Pattern) EdgeLabel(u, v int) (Label, bool) {
	l, ok := p.edgeLabel[edgeKey(u, v)]
	return l, ok
}

// NeighborMask returns the neighbours of u as a bit set.
func (p *Pattern) NeighborMask(u int) uint32 { return p.adj[u] }

// Degree returns the number of neighbours of u.
func (p *Pattern) Degree(u int) int { return bits.OnesCount32(p.adj[u]) }

// Name returns the name of vertex u: its Cypher variable or input id, or its index.
func (p *Pattern) Name(u int) string {
	if p.names != nil && p.names[u] != "" {
		return p.names[u]
	}
	return strconv.Itoa(u)
}

// Components returns the connected components, each as a bit set, in order of their smallest vertex.
func (p *Pattern) Components() []uint32 {
	var comps []uint32
	var seen uint32
	for s := 0; s < p.NumVertices(); s++ {
		if seen&(1<<s) != 0 {
			continue
		}
		comp := uint32(1 << s)
		frontier := comp
		for frontier != 0 {
			u := bits.TrailingZeros32(frontier)
			frontier &^= 1 << u
			next := p.adj[u] &^ comp
			comp |= next
			frontier |= next
		}
		seen |= comp
		comps = append(comps, comp)
	}
	return comps
}

// String renders the pattern in the inline syntax accepted by Parse. Parse(p.String()) numbers
// the vertices as p does: vertex v is first mentioned after vertices 0..v-1.
func (p *Pattern) String() string {
	names := p.varNames()
	var b strings.Builder
	var written uint32
	vertex := func(u int) {
		b.WriteString("(")
		b.WriteString(names[u])
		if written&(1<<u) == 0 && !p.vertexLabels[u].Any {
			b.WriteString(":")
			b.WriteString(p.vertexLabels[u].String())
		}
		written |= 1 << u
		b.WriteString(")")
	}
	for v := range p.vertexLabels {
		if v > 0 {
			b.WriteString(", ")
		}
		// Vertices 0..v-1 are written: the first edge to a smaller neighbour introduces v.
		lower := p.adj[v] & (1<<v - 1)
		if lower == 0 {
			vertex(v)
			continue
		}
		for first := true; lower != 0; first = false {
			u := bits.TrailingZeros32(lower)
			lower &^= 1 << u
			if !first {
				b.WriteString(", ")
			}
			vertex(u)
			if l := p.edgeLabel[edgeKey(u, v)]; l.Any {
				b.WriteString("-")
			} else {
				b.WriteString("-[:" + l.String() + "]-")
			}
			vertex(v)
		}
	}
	return b.String()
}

// varNames gives every vertex a distinct identifier: its name when that is a valid, not yet used
// identifier, else v<index> (with underscores appended until unused).
func (p *Pattern) varNames() []string {
	out := make([]string, len(p.vertexLabels))
	taken := map[string]bool{}
	for u := range out {
		if p.names != nil && isIdent(p.names[u]) && !taken[p.names[u]] {
			out[u] = p.names[u]
			taken[out[u]] = true
		}
	}
	for u := range out {
		if out[u] == "" {
			name := "v" + strconv.Itoa(u)
			for taken[name] {
				name += "_"
			}
			out[u] = name
			taken[name] = true
		}
	}
	return out
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9') {
			continue
		}
		return false
	}
	return true
}
