package dynamic

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
)

// TestApplyEdgeOps applies random valid sequences of edge operations (edges inserted, deleted,
// inserted again with another label) with ApplyEdgeOps on 1 to 8 goroutines, and compares the
// graph with a copy changed by InsertEdge and RemoveEdge one by one: every vertex's runs in
// order, degrees and the edge count.
func TestApplyEdgeOps(t *testing.T) {
	defer func(n int) { opsPerWorker = n }(opsPerWorker)
	opsPerWorker = 1
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 7))
		g0 := gen.RandomGraph(seed, 20+r.IntN(60), 0.1+0.3*r.Float64(), 1+r.IntN(3), 1+r.IntN(2))
		want := FromGraph(g0)
		var ops []EdgeOp
		n := uint32(want.IDBound())
		for range 1 + r.IntN(400) {
			u, v := uint32(r.IntN(int(n))), uint32(r.IntN(int(n)))
			if u == v {
				continue
			}
			if l, ok := want.RemoveEdge(u, v); ok {
				ops = append(ops, EdgeOp{U: u, V: v, Label: l, Delete: true})
				continue
			}
			l := uint32(r.IntN(2))
			if !want.InsertEdge(u, v, l) {
				t.Fatalf("seed %d: insert %d-%d refused", seed, u, v)
			}
			ops = append(ops, EdgeOp{U: u, V: v, Label: l})
		}
		for _, threads := range []int{1, 2, 3, 8} {
			got := FromGraph(g0)
			if err := got.ApplyEdgeOps(ops, threads); err != nil {
				t.Fatalf("seed %d, %d threads: %v", seed, threads, err)
			}
			if err := sameRuns(got, want); err != nil {
				t.Fatalf("seed %d, %d threads, %d ops: %v", seed, threads, len(ops), err)
			}
		}
		// An operation that does not apply is an error.
		if len(ops) > 0 {
			bad := slices.Clone(ops)
			bad = append(bad, bad[len(bad)-1])
			if err := FromGraph(g0).ApplyEdgeOps(bad, 2); err == nil {
				t.Fatalf("seed %d: an operation repeated was applied", seed)
			}
		}
	}
	if err := New().ApplyEdgeOps([]EdgeOp{{U: 0, V: 1}}, 1); err == nil {
		t.Fatal("an operation on missing vertices was applied")
	}
}

// sameRuns reports the first difference between two graphs with the same dense ids.
func sameRuns(got, want *Graph) error {
	if got.NumEdges() != want.NumEdges() || got.IDBound() != want.IDBound() {
		return fmt.Errorf("%d edges, %d ids; want %d, %d", got.NumEdges(), got.IDBound(), want.NumEdges(), want.IDBound())
	}
	for v := range uint32(want.IDBound()) {
		a, b := got.Runs(v), want.Runs(v)
		if got.Degree(v) != want.Degree(v) || len(a) != len(b) {
			return fmt.Errorf("vertex %d: degree %d, %d runs; want %d, %d", v, got.Degree(v), len(a), want.Degree(v), len(b))
		}
		for i := range a {
			if a[i].VertexLabel != b[i].VertexLabel || a[i].EdgeLabel != b[i].EdgeLabel || !slices.Equal(a[i].Neighbors, b[i].Neighbors) {
				return fmt.Errorf("vertex %d, run %d: %v, want %v", v, i, a[i], b[i])
			}
		}
		if got.DegreeWith(v, 0, 0) != want.DegreeWith(v, 0, 0) {
			return errors.New("label masks differ")
		}
	}
	return nil
}
