package cliques

import (
	"context"

	"github.com/submatch/submatch/plan"
)

// Cliques that span parts: pbe's inter-partition stage counts the k-cliques whose vertices do
// not all lie in one part of a partitioning (of: every vertex's part). Each clique is counted
// from its smallest vertex r, as Count counts it, inside r's upward neighbourhood N+(r): it
// spans parts exactly when one of its other vertices lies outside r's part. So r contributes
// the (k-1)-cliques of N+(r) less those of N+(r) ∩ part(r), and nothing (no search at all) when
// N+(r) lies in r's part. The second set is a subset of the first, its cliques some of the
// first's: the difference is never negative. Every clique has one smallest vertex, so each
// spanning clique is counted once, and no clique within a part is.

// CountSpanning counts the k-cliques of o (k >= 2) whose vertices lie in more than one part of
// of (indexed by vertex), on threads workers (<= 0: all cores) that lay out sets of up to
// matrixMax members as bit matrices: one clique each, whatever the convention. It returns the
// count so far and ctx's error when ctx ends, and engine.ErrOverflow when the count does not
// fit. Besides WorkerMemory, each worker keeps one list of up to the largest degree
// (SpanningWorkerMemory). progress (nil: none) is called as Count's is.
//
// The count so far is a lower bound when ctx ends: the sum over the roots counted whole, each
// its own spanning cliques. A root of k >= 4 that the stop reached is left out (rootSpanning):
// its difference of two counts cut at different places is no count of instances.
func CountSpanning(ctx context.Context, o *plan.Oriented, k, matrixMax int, of []uint32, threads int, progress func(float64)) (uint64, error) {
	return count(ctx, o, k, matrixMax, o.NumVertices(), nil, threads, progress, func(w *cliqueWorker, r uint32) { w.rootSpanning(r, of) })
}

// SpanningWorkerMemory is what CountSpanning needs per worker: WorkerMemory, the list of the
// root's upward neighbours in its part (4 bytes an entry, up to the largest degree), and the
// marks (2 bytes a vertex) where WorkerMemory has none (no matrix): triangles' roots mark their
// upward neighbours (trianglesSpanning: the marks and the list alone, not Count's bit set).
func SpanningWorkerMemory(s GraphSize, k, matrixMax int) uint64 {
	if k == 3 {
		return 2*s.Vertices + 4*s.MaxDegree
	}
	mem := WorkerMemory(s, k, matrixMax) + 4*s.MaxDegree
	if min(uint64(matrixMax), s.MaxDegree) == 0 {
		mem += 2 * s.Vertices
	}
	return mem
}

// rootSpanning adds the cliques whose smallest vertex is r and whose vertices lie in more than
// one part of of.
func (w *cliqueWorker) rootSpanning(r uint32, of []uint32) {
	up := w.o.Above(r)
	need := w.k - 1
	if len(up) < need {
		return
	}
	part := of[r]
	if cap(w.same) < len(up) {
		w.same = make([]uint32, 0, len(up)) // (at most the largest degree: SpanningWorkerMemory)
	}
	same := w.same[:0]
	for _, v := range up {
		if of[v] == part {
			same = append(same, v)
		}
	}
	w.same = same
	if len(same) == len(up) {
		return // every clique of r lies in r's part
	}
	var n uint64
	switch {
	case need == 1:
		n = uint64(len(up) - len(same))
	case need == 2:
		n = w.trianglesSpanning(up, part, of)
	case len(up) <= w.matrixMax:
		n = w.inMatrixSpanning(up, same, part, of)
	default:
		n = w.inSet(up, need, 0)
		if len(same) >= need {
			// inSet reuses the per-depth buffers, not same.
			n = less(n, w.inSet(same, need, 0))
		}
	}
	if need >= 3 && w.stop.Load() {
		// The stop may have cut the first count and not the second (or both at different
		// places): their difference is then no count of r's spanning cliques, and would make the
		// partial sum no lower bound. Left out, r's cliques are not counted at all. (need <= 2:
		// the loops above take no stop.)
		return
	}
	w.count = w.sum(w.count, n)
}

// less is n - in, or 0 where in is larger (a count stopped part-way: partial anyway).
func less(n, in uint64) uint64 {
	if in > n {
		return 0
	}
	return n - in
}

// inMatrixSpanning is the number of (k-1)-cliques among up (at most matrixMax members, k >= 4)
// with a member outside part: up's bit matrix laid out once, its cliques counted on every
// member, then on the members in part (same, of which there are fewer than len(up)), less.
func (w *cliqueWorker) inMatrixSpanning(up, same []uint32, part uint32, of []uint32) uint64 {
	need := w.k - 1
	w.layOut(up)
	set := w.bitSet(0)
	for i := range set {
		set[i] = ^uint64(0)
	}
	if tail := len(up) % 64; tail != 0 {
		set[len(set)-1] = 1<<tail - 1
	}
	n := w.inBits(set, need, 1)
	if len(same) < need {
		return n
	}
	clear(set)
	for j, v := range up {
		if of[v] == part {
			set[j>>6] |= 1 << (j & 63)
		}
	}
	return less(n, w.inBits(set, need, 1))
}

// trianglesSpanning is the number of edges (u, x) within up, a root's upward neighbours (the
// root in part), with u or x outside part: up is marked by vertex (1: in part, 2: outside) and
// each member's upward list scanned against the marks, no merge with up.
func (w *cliqueWorker) trianglesSpanning(up []uint32, part uint32, of []uint32) uint64 {
	if w.mark == nil {
		w.mark = make([]uint16, w.o.NumVertices())
	}
	for _, v := range up {
		w.mark[v] = 1
		if of[v] != part {
			w.mark[v] = 2
		}
	}
	last := up[len(up)-1]
	var n uint64
	for _, u := range up {
		out := w.mark[u] == 2
		for _, x := range w.o.Above(u) {
			if x > last {
				break
			}
			if m := w.mark[x]; m == 2 || m == 1 && out {
				n++
			}
		}
	}
	for _, v := range up {
		w.mark[v] = 0
	}
	return n
}
