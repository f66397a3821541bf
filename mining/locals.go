package mining

import (
	"context"
	"errors"

	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/internal/setops"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"
)

// locals are the local counts the formulas combine, all on the ordered graph. Per-edge values are
// kept at the edge's position in the adjacency list of its lower endpoint (its out-position).
type locals struct {
	o      *ordered
	k      int
	vertex bool     // per-vertex counts wanted (c4v, k4v for k = 4; no global 5-vertex totals)
	te     []uint32 // per out-position: triangles on the edge
	sd     []uint64 // per out-position: sum of the degrees of the triangles' third vertices
	tv     []uint64 // per vertex: triangles at the vertex
	tips   []uint64 // per vertex (per-vertex counts, k >= 4): diamondTips, when the GPU made it
	// per vertex and per out-position: 4-cycles through the vertex or edge (k >= 5)
	c4v, c4e []uint64
	k4v      []uint64   // per vertex: 4-cliques at the vertex (k >= 5)
	s1       []uint64   // per vertex: sum over neighbours of (degree - 1)
	tri      uint64     // triangles
	c4       uint64     // 4-cycles
	k4, k5   uint64     // cliques
	c5       uint64     // 5-cycles
	w4, w4s  uint64     // 4-wheels and 4-wheels minus a spoke
	tOff     []uint64   // per adjacency position (out-positions only non-empty): into tl
	tl       []uint32   // per edge: the third vertices of its triangles, sorted
	canon    []uint64   // per adjacency position: the edge's out-position
	k23      uint64     // K2,3: sum over vertex pairs of C(common neighbours, 3)
	gem      sum        // sum over triangles and apexes of (t_ac-1)(t_ad-1)
	k5e      sum        // sum over triangles of C(common neighbours of the three, 2)
	k4e      []uint64   // per out-position: 2 x the 4-cliques on the edge (k >= 5)
	gpu      *censusGPU // when set, the phases it has run on the GPU (gpu.go)
	scratch  uint64     // Options.Memory
}

func computeLocals(ctx context.Context, o *ordered, k, threads int, log *slog.Logger) (*locals, error) {
	l := &locals{o: o, k: k}
	if err := l.compute(ctx, threads, log); err != nil {
		return nil, err
	}
	return l, nil
}

// compute runs the phases l.k needs.
func (l *locals) compute(ctx context.Context, threads int, log *slog.Logger) error {
	o, k := l.o, l.k
	type phase struct {
		name   string
		min    int
		run    func(context.Context, int) error
		global bool // only the global 5-vertex formulas need it
	}
	phases := []phase{
		{"triangles", 3, l.triangles, false}, {"4-cycles", 4, l.cycles, false}, {"cliques", 4, l.cliques, false},
		{"triangle lists", 5, l.triangleLists, false}, {"triangle sums", 5, l.gemSum, false}, {"pairs", 5, l.pairs, true},
		{"5-cycles", 5, l.fiveCycles, true}, {"wheels", 5, l.wheels, true},
	}
	if k >= 5 || l.vertex {
		l.s1 = make([]uint64, o.n)
		for u := 0; u < o.n; u++ {
			for _, v := range o.all(u) {
				l.s1[u] += o.degree(int(v)) - 1
			}
		}
	}
	for _, ph := range phases {
		if k < ph.min || ph.global && l.vertex {
			continue
		}
		start := time.Now()
		run := ph.run
		g := l.gpu.phase(l, ph.name)
		if g != nil {
			run = g
		}
		err := run(ctx, threads)
		if err != nil && g != nil && l.gpu.auto && errors.Is(err, gpu.ErrBudget) {
			// Device Auto: the phase does not fit on the GPU; the CPU's version instead
			if log != nil {
				log.Debug("census phase: out of GPU memory; CPU instead", "phase", ph.name, "err", err)
			}
			err = ph.run(ctx, threads)
		}
		if err != nil {
			return err
		}
		if log != nil {
			log.Debug("census phase", "phase", ph.name, "elapsed", time.Since(start).Round(time.Microsecond))
		}
	}
	return nil
}

// triangles finds te, sd, tv and tri: every triangle u < v < w once, from the out-lists.
func (l *locals) triangles(ctx context.Context, threads int) error {
	o := l.o
	l.te = make([]uint32, len(o.nbr))
	l.sd = make([]uint64, len(o.nbr))
	_, err := o.vertexWorkers(ctx, threads, func(_, u int) {
		o.fwd.At(u, func(v, w uint32, pv, pw, pvw uint64) {
			atomic.AddUint32(&l.te[pv], 1)
			atomic.AddUint32(&l.te[pw], 1)
			atomic.AddUint32(&l.te[pvw], 1)
			atomic.AddUint64(&l.sd[pv], o.degree(int(w)))
			atomic.AddUint64(&l.sd[pw], o.degree(int(v)))
			atomic.AddUint64(&l.sd[pvw], o.degree(u))
		})
	})
	if err != nil {
		return err
	}
	l.finishTriangles()
	return nil
}

// finishTriangles derives tv and tri from te.
func (l *locals) finishTriangles() {
	o := l.o
	l.tv = make([]uint64, o.n)
	var t3 uint64
	for u := 0; u < o.n; u++ {
		for i, v := range o.above(u) {
			t := uint64(l.te[o.up[u]+uint64(i)])
			l.tv[u] += t
			l.tv[v] += t
			t3 += t
		}
	}
	for v := range l.tv {
		l.tv[v] /= 2
	}
	l.tri = t3 / 3
}

// cycles counts 4-cycles, each once from its highest vertex u and the vertex w opposite: the
// pairs of common neighbours of u and w below u. For k >= 5 a second pass over the same wedges
// spreads the counts over vertices and edges.
func (l *locals) cycles(ctx context.Context, threads int) error {
	o := l.o
	perVertex := l.k >= 5 || l.vertex
	if perVertex {
		l.c4v = make([]uint64, o.n)
		l.c4e = make([]uint64, len(o.nbr))
	}
	threads = scratchThreads(threads, o.n, 4, l.scratch)
	maxW := workersCount(threads, o.n)
	tallies := newTallies(maxW, o.n)
	sums := make([]sum, maxW)
	var c4v *hubCounts
	if perVertex {
		c4v = newHubCounts(l.c4v, maxW)
	}
	_, err := o.vertexWorkers(ctx, threads, func(wk, u int) {
		tl := &tallies[wk]
		c := tl.c
		tl.lowerWedges(o, u)
		low := o.lower(u)
		var hs sum
		for _, w := range tl.seen {
			n := uint64(c[w])
			pairs := n * (n - 1) / 2
			hs.add(pairs)
			if perVertex && pairs > 0 {
				c4v.add(wk, w, pairs)
			}
		}
		sums[wk].merge(hs)
		here := hs.v
		if perVertex && here > 0 {
			c4v.add(wk, uint32(u), here)
			for i, v := range low {
				pv := o.off[u] + uint64(i)
				var sv uint64
				vl := o.all(int(v))
				for j, w := range vl {
					if w >= uint32(u) {
						break
					}
					x := uint64(c[w]) - 1
					if x > 0 {
						sv += x
						atomic.AddUint64(&l.c4e[o.off[v]+uint64(j)], x)
					}
				}
				if sv > 0 {
					c4v.add(wk, v, sv)
					atomic.AddUint64(&l.c4e[pv], sv)
				}
			}
		}
		tl.clear()
	})
	if err != nil {
		return err
	}
	var err2 error
	if l.c4, err2 = mergeAll(sums).result(); err2 != nil {
		return err2
	}
	if perVertex {
		c4v.flush()
		l.foldEdges(l.c4e)
	}
	return nil
}

// foldEdges adds each edge's value at its position in the higher endpoint's list to its
// out-position (the lower endpoint's list), leaving the sums at the out-positions.
func (l *locals) foldEdges(a []uint64) {
	o := l.o
	next := make([]uint64, o.n) // per vertex: its next lower-part position to pair
	copy(next, o.off[:o.n])
	for u := 0; u < o.n; u++ {
		for i, v := range o.above(u) {
			p := o.up[u] + uint64(i)
			q := next[v] // u is v's next lower neighbour in increasing order
			next[v]++
			a[p] += a[q]
			a[q] = 0
		}
	}
}

// scratchThreads returns how many workers a phase that keeps bytesPerVertex bytes of dense
// scratch per vertex and worker may run: threads (all cores when <= 0), fewer when their scratch
// together would pass bound (0: DefaultScratch), never fewer than one.
func scratchThreads(threads, n int, bytesPerVertex, bound uint64) int {
	t := workersCount(threads, n)
	if bound == 0 {
		bound = DefaultScratch
	}
	per := max(1, uint64(n)*bytesPerVertex)
	return max(1, int(min(bound/per, uint64(t))))
}

// workersCount is the number of workers workers() starts for n items.
func workersCount(threads, n int) int {
	if threads <= 0 {
		threads = maxProcs()
	}
	return max(1, min(threads, n))
}

// cliques counts 4- and (for k >= 5) 5-cliques from the out-lists, and 4-cliques per vertex.
func (l *locals) cliques(ctx context.Context, threads int) error {
	o := l.o
	perVertex := l.k >= 5 || l.vertex
	if perVertex {
		l.k4v = make([]uint64, o.n)
	}
	nw := workersCount(threads, o.n)
	s1 := make([][]uint32, nw)
	s2 := make([][]uint32, nw)
	k4s := make([]sum, nw)
	k5s := make([]sum, nw)
	var k4v *hubCounts
	if perVertex {
		k4v = newHubCounts(l.k4v, nw)
	}
	_, err := o.vertexWorkers(ctx, threads, func(wk, u int) {
		// the worker's scratch and sums in locals, written back once per vertex (false sharing)
		a, b := s1[wk], s2[wk]
		var k4, k5 sum
		var ku uint64
		out := o.above(u)
		for i, v := range out {
			a = setops.Intersect(out[i+1:], o.above(int(v)), a)
			var kv uint64
			for _, w := range a {
				b = setops.Intersect(a, o.above(int(w)), b)
				nb := uint64(len(b))
				k4.add(nb)
				if perVertex && nb > 0 {
					ku += nb
					kv += nb
					k4v.add(wk, w, nb)
					for _, x := range b {
						k4v.add(wk, x, 1)
					}
				}
				if l.k >= 5 {
					for j, x := range b {
						k5.add(uint64(setops.IntersectCount(b[j+1:], o.above(int(x)))))
					}
				}
			}
			if kv > 0 {
				k4v.add(wk, v, kv)
			}
		}
		if ku > 0 {
			k4v.add(wk, uint32(u), ku)
		}
		s1[wk], s2[wk] = a, b
		k4s[wk].merge(k4)
		k5s[wk].merge(k5)
	})
	if err != nil {
		return err
	}
	if perVertex {
		k4v.flush()
	}
	var err2 error
	if l.k4, err2 = mergeAll(k4s).result(); err2 != nil {
		return err2
	}
	l.k5, err2 = mergeAll(k5s).result()
	return err2
}

// gemSum walks the triangles again, now that te is known: it adds, over every triangle and each
// choice of apex a with base c, d, the product (t_ac - 1)(t_ad - 1) to gem; and with c_T the
// common neighbours of the triangle's three vertices, C(c_T, 2) to k5e and c_T to k4e of each of
// its edges (every 4-clique on an edge is counted from its two triangles on that edge).
func (l *locals) gemSum(ctx context.Context, threads int) error {
	o := l.o
	nw := workersCount(threads, o.n)
	sums := make([]sum, nw)
	k5 := make([]sum, nw)
	l.k4e = make([]uint64, len(o.nbr))
	_, err := o.vertexWorkers(ctx, threads, func(wk, u int) {
		var gem, k5u sum // merged once per vertex (false sharing)
		o.fwd.At(u, func(_, _ uint32, puv, puw, pvw uint64) {
			tuv := uint64(l.te[puv]) - 1
			tuw := uint64(l.te[puw]) - 1
			tvw := uint64(l.te[pvw]) - 1
			gem.addProduct(tuv, tuw)
			gem.addProduct(tuv, tvw)
			gem.addProduct(tuw, tvw)
			if tuv == 0 || tuw == 0 || tvw == 0 {
				return
			}
			c := uint64(setops.IntersectCount(l.tl[l.tOff[puv]:l.tOff[puv+1]], l.tl[l.tOff[puw]:l.tOff[puw+1]]))
			if c == 0 {
				return
			}
			k5u.add(c * (c - 1) / 2)
			atomic.AddUint64(&l.k4e[puv], c)
			atomic.AddUint64(&l.k4e[puw], c)
			atomic.AddUint64(&l.k4e[pvw], c)
		})
		sums[wk].merge(gem)
		k5[wk].merge(k5u)
	})
	if err != nil {
		return err
	}
	l.gem.merge(mergeAll(sums))
	l.k5e.merge(mergeAll(k5))
	return nil
}

// pairs finds k23, the sum over vertex pairs b < a of C(codeg(a, b), 3), from every wedge
// a-x-b whose end b is below a; and w4s, the sum over the pairs of E(a, b) (codeg(a, b) - 2)
// with E(a, b) the edges among their common neighbours (a 4-wheel minus a spoke is such a pair,
// an edge among its common neighbours and a third common neighbour).
func (l *locals) pairs(ctx context.Context, threads int) error {
	o := l.o
	threads = scratchThreads(threads, o.n, 8, l.scratch)
	nw := workersCount(threads, o.n)
	tallies := newTallies(nw, o.n)
	ecnt := make([][]uint32, nw)
	sums := make([]sum, nw)
	spoke := make([]sum, nw)
	for w := range ecnt {
		ecnt[w] = make([]uint32, o.n)
	}
	_, err := o.vertexWorkers(ctx, threads, func(wk, a int) {
		tl := &tallies[wk]
		c := tl.c
		var k23, w4s sum // merged once per vertex (false sharing)
		for _, x := range o.all(a) {
			for _, b := range o.all(int(x)) {
				if b >= uint32(a) {
					break
				}
				tl.add(b)
			}
		}
		// E[b]: the edges x-y inside the common neighbourhood of a and b (b < a), from the
		// edges inside N(a) and their triangles.
		e := ecnt[wk]
		for i, x := range o.all(a) {
			for _, y := range l.triangleList(o.off[a] + uint64(i)) {
				if y <= x {
					continue
				}
				for _, b := range l.triangleList(l.edgePos(x, y)) {
					if b < uint32(a) {
						e[b]++
					}
				}
			}
		}
		for _, b := range tl.seen {
			n := uint64(c[b])
			if n >= 3 {
				v, over := choose(n, 3)
				k23.over = k23.over || over
				k23.add(v)
				w4s.addProduct(uint64(e[b]), n-2)
			}
			e[b] = 0
		}
		tl.clear()
		sums[wk].merge(k23)
		spoke[wk].merge(w4s)
	})
	if err != nil {
		return err
	}
	if l.k23, err = mergeAll(sums).result(); err != nil {
		return err
	}
	l.w4s, err = mergeAll(spoke).result()
	return err
}

// triangleLists builds tOff and tl (each edge's triangles' third vertices, sorted) and canon.
func (l *locals) triangleLists(ctx context.Context, threads int) error {
	o := l.o
	l.tOff = make([]uint64, len(o.nbr)+1)
	for p := range o.nbr {
		l.tOff[p+1] = l.tOff[p] + uint64(l.te[p])
	}
	l.tl = make([]uint32, l.tOff[len(o.nbr)])
	fill := make([]uint64, len(o.nbr))
	_, err := o.vertexWorkers(ctx, threads, func(_, u int) {
		o.fwd.At(u, func(v, w uint32, pv, pw, pvw uint64) {
			l.tl[l.tOff[pv]+atomic.AddUint64(&fill[pv], 1)-1] = w
			l.tl[l.tOff[pw]+atomic.AddUint64(&fill[pw], 1)-1] = v
			l.tl[l.tOff[pvw]+atomic.AddUint64(&fill[pvw], 1)-1] = uint32(u)
		})
	})
	if err != nil {
		return err
	}
	workers(threads, len(o.nbr), func(_, p int) {
		if l.te[p] > 1 {
			slices.Sort(l.tl[l.tOff[p]:l.tOff[p+1]])
		}
	})
	l.buildCanon()
	return nil
}

// buildCanon fills canon: every adjacency position's out-position.
func (l *locals) buildCanon() {
	o := l.o
	l.canon = make([]uint64, len(o.nbr))
	next := slices.Clone(o.off[:o.n])
	for u := 0; u < o.n; u++ {
		for i, v := range o.above(u) {
			p := o.up[u] + uint64(i)
			l.canon[p] = p
			l.canon[next[v]] = p
			next[v]++
		}
	}
}

// triangleList returns the third vertices of the triangles on the edge at adjacency position p.
func (l *locals) triangleList(p uint64) []uint32 {
	c := l.canon[p]
	return l.tl[l.tOff[c]:l.tOff[c+1]]
}

// edgePos returns the out-position of the edge x-y (which must exist).
func (l *locals) edgePos(x, y uint32) uint64 {
	if x > y {
		x, y = y, x
	}
	list := l.o.above(int(x))
	i, _ := slices.BinarySearch(list, y)
	return l.o.up[x] + uint64(i)
}

// wheels counts 4-wheels: for each hub h, the 4-cycles of the graph its neighbours induce (whose
// edges are the triangles at h), each once from its highest vertex a and the vertex opposite.
func (l *locals) wheels(ctx context.Context, threads int) error {
	o := l.o
	threads = scratchThreads(threads, o.n, 4, l.scratch)
	nw := workersCount(threads, o.n)
	tallies := newTallies(nw, o.n)
	sums := make([]sum, nw)
	_, err := o.vertexWorkers(ctx, threads, func(wk, h int) {
		tl := &tallies[wk]
		nh := o.all(h)
		var w4 sum // merged once per vertex (false sharing)
		for i, a := range nh {
			for _, b := range l.triangleList(o.off[h] + uint64(i)) {
				if b >= a {
					break
				}
				k, _ := slices.BinarySearch(nh, b)
				for _, x := range l.triangleList(o.off[h] + uint64(k)) {
					if x >= a {
						break
					}
					tl.add(x)
				}
			}
			for _, x := range tl.seen {
				n := uint64(tl.c[x])
				w4.add(n * (n - 1) / 2)
			}
			tl.clear()
		}
		sums[wk].merge(w4)
	})
	if err != nil {
		return err
	}
	l.w4, err = mergeAll(sums).result()
	return err
}

// fiveCycles counts 5-cycles, each once from its highest vertex u. With L the neighbours of u
// below it and P2[x] the paths u-v-x (v in L, x below u), the cycles u-v1-x-y-v2-u are, over
// ordered edges (x, y) below u, P2[x]P2[y] minus the choices v1 = v2 (v in L adjacent to x and
// y: twice the triangles at v below u), v1 = y or v2 = x (y or x in L), plus v1 = y and v2 = x
// together (twice the triangles whose top is u); each cycle is seen in both directions.
// fiveCyclePrep lists, per vertex v, for each triangle at v the larger of its other two
// vertices, sorted (tmax[tmOff[v]:tmOff[v+1]]), so that the triangles at v below u are a
// prefix; and top[v], the triangles whose highest vertex is v.
func (l *locals) fiveCyclePrep(threads int) (tmOff []uint64, tmax []uint32, top []uint64) {
	o := l.o
	tmOff = make([]uint64, o.n+1)
	for v := range o.n {
		tmOff[v+1] = tmOff[v] + l.tv[v]
	}
	tmax = make([]uint32, tmOff[o.n])
	fill := slices.Clone(tmOff[:o.n])
	top = make([]uint64, o.n)
	workers(threads, o.n, func(_, u int) {
		o.fwd.At(u, func(v, w uint32, _, _, _ uint64) {
			tmax[atomic.AddUint64(&fill[u], 1)-1] = w
			tmax[atomic.AddUint64(&fill[v], 1)-1] = w
			tmax[atomic.AddUint64(&fill[w], 1)-1] = v
			atomic.AddUint64(&top[w], 1)
		})
	})
	workers(threads, o.n, func(_, v int) { slices.Sort(tmax[tmOff[v]:tmOff[v+1]]) })
	return tmOff, tmax, top
}

func (l *locals) fiveCycles(ctx context.Context, threads int) error {
	o := l.o
	tmOff, tmax, top := l.fiveCyclePrep(threads)
	threads = scratchThreads(threads, o.n, 4, l.scratch)
	nw := workersCount(threads, o.n)
	tallies := newTallies(nw, o.n)
	sums := make([]signed, nw)
	_, err := o.vertexWorkers(ctx, threads, func(wk, u int) {
		p2 := &tallies[wk]
		c := p2.c
		p2.lowerWedges(o, u)
		low := o.lower(u)
		var r signed // merged once per vertex (false sharing)
		for _, x := range p2.seen {
			var s uint64
			for _, y := range o.all(int(x)) {
				if y >= uint32(u) {
					break
				}
				s += uint64(c[y])
			}
			r.addProduct(uint64(c[x]), s)
		}
		for _, v := range low {
			list := o.all(int(v))
			below, _ := slices.BinarySearch(list, uint32(u)) // neighbours of v below u
			r.subProduct(2*uint64(c[v]), uint64(below))
			tm := tmax[tmOff[v]:tmOff[v+1]]
			k, _ := slices.BinarySearch(tm, uint32(u))
			r.sub(2 * uint64(k))
		}
		r.add(2 * top[u])
		p2.clear()
		sums[wk].pos.merge(r.pos)
		sums[wk].neg.merge(r.neg)
	})
	if err != nil {
		return err
	}
	var total signed
	for _, s := range sums {
		total.pos.merge(s.pos)
		total.neg.merge(s.neg)
	}
	v, err := total.result()
	l.c5 = v / 2
	return err
}
