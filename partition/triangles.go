package partition

import (
	"cmp"
	"context"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/submatch/submatch/internal/par"
)

// Triangle edge weights (Options.Triangles): every edge weighs 1 + ⌊log2(1 + t)⌋, t the
// triangles it lies in, so that the partitioner prefers to cut the edges that close few
// triangles and keeps dense regions, where small dense patterns' instances are, inside one part.

// TriangleWork is the most work per edge (merge steps of the sorted-list intersections) the
// triangle count may take: above it (graphs with very dense cores, where the count would cost
// more than the multilevel partitioning itself, about 9 µs an edge) the weights stay 1.
const TriangleWork = 512

// weightTriangles adds to every edge's weight triangleWeight of the triangles it lies in, counted once
// each by the degree-oriented forward algorithm on every core (threads <= 0: all): every edge is
// directed from its end of lower (degree, id) to the higher, and the triangles are the common
// out-neighbours of an edge's ends, found by merging the out-lists (sorted by id). The adjacency
// order is left as it is (w's lists are g's, so the weights stay aligned with g.Neighbors). It
// reports false, the weights unchanged, when the count would exceed TriangleWork merge steps per
// edge, and returns ctx's error when it ends.
func (w *wgraph) weightTriangles(ctx context.Context, threads int) (bool, error) {
	n := w.n()
	if n == 0 {
		return true, nil
	}
	deg := func(v uint32) int { return w.xadj[v+1] - w.xadj[v] }
	above := func(u, v uint32) bool { // u ranks above v
		du, dv := deg(u), deg(v)
		return du > dv || du == dv && u > v
	}
	// outStart[v+1]-outStart[v] is v's out-degree; out holds, per vertex, the positions in its
	// list of its out-neighbours, sorted by the neighbours' ids.
	outStart := make([]int, n+1)
	par.For(n, threads, func(i int) {
		v := uint32(i)
		c := 0
		for _, u := range w.adj[w.xadj[v]:w.xadj[v+1]] {
			if above(u, v) {
				c++
			}
		}
		outStart[i+1] = c
	})
	for v := range n {
		outStart[v+1] += outStart[v]
	}
	outDeg := func(v uint32) int { return outStart[v+1] - outStart[v] }
	// The bound: every directed edge (v, u) merges v's and u's out-lists.
	var work uint64
	for v := range uint32(n) {
		for _, u := range w.adj[w.xadj[v]:w.xadj[v+1]] {
			if above(u, v) {
				work += uint64(outDeg(v) + outDeg(u))
			}
		}
	}
	if work > TriangleWork*uint64(max(len(w.adj)/2, 1)) {
		return false, nil
	}
	out := make([]uint32, outStart[n])
	par.For(n, threads, func(i int) {
		v := uint32(i)
		o := out[outStart[v]:outStart[v]]
		list := w.adj[w.xadj[v]:w.xadj[v+1]]
		for p, u := range list {
			if above(u, v) {
				o = append(o, uint32(p))
			}
		}
		slices.SortFunc(o, func(a, b uint32) int { return cmp.Compare(list[a], list[b]) })
	})
	// Triangles: counted on the half-edges of the out-lists (the lower end's), atomically.
	tri := make([]uint32, len(w.adj))
	stopped := par.Ranges(n, threads, 64, func(_, lo, hi int) bool {
		if ctx.Err() != nil {
			return false
		}
		for v := uint32(lo); v < uint32(hi); v++ {
			bv := w.xadj[v]
			ov := out[outStart[v]:outStart[v+1]]
			for _, pu := range ov {
				u := w.adj[bv+int(pu)]
				bu := w.xadj[u]
				ou := out[outStart[u]:outStart[u+1]]
				var t uint32
				i, j := 0, 0
				for i < len(ov) && j < len(ou) {
					x, y := w.adj[bv+int(ov[i])], w.adj[bu+int(ou[j])]
					switch {
					case x < y:
						i++
					case x > y:
						j++
					default:
						t++
						atomic.AddUint32(&tri[bv+int(ov[i])], 1)
						atomic.AddUint32(&tri[bu+int(ou[j])], 1)
						i++
						j++
					}
				}
				if t > 0 {
					atomic.AddUint32(&tri[bv+int(pu)], t)
				}
			}
		}
		return true
	})
	if stopped {
		return false, ctx.Err()
	}
	// Both half-edges of an edge get the count of the lower end's: the upper end finds its twin in
	// the lower end's out-list (sorted by id) by binary search.
	par.For(n, threads, func(i int) {
		u := uint32(i)
		for j := w.xadj[u]; j < w.xadj[u+1]; j++ {
			v := w.adj[j]
			if above(v, u) {
				w.ew[j] += triangleWeight(tri[j])
				continue
			}
			bv := w.xadj[v]
			ov := out[outStart[v]:outStart[v+1]]
			k, _ := slices.BinarySearchFunc(ov, u, func(p, x uint32) int { return cmp.Compare(w.adj[bv+int(p)], x) })
			w.ew[j] += triangleWeight(tri[bv+int(ov[k])])
		}
	})
	return true, nil
}

// triangleWeight is what t triangles add to an edge's weight: ⌊log2(1 + t)⌋. The triangles
// themselves (1 + t) were tried first: on wiki-Vote and github, whose hubs' edges close hundreds
// of triangles, those weights drown the rest of the graph and the parts held fewer triangles than
// with weights 1 (github at a quarter of the graph: 35% of the triangles against 42%); the
// logarithm keeps the order of the edges' weights and their spread small.
func triangleWeight(t uint32) uint64 { return uint64(bits.Len32(t)) }
