package partition

import (
	"cmp"
	"context"
	"math/bits"
	"slices"

	"github.com/submatch/submatch/internal/par"
	"github.com/submatch/submatch/internal/triangles"
)

// Triangle edge weights (Options.Triangles): every edge weighs 1 + ⌈log2(1 + t)⌉, t the
// triangles it lies in, so that the partitioner prefers to cut the edges that close few
// triangles and keeps dense regions, where small dense patterns' instances are, inside one part.

// TriangleWork is the most work per edge (steps of the out-lists' intersections,
// triangles.Forward.Work) the triangle count may take; above it the weights stay 1. The count takes about 10 ns a step
// on one core of the 2-core VM: 68 steps an edge on wiki-Vote (76 ms), 32 on github (0.22 s),
// both weighted; 264 on R-MAT scale 18 with edge factor 16 (10.7 s, as long as the multilevel
// partitioning itself, where triangle weights make no difference to the share: random ids).
const TriangleWork = 128

// weightTriangles adds to every edge's weight triangleWeight of the triangles it lies in,
// counted once each by the forward algorithm (package triangles) on every core (threads <= 0:
// all): every edge is directed from its end of lower (degree, id) to the higher, and the
// triangles are the common out-neighbours of an edge's ends. The adjacency order is left as it is
// (w's lists are g's, so the weights stay aligned with g.Neighbors). It reports false, the
// weights unchanged, when the count would exceed TriangleWork intersection steps per edge
// (triangles.Forward.Work, checked before the out-lists are sorted), and returns ctx's error
// when it ends.
func (w *wgraph) weightTriangles(ctx context.Context, threads int) (bool, error) {
	n := w.n()
	if n == 0 {
		return true, nil
	}
	f, orig, rank := w.forward(threads)
	if f.Work() > TriangleWork*uint64(max(len(w.adj)/2, 1)) {
		return false, nil
	}
	pos := w.sortOut(f, orig, rank, threads)
	t := make([]uint32, len(f.Adj))
	if err := f.Count(ctx, threads, t); err != nil {
		return false, err
	}
	// Both half-edges of an edge get the count of its out-edge: the upper end finds it in the
	// lower end's out-list by binary search.
	par.For(n, threads, func(r int) {
		v := orig[r]
		for k := f.Lo[r]; k < f.Hi[r]; k++ {
			w.ew[w.xadj[v]+int(pos[k])] += triangleWeight(t[k])
		}
		for j := w.xadj[v]; j < w.xadj[v+1]; j++ {
			if u := rank[w.adj[j]]; u < uint32(r) {
				k, _ := slices.BinarySearch(f.Out(int(u)), uint32(r))
				w.ew[j] += triangleWeight(t[f.Lo[u]+uint64(k)])
			}
		}
	})
	return true, nil
}

// forward is w oriented for the triangle count: the vertices renumbered by ascending (degree,
// id) (orig: rank to vertex, rank its inverse), each one's out-list the ranks of its neighbours
// above it, in w's order until sortOut sorts them (enough for Work).
func (w *wgraph) forward(threads int) (f *triangles.Forward, orig, rank []uint32) {
	n := w.n()
	deg := func(v int) int { return w.xadj[v+1] - w.xadj[v] }
	// Ranks by a counting sort on the degrees (stable: ids ascending within a degree).
	maxDeg := 0
	for v := range n {
		maxDeg = max(maxDeg, deg(v))
	}
	start := make([]int, maxDeg+1)
	for v := range n {
		start[deg(v)]++
	}
	for d, c := 0, 0; d <= maxDeg; d++ {
		start[d], c = c, c+start[d]
	}
	orig, rank = make([]uint32, n), make([]uint32, n)
	for v := range n {
		r := start[deg(v)]
		start[deg(v)]++
		orig[r], rank[v] = uint32(v), uint32(r)
	}
	// out[outStart[r]:outStart[r+1]] is r's out-list.
	outStart := make([]uint64, n+1)
	par.For(n, threads, func(r int) {
		c := uint64(0)
		for _, u := range w.adj[w.xadj[orig[r]]:w.xadj[orig[r]+1]] {
			if rank[u] > uint32(r) {
				c++
			}
		}
		outStart[r+1] = c
	})
	for r := range n {
		outStart[r+1] += outStart[r]
	}
	out := make([]uint32, outStart[n])
	par.For(n, threads, func(r int) {
		k := outStart[r]
		for _, u := range w.adj[w.xadj[orig[r]]:w.xadj[orig[r]+1]] {
			if rank[u] > uint32(r) {
				out[k] = rank[u]
				k++
			}
		}
	})
	return &triangles.Forward{Adj: out, Lo: outStart[:n], Hi: outStart[1:]}, orig, rank
}

// sortOut sorts f's out-lists (forward's) and returns, per out-position, the neighbour's position
// in the vertex's list in w.
func (w *wgraph) sortOut(f *triangles.Forward, orig, rank []uint32, threads int) (pos []uint32) {
	pos = make([]uint32, len(f.Adj))
	par.For(f.N(), threads, func(r int) {
		list := w.adj[w.xadj[orig[r]]:w.xadj[orig[r]+1]]
		ps := pos[f.Lo[r]:f.Lo[r]]
		for p, u := range list {
			if rank[u] > uint32(r) {
				ps = append(ps, uint32(p))
			}
		}
		slices.SortFunc(ps, func(a, b uint32) int { return cmp.Compare(rank[list[a]], rank[list[b]]) })
		for k, p := range ps {
			f.Adj[f.Lo[r]+uint64(k)] = rank[list[p]]
		}
	})
	return pos
}

// triangleWeight is what t triangles add to an edge's weight: ⌈log2(1 + t)⌉, the binary digits
// of t. The triangles themselves (1 + t) were tried first: on wiki-Vote and github, whose hubs'
// edges close hundreds of triangles, those weights drown the rest of the graph and the parts held
// fewer triangles than with weights 1 (github at a quarter of the graph: 35-41% of the triangles
// against 42%); the logarithm keeps the order of the edges' weights and their spread small.
func triangleWeight(t uint32) uint64 { return uint64(bits.Len32(t)) }
