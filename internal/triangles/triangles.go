// Package triangles owns the triangle enumeration that the motif census (mining) and the
// partitioner's triangle edge weights (partition) share: the forward algorithm over a graph whose
// every edge is directed from its lower end to its higher one, each triangle found once, from its
// lowest vertex, with the positions of its three edges (At); the exact count of every edge's
// triangles on all cores (Count); the graph's number of triangles (Total), which stats prints;
// and the bound of the count's work (Work), which the partitioner checks before it counts. The
// loops allocate nothing.
package triangles

import (
	"context"
	"math/bits"
	"sync/atomic"

	"github.com/submatch/submatch/internal/par"
	"github.com/submatch/submatch/internal/setops"
)

// Forward is an oriented graph: the vertices are numbered in an order (by ascending degree, so
// that no out-list is longer than sqrt(2m)), every edge is directed from its lower end to its
// higher one, and vertex v's out-list, Adj[Lo[v]:Hi[v]], is sorted ascending. A position is an
// index into Adj; Adj may hold more than the out-lists (mining keeps each vertex's lower
// neighbours just before its out-list).
type Forward struct {
	Adj    []uint32
	Lo, Hi []uint64 // per vertex
}

// N is the number of vertices.
func (f *Forward) N() int { return len(f.Lo) }

// Out is v's out-list.
func (f *Forward) Out(v int) []uint32 { return f.Adj[f.Lo[v]:f.Hi[v]] }

// At calls fn(u, x, pvu, pvx, pux) for every triangle v < u < x whose lowest vertex is v, with
// the positions of its edges v-u, v-x (in v's out-list) and u-x (in u's): each triangle of the
// graph once over all v. The third vertices x of an out-edge v-u are the common entries of v's
// out-list after u and u's out-list (setops.IntersectEach).
func (f *Forward) At(v int, fn func(u, x uint32, pvu, pvx, pux uint64)) {
	out := f.Out(v)
	for i, u := range out {
		pvu := f.Lo[v] + uint64(i)
		rest, pu := out[i+1:], f.Lo[u]
		setops.IntersectEach(rest, f.Out(int(u)), func(j, k int) {
			fn(u, rest[j], pvu, pvu+1+uint64(j), pu+uint64(k))
		})
	}
}

// Count adds to t[p], for every out-position p (t as long as Adj), the triangles its edge lies
// in, on up to threads goroutines (<= 0: all cores). It returns ctx's error, t partly counted,
// when ctx ends first.
func (f *Forward) Count(ctx context.Context, threads int, t []uint32) error {
	// v's goroutine alone writes the positions of v's out-list as v's: those go straight into t;
	// the third edges u-x, in u's out-list, go into remote, atomically, added to t at the end.
	remote := make([]uint32, len(t))
	stopped := par.Ranges(f.N(), threads, 64, func(_, lo, hi int) bool {
		if ctx.Err() != nil {
			return false
		}
		for v := lo; v < hi; v++ {
			f.At(v, func(_, _ uint32, pvu, pvx, pux uint64) {
				t[pvu]++
				t[pvx]++
				atomic.AddUint32(&remote[pux], 1)
			})
		}
		return true
	})
	if stopped {
		return ctx.Err()
	}
	par.For(f.N(), threads, func(v int) {
		for p := f.Lo[v]; p < f.Hi[v]; p++ {
			t[p] += remote[p]
		}
	})
	return nil
}

// Total is the number of triangles of the graph, each counted once, at its lowest vertex, on up
// to threads goroutines (<= 0: all cores). It returns ctx's error when ctx ends first. It counts
// what At finds, but not by merging lists: each goroutine marks v's out-list in a bitset of N
// bits and counts the marked entries of the out-list of every u in it (no branch per
// comparison: about four times faster than At's merges with a callback on wiki-Vote). The
// out-lists need not be sorted. The sum cannot overflow: m edges make fewer than m^1.5
// triangles.
func (f *Forward) Total(ctx context.Context, threads int) (uint64, error) {
	const chunk = 256
	n := f.N()
	marks := make([][]uint64, par.Workers(n, threads, chunk)) // per goroutine, made on first use
	var total atomic.Uint64
	stopped := par.Ranges(n, threads, chunk, func(w, lo, hi int) bool {
		if ctx.Err() != nil {
			return false
		}
		if marks[w] == nil {
			marks[w] = make([]uint64, (n+63)/64)
		}
		mark := marks[w]
		var t uint64
		for v := lo; v < hi; v++ {
			out := f.Out(v)
			for _, u := range out {
				mark[u>>6] |= 1 << (u & 63)
			}
			for _, u := range out {
				for _, x := range f.Out(int(u)) {
					t += mark[x>>6] >> (x & 63) & 1
				}
			}
			for _, u := range out {
				mark[u>>6] = 0
			}
		}
		total.Add(t)
		return true
	})
	if stopped {
		return 0, ctx.Err()
	}
	return total.Load(), nil
}

// Work is the steps the count is bounded by: the cost of intersecting the whole out-lists of
// every out-edge's two ends, merged, or searched when one is over setops.GallopThreshold times
// the other, where the intersection switches (At intersects only the part of the lower end's
// list after the higher end, and takes fewer). It needs the out-lists' entries, not their order.
func (f *Forward) Work() uint64 {
	var work uint64
	for v := range f.N() {
		dv := int(f.Hi[v] - f.Lo[v])
		for _, u := range f.Out(v) {
			work += cost(dv, int(f.Hi[u]-f.Lo[u]))
		}
	}
	return work
}

// cost is the steps of intersecting sorted lists of a and b entries: a merge's, or binary
// searches of the shorter's entries in the longer when one is over setops.GallopThreshold times
// the other (hubs' out-lists against their small neighbours'), as setops.IntersectEach switches.
// (Priced at 16, below the switch, it charged a pair of 1 and 31 entries 5 steps for a merge of
// 32.)
func cost(a, b int) uint64 {
	if a > setops.GallopThreshold*b || b > setops.GallopThreshold*a {
		s, l := min(a, b), max(a, b)
		return uint64(s * bits.Len(uint(l)))
	}
	return uint64(a + b)
}
