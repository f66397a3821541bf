// Package cliques owns the clique counter that the engines share: every k-clique (plan.Clique)
// is counted once from its smallest vertex r, inside r's upward neighbourhood N+(r)
// (plan.Oriented), laid out as a bit matrix when it is small enough and split by list
// intersections when it is not. The CPU engine counts every root with it; stmatch counts with it
// the roots too large for its GPU kernel's matrices; pbe's inter stage counts with it the cliques
// that span its parts (CountSpanning).
package cliques

import (
	"context"
	"math/bits"
	"runtime"
	"sync/atomic"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/checked"
	"github.com/submatch/submatch/internal/par"
	"github.com/submatch/submatch/internal/setops"
	"github.com/submatch/submatch/plan"
)

// Cliques (plan.AsClique) are counted without the general search: every clique is oriented
// upwards from its smallest vertex r, so its other k-1 vertices are a (k-1)-clique inside
// N+(r), the neighbours of r above it. When N+(r) is small enough, the counter lays out the
// subgraph it induces as a bit matrix (row i: the members above i adjacent to member i) and
// counts the (k-1)-cliques in it with ANDs and popcounts, 64 candidates a word. A larger set is
// split first: each member u contributes the cliques in N+(u) ∩ (the members after u), the way
// the general search would, until a set fits.

// MatrixLimit is the largest candidate set laid out as a bit matrix (its rows take
// limit²/8 bytes per worker: 2 MiB; at most 65535, the marks are uint16). A variable so that
// tests can force the splitting path.
var MatrixLimit = 4096

// WorkerMemory is what a clique count needs per worker when it lays out sets of up to
// matrixMax members as bit matrices: the matrix (no larger than the largest degree allows), one
// candidate bit set per depth, one list per depth as long as the largest degree, and the marks
// (2 bytes a vertex). The orientation table (8 bytes a vertex) comes on top, once. Triangles
// (k = 3) take neither matrix nor lists: one bit a vertex, the root's marked upward neighbours.
func WorkerMemory(s GraphSize, k, matrixMax int) uint64 {
	if k == 3 {
		return (s.Vertices + 63) / 64 * 8
	}
	b := min(uint64(matrixMax), s.MaxDegree)
	words := (b + 63) / 64
	mem := b*words*8 + uint64(k)*words*8 + uint64(k)*4*s.MaxDegree
	if b > 0 {
		mem += 2 * s.Vertices
	}
	return mem
}

// GraphSize is what the clique counter's memory depends on.
type GraphSize struct{ Vertices, MaxDegree uint64 }

func SizeOf(g *graph.Graph) GraphSize {
	return GraphSize{uint64(g.NumVertices()), uint64(g.MaxDegree())}
}

// FitMatrix returns the largest matrix size, from MatrixLimit down by halves to 64 and
// then 0 (every set split by intersections, no matrix), with which one worker fits in budget
// bytes; false when none does.
func FitMatrix(s GraphSize, k int, budget uint64) (int, bool) {
	for b := MatrixLimit; ; b /= 2 {
		if b < 64 {
			b = 0
		}
		if WorkerMemory(s, k, b) <= budget {
			return b, true
		}
		if b == 0 {
			return 0, false
		}
	}
}

// cliqueWorker counts the cliques of the roots it takes. Its buffers grow once and are reused,
// so the counting allocates nothing in steady state.
type cliqueWorker struct {
	o         *plan.Oriented
	k         int
	matrixMax int // the largest set laid out as a bit matrix; larger ones are split first
	stop      *atomic.Bool

	lists   [][]uint32 // per depth: the candidate list of a split set
	rows    []uint64   // the bit matrix, words per row
	mark    []uint16   // by vertex id: 1 + the vertex's index in the set being laid out, or 0
	words   int        // words per row of the current matrix
	bitSets [][]uint64 // per depth: the candidates left, as bits of the matrix

	count    uint64
	overflow bool

	same []uint32 // the root's upward neighbours in its part (rootSpanning)

	upBits []uint64 // by vertex id: whether the vertex is one of the root's upward neighbours (triangles)
}

func newCliqueWorker(o *plan.Oriented, k, matrixMax int, stop *atomic.Bool) *cliqueWorker {
	return &cliqueWorker{o: o, k: k, matrixMax: matrixMax, stop: stop, lists: make([][]uint32, k), bitSets: make([][]uint64, k)}
}

// sum returns total+n; on overflow it marks the worker and stops the count.
func (w *cliqueWorker) sum(total, n uint64) uint64 {
	s, ok := checked.Add(total, n)
	if !ok {
		w.overflow = true
		w.stop.Store(true)
	}
	return s
}

// root adds the cliques whose smallest vertex is r.
func (w *cliqueWorker) root(r uint32) {
	if w.k == 3 {
		w.count = w.sum(w.count, w.triangles(w.o.Above(r)))
		return
	}
	w.count = w.sum(w.count, w.inSet(w.o.Above(r), w.k-1, 0))
}

// triangles is the number of edges (u, x) within up, a root's upward neighbours: up is marked
// by vertex and each member's upward list scanned against the marks up to up's last member, no
// merge with up (trianglesSpanning is its inter-partition form).
func (w *cliqueWorker) triangles(up []uint32) uint64 {
	if len(up) < 2 {
		return 0
	}
	if w.upBits == nil {
		w.upBits = make([]uint64, (w.o.NumVertices()+63)/64)
	}
	for _, v := range up {
		w.upBits[v>>6] |= 1 << (v & 63)
	}
	last := up[len(up)-1]
	var n uint64
	for _, u := range up[:len(up)-1] {
		for _, x := range w.o.Above(u) {
			if x > last {
				break
			}
			n += w.upBits[x>>6] >> (x & 63) & 1
		}
	}
	for _, v := range up {
		w.upBits[v>>6] = 0
	}
	return n
}

// inSet returns the number of need-cliques among cands, a sorted set of vertices that are all
// adjacent to the vertices chosen so far. depth indexes the per-depth buffers.
func (w *cliqueWorker) inSet(cands []uint32, need, depth int) uint64 {
	if len(cands) < need {
		return 0
	}
	switch {
	case need == 1:
		return uint64(len(cands))
	case need == 2:
		var n uint64
		for i, u := range cands[:len(cands)-1] {
			common := setops.Intersect(w.o.Above(u), cands[i+1:], w.lists[depth])
			w.lists[depth] = common[:0]
			n += uint64(len(common))
		}
		return n
	case len(cands) <= w.matrixMax:
		w.layOut(cands)
		all := w.bitSet(depth)
		for i := range all {
			all[i] = ^uint64(0)
		}
		if tail := len(cands) % 64; tail != 0 {
			all[len(all)-1] = 1<<tail - 1
		}
		return w.inBits(all, need, depth+1)
	}
	var total uint64
	for i, u := range cands[:len(cands)-need+1] {
		if w.stop.Load() {
			break
		}
		next := setops.Intersect(w.o.Above(u), cands[i+1:], w.lists[depth][:0])
		w.lists[depth] = next[:0]
		total = w.sum(total, w.inSet(next, need-1, depth+1))
	}
	return total
}

// layOut builds the bit matrix of the subgraph cands induces: bit j of row i is set when j > i
// and cands[i], cands[j] are adjacent. Members are marked in a table by vertex id, so each
// member's upward list is scanned once, with no merge against the set.
func (w *cliqueWorker) layOut(cands []uint32) {
	d := len(cands)
	w.words = (d + 63) / 64
	size := d * w.words
	if cap(w.rows) < size {
		w.rows = make([]uint64, size)
	}
	w.rows = w.rows[:size]
	clear(w.rows)
	if w.mark == nil {
		w.mark = make([]uint16, w.o.NumVertices())
	}
	for j, v := range cands {
		w.mark[v] = uint16(j + 1)
	}
	last := cands[d-1]
	for i, u := range cands[:d-1] {
		row := w.rows[i*w.words : (i+1)*w.words]
		above := w.o.Above(u)
		if len(above) > 8*(d-i) {
			// A long list against few members: search the members in it instead.
			markAdjacent(row, i+1, above, cands[i+1:])
			continue
		}
		for _, x := range above {
			if x > last {
				break
			}
			if m := w.mark[x]; m != 0 {
				p := int(m - 1)
				row[p>>6] |= 1 << (p & 63)
			}
		}
	}
	for _, v := range cands {
		w.mark[v] = 0
	}
}

// markAdjacent sets bit base+j of row for every rest[j] in above (both sorted), searching
// each of rest in above.
func markAdjacent(row []uint64, base int, above, rest []uint32) {
	i := 0
	for j, x := range rest {
		if i = setops.LowerBound(above, i, x); i == len(above) {
			return
		}
		if above[i] == x {
			p := base + j
			row[p>>6] |= 1 << (p & 63)
		}
	}
}

// bitSet returns depth's bit set buffer, one word per matrix word.
func (w *cliqueWorker) bitSet(depth int) []uint64 {
	if cap(w.bitSets[depth]) < w.words {
		w.bitSets[depth] = make([]uint64, w.words)
	}
	return w.bitSets[depth][:w.words]
}

// inBits returns the number of need-cliques among the members in set (need >= 2), every member
// adjacent to the vertices chosen so far.
func (w *cliqueWorker) inBits(set []uint64, need, depth int) uint64 {
	var total uint64
	ww := w.words
	for wi, word := range set {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &= word - 1
			i := wi<<6 | b
			row := w.rows[i*ww : (i+1)*ww]
			if need == 2 {
				for x := wi; x < ww; x++ {
					total += uint64(bits.OnesCount64(set[x] & row[x]))
				}
				continue
			}
			next := w.bitSet(depth)
			left := 0
			for x := range wi {
				next[x] = 0
			}
			for x := wi; x < ww; x++ {
				next[x] = set[x] & row[x]
				left += bits.OnesCount64(next[x])
			}
			if left < need-1 {
				continue
			}
			total = w.sum(total, w.inBits(next, need-1, depth+1))
		}
		if need > 3 && w.stop.Load() {
			break
		}
	}
	return total
}

// CountRoots counts the k-cliques of o whose smallest vertex is one of roots, on threads
// goroutines (<= 0: all cores): one clique each, whatever the convention. It returns the count
// so far and ctx's error when ctx ends, and engine.ErrOverflow when the count does not fit. The
// stmatch engine counts the roots too large for its bit matrices with it.
func CountRoots(ctx context.Context, o *plan.Oriented, k int, roots []uint32, threads int) (uint64, error) {
	return Count(ctx, o, k, MatrixLimit, len(roots), func(i int) uint32 { return roots[i] }, threads, nil)
}

// Count counts the k-cliques whose smallest vertex is root(i), i in [0, n), on threads workers
// (<= 0: all cores) that lay out sets of up to matrixMax members as bit matrices. Workers take chunks of
// consecutive i: up to 64, fewer when there are few roots (the stmatch engine hands over a few
// large ones), so that every worker gets some. progress (nil: none) is called after every
// chunk with the share of the roots' work done (rootWork: 1 + |N+(r)|, or its square, a root). When ctx ends it returns the count so far, a lower
// bound (every term a clique found, the root the stop cut short counted up to there), with
// ctx's error.
func Count(ctx context.Context, o *plan.Oriented, k, matrixMax, n int, root func(int) uint32, threads int, progress func(float64)) (uint64, error) {
	return count(ctx, o, k, matrixMax, n, root, threads, progress, (*cliqueWorker).root)
}

// rootWork is root r's share of a count of k-cliques' progress: 1 + |N+(r)| for triangles (its
// upward neighbours marked, their lists scanned), 1 + |N+(r)|² for larger cliques (laid out as
// a matrix: plan.UpwardSquares). By roots alone, a count whose heaviest roots come last (ids
// ascend with the degree) reported 74% done at 6% of its time (R-MAT 20's triangles, the CPU
// engine) and 95% at 40% (their spanning ones in pbe's inter stage). On R-MAT 18 (edge factor
// 27, one thread, 256 roots a chunk), these shares stayed within 0.05 (triangles) and 0.15
// (4-cliques) of the time's, against 0.66 and 0.77 by roots, 0.41 for triangles by |N+(r)|²,
// 0.21 for 4-cliques by |N+(r)|; spanning 5 parts (v mod 5: CountSpanning), within 0.13 and
// 0.17, against 0.71 and 0.76 by roots.
func rootWork(o *plan.Oriented, k int, r uint32) uint64 {
	up := uint64(len(o.Above(r)))
	if k <= 3 {
		return 1 + up
	}
	return 1 + up*up // (Σ |N+(r)| is the edges, |N+(r)| below the largest degree: the sum fits)
}

// rangesWork is Σ rootWork over the roots rootOf(i), i in [0, n), on threads goroutines.
func rangesWork(o *plan.Oriented, k, n, threads int, rootOf func(int) uint32) uint64 {
	const chunk = 1 << 14
	sums := make([]uint64, par.Workers(n, threads, chunk))
	par.Ranges(n, len(sums), chunk, func(w, lo, hi int) bool {
		for i := lo; i < hi; i++ {
			sums[w] += rootWork(o, k, rootOf(i))
		}
		return true
	})
	var total uint64
	for _, s := range sums {
		total += s
	}
	return total
}

// count runs visit for the root root(i) (nil: i itself) of every i in [0, n) on threads workers
// (<= 0: all cores), each with a cliqueWorker that visit adds to, and sums the workers' counts
// (Count). Its progress is the share of the roots' work done (rootWork).
func count(ctx context.Context, o *plan.Oriented, k, matrixMax, n int, root func(int) uint32, threads int, progress func(float64),
	visit func(w *cliqueWorker, r uint32)) (uint64, error) {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	var stop atomic.Bool
	release := context.AfterFunc(ctx, func() { stop.Store(true) })
	defer release()
	chunk := min(64, max(1, n/(8*threads)))
	rootOf := func(i int) uint32 {
		if root == nil {
			return uint32(i)
		}
		return root(i)
	}
	var work float64 // (the roots' total, for their progress)
	if progress != nil {
		work = float64(max(1, rangesWork(o, k, n, threads, rootOf)))
	}
	var done atomic.Uint64
	ws := make([]*cliqueWorker, par.Workers(n, threads, chunk))
	par.Ranges(n, len(ws), chunk, func(wi, lo, hi int) bool {
		w := ws[wi]
		if w == nil {
			w = newCliqueWorker(o, k, matrixMax, &stop)
			ws[wi] = w
		}
		for i := lo; i < hi && !stop.Load(); i++ {
			visit(w, rootOf(i))
		}
		if progress != nil {
			var ranged uint64
			for i := lo; i < hi; i++ {
				ranged += rootWork(o, k, rootOf(i))
			}
			progress(float64(done.Add(ranged)) / work)
		}
		return !stop.Load()
	})
	var total uint64
	overflow := false
	for _, w := range ws {
		if w == nil {
			continue
		}
		var ok bool
		if total, ok = checked.Add(total, w.count); !ok || w.overflow {
			overflow = true
		}
	}
	if overflow {
		return 0, engine.ErrOverflow
	}
	return total, ctx.Err()
}
