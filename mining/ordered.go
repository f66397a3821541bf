package mining

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/submatch/submatch/graph"
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
	chunk := min(256, max(1, n/(16*threads)))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range threads {
		wg.Go(func() {
			for {
				lo := int(next.Add(int64(chunk))) - chunk
				if lo >= n {
					return
				}
				for i := lo; i < min(lo+chunk, n); i++ {
					fn(w, i)
				}
			}
		})
	}
	wg.Wait()
	return threads
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

// trianglesAt calls fn for every triangle u < v < w whose lowest vertex is u, with the
// out-positions of its edges u-v, u-w and v-w: each triangle of the graph once over all u.
func (o *ordered) trianglesAt(u int, fn func(v, w uint32, puv, puw, pvw uint64)) {
	out := o.above(u)
	base := o.up[u]
	for i, v := range out {
		vb := o.up[v]
		intersect(out[i+1:], o.above(int(v)), func(j, k int) {
			fn(v, out[i+1+j], base+uint64(i), base+uint64(i+1+j), vb+uint64(k))
		})
	}
}

// lower lists u's neighbours below u.
func (o *ordered) lower(u int) []uint32 { return o.nbr[o.off[u]:o.up[u]] }

// tally is a worker's counter per vertex with the list of vertices it touched, so that it is
// read and cleared in time proportional to what was counted.
type tally struct {
	c    []uint32
	seen []uint32
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
