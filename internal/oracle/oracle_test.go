package oracle

import (
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

var (
	emb     = engine.Semantics{}
	ind     = engine.Semantics{Induced: true}
	uniq    = engine.Semantics{Unique: true}
	uniqInd = engine.Semantics{Unique: true, Induced: true}
)

// build makes a graph on n vertices with the given vertex labels (nil: all 0) and edges
// {u, v, label}.
func build(t *testing.T, n int, labels []uint32, edges [][3]uint32) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(graph.BuilderOptions{})
	for v := 0; v < n; v++ {
		if _, err := b.Vertex(int64(v)); err != nil {
			t.Fatal(err)
		}
		if labels != nil {
			if err := b.SetVertexLabel(int64(v), labels[v]); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, e := range edges {
		if err := b.AddEdge(int64(e[0]), int64(e[1]), e[2]); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func complete(t *testing.T, n int) *graph.Graph {
	var edges [][3]uint32
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			edges = append(edges, [3]uint32{uint32(u), uint32(v), 0})
		}
	}
	return build(t, n, nil, edges)
}

func parse(t *testing.T, s string) *pattern.Pattern {
	t.Helper()
	p, err := pattern.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHandChecked(t *testing.T) {
	k3, k4 := complete(t, 3), complete(t, 4)
	path3 := build(t, 3, nil, [][3]uint32{{0, 1, 0}, {1, 2, 0}})
	empty3 := build(t, 3, nil, nil)
	// Labelled: 0:1 - 1:2 - 2:1, edge labels 5 and 6; plus 2 - 3:2 with label 5.
	lab := build(t, 4, []uint32{1, 2, 1, 2}, [][3]uint32{{0, 1, 5}, {1, 2, 6}, {2, 3, 5}})
	tests := []struct {
		name string
		g    *graph.Graph
		p    string
		sem  engine.Semantics
		want uint64
	}{
		{"triangle in K4", k4, "(a)-(b)-(c)-(a)", emb, 24},
		{"triangle in K4 unique", k4, "(a)-(b)-(c)-(a)", uniq, 4},
		{"triangle in K4 induced", k4, "(a)-(b)-(c)-(a)", ind, 24},
		{"P3 in triangle", k3, "(a)-(b)-(c)", emb, 6},
		{"P3 in triangle unique", k3, "(a)-(b)-(c)", uniq, 3},
		{"induced P3 in K3", k3, "(a)-(b)-(c)", ind, 0},
		{"induced P3 in K3 unique", k3, "(a)-(b)-(c)", uniqInd, 0},
		{"induced P3 in P3", path3, "(a)-(b)-(c)", ind, 2},
		{"induced P3 in P3 unique", path3, "(a)-(b)-(c)", uniqInd, 1},
		{"two isolated in 3 vertices", empty3, "(a), (b)", emb, 6},
		{"two isolated in 3 vertices unique", empty3, "(a), (b)", uniq, 3},
		{"two isolated in K3 induced", k3, "(a), (b)", ind, 0},
		{"two isolated in P3 induced", path3, "(a), (b)", uniqInd, 1},
		{"single vertex in K4", k4, "(a)", emb, 4},
		{"edge in K4", k4, "(a)-(b)", emb, 12},
		{"edge in K4 unique", k4, "(a)-(b)", uniq, 6},
		{"K4 in K4 unique", k4, "(a)-(b)-(c)-(d)-(a)-(c), (b)-(d)", uniq, 1},
		{"C4 in K4", k4, "(a)-(b)-(c)-(d)-(a)", emb, 24},
		{"C4 in K4 unique", k4, "(a)-(b)-(c)-(d)-(a)", uniq, 3},
		{"C4 in K4 induced", k4, "(a)-(b)-(c)-(d)-(a)", ind, 0},
		// Labels.
		{"vertex labels", lab, "(a:1)-(b:2)", emb, 3},
		{"edge label 5", lab, "(a)-[:5]-(b)", emb, 4},
		{"edge label 5 unique", lab, "(a)-[:5]-(b)", uniq, 2},
		{"edge label 6 vertex labelled", lab, "(a:1)-[:6]-(b:2)", emb, 1},
		{"edge label 6 vertex labelled 2", lab, "(a:2)-[:6]-(b:1)", emb, 1},
		{"edge label 7", lab, "(a)-[:7]-(b)", emb, 0},
		{"wildcard edge", lab, "(a)-[:*]-(b)", emb, 6},
		{"wildcard vertex", lab, "(a:1)-(b)", emb, 3},
		{"path 5-6", lab, "(a)-[:5]-(b)-[:6]-(c)", emb, 2},
		{"path 5-6 unique", lab, "(a)-[:5]-(b)-[:6]-(c)", uniq, 2},
		{"path 5-*-5", lab, "(a)-[:5]-(b)-(c)-[:5]-(d)", emb, 2},
		{"path 5-*-5 unique", lab, "(a)-[:5]-(b)-(c)-[:5]-(d)", uniq, 1},
		// Wildcard vertex next to exact one: not automorphic, so unique == embeddings.
		{"mixed labels unique", lab, "(a:1)-(b:*)", uniq, 3},
		{"all-wildcard P2 unique", lab, "(a:*)-(b:*)", uniq, 3},
		{"1-2-1 unique", lab, "(a:1)-(b:2)-(c:1)", uniq, 1},
		{"1-2-1", lab, "(a:1)-(b:2)-(c:1)", emb, 2},
		{"1-2-1 induced", lab, "(a:1)-(b:2)-(c:1)", ind, 2},
		{"label 0 on unlabelled data", k3, "(a:0)-[:0]-(b:0)", emb, 6},
		{"label 1 on unlabelled data", k3, "(a:1)-(b)", emb, 0},
	}
	for _, tc := range tests {
		p := parse(t, tc.p)
		if got := Count(tc.g, p, tc.sem); got != tc.want {
			t.Errorf("%s: Count(%s, %s) = %d, want %d", tc.name, tc.p, tc.sem, got, tc.want)
		}
		list := List(tc.g, p, tc.sem)
		if uint64(len(list)) != tc.want {
			t.Errorf("%s: List has %d matches, want %d", tc.name, len(list), tc.want)
		}
		for _, f := range list {
			if !Valid(tc.g, p, tc.sem, f) {
				t.Errorf("%s: List gives invalid match %v", tc.name, f)
			}
		}
	}
}

func TestAutomorphisms(t *testing.T) {
	tests := []struct {
		p    string
		want int
	}{
		{"(a)", 1},
		{"(a)-(b)", 2},
		{"(a:1)-(b)", 1},
		{"(a:1)-(b:1)", 2},
		{"(a:1)-(b:2)", 1},
		{"(a)-(b)-(c)", 2},
		{"(a)-(b)-(c)-(a)", 6},
		{"(a)-[:1]-(b)-(c)-(a)", 2},
		{"(a)-(b)-(c)-(d)-(a)", 8},
		{"(a)-(b)-(c)-(d)-(a)-(c), (b)-(d)", 24},
		{"(a), (b), (c)", 6},
		{"(a), (b:1), (c)", 2},
		{"(a)-(b), (c)-(d)", 8},
		{"(c)-(a)-(b), (a)-(d)", 6}, // star K1,3
	}
	for _, tc := range tests {
		p := parse(t, tc.p)
		auts := Automorphisms(p)
		if len(auts) != tc.want {
			t.Errorf("|Aut(%s)| = %d, want %d", tc.p, len(auts), tc.want)
		}
		for i, s := range auts {
			if i == 0 && !slices.Equal(s, []int{0, 1, 2, 3}[:p.NumVertices()]) && p.NumVertices() <= 4 {
				t.Errorf("Aut(%s)[0] = %v, not the identity", tc.p, s)
			}
		}
	}
}

// TestUniqueIsEmbeddingsOverAut checks the orbit definition against embeddings / |Aut(Q)| on a
// small labelled graph for a variety of patterns.
func TestUniqueIsEmbeddingsOverAut(t *testing.T) {
	g := build(t, 7, []uint32{0, 0, 1, 0, 1, 0, 0}, [][3]uint32{
		{0, 1, 0}, {0, 2, 0}, {1, 2, 1}, {2, 3, 0}, {3, 4, 0}, {4, 5, 1}, {5, 6, 0}, {6, 0, 0},
		{1, 3, 0}, {2, 4, 0}, {0, 3, 0}, {1, 5, 0},
	})
	for _, s := range []string{
		"(a)-(b)", "(a)-(b)-(c)", "(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a)", "(a), (b)", "(a), (b), (c)",
		"(a:0)-(b:0)", "(a)-[:0]-(b)-[:0]-(c)", "(a)-[:1]-(b)", "(a)-(b), (c)-(d)", "(c)-(a)-(b), (a)-(d)",
		"(a:1)-(b)-(c:1)", "(a:*)-(b:*)-(c:0)",
	} {
		p := parse(t, s)
		aut := uint64(len(Automorphisms(p)))
		for _, induced := range []bool{false, true} {
			e := Count(g, p, engine.Semantics{Induced: induced})
			u := Count(g, p, engine.Semantics{Induced: induced, Unique: true})
			if e%aut != 0 || e/aut != u {
				t.Errorf("%s induced=%v: %d embeddings, |Aut| %d, %d unique", s, induced, e, aut, u)
			}
			// Canonical of every embedding lands on a listed unique match.
			reps := map[string]bool{}
			for _, f := range List(g, p, engine.Semantics{Induced: induced, Unique: true}) {
				reps[key(f)] = true
			}
			auts := Automorphisms(p)
			for _, f := range List(g, p, engine.Semantics{Induced: induced}) {
				if !reps[key(Canonical(auts, f))] {
					t.Errorf("%s: canonical form of %v not listed", s, f)
				}
			}
		}
	}
}

func key(f []uint32) string {
	b := make([]byte, 0, 4*len(f))
	for _, v := range f {
		b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	return string(b)
}

func TestCountWithin(t *testing.T) {
	k := complete(t, 10)
	p := parse(t, "(a)-(b)-(c)-(d)")
	if _, ok := CountWithin(k, p, emb, 100); ok {
		t.Error("CountWithin with a tiny limit succeeded")
	}
	if n, ok := CountWithin(k, p, emb, 1e6); !ok || n != 10*9*8*7 {
		t.Errorf("CountWithin = %d, %v; want %d", n, ok, 10*9*8*7)
	}
}

func TestAutomorphismsWithin(t *testing.T) {
	// Ten interchangeable isolated vertices: 10! automorphisms, far beyond a small budget.
	p := parse(t, "(a), (b), (c), (d), (e), (f), (g), (h), (i), (j)")
	if _, ok := AutomorphismsWithin(p, 10_000); ok {
		t.Error("AutomorphismsWithin finished 10! automorphisms within 10000 nodes")
	}
	if _, ok := CountWithin(complete(t, 12), p, uniq, 10_000); ok {
		t.Error("CountWithin ignored the budget spent on automorphisms")
	}
	q := parse(t, "(a), (b), (c), (d)")
	if auts, ok := AutomorphismsWithin(q, 10_000); !ok || len(auts) != 24 {
		t.Errorf("AutomorphismsWithin(4 isolated) = %d, %v", len(auts), ok)
	}
	// 4 isolated vertices in 6 vertices: 6*5*4*3 embeddings, C(6,4) unique.
	if n := Count(build(t, 6, nil, nil), q, uniq); n != 15 {
		t.Errorf("unique 4 isolated in 6 = %d, want 15", n)
	}
}
