package temporal

import (
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync"

	"github.com/submatch/submatch/internal/par"
)

// GridMotifs are the 36 two- and three-node, three-edge motifs of Paranjape, Benson and
// Leskovec in the 6x6 layout of SNAP's temporalmotifs output (row i, column j is motif
// M_{i+1,j+1}). In the star motifs a is the centre; rows 5 and 6 hold the two-node motifs in
// columns 1-2 and the stars whose first two events share a leaf in columns 3-6; the triangles
// are columns 3-4 of rows 1-2 and columns 5-6 of rows 3-4.
var GridMotifs = [6][6]string{
	{"b->a, c->a, b->a", "b->a, c->a, a->b", "a->b, c->b, a->c", "a->b, c->b, c->a", "b->a, c->a, a->c", "b->a, c->a, c->a"},
	{"b->a, a->c, b->a", "b->a, a->c, a->b", "a->b, b->c, a->c", "a->b, b->c, c->a", "b->a, a->c, a->c", "b->a, a->c, c->a"},
	{"a->b, c->a, a->b", "a->b, c->a, b->a", "a->b, c->a, a->c", "a->b, c->a, c->a", "a->b, c->a, b->c", "a->b, c->a, c->b"},
	{"a->b, a->c, a->b", "a->b, a->c, b->a", "a->b, a->c, a->c", "a->b, a->c, c->a", "a->b, a->c, b->c", "a->b, a->c, c->b"},
	{"a->b, b->a, a->b", "a->b, b->a, b->a", "a->b, b->a, a->c", "a->b, b->a, c->a", "b->a, a->b, a->c", "b->a, a->b, c->a"},
	{"a->b, a->b, a->b", "a->b, a->b, b->a", "a->b, a->b, a->c", "a->b, a->b, c->a", "b->a, b->a, a->c", "b->a, b->a, c->a"},
}

// seqKey encodes a sequence of three directed edges over vertices renamed in order of first
// appearance (so isomorphic sequences share a key).
func seqKey(edges [3][2]int) int {
	var name [8]int
	for i := range name {
		name[i] = -1
	}
	next := 0
	key := 0
	for _, e := range edges {
		for _, v := range e {
			if name[v] < 0 {
				name[v] = next
				next++
			}
			key = key*3 + name[v]
		}
	}
	return key
}

var (
	gridOnce  sync.Once
	gridByKey map[int][2]int
)

// gridCell returns the grid position of a three-edge sequence, or false when it is not one of
// the 36 motifs (more than three vertices, or disconnected).
func gridCell(edges [3][2]int) (int, int, bool) {
	gridOnce.Do(func() {
		gridByKey = map[int][2]int{}
		for i := range 6 {
			for j := range 6 {
				p, err := Parse(GridMotifs[i][j])
				if err != nil {
					panic("temporal: grid motif: " + err.Error())
				}
				k := seqKey([3][2]int(p.Edges))
				if _, dup := gridByKey[k]; dup {
					panic("temporal: grid motifs repeat " + GridMotifs[i][j])
				}
				gridByKey[k] = [2]int{i, j}
			}
		}
	})
	c, ok := gridByKey[seqKey(edges)]
	return c[0], c[1], ok
}

// Grid counts the 36 motifs of GridMotifs at once with the algorithms of Paranjape, Benson and
// Leskovec: two-node motifs per static pair and triangles per static triangle with the
// three-event window counter, stars per centre with a one-pass counter over the centre's
// events. It needs Strict false (ties in input order); with Strict it counts each motif with
// Count.
func Grid(ctx context.Context, g *Graph, o Options) ([6][6]uint64, error) {
	var out [6][6]uint64
	if o.Delta < 0 {
		return out, fmt.Errorf("delta %d: expected a window >= 0", o.Delta)
	}
	if o.Device != CPU {
		c, err := gridGPU(ctx, g, o)
		if !fallBack(o, err) {
			return c, err
		}
	}
	if o.Strict {
		for i := range 6 {
			for j := range 6 {
				p, _ := Parse(GridMotifs[i][j])
				c, err := Count(ctx, g, p, o)
				if err != nil {
					return out, err
				}
				out[i][j] = c
			}
		}
		return out, nil
	}
	s := newStatic(g)
	threads := o.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	const chunk = 64
	works := make([]*gridWork, par.Workers(s.n, threads, chunk))
	stopped := par.Ranges(s.n, len(works), chunk, func(wi, lo, hi int) bool {
		if ctx.Err() != nil {
			return false
		}
		w := works[wi]
		if w == nil {
			w = newGridWork(len(g.Events))
			works[wi] = w
		}
		for v := lo; v < hi; v++ {
			s.pairsAt(v, o.Delta, w)
			s.triangles(v, o.Delta, w)
			w.star(s, v, o.Delta)
		}
		return true
	})
	if stopped {
		return out, ctx.Err()
	}
	var total gridSum
	for _, w := range works {
		if w != nil {
			var local gridSum
			w.classify(&local)
			total.merge(&local)
		}
	}
	if total.over {
		return out, ErrOverflow
	}
	return total.c, nil
}

// gridSum accumulates grid counts with an overflow flag.
type gridSum struct {
	c    [6][6]uint64
	over bool
}

func (s *gridSum) add(i, j int, x uint64) {
	var carry uint64
	s.c[i][j], carry = bits.Add64(s.c[i][j], x, 0)
	s.over = s.over || carry != 0
}

func (s *gridSum) merge(t *gridSum) {
	for i := range 6 {
		for j := range 6 {
			s.add(i, j, t.c[i][j])
		}
	}
	s.over = s.over || t.over
}

// static is the undirected static graph under the events: for each vertex its neighbours
// (ascending) and, per neighbour, the merged events of both directions in event order.
type static struct {
	g     *Graph
	n     int
	off   []uint32 // per vertex into nbr
	nbr   []uint32
	evOff []uint32 // per adjacency entry into ev (len(nbr)+1)
	ev    []uint32 // event indexes, per entry in event order
	evT   []int64  // their timestamps
	evDir []uint8  // 0: from the entry's vertex, 1: towards it
	rank  []uint32 // degree order for triangles
}

func newStatic(g *Graph) *static {
	n := g.NumVertices()
	s := &static{g: g, n: n, off: make([]uint32, n+1)}
	adj := make([][]uint32, n)
	for u := range n {
		for _, v := range g.pairDst[g.pairOff[u]:g.pairOff[u+1]] {
			adj[u] = append(adj[u], v)
			adj[v] = append(adj[v], uint32(u))
		}
	}
	for u := range n {
		slices.Sort(adj[u])
		adj[u] = slices.Compact(adj[u])
		s.off[u+1] = s.off[u] + uint32(len(adj[u]))
	}
	s.nbr = make([]uint32, 0, s.off[n])
	s.evOff = make([]uint32, 1, s.off[n]+1)
	for u := range n {
		for _, v := range adj[u] {
			s.nbr = append(s.nbr, v)
			a, b := g.Pair(uint32(u), v), g.Pair(v, uint32(u))
			// merge two ascending lists
			i, j := 0, 0
			for i < len(a) || j < len(b) {
				var x uint32
				var d uint8
				if j == len(b) || (i < len(a) && a[i] < b[j]) {
					x = a[i]
					i++
				} else {
					x, d = b[j], 1
					j++
				}
				s.ev = append(s.ev, x)
				s.evT = append(s.evT, g.Events[x].Time)
				s.evDir = append(s.evDir, d)
			}
			s.evOff = append(s.evOff, uint32(len(s.ev)))
		}
	}
	s.rank = make([]uint32, n)
	order := make([]uint32, n)
	for v := range order {
		order[v] = uint32(v)
	}
	slices.SortFunc(order, func(a, b uint32) int {
		da, db := s.off[a+1]-s.off[a], s.off[b+1]-s.off[b]
		if da != db {
			return int(da) - int(db)
		}
		return int(a) - int(b)
	})
	for r, v := range order {
		s.rank[v] = uint32(r)
	}
	return s
}

func (s *static) events(k uint32) []uint32 { return s.ev[s.evOff[k]:s.evOff[k+1]] }

// window3 is the three-event window counter of the paper (its Algorithm 1) over up to six
// event labels: c1 and c2 count the events and ordered pairs in the window by label, c3 the
// triples found so far (it accumulates over runs). Unless checked, c3 cannot overflow: fewer
// than 2^21 events have fewer than 2^62 triples.
type window3 struct {
	n       int
	c1      [6]uint64
	c2      [6][6]uint64
	c3      [6][6][6]uint64
	checked bool
	over    bool
}

// reset empties the window for a new event sequence, keeping c3.
func (w *window3) reset() {
	w.c1 = [6]uint64{}
	w.c2 = [6][6]uint64{}
}

// triOther[c] lists the triangle labels on the other two pairs than label c's, and triPairs[c]
// the label pairs (a, b) that complete c to a triangle (a, b, c on three different pairs).
var triOther, triPairs = func() (o [6][4]uint8, p [6][8][2]uint8) {
	for c := range 6 {
		no, np := 0, 0
		for a := range 6 {
			if a/2 == c/2 {
				continue
			}
			o[c][no] = uint8(a)
			no++
			for b := range 6 {
				if b/2 != a/2 && b/2 != c/2 {
					p[c][np] = [2]uint8{uint8(a), uint8(b)}
					np++
				}
			}
		}
	}
	return o, p
}()

// runTriangle is run for the six labels of a triangle's directed pairs, counting only the
// triples on three different pairs (8 of the 36 label pairs per event).
func (w *window3) runTriangle(times []int64, labels []uint8, delta int64) {
	if w.checked {
		w.run(times, labels, delta)
		return
	}
	start := 0
	for end, t := range times {
		for uint64(t-times[start]) > uint64(delta) { // times are sorted: the difference is exact unsigned
			a := labels[start]
			w.c1[a]--
			for _, b := range triOther[a] {
				w.c2[a][b] -= w.c1[b]
			}
			start++
		}
		c := labels[end]
		for _, ab := range triPairs[c] {
			w.c3[ab[0]][ab[1]][c] += w.c2[ab[0]][ab[1]]
		}
		for _, a := range triOther[c] {
			w.c2[a][c] += w.c1[a]
		}
		w.c1[c]++
	}
}

// run counts, over a sequence of events (their timestamps in event order, and labels), every
// triple whose last event is at most delta after its first.
func (w *window3) run(times []int64, labels []uint8, delta int64) {
	start := 0
	for end, t := range times {
		for uint64(t-times[start]) > uint64(delta) { // times are sorted: the difference is exact unsigned
			a := labels[start]
			w.c1[a]--
			for b := range w.n {
				w.c2[a][b] -= w.c1[b]
			}
			start++
		}
		c := labels[end]
		for a := range w.n {
			for b := range w.n {
				if w.checked {
					var carry uint64
					w.c3[a][b][c], carry = bits.Add64(w.c3[a][b][c], w.c2[a][b], 0)
					w.over = w.over || carry != 0
					continue
				}
				w.c3[a][b][c] += w.c2[a][b]
			}
		}
		for a := range w.n {
			w.c2[a][c] += w.c1[a]
		}
		w.c1[c]++
	}
}

// pairsAt counts the two-node motifs on the pairs {u, v} with v > u.
func (s *static) pairsAt(u int, delta int64, gw *gridWork) {
	w := &gw.pair
	for k := s.off[u]; k < s.off[u+1]; k++ {
		if s.nbr[k] < uint32(u) || s.evOff[k+1]-s.evOff[k] < 3 {
			continue
		}
		lo, hi := s.evOff[k], s.evOff[k+1]
		w.reset()
		w.run(s.evT[lo:hi], s.evDir[lo:hi], delta)
	}
}

func dirEdge(l int) [2]int {
	if l == 0 {
		return [2]int{0, 1}
	}
	return [2]int{1, 0}
}

// triangleEdges are the six directed pairs of a triangle (u, v, w) = (0, 1, 2).
var triangleEdges = [6][2]int{{0, 1}, {1, 0}, {0, 2}, {2, 0}, {1, 2}, {2, 1}}

// triangles counts the triangle motifs of the static triangles whose lowest-ranked vertex is u.
func (s *static) triangles(u int, delta int64, gw *gridWork) {
	w := &gw.tri
	evs, times, labels := gw.tevs[:0], gw.times[:0], gw.labels[:0]
	lo, hi := s.off[u], s.off[u+1]
	for k1 := lo; k1 < hi; k1++ {
		v := s.nbr[k1]
		if s.rank[v] < s.rank[u] {
			continue
		}
		for k2 := k1 + 1; k2 < hi; k2++ {
			x := s.nbr[k2]
			if s.rank[x] < s.rank[u] {
				continue
			}
			kvx, ok := s.find(v, x)
			if !ok {
				continue
			}
			// merge the three pairs' events with labels 0..5 (triangleEdges over (u, v, x))
			evs, times, labels = evs[:0], times[:0], labels[:0]
			entries := [3]uint32{k1, k2, kvx}
			lists := [3][]uint32{s.events(k1), s.events(k2), s.events(kvx)}
			var pos [3]int
			for {
				best := -1
				for q := range 3 {
					if pos[q] < len(lists[q]) && (best < 0 || lists[q][pos[q]] < lists[best][pos[best]]) {
						best = q
					}
				}
				if best < 0 {
					break
				}
				// labels: u-v 0/1, u-x 2/3, v-x 4/5, the second of each when towards u (or v)
				at := s.evOff[entries[best]] + uint32(pos[best])
				evs = append(evs, lists[best][pos[best]])
				times = append(times, s.evT[at])
				labels = append(labels, uint8(2*best)+s.evDir[at])
				pos[best]++
			}
			w.reset()
			w.runTriangle(times, labels, delta)
		}
	}
	gw.tevs, gw.times, gw.labels = evs, times, labels
}

// coversTriangle reports whether three triangle labels use all three undirected pairs.
func coversTriangle(a, b, c int) bool {
	return a/2 != b/2 && a/2 != c/2 && b/2 != c/2
}

// find returns the adjacency entry of v's neighbour x.
func (s *static) find(v, x uint32) (uint32, bool) {
	list := s.nbr[s.off[v]:s.off[v+1]]
	i, ok := slices.BinarySearch(list, x)
	return s.off[v] + uint32(i), ok
}

// gridWork is a worker's state: the window counters of pairs and triangles and the star counts,
// all accumulated over the worker's vertices and classified into the grid at the end; and for
// the star counter, per neighbour slot of the centre, counts that make each event's
// contribution O(1).
type gridWork struct {
	pair, tri      window3
	pre, post, mid [2][2][2]uint64
	tevs           []uint32 // a triangle's events, merged, with their times and labels
	times          []int64
	labels         []uint8
	over           bool

	slot  map[uint32]int32
	cnt   [][2]uint64    // per slot: events in the window by direction
	sn    [][2][2]uint64 // per slot: same-neighbour ordered pairs in the window
	sumR  [][2][2]uint64 // per slot and direction d2: sum over its events of R[d1] before them
	sumG  [][2][2]uint64 // per slot and direction d1: sum over its events of G[d2] after them
	stamp []eventStamp   // per window event: R before, G after
	evs   []uint32
	dirs  []uint8
	slots []int32
}

type eventStamp struct{ r, g [2]uint64 }

func newGridWork(events int) *gridWork {
	w := &gridWork{slot: map[uint32]int32{}}
	w.pair.n, w.tri.n = 2, 6
	w.pair.checked = events >= 1<<21
	w.tri.checked = w.pair.checked
	return w
}

// classify adds the worker's counts to the grid: every label triple of the pair and triangle
// counters, and every direction triple of the star counts, mapped to its motif.
func (w *gridWork) classify(out *gridSum) {
	out.over = out.over || w.pair.over || w.tri.over || w.over
	for a := range 2 {
		for b := range 2 {
			for c := range 2 {
				if x := w.pair.c3[a][b][c]; x > 0 {
					i, j, _ := gridCell([3][2]int{dirEdge(a), dirEdge(b), dirEdge(c)})
					out.add(i, j, x)
				}
			}
		}
	}
	for a := range 6 {
		for b := range 6 {
			for c := range 6 {
				if n := w.tri.c3[a][b][c]; n > 0 && coversTriangle(a, b, c) {
					i, j, _ := gridCell([3][2]int{triangleEdges[a], triangleEdges[b], triangleEdges[c]})
					out.add(i, j, n)
				}
			}
		}
	}
	leaf := func(d, l int) [2]int { // centre 0, leaves 1 and 2
		if d == 0 {
			return [2]int{0, l}
		}
		return [2]int{l, 0}
	}
	for d1 := range 2 {
		for d2 := range 2 {
			for d3 := range 2 {
				for kind, n := range [3]uint64{w.pre[d1][d2][d3], w.post[d1][d2][d3], w.mid[d1][d2][d3]} {
					if n == 0 {
						continue
					}
					leaves := [3][3]int{{1, 1, 2}, {1, 2, 2}, {1, 2, 1}}[kind]
					i, j, _ := gridCell([3][2]int{leaf(d1, leaves[0]), leaf(d2, leaves[1]), leaf(d3, leaves[2])})
					out.add(i, j, n)
				}
			}
		}
	}
}

// star counts the star motifs centred at c in one pass over c's events (the paper's star
// counter): for each event e3 with neighbour n, pairs (e1, e2) earlier in the window with
// n1 = n2 != n (pre), n1 != n2 = n (post) and n1 = n != n2 (mid).
func (w *gridWork) star(s *static, c int, delta int64) {
	g := s.g
	clear(w.slot)
	w.evs, w.dirs, w.slots = w.evs[:0], w.dirs[:0], w.slots[:0]
	// The centre's events in order: merge its out- and in-lists.
	o, in := g.Out(uint32(c)), g.In(uint32(c))
	i, j := 0, 0
	for i < len(o) || j < len(in) {
		var x uint32
		var d uint8
		if j == len(in) || (i < len(o) && o[i] < in[j]) {
			x, d = o[i], 0
			i++
		} else {
			x, d = in[j], 1
			j++
		}
		e := g.Events[x]
		nb := e.Dst
		if d == 1 {
			nb = e.Src
		}
		k, ok := w.slot[nb]
		if !ok {
			k = int32(len(w.slot))
			w.slot[nb] = k
		}
		w.evs = append(w.evs, x)
		w.dirs = append(w.dirs, d)
		w.slots = append(w.slots, k)
	}
	ns := len(w.slot)
	if len(w.evs) < 3 || ns < 2 {
		return
	}
	grow := func() {
		if cap(w.cnt) < ns {
			w.cnt = make([][2]uint64, ns)
			w.sn = make([][2][2]uint64, ns)
			w.sumR = make([][2][2]uint64, ns)
			w.sumG = make([][2][2]uint64, ns)
		}
		w.cnt, w.sn, w.sumR, w.sumG = w.cnt[:ns], w.sn[:ns], w.sumR[:ns], w.sumG[:ns]
		clear(w.cnt)
		clear(w.sn)
		clear(w.sumR)
		clear(w.sumG)
	}
	grow()
	if cap(w.stamp) < len(w.evs) {
		w.stamp = make([]eventStamp, len(w.evs))
	}
	w.stamp = w.stamp[:len(w.evs)]
	var pre, post, mid [2][2][2]uint64
	var S [2][2]uint64 // same-neighbour ordered pairs in the window
	var R, V [2]uint64 // events inserted / evicted so far, by direction
	start := 0
	for end, x := range w.evs {
		t := g.Events[x].Time
		for uint64(t-g.Events[w.evs[start]].Time) > uint64(delta) { // sorted times: exact unsigned difference
			k, d1 := w.slots[start], w.dirs[start]
			w.cnt[k][d1]--
			for d2 := range 2 {
				w.sn[k][d1][d2] -= w.cnt[k][d2]
				S[d1][d2] -= w.cnt[k][d2]
				w.sumR[k][d1][d2] -= w.stamp[start].r[d2]
				w.sumG[k][d1][d2] -= w.stamp[start].g[d2]
			}
			V[d1]++
			start++
		}
		k, d3 := w.slots[end], int(w.dirs[end])
		cnt := w.cnt[k]
		for d1 := range 2 {
			for d2 := range 2 {
				sn := w.sn[k][d1][d2]
				// pairs whose second event has neighbour n: sum over them of the window events
				// before them with direction d1
				x := w.sumR[k][d2][d1] - cnt[d2]*V[d1]
				// pairs whose first event has neighbour n: events after them with direction d2
				y := cnt[d1]*R[d2] - w.sumG[k][d1][d2]
				pre[d1][d2][d3] += S[d1][d2] - sn
				post[d1][d2][d3] += x - sn
				mid[d1][d2][d3] += y - sn
			}
		}
		// insert
		w.stamp[end].r = R
		for d1 := range 2 {
			w.sn[k][d1][d3] += cnt[d1]
			S[d1][d3] += cnt[d1]
			w.sumR[k][d3][d1] += R[d1]
		}
		w.cnt[k][d3]++
		R[d3]++
		w.stamp[end].g = R
		for d2 := range 2 {
			w.sumG[k][d3][d2] += R[d2]
		}
	}

	for d1 := range 2 {
		for d2 := range 2 {
			for d3 := range 2 {
				for _, x := range [3]struct{ to, from *uint64 }{
					{&w.pre[d1][d2][d3], &pre[d1][d2][d3]}, {&w.post[d1][d2][d3], &post[d1][d2][d3]}, {&w.mid[d1][d2][d3], &mid[d1][d2][d3]},
				} {
					var carry uint64
					*x.to, carry = bits.Add64(*x.to, *x.from, 0)
					w.over = w.over || carry != 0
				}
			}
		}
	}
}
