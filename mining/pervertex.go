package mining

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/submatch/submatch/graph"
)

// Orbit is one automorphism orbit of a connected shape: the position a vertex takes in it, and
// ORCA its number in ORCA's graphlet degree vectors (Hočevar and Demšar; orbits 0-14 for 2 to 4
// vertices, 15-72 for 5). For up to 4 vertices the vertex's degree in the shape names the
// orbit; two 5-vertex orbits may share shape and degree (the 4-wheel minus a spoke has two of
// degree 3), and are told apart by their number.
type Orbit struct {
	Name   string // shape name ("edge" for the 2-vertex shape)
	Degree int
	ORCA   int
	shape  Shape
	vertex int // a vertex of shape in the orbit
}

// orcaOrbits are ORCA's orbits 0..72 in order: the shape and a vertex of its canonical form
// (ConnectedShapes) in the orbit; vertex -1 means the first vertex of the given degree.
var orcaOrbits = []struct {
	name   string
	degree int
	vertex int
}{
	{"edge", 1, -1}, {"3-path", 1, -1}, {"3-path", 2, -1}, {"triangle", 2, -1}, {"4-path", 1, -1}, {"4-path", 2, -1},
	{"3-star", 1, -1}, {"3-star", 3, -1}, {"4-cycle", 2, -1}, {"tailed triangle", 1, -1}, {"tailed triangle", 2, -1},
	{"tailed triangle", 3, -1}, {"diamond", 2, -1}, {"diamond", 3, -1}, {"4-clique", 3, -1},
	// 5 vertices (15-72), numbered as ORCA numbers them (matched column by column against ORCA's
	// output on a random graph)
	{"5-path", 1, 3}, {"5-path", 2, 0}, {"5-path", 2, 2}, {"fork", 1, 2}, {"fork", 1, 3}, {"fork", 2, 1},
	{"fork", 3, 0}, {"4-star", 1, 1}, {"4-star", 4, 0}, {"bull", 1, 3}, {"bull", 2, 2}, {"bull", 3, 0},
	{"tadpole", 1, 4}, {"tadpole", 2, 0}, {"tadpole", 2, 2}, {"tadpole", 3, 1}, {"cricket", 1, 3},
	{"cricket", 2, 1}, {"cricket", 4, 0}, {"5-cycle", 2, 0}, {"banner", 1, 4}, {"banner", 2, 1},
	{"banner", 2, 2}, {"banner", 3, 0}, {"dart", 1, 4}, {"dart", 2, 2}, {"dart", 3, 1}, {"dart", 4, 0},
	{"butterfly", 2, 1}, {"butterfly", 4, 0}, {"kite", 1, 4}, {"kite", 2, 3}, {"kite", 3, 0},
	{"kite", 3, 1}, {"K2,3", 2, 2}, {"K2,3", 3, 0}, {"house", 2, 2}, {"house", 2, 4}, {"house", 3, 0},
	{"3-book", 2, 2}, {"3-book", 4, 0}, {"tailed 4-clique", 1, 4}, {"tailed 4-clique", 3, 1},
	{"tailed 4-clique", 4, 0}, {"gem", 2, 3}, {"gem", 3, 1}, {"gem", 4, 0},
	{"4-wheel minus spoke", 2, 4}, {"4-wheel minus spoke", 3, 0}, {"4-wheel minus spoke", 3, 2},
	{"K5 minus 3-path", 2, 4}, {"K5 minus 3-path", 3, 2}, {"K5 minus 3-path", 4, 0}, {"4-wheel", 3, 1},
	{"4-wheel", 4, 0}, {"5-clique minus edge", 3, 3}, {"5-clique minus edge", 4, 0}, {"5-clique", 4, 0},
}

// Orbits lists the orbits of the connected shapes of 2 to k vertices (k = 3, 4 or 5), in ORCA's
// order: 4, 15 or 73 of them.
func Orbits(k int) []Orbit {
	byName := map[string]Shape{"edge": {K: 2, Adj: [MaxK]uint8{2, 1}}}
	for m := 3; m <= 5; m++ {
		for _, s := range ConnectedShapes(m) {
			byName[s.Name()] = s
		}
	}
	n := map[int]int{3: 4, 4: 15, 5: 73}[k]
	out := make([]Orbit, n)
	for i := range out {
		o := orcaOrbits[i]
		s := byName[o.name]
		v := o.vertex
		for x := 0; v < 0; x++ {
			if s.Degree(x) == o.degree {
				v = x
			}
		}
		out[i] = Orbit{Name: o.name, Degree: o.degree, ORCA: i, shape: s, vertex: v}
	}
	return out
}

// orbitClasses returns, per vertex of s, the smallest vertex of its automorphism orbit.
func orbitClasses(s Shape) []int {
	cls := make([]int, s.K)
	for i := range cls {
		cls[i] = i
	}
	c := s.Code()
	for _, p := range permutations(s.K) {
		if s.permute(p).Code() == c {
			for i := range cls {
				cls[i] = min(cls[i], int(p[i]))
			}
		}
	}
	return cls
}

// VertexCensus holds per-vertex orbit counts: for dense vertex v of the data graph and orbit i,
// the copies of the orbit's shape (as a subgraph, or induced) in which v takes orbit i.
type VertexCensus struct {
	K                   int
	Orbits              []Orbit
	NonInduced, Induced [][]uint64
}

// CountPerVertex computes the orbit counts of every vertex of g for the connected shapes of 2
// to opts.K vertices (K = 3, 4 or 5; labels ignored): non-induced ones from local counts (for 5
// vertices, rooted decomposition and equations over each vertex's neighbourhood), induced ones
// (ORCA's graphlet degree vectors) from those through the orbit containment matrix. With
// opts.Device GPU or Auto the local counts (triangles, 4-cycles and 4-cliques per vertex and
// edge; for 5 vertices the 4-cliques per edge) run on the GPU, as Count's do; the rest (the
// orbit equations, and the 5-vertex orbits' own passes) on the CPU.
func CountPerVertex(ctx context.Context, g *graph.Graph, opts Options) (*VertexCensus, error) {
	if opts.K < 3 || opts.K > 5 {
		return nil, fmt.Errorf("per-vertex counts: motif size %d: expected 3, 4 or 5", opts.K)
	}
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	o := newOrdered(g)
	start := time.Now()
	cg, err := openCensusGPU(ctx, o, opts.Device, opts.GPUMemory, log)
	if err != nil {
		return nil, fmt.Errorf("per-vertex counts: %w", err)
	}
	defer cg.free()
	if cg != nil {
		log.Debug("per-vertex counts on the GPU", "device", cg.d.String(), "elapsed", time.Since(start).Round(time.Microsecond))
	}
	l := &locals{o: o, k: opts.K, vertex: true, gpu: cg, scratch: opts.Memory}
	if err := l.compute(ctx, opts.Threads, log); err != nil {
		return nil, err
	}
	l.buildCanon()
	orbits := Orbits(opts.K)
	vc := &VertexCensus{K: opts.K, Orbits: orbits, NonInduced: make([][]uint64, o.n), Induced: make([][]uint64, o.n)}
	tips := l.tips
	if opts.K >= 4 && tips == nil {
		tips = l.diamondTips(opts.Threads)
	}
	cont := orbitContainment(orbits)
	var failed atomic.Bool
	get := func(x signed) uint64 {
		v, err := x.result()
		if err != nil {
			failed.Store(true)
		}
		return v
	}
	nis := make([][]uint64, o.n) // per ordered vertex
	o.vertexWorkers(context.Background(), opts.Threads, func(_, r int) {
		ni := make([]uint64, len(orbits))
		nis[r] = ni
		var s signed
		d := o.degree(r)
		t := l.tv[r]
		ni[0] = d
		ni[1] = l.s1[r]
		ni[2] = chooseOK(d, 2, &s)
		ni[3] = t
		if opts.K >= 4 {
			var end, leaf, tail, deg2, diam3 signed
			for i, x := range o.all(r) {
				dx := o.degree(int(x))
				tvx := uint64(l.te[l.canon[o.off[r]+uint64(i)]])
				end.add(l.s1[x] + 1)
				end.sub(d)
				leaf.add(chooseOK(dx-1, 2, &leaf))
				tail.add(l.tv[x])
				tail.sub(tvx)
				if tvx > 0 {
					deg2.addProduct(tvx, dx-2)
				}
				diam3.add(chooseOK(tvx, 2, &diam3))
			}
			end.subProduct(2, t)
			var mid signed
			mid.addProduct(d-min(d, 1), l.s1[r])
			mid.subProduct(2, t)
			var paw3 signed
			if t > 0 {
				paw3.addProduct(t, d-2)
			}
			for i, x := range []signed{end, mid, leaf} {
				ni[4+i] = get(x)
			}
			ni[7] = chooseOK(d, 3, &s)
			ni[8] = l.c4v[r]
			for i, x := range []signed{tail, deg2, paw3} {
				ni[9+i] = get(x)
			}
			ni[12] = tips[r]
			ni[13] = get(diam3)
			ni[14] = l.k4v[r]
		}
		if s.pos.over {
			failed.Store(true)
		}
	})
	if opts.K == 5 {
		start := time.Now()
		if err := fiveOrbits(ctx, l, opts.Threads, orbits, nis, log); err != nil {
			return nil, fmt.Errorf("per-vertex counts: %w", err)
		}
		log.Debug("per-vertex 5-vertex orbits", "elapsed", time.Since(start).Round(time.Microsecond))
	}
	ip := newInduction(orbits, cont)
	workers(opts.Threads, o.n, func(_, r int) {
		v := o.orig[r]
		vc.NonInduced[v] = nis[r]
		in, err := ip.induce(nis[r])
		if err != nil {
			failed.Store(true)
		}
		vc.Induced[v] = in
	})
	if failed.Load() {
		return nil, fmt.Errorf("per-vertex counts: %w or inconsistent counts", ErrOverflow)
	}
	return vc, nil
}

// diamondTips returns, per vertex v, the sum over its triangles (v, x, y) of t_xy - 1: the
// diamonds in which v is a degree-2 vertex.
func (l *locals) diamondTips(threads int) []uint64 {
	o := l.o
	tips := make([]uint64, o.n)
	h := newHubCounts(tips, workersCount(threads, o.n))
	o.vertexWorkers(context.Background(), threads, func(wk, u int) {
		o.fwd.At(u, func(v, w uint32, puv, puw, pvw uint64) {
			h.add(wk, uint32(u), uint64(l.te[pvw])-1)
			h.add(wk, v, uint64(l.te[puw])-1)
			h.add(wk, w, uint64(l.te[puv])-1)
		})
	})
	h.flush()
	return tips
}

// orbitContainment returns c[i][j]: for a vertex w at orbit j of its shape H, the copies of
// orbit i's shape G among H's edges (on all of H's vertices) in which w takes orbit i.
func orbitContainment(orbits []Orbit) [][]uint64 {
	c := make([][]uint64, len(orbits))
	for i, oi := range orbits {
		c[i] = make([]uint64, len(orbits))
		g := oi.shape
		gc := orbitClasses(g)
		for j, oj := range orbits {
			h := oj.shape
			if g.K != h.K || g.Edges() > h.Edges() {
				continue
			}
			w := oj.vertex
			var maps uint64
			for _, p := range permutations(g.K) {
				t := g.permute(p)
				ok := true
				for x := 0; x < g.K && ok; x++ {
					ok = t.Adj[x]&^h.Adj[x] == 0
				}
				// the vertex of G that p maps onto w must be in orbit i
				if ok && gc[slices.Index(p, uint8(w))] == gc[oi.vertex] {
					maps++
				}
			}
			c[i][j] = maps / g.Automorphisms()
		}
	}
	return c
}

// induction is how induced orbit counts follow from non-induced ones, the same for every
// vertex: the orbits in the order they are resolved (the smallest shape first, and among shapes
// of a size the one with most edges: the containment runs from denser shapes to sparser), and
// for each the orbits of other shapes whose induced counts it contains (c[i][j] times).
type induction struct {
	c     [][]uint64
	order []int
	terms [][]int
}

func newInduction(orbits []Orbit, c [][]uint64) *induction {
	ip := &induction{c: c, order: make([]int, len(orbits)), terms: make([][]int, len(orbits))}
	edges := make([]int, len(orbits))
	for i := range orbits {
		ip.order[i] = i
		edges[i] = orbits[i].shape.Edges()
	}
	slices.SortStableFunc(ip.order, func(a, b int) int {
		if ka, kb := orbits[a].shape.K, orbits[b].shape.K; ka != kb {
			return cmp.Compare(ka, kb)
		}
		return cmp.Compare(edges[b], edges[a])
	})
	for i := range orbits {
		for j := range orbits {
			if j != i && c[i][j] != 0 && orbits[j].shape != orbits[i].shape {
				ip.terms[i] = append(ip.terms[i], j)
			}
		}
	}
	return ip
}

// induce returns a vertex's induced orbit counts from its non-induced ones ni: each is its
// non-induced count less the induced counts of the denser orbits it contains.
func (ip *induction) induce(ni []uint64) ([]uint64, error) {
	in := make([]uint64, len(ni))
	for _, i := range ip.order {
		v := ni[i]
		for _, j := range ip.terms[i] {
			x, over := mul(ip.c[i][j], in[j])
			if over || x > v {
				return nil, fmt.Errorf("orbit %d: inconsistent counts", i)
			}
			v -= x
		}
		in[i] = v
	}
	return in, nil
}
