package gen

import (
	"errors"
	"testing"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// checkEmbedding fails unless q.Embedding maps q.Pattern into g: injective, labels equal, every
// pattern edge a data edge with its label; with induced, non-adjacent pattern vertices must map
// to non-adjacent data vertices.
func checkEmbedding(t *testing.T, g *graph.Graph, q Query, induced bool) {
	t.Helper()
	p := q.Pattern
	if len(q.Embedding) != p.NumVertices() {
		t.Fatalf("embedding of %d vertices for a pattern of %d", len(q.Embedding), p.NumVertices())
	}
	seen := map[uint32]bool{}
	for u, v := range q.Embedding {
		if seen[v] {
			t.Fatalf("embedding is not injective: %v", q.Embedding)
		}
		seen[v] = true
		if !p.VertexLabel(u).Matches(g.VertexLabel(v)) || p.VertexLabel(u).Any {
			t.Fatalf("pattern vertex %d label %v, data vertex label %d", u, p.VertexLabel(u), g.VertexLabel(v))
		}
	}
	for u := 0; u < p.NumVertices(); u++ {
		for w := u + 1; w < p.NumVertices(); w++ {
			el, adjacent := g.HasEdge(q.Embedding[u], q.Embedding[w])
			pl, ok := p.EdgeLabel(u, w)
			switch {
			case ok && !adjacent:
				t.Fatalf("pattern edge %d-%d is not a data edge", u, w)
			case ok && (pl.Any || pl.Value != el):
				t.Fatalf("pattern edge %d-%d has label %v, data edge %d", u, w, pl, el)
			case !ok && adjacent && induced:
				t.Fatalf("dense query misses the induced edge %d-%d", u, w)
			}
		}
	}
	if c := p.Components(); len(c) != 1 {
		t.Fatalf("query %s is not connected", p)
	}
}

func TestRandomWalkQueries(t *testing.T) {
	g, err := RMAT(RMATOptions{Scale: 10, EdgeFactor: 8, VertexLabels: 4, EdgeLabels: 2, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1, 2, 4, 8, 12, 16, pattern.MaxVertices} {
		for seed := range uint64(5) {
			dense, err := RandomWalk(g, size, seed, QueryOptions{})
			if err != nil {
				t.Fatalf("size %d seed %d: %v", size, seed, err)
			}
			checkEmbedding(t, g, dense, true)
			sparse, err := RandomWalk(g, size, seed, QueryOptions{Density: Sparse})
			if err != nil {
				t.Fatalf("size %d seed %d: %v", size, seed, err)
			}
			checkEmbedding(t, g, sparse, false)
			if size > 1 && 2*sparse.Pattern.NumEdges() >= 3*size {
				t.Fatalf("sparse query of %d vertices has %d edges", size, sparse.Pattern.NumEdges())
			}
			if sparse.Pattern.NumEdges() < size-1 {
				t.Fatalf("sparse query of %d vertices has %d edges: not a spanning tree", size, sparse.Pattern.NumEdges())
			}
		}
	}
}

func TestRandomWalkDeterministic(t *testing.T) {
	g, err := RMAT(RMATOptions{Scale: 9, VertexLabels: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	a, err := RandomWalkQuery(g, 8, 99, QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := RandomWalkQuery(g, 8, 99, QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatalf("one seed gave %s and %s", a, b)
	}
}

func TestRandomWalkTooLarge(t *testing.T) {
	// Two disjoint triangles: no walk reaches 4 distinct vertices.
	b := graph.NewBuilder(graph.BuilderOptions{})
	for _, e := range [][2]int64{{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 3}} {
		if err := b.AddEdge(e[0], e[1], 0); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RandomWalk(g, 4, 1, QueryOptions{}); !errors.Is(err, ErrNoWalk) {
		t.Fatalf("got %v, want ErrNoWalk", err)
	}
	if _, err := RandomWalk(g, 0, 1, QueryOptions{}); err == nil {
		t.Fatal("size 0 accepted")
	}
	q, err := RandomWalk(g, 3, 1, QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if q.Pattern.NumEdges() != 3 {
		t.Fatalf("dense query from a triangle has %d edges", q.Pattern.NumEdges())
	}
}

func TestParseDensity(t *testing.T) {
	for _, d := range []Density{Dense, Sparse} {
		if got, err := ParseDensity(d.String()); err != nil || got != d {
			t.Errorf("round trip of %v gave %v, %v", d, got, err)
		}
	}
	if _, err := ParseDensity("medium"); err == nil {
		t.Error("accepted an unknown density")
	}
}
