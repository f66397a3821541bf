package sgsi

import (
	"context"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// TestLeafMemosWithinMemory: the leaf step's memos (sizeMemo) of one goroutine stay within
// --memory together, not each alone. The triangle a - b - c with leaves x on a and y on b
// counts c (a group of two parents: a memo of |S_c|) in one class with x and y (a class memo
// of 8 sizes a candidate); --memory leaves room for either memo, not both.
func TestLeafMemosWithinMemory(t *testing.T) {
	g := gen.RandomGraph(1, 3000, 0.002, 1, 0)
	_, q, s, cands, bits, bitWords := leafSetup(t, g)
	all := cands[0]
	table := []uint32{0, 1, 1, 0, 2, 3}
	r := &runner{ctx: context.Background(), s: s, q: q, cands: cands, bitsHost: bits, bitWords: bitWords, threads: 1}
	if err := r.leafCount(table); err != nil { // (the store's label graphs: shared memory)
		t.Fatal(err)
	}
	r = &runner{ctx: context.Background(), s: s, q: q, cands: cands, bitsHost: bits, bitWords: bitWords, threads: 1}
	class := uint64(len(all)) * (4 + 8*8) // the class memo: a stamp and 8 sizes a candidate
	r.hostLimit = r.hostShared() + class + class/32
	if err := r.leafCount(table); err != nil {
		t.Fatal(err)
	}
	if own := r.hostOwn(); r.hostShared()+own > r.hostLimit {
		t.Errorf("the leaf step holds %d bytes beside the shared %d, over --memory %d", own, r.hostShared(), r.hostLimit)
	}
}

// leafSetup plans the triangle a - b - c with leaves x on a and y on b over g, every data
// vertex a candidate of every pattern vertex: c is counted in one class with the leaves.
func leafSetup(t *testing.T, g *graph.Graph) (*pattern.Pattern, *query, *store, [][]uint32, []uint32, uint64) {
	t.Helper()
	p, err := pattern.Parse("(a)-(b)-(c)-(a), (a)-(x), (b)-(y)")
	if err != nil {
		t.Fatal(err)
	}
	n := p.NumVertices()
	s := storeFor(g)
	q := compileQuery(p)
	sizes := make([]uint64, n)
	cands := make([][]uint32, n)
	all := make([]uint32, g.NumVertices())
	for v := range all {
		all[v] = uint32(v)
	}
	for u := range n {
		sizes[u], cands[u] = uint64(len(all)), all
	}
	q.plan(sizes, s.edgeEntries, false, false, false, true, false, true)
	// (c closes the triangle: counted with the leaves, a group on both hubs.)
	if len(q.leafClasses) != 1 || len(q.leafClasses[0]) != 3 || q.joined != 2 {
		t.Fatalf("setup: joined %d, classes %v", q.joined, q.leafClasses)
	}
	bitWords := bitsetWords(g.NumVertices())
	bits := make([]uint32, uint64(n)*bitWords)
	for i := range bits {
		bits[i] = ^uint32(0)
	}
	return p, q, s, cands, bits, bitWords
}
