package mining

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/par"
	"github.com/submatch/submatch/internal/triangles"
)

// ordered is the data graph renumbered by ascending (degree, id), with every adjacency list sorted
// by the new ids: the neighbours of u above u (its out-list, at most sqrt(2m) long) form the tail
// of its list. Labels are dropped.
type ordered struct {
	n    int
	off  []uint64 // n+1
	nbr  []uint32
	up   []uint64 // per vertex: index in nbr of its first neighbour above it
	orig []uint32 // new id -> graph vertex
	m    uint64
	// fwd is the out-lists, for the triangles (fwd.At: every triangle u < v < w once from u,
	// with the out-positions of its edges).
	fwd triangles.Forward
}

func newOrdered(g *graph.Graph) *ordered {
	n := g.NumVertices()
	o := &ordered{n: n, off: make([]uint64, n+1), up: make([]uint64, n), orig: make([]uint32, n), m: g.NumEdges()}
	for v := range o.orig {
		o.orig[v] = uint32(v)
	}
	slices.SortFunc(o.orig, func(a, b uint32) int {
		if c := cmp.Compare(g.Degree(a), g.Degree(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	rank := make([]uint32, n)
	for r, v := range o.orig {
		rank[v] = uint32(r)
	}
	for r, v := range o.orig {
		o.off[r+1] = o.off[r] + uint64(g.Degree(v))
	}
	o.nbr = make([]uint32, o.off[n])
	o.fwd = triangles.Forward{Adj: o.nbr, Lo: o.up, Hi: o.off[1:]} // up filled in below
	workers(0, n, func(_, r int) {
		list := o.nbr[o.off[r]:o.off[r+1]]
		for i, w := range g.Neighbors(o.orig[r]) {
			list[i] = rank[w]
		}
		slices.Sort(list)
		i, _ := slices.BinarySearch(list, uint32(r))
		o.up[r] = o.off[r] + uint64(i)
	})
	return o
}

func (o *ordered) degree(u int) uint64  { return o.off[u+1] - o.off[u] }
func (o *ordered) all(u int) []uint32   { return o.nbr[o.off[u]:o.off[u+1]] }
func (o *ordered) above(u int) []uint32 { return o.nbr[o.up[u]:o.off[u+1]] }

// workers runs fn(worker, i) for i in [0, n) on up to threads goroutines (<= 0: all cores),
// handing out chunks of consecutive indexes; worker is in [0, threads).
func workers(threads, n int, fn func(worker, i int)) int {
	threads = workersCount(threads, n)
	par.Ranges(n, threads, min(256, max(1, n/(16*threads))), func(w, lo, hi int) bool {
		for i := lo; i < hi; i++ {
			fn(w, i)
		}
		return true
	})
	return threads
}

// spans runs fn(lo, hi) over [0, n) cut into spans of at most 4,096 indexes, on up to threads
// goroutines (as workers), and reports whether any call returned true (an overflow, say).
func spans(threads, n int, fn func(lo, hi int) bool) bool {
	const span = 4096
	var any atomic.Bool
	workers(threads, (n+span-1)/span, func(_, i int) {
		if fn(i*span, min(n, (i+1)*span)) {
			any.Store(true)
		}
	})
	return any.Load()
}

// workersCtx is workers that stops handing out indexes once ctx is done (an item under way
// finishes).
func workersCtx(ctx context.Context, threads, n int, fn func(worker, i int)) (int, error) {
	var stopped atomic.Bool
	defer context.AfterFunc(ctx, func() { stopped.Store(true) })()
	t := workers(threads, n, func(w, i int) {
		if !stopped.Load() {
			fn(w, i)
		}
	})
	if stopped.Load() {
		return t, ctx.Err()
	}
	return t, nil
}

func maxProcs() int { return runtime.GOMAXPROCS(0) }

// cacheLine is the padding that keeps workers' hot fields on separate cache lines: a worker
// that updates its own counter in an inner loop must not invalidate its neighbours' (false
// sharing; with 16 threads that made the census slower than with 2).
const cacheLine = 64

// vertexWorkers runs fn(worker, u) for every vertex u of o on up to threads goroutines, as
// workersCtx, but with chunks cut by adjacency entries (o.off, a proxy for a vertex's work)
// rather than by count, handed out from the highest vertices down: in degree order the heavy
// vertices are the last, and a fixed-size chunk of them (256 or 64 hubs of an R-MAT graph) was
// one worker's long tail while the others waited. A vertex heavier than a chunk is a chunk alone.
func (o *ordered) vertexWorkers(ctx context.Context, threads int, fn func(worker, u int)) (int, error) {
	threads = workersCount(threads, o.n)
	target, chunks := o.chunking(threads)
	return topDown(ctx, threads, chunks, func(w int, c int64, stopped *atomic.Bool) {
		lo, hi := o.chunk(c, target, chunks)
		for u := lo; u < hi && !stopped.Load(); u++ {
			fn(w, u)
		}
	})
}

// topDown runs fn(worker, c, stopped) for the chunks c = chunks-1 down to 0 on threads
// goroutines, each taking the next chunk when done with one, until they are all taken or ctx is
// done (stopped is then set, and the error ctx's).
func topDown(ctx context.Context, threads int, chunks int64, fn func(worker int, c int64, stopped *atomic.Bool)) (int, error) {
	var stopped atomic.Bool
	defer context.AfterFunc(ctx, func() { stopped.Store(true) })()
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range threads {
		wg.Go(func() {
			for !stopped.Load() {
				c := chunks - next.Add(1) // from the top chunk down
				if c < 0 {
					return
				}
				fn(w, c, &stopped)
			}
		})
	}
	wg.Wait()
	if stopped.Load() {
		return threads, ctx.Err()
	}
	return threads, nil
}

// slotWorkers runs fn(worker, x, lo, hi) over the adjacency positions [lo, hi) of every vertex
// x on up to threads goroutines: the positions are cut into about 256 x threads chunks of equal
// size, handed out from the highest down (the hubs first), and a vertex whose list straddles
// chunks is handed out in pieces, fn being called once per vertex and chunk that meet (a hub's
// list is several workers' share). It stops handing out chunks once ctx is done.
func (o *ordered) slotWorkers(ctx context.Context, threads int, fn func(worker, x int, lo, hi uint64)) (int, error) {
	threads = workersCount(threads, o.n)
	total := o.off[o.n]
	target := max(1, total/uint64(256*threads))
	chunks := int64((total + target - 1) / target)
	return topDown(ctx, threads, chunks, func(w int, c int64, _ *atomic.Bool) {
		a, b := uint64(c)*target, min(total, uint64(c+1)*target)
		// the first vertex whose list ends after a
		x, _ := slices.BinarySearch(o.off[1:o.n+1], a+1)
		for ; x < o.n && o.off[x] < b; x++ {
			if lo, hi := max(o.off[x], a), min(o.off[x+1], b); lo < hi {
				fn(w, x, lo, hi)
			}
		}
	})
}

// lower lists u's neighbours below u.
func (o *ordered) lower(u int) []uint32 { return o.nbr[o.off[u]:o.up[u]] }

// tally is a worker's counter per vertex with the list of vertices it touched, so that it is
// read and cleared in time proportional to what was counted.
type tally struct {
	c    []uint32
	seen []uint32
	_    [cacheLine - 48]byte // each worker's tally on its own line (the append writes seen)
}

func newTallies(workers, n int) []tally {
	t := make([]tally, workers)
	for w := range t {
		t[w].c = make([]uint32, n)
	}
	return t
}

func (t *tally) add(x uint32) {
	if t.c[x] == 0 {
		t.seen = append(t.seen, x)
	}
	t.c[x]++
}

func (t *tally) clear() {
	for _, x := range t.seen {
		t.c[x] = 0
	}
	t.seen = t.seen[:0]
}

// lowerWedges counts, for every w below u, the paths u-v-w with v below u too.
func (t *tally) lowerWedges(o *ordered, u int) {
	for _, v := range o.lower(u) {
		for _, w := range o.all(int(v)) {
			if w >= uint32(u) {
				break
			}
			t.add(w)
		}
	}
}

// chunking returns vertexWorkers' chunk size in adjacency entries and the number of chunks.
func (o *ordered) chunking(threads int) (target uint64, chunks int64) {
	target = max(1, o.off[o.n]/uint64(64*threads))
	return target, int64(o.off[o.n]/target) + 1
}

// chunk returns chunk c's vertices [lo, hi): those whose lists start in [c*target, (c+1)*target),
// the last chunk taking the rest.
func (o *ordered) chunk(c int64, target uint64, chunks int64) (lo, hi int) {
	lo, _ = slices.BinarySearch(o.off[:o.n], uint64(c)*target)
	hi, _ = slices.BinarySearch(o.off[:o.n], uint64(c+1)*target)
	if c == chunks-1 {
		hi = o.n
	}
	return lo, hi
}

// hubCounts adds per-vertex counts from many workers: those of the hubs (the top hubSpan
// vertices in degree order, which every worker touches at once: the highest vertex of most
// 4-cliques of an R-MAT graph is one of a few hubs) into per-worker arrays summed by flush, the
// others with atomic adds, which contend little there. With one worker everything goes straight
// into dst.
type hubCounts struct {
	dst  []uint64
	base int
	loc  [][]uint64
}

// hubSpan: per-worker counters for at most this many top vertices (64 KiB; a variable so that
// the tests can split small graphs between the two ways).
var hubSpan = 1 << 13

func newHubCounts(dst []uint64, workers int) *hubCounts {
	h := &hubCounts{dst: dst, loc: make([][]uint64, workers)}
	if workers <= 1 {
		h.loc = [][]uint64{dst}
		return h
	}
	h.base = max(0, len(dst)-hubSpan)
	for w := range h.loc {
		h.loc[w] = make([]uint64, len(dst)-h.base+cacheLine/8)[:len(dst)-h.base]
	}
	return h
}

// add adds x to vertex v's count, from worker wk.
func (h *hubCounts) add(wk int, v uint32, x uint64) {
	if i := int(v) - h.base; i >= 0 {
		h.loc[wk][i] += x
		return
	}
	atomic.AddUint64(&h.dst[v], x)
}

// flush adds the workers' hub counts into dst (after the workers are done).
func (h *hubCounts) flush() {
	if len(h.loc) == 1 && h.base == 0 {
		return
	}
	for _, loc := range h.loc {
		for i, x := range loc {
			h.dst[h.base+i] += x
		}
	}
}
