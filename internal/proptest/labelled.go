package proptest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// Labelling is how LabelledGraph labelled its graph: vertex labels base..base+Vertex-1, edge
// labels EdgeBase..EdgeBase+Edge-1 (1 label from 0: no edge labels).
type Labelling struct{ Vertex, Base, Edge, EdgeBase int }

// LabelledGraph is a random graph of at most 11 vertices for the shape and clique counters'
// tests (review rev35): none at times, isolated vertices, one vertex label (0 or 1) or up to
// three, no edge labels (one in three) or up to three from 0 or 1, and a density of 0.3 to 1.
func LabelledGraph(t testing.TB, rng *rand.Rand) (*graph.Graph, Labelling) {
	t.Helper()
	n := rng.IntN(12)
	l := Labelling{Vertex: 1 + rng.IntN(3), Base: rng.IntN(2), Edge: 1 + rng.IntN(3), EdgeBase: rng.IntN(2)}
	if rng.IntN(3) == 0 {
		l.Edge, l.EdgeBase = 1, 0
	}
	density := 0.3 + 0.7*rng.Float64()
	b := graph.NewBuilder(graph.BuilderOptions{})
	for v := range n {
		if err := b.SetVertexLabel(int64(v), uint32(l.Base+rng.IntN(l.Vertex))); err != nil {
			t.Fatal(err)
		}
	}
	for u := range n {
		for v := u + 1; v < n; v++ {
			if rng.Float64() < density {
				if err := b.AddEdge(int64(u), int64(v), uint32(l.EdgeBase+rng.IntN(l.Edge))); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g, l
}

// PatternLabels draws a pattern's labels for a graph labelled as l: each a wildcard (negative)
// or, half the time, one of l's labels or the one past them.
func (l Labelling) PatternLabels(rng *rand.Rand) (vl, el int) {
	vl, el = -1, -1
	if rng.IntN(2) == 0 {
		vl = l.Base + rng.IntN(l.Vertex+1)
	}
	if rng.IntN(2) == 0 {
		el = l.EdgeBase + rng.IntN(l.Edge+1)
	}
	return vl, el
}

// EdgesPattern is the pattern of edges (vertex numbers) with every vertex labelled vl and every
// edge el (negative: a wildcard).
func EdgesPattern(t testing.TB, edges [][2]int, vl, el int) *pattern.Pattern {
	t.Helper()
	vertex := func(v int) string {
		if vl < 0 {
			return fmt.Sprintf("(v%d)", v)
		}
		return fmt.Sprintf("(v%d:%d)", v, vl)
	}
	edge := "-"
	if el >= 0 {
		edge = fmt.Sprintf("-[:%d]-", el)
	}
	parts := make([]string, len(edges))
	for i, e := range edges {
		parts[i] = vertex(e[0]) + edge + vertex(e[1])
	}
	p, err := pattern.Parse(strings.Join(parts, ", "))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// FirstLabels is the pattern of labels and edges with each vertex pair's first edge only (a
// random draw may give a pair twice, with two labels, which pattern.New refuses).
func FirstLabels(t testing.TB, labels []pattern.Label, edges []pattern.Edge) *pattern.Pattern {
	t.Helper()
	seen := map[[2]int]bool{}
	var kept []pattern.Edge
	for _, e := range edges {
		if k := [2]int{min(e.U, e.V), max(e.U, e.V)}; !seen[k] {
			seen[k] = true
			kept = append(kept, e)
		}
	}
	p, err := pattern.New(labels, kept, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
