package graph

import (
	"math/rand/v2"
	"testing"
)

// benchLabelled returns a random graph of wiki-Vote's size (7,115 vertices, about 100,000
// edges) with 10 vertex labels: the data graph of issue 17's labelled counts.
func benchLabelled(b *testing.B) (ids, labels, pairs []uint32) {
	b.Helper()
	r := rand.New(rand.NewPCG(17, 4))
	const n, m = 7115, 100762
	for v := range uint32(n) {
		ids = append(ids, v)
		labels = append(labels, uint32(r.IntN(10)))
	}
	for len(pairs) < 2*m {
		u, v := uint32(r.IntN(n)), uint32(r.IntN(n))
		if u != v {
			pairs = append(pairs, u, v)
		}
	}
	return ids, labels, pairs
}

// buildBench builds the graph of benchLabelled's arrays.
func buildBench(b *testing.B, ids, labels, pairs []uint32) *Graph {
	bl := NewBuilder(BuilderOptions{})
	if _, err := bl.NewVertices(ids, labels); err != nil {
		b.Fatal(err)
	}
	bl.AddEdgePairs(pairs, nil, uint32(len(ids)-1))
	g, err := bl.Build()
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// BenchmarkBuildLabelled builds a wiki-Vote-sized graph with 10 vertex labels from its edges
// (what a text load does after the parse).
func BenchmarkBuildLabelled(b *testing.B) {
	ids, labels, pairs := benchLabelled(b)
	for b.Loop() {
		buildBench(b, ids, labels, pairs)
	}
}

// BenchmarkBuildLabelledSimple is BenchmarkBuildLabelled without duplicate edges (each pair
// once, one way), as in a t/v/e file: the build that checks its lists once and makes the run
// index in that pass.
func BenchmarkBuildLabelledSimple(b *testing.B) {
	ids, labels, pairs := benchLabelled(b)
	seen := make(map[[2]uint32]bool, len(pairs)/2)
	simple := pairs[:0:0]
	for i := 0; i < len(pairs); i += 2 {
		u, v := min(pairs[i], pairs[i+1]), max(pairs[i], pairs[i+1])
		if !seen[[2]uint32{u, v}] {
			seen[[2]uint32{u, v}] = true
			simple = append(simple, u, v)
		}
	}
	for b.Loop() {
		buildBench(b, ids, labels, simple)
	}
}

// BenchmarkValidateRulesLabelled is the rules' check of a snapshot of that graph (what a count
// from a .smg waits for before its search).
func BenchmarkValidateRulesLabelled(b *testing.B) {
	ids, labels, pairs := benchLabelled(b)
	g := buildBench(b, ids, labels, pairs)
	t, err := FromRawTrusted(g.Raw())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := t.ValidateRules(); err != nil {
			b.Fatal(err)
		}
	}
}
