package cliques

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/plan"
)

// TestCliqueWorkerAllocatesNothing: once its buffers have grown, counting a root allocates
// nothing, on the bit-matrix path, on the splitting path and on the triangles' marks.
func TestCliqueWorkerAllocatesNothing(t *testing.T) {
	g := gen.RandomGraph(2, 200, 0.5, 1, 1)
	c, ok := plan.AsClique(g, proptest.Clique(t, 6, "", ""))
	if !ok {
		t.Fatal("not a clique")
	}
	o := c.Orient(g, 1)
	tri, ok := plan.CliqueOf(g, proptest.Clique(t, 3, "", ""), 3)
	if !ok {
		t.Fatal("not a clique")
	}
	for _, wc := range []struct {
		k, limit int
	}{{c.K, 8}, {c.K, 4096}, {tri.K, 4096}} {
		k, limit := wc.k, wc.limit
		var stop atomic.Bool
		w := newCliqueWorker(o, k, limit, &stop)
		for r := range uint32(g.NumVertices()) {
			w.root(r)
		}
		if a := testing.AllocsPerRun(3, func() {
			for r := range uint32(g.NumVertices()) {
				w.root(r)
			}
		}); a != 0 {
			t.Errorf("%d-cliques, limit %d: %v allocations per pass over the roots", k, limit, a)
		}
	}
}

// TestCountThreads: any thread count, none (all cores) included, gives the same count.
func TestCountThreads(t *testing.T) {
	g := gen.RandomGraph(3, 120, 0.4, 1, 1)
	c, ok := plan.AsClique(g, proptest.Clique(t, 4, "", ""))
	if !ok {
		t.Fatal("not a clique")
	}
	o := c.Orient(g, 1)
	n := g.NumVertices()
	root := func(i int) uint32 { return uint32(i) }
	want, err := Count(context.Background(), o, c.K, MatrixLimit, n, root, 1, nil)
	if err != nil || want == 0 {
		t.Fatalf("one thread: %d, %v", want, err)
	}
	for _, threads := range []int{0, -1, 3} {
		if got, err := Count(context.Background(), o, c.K, MatrixLimit, n, root, threads, nil); err != nil || got != want {
			t.Errorf("%d threads: %d (%v), one thread %d", threads, got, err, want)
		}
	}
}

// TestTrianglesAgainstIntersections: every root's triangles from its marked upward neighbours
// equal the splitting path's intersections of the same set (inSet), and the sum equals a
// brute-force count over vertex triples, on graphs sparse to complete.
func TestTrianglesAgainstIntersections(t *testing.T) {
	for seed, density := range []float64{0.05, 0.3, 0.7, 1} {
		g := gen.RandomGraph(uint64(seed+1), 70, density, 1, 1)
		c, ok := plan.CliqueOf(g, proptest.Clique(t, 3, "", ""), 3)
		if !ok {
			t.Fatal("not a clique")
		}
		o := c.Orient(g, 1)
		var stop atomic.Bool
		w := newCliqueWorker(o, 3, MatrixLimit, &stop)
		n := uint32(g.NumVertices())
		var sum uint64
		for r := range n {
			up := o.Above(r)
			got, want := w.triangles(up), w.inSet(up, 2, 0)
			if got != want {
				t.Fatalf("density %v, root %d: %d triangles from the marks, %d from intersections", density, r, got, want)
			}
			sum += got
		}
		brute, _ := bruteTriangles(g, nil)
		if sum != brute || brute == 0 && density > 0.1 {
			t.Fatalf("density %v: %d triangles, brute force %d", density, sum, brute)
		}
		total, err := Count(context.Background(), o, 3, MatrixLimit, int(n), func(i int) uint32 { return uint32(i) }, 2, nil)
		if err != nil || total != brute {
			t.Fatalf("density %v: Count %d (%v), brute force %d", density, total, err, brute)
		}
	}
}

// bruteTriangles counts g's triangles over every triple of vertices, and those whose vertices
// are not all in one part of of (nil: no parts, spanning 0).
func bruteTriangles(g *graph.Graph, of []uint32) (all, spanning uint64) {
	n := uint32(g.NumVertices())
	adjacent := func(a, b uint32) bool { _, ok := g.HasEdge(a, b); return ok }
	for a := range n {
		for b := a + 1; b < n; b++ {
			if !adjacent(a, b) {
				continue
			}
			for x := b + 1; x < n; x++ {
				if adjacent(a, x) && adjacent(b, x) {
					all++
					if of != nil && (of[a] != of[b] || of[a] != of[x]) {
						spanning++
					}
				}
			}
		}
	}
	return all, spanning
}

// heldBytes is what w's buffers hold.
func heldBytes(w *cliqueWorker) uint64 {
	b := 8*uint64(cap(w.rows)) + 2*uint64(cap(w.mark)) + 4*uint64(cap(w.same)) + 8*uint64(cap(w.upBits))
	for _, l := range w.lists {
		b += 4 * uint64(cap(l))
	}
	for _, s := range w.bitSets {
		b += 8 * uint64(cap(s))
	}
	return b
}

// TestTriangleWorkerMemory: a worker that has counted every root's triangles holds no more than
// WorkerMemory (Count) or SpanningWorkerMemory (CountSpanning, which marks by part) says, and
// the 4-cliques' workers no more than theirs.
func TestTriangleWorkerMemory(t *testing.T) {
	g := gen.RandomGraph(7, 300, 0.2, 1, 1)
	of := make([]uint32, g.NumVertices())
	for v := range of {
		of[v] = uint32(v % 3)
	}
	size := SizeOf(g)
	for _, k := range []int{3, 4} {
		c, ok := plan.CliqueOf(g, proptest.Clique(t, k, "", ""), 3)
		if !ok {
			t.Fatal("not a clique")
		}
		o := c.Orient(g, 1)
		var stop atomic.Bool
		w := newCliqueWorker(o, k, MatrixLimit, &stop)
		for r := range uint32(g.NumVertices()) {
			w.root(r)
		}
		if held, bound := heldBytes(w), WorkerMemory(size, k, MatrixLimit); held > bound || held == 0 {
			t.Errorf("%d-cliques: a worker holds %d bytes, WorkerMemory %d", k, held, bound)
		}
		s := newCliqueWorker(o, k, MatrixLimit, &stop)
		for r := range uint32(g.NumVertices()) {
			s.rootSpanning(r, of)
		}
		if held, bound := heldBytes(s), SpanningWorkerMemory(size, k, MatrixLimit); held > bound || held == 0 {
			t.Errorf("%d-cliques spanning parts: a worker holds %d bytes, SpanningWorkerMemory %d", k, held, bound)
		}
	}
}
