package partition

import (
	"cmp"
	"context"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/submatch/submatch/internal/par"
)

// Triangle edge weights (Options.Triangles): every edge weighs 1 + ⌈log2(1 + t)⌉, t the
// triangles it lies in, so that the partitioner prefers to cut the edges that close few
// triangles and keeps dense regions, where small dense patterns' instances are, inside one part.

// TriangleWork is the most work per edge (steps of the out-lists' intersections, intersectCost)
// the triangle count may take; above it the weights stay 1. The count takes about 10 ns a step
// on one core of the 2-core VM: 68 steps an edge on wiki-Vote (76 ms), 32 on github (0.22 s),
// both weighted; 264 on R-MAT scale 18 with edge factor 16 (10.7 s, as long as the multilevel
// partitioning itself, where triangle weights make no difference to the share: random ids).
const TriangleWork = 128

// weightTriangles adds to every edge's weight triangleWeight of the triangles it lies in,
// counted once each by the degree-oriented forward algorithm on every core (threads <= 0: all):
// every edge is directed from its end of lower (degree, id) to the higher, and the triangles are
// the common out-neighbours of an edge's ends, found by intersecting the out-lists (sorted by id).
// The adjacency order is left as it is (w's lists are g's, so the weights stay aligned with
// g.Neighbors). It reports false, the weights unchanged, when the count would exceed TriangleWork
// intersection steps per edge, and returns ctx's error when it ends.
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
	// outStart[v+1]-outStart[v] is v's out-degree.
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
	// The bound: every directed edge (v, u) intersects v's and u's out-lists (intersectCost).
	var work uint64
	for v := range uint32(n) {
		for _, u := range w.adj[w.xadj[v]:w.xadj[v+1]] {
			if above(u, v) {
				work += intersectCost(outDeg(v), outDeg(u))
			}
		}
	}
	if work > TriangleWork*uint64(max(len(w.adj)/2, 1)) {
		return false, nil
	}
	// out[outStart[v]:outStart[v+1]] is v's out-neighbours sorted by id, pos their positions in
	// v's list.
	out, pos := make([]uint32, outStart[n]), make([]uint32, outStart[n])
	par.For(n, threads, func(i int) {
		v := uint32(i)
		list := w.adj[w.xadj[v]:w.xadj[v+1]]
		ps := pos[outStart[v]:outStart[v]]
		for p, u := range list {
			if above(u, v) {
				ps = append(ps, uint32(p))
			}
		}
		if !slices.IsSortedFunc(ps, func(a, b uint32) int { return cmp.Compare(list[a], list[b]) }) {
			slices.SortFunc(ps, func(a, b uint32) int { return cmp.Compare(list[a], list[b]) })
		}
		for k, p := range ps {
			out[outStart[v]+k] = list[p]
		}
	})
	// Triangles (v, u, x), v's out-list holding u and x and u's x, are counted on the out-edges:
	// v's two in own (only v's goroutine writes v's entries there), u's in remote, atomically.
	own, remote := make([]uint32, len(out)), make([]uint32, len(out))
	stopped := par.Ranges(n, threads, 64, func(_, lo, hi int) bool {
		if ctx.Err() != nil {
			return false
		}
		for v := uint32(lo); v < uint32(hi); v++ {
			sv := outStart[v]
			ov := out[sv:outStart[v+1]]
			for k, u := range ov {
				su := outStart[u]
				ou := out[su:outStart[u+1]]
				var t uint32
				if gallop(len(ov), len(ou)) {
					// One list much longer: each entry of the shorter searched in the longer.
					short, long := ov, ou
					if len(ou) < len(ov) {
						short, long = ou, ov
					}
					for a, x := range short {
						b, found := slices.BinarySearch(long, x)
						if !found {
							continue
						}
						i, j := a, b
						if len(ou) < len(ov) {
							i, j = b, a
						}
						t++
						own[sv+i]++
						atomic.AddUint32(&remote[su+j], 1)
					}
				} else {
					i, j := 0, 0
					for i < len(ov) && j < len(ou) {
						switch x, y := ov[i], ou[j]; {
						case x < y:
							i++
						case x > y:
							j++
						default:
							t++
							own[sv+i]++
							atomic.AddUint32(&remote[su+j], 1)
							i++
							j++
						}
					}
				}
				own[sv+k] += t
			}
		}
		return true
	})
	if stopped {
		return false, ctx.Err()
	}
	// Both half-edges of an edge get the count of its out-edge: the upper end finds it in the
	// lower end's out-list by binary search.
	par.For(n, threads, func(i int) {
		v := uint32(i)
		for k := outStart[v]; k < outStart[v+1]; k++ {
			w.ew[w.xadj[v]+int(pos[k])] += triangleWeight(own[k] + remote[k])
		}
		for j := w.xadj[v]; j < w.xadj[v+1]; j++ {
			if u := w.adj[j]; !above(u, v) {
				ou := out[outStart[u]:outStart[u+1]]
				k, _ := slices.BinarySearch(ou, v)
				w.ew[j] += triangleWeight(own[outStart[u]+k] + remote[outStart[u]+k])
			}
		}
	})
	return true, nil
}

// triangleWeight is what t triangles add to an edge's weight: ⌈log2(1 + t)⌉, the binary digits
// of t. The triangles themselves (1 + t) were tried first: on wiki-Vote and github, whose hubs'
// edges close hundreds of triangles, those weights drown the rest of the graph and the parts held
// fewer triangles than with weights 1 (github at a quarter of the graph: 35-41% of the triangles
// against 42%); the logarithm keeps the order of the edges' weights and their spread small.
func triangleWeight(t uint32) uint64 { return uint64(bits.Len32(t)) }

// gallop reports whether two sorted lists of a and b entries are intersected by binary searches
// of the shorter's entries in the longer rather than by a merge: when one is over 16 times the
// other (hubs' out-lists against their small neighbours').
func gallop(a, b int) bool { return a > 16*b || b > 16*a }

// intersectCost is the steps of intersecting sorted lists of a and b entries (gallop).
func intersectCost(a, b int) uint64 {
	if gallop(a, b) {
		s, l := min(a, b), max(a, b)
		return uint64(s * bits.Len(uint(l)))
	}
	return uint64(a + b)
}
