package graph

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomInducedInput draws the graph of iteration iter of the induced-subgraph tests: 2 to 61
// vertices (every tenth iteration, enough to span several of the subgraph builders' ranges) with
// labels below nl, up to edgeFactor edges a vertex, labelled on even iterations (a pair's label
// depends on the pair alone, however often it is drawn).
func randomInducedInput(t *testing.T, r *rand.Rand, iter, nl, edgeFactor int) *Graph {
	t.Helper()
	n := 2 + r.IntN(60)
	if iter%10 == 0 {
		n = 3*inducedChunk + r.IntN(1000)
	}
	labels := map[int64]uint32{}
	for v := range n {
		labels[int64(v)] = uint32(r.IntN(nl))
	}
	var edges []edge
	for range r.IntN(edgeFactor * n) {
		u, v := int64(r.IntN(n)), int64(r.IntN(n))
		if u == v {
			continue
		}
		var l uint32
		if iter%2 == 0 {
			l = uint32((u + v) % 3)
		}
		edges = append(edges, edge{u, v, l})
	}
	return build(t, labels, edges)
}

// TestInducedByVertexLabels checks the label-induced subgraph against g on random graphs (with
// and without edge labels; small ones and ones spanning several of its goroutines' ranges): the
// kept vertices are exactly those with a label of the set, in g's order, each with exactly its
// g-neighbours of a kept label (by the same edge labels); the result validates, and
// LabelledShare counts the same.
func TestInducedByVertexLabels(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := range 60 {
		nl := 1 + r.IntN(6)
		g := randomInducedInput(t, r, iter, nl, 5)
		var set []uint32
		for l := range uint32(nl + 1) { // nl itself is no vertex's label
			if r.IntN(2) == 0 {
				set = append(set, l)
			}
		}
		h := g.InducedByVertexLabels(set)
		if err := h.Validate(); err != nil {
			t.Fatalf("iter %d: %v", iter, err)
		}
		var want []int64
		for v := range uint32(g.NumVertices()) {
			if slices.Contains(set, g.VertexLabel(v)) {
				want = append(want, int64(v))
			}
		}
		got := make([]int64, h.NumVertices())
		for v := range got {
			got[v] = h.OriginalID(uint32(v))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("iter %d: kept %v, want %v", iter, got, want)
		}
		zero := true
		for v := range uint32(h.NumVertices()) {
			gv := uint32(got[v])
			if h.VertexLabel(v) != g.VertexLabel(gv) {
				t.Fatalf("iter %d: label of %d", iter, gv)
			}
			type nb struct {
				w     int64
				label uint32
			}
			var hn, gn []nb
			for k, w := range h.Neighbors(v) {
				var l uint32
				if ls := h.NeighborEdgeLabels(v); ls != nil {
					l = ls[k]
				}
				zero = zero && l == 0
				hn = append(hn, nb{h.OriginalID(w), l})
			}
			for k, w := range g.Neighbors(gv) {
				if !slices.Contains(set, g.VertexLabel(w)) {
					continue
				}
				var l uint32
				if ls := g.NeighborEdgeLabels(gv); ls != nil {
					l = ls[k]
				}
				gn = append(gn, nb{int64(w), l})
			}
			cmp := func(a, b nb) int { return int(a.w - b.w) }
			slices.SortFunc(hn, cmp)
			slices.SortFunc(gn, cmp)
			if !slices.Equal(hn, gn) {
				t.Fatalf("iter %d: neighbours of %d: %v, want %v", iter, gv, hn, gn)
			}
		}
		if h.HasEdgeLabels() == zero {
			t.Fatalf("iter %d: edge labels kept %v, all kept edges labelled 0 %v", iter, h.HasEdgeLabels(), zero)
		}
		vs, es := g.LabelledShare(set)
		if vs != h.NumVertices() || es != 2*h.NumEdges() {
			t.Fatalf("iter %d: LabelledShare %d, %d; the subgraph has %d, %d", iter, vs, es, h.NumVertices(), 2*h.NumEdges())
		}
	}
}

// InducedByBuilder is inducedByBuilder for the benchmark (package graph_test).
var InducedByBuilder = inducedByBuilder

// inducedByBuilder is InducedPart's reference: the part's vertices and edges given to a Builder
// one by one (what package pbe did before InducedPart).
func inducedByBuilder(t testing.TB, g *Graph, vs, of []uint32, part uint32) *Graph {
	t.Helper()
	b := NewBuilder(BuilderOptions{})
	for _, v := range vs {
		if err := b.SetVertexLabel(int64(v), g.VertexLabel(v)); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range vs {
		ls := g.NeighborEdgeLabels(v)
		for k, w := range g.Neighbors(v) {
			if v < w && of[w] == part {
				var l uint32
				if ls != nil {
					l = ls[k]
				}
				if err := b.AddEdge(int64(v), int64(w), l); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	h, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestInducedPartAgreesWithBuilder: on random graphs (vertex labels, with and without edge
// labels, isolated vertices, small ones and ones spanning several goroutines' ranges), split in
// random parts listed in random order, every part's InducedPart is array for array the graph the
// Builder makes of the part's vertices and edges, and validates.
func TestInducedPartAgreesWithBuilder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	nonEmpty := 0
	for iter := range 60 {
		g := randomInducedInput(t, r, iter, 1+r.IntN(4), 4) // few enough edges that some vertices stay isolated
		parts := 1 + r.IntN(4)
		of := make([]uint32, g.NumVertices())
		vss := make([][]uint32, parts)
		for _, v := range r.Perm(g.NumVertices()) { // each part's vertices in random order
			of[v] = uint32(r.IntN(parts))
			vss[of[v]] = append(vss[of[v]], uint32(v))
		}
		for p, vs := range vss {
			got := g.InducedPart(vs, of, uint32(p))
			if err := got.Validate(); err != nil {
				t.Fatalf("iter %d part %d: %v", iter, p, err)
			}
			want := inducedByBuilder(t, g, vs, of, uint32(p))
			if d := diffRaw(got.Raw(), want.Raw()); d != "" {
				t.Fatalf("iter %d part %d (%d vertices, %d edges): %s", iter, p, len(vs), want.NumEdges(), d)
			}
			if want.NumEdges() > 0 {
				nonEmpty++
			}
		}
	}
	if nonEmpty < 60 {
		t.Fatalf("only %d parts with edges: the test is too weak", nonEmpty)
	}
}
