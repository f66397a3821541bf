package mining

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
)

// A core is the separator of a global decomposition when it induces a vertex, an edge, a
// triangle or a 4-cycle of the shape: the injective maps of the core are enumerated (the
// triangles and 4-cycles each once, from the degree order) and weighted by the pieces hanging
// from its vertices and edges (rooted vertex and edge counts), and the pieces' collisions are
// subtracted as global counts of smaller shapes.

// weights are the pieces' products per core vertex (nil: 1) and per core edge i -> j, i < j
// (nil: 1), the edge vectors indexed by the adjacency position of x_i -> x_j.
type weights struct {
	v [MaxK][]uint64
	e [MaxK][MaxK][]uint64
}

// acc multiplies with an overflow flag.
type acc struct{ over bool }

func (a *acc) mul(x, y uint64) uint64 {
	hi, lo := bits.Mul64(x, y)
	a.over = a.over || hi != 0
	return lo
}

// coreWorker is one worker's scratch, overflow flag, running sum and first error in vertexSum,
// padded to its own cache line.
type coreWorker[S any] struct {
	s     S
	a     acc
	total sum
	err   error
	_     [cacheLine]byte
}

// vertexSum returns the sum of fn(scratch, a, x) over the data vertices x, on the
// decomposition's threads (o.vertexWorkers: chunks cut by adjacency entries, the hubs first),
// each worker with the scratch mk returns, its own overflow flag a and its own sum. The workers
// are bounded by the scratch bound for bytesPerVertex a data vertex (scratchThreads). Every x
// adds an exact term, so the result does not depend on the threads; an error of fn (a bug) or an
// overflow anywhere is returned.
func vertexSum[S any](d *decomp, bytesPerVertex uint64, mk func() S, fn func(s S, a *acc, x int) (uint64, error)) (uint64, error) {
	o := d.l.o
	ctx := d.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	threads := scratchThreads(d.threads, o.n, bytesPerVertex, d.l.scratch)
	ws := make([]coreWorker[S], workersCount(threads, o.n))
	for i := range ws {
		ws[i].s = mk()
	}
	if _, err := o.vertexWorkers(ctx, threads, func(wk, x int) {
		w := &ws[wk]
		if w.err != nil {
			return
		}
		v, err := fn(w.s, &w.a, x)
		w.err = err
		w.total.add(v)
	}); err != nil {
		return 0, err
	}
	var total sum
	for i := range ws {
		if ws[i].err != nil {
			return 0, ws[i].err
		}
		if ws[i].a.over {
			return 0, ErrOverflow
		}
		total.merge(ws[i].total)
	}
	return total.result()
}

func (d *decomp) vw(w *weights, i int, x uint32) uint64 {
	if w.v[i] == nil {
		return 1
	}
	return w.v[i][x]
}

// ew is the weight of core edge (i, j) on the data edge at adjacency position p (x_i -> x_j).
func (d *decomp) ew(w *weights, i, j int, p uint64) uint64 {
	if i < j {
		if w.e[i][j] == nil {
			return 1
		}
		return w.e[i][j][p]
	}
	if w.e[j][i] == nil {
		return 1
	}
	return w.e[j][i][d.rev[p]]
}

// coreSum sums the weights over the injective maps of the core (k = 1..4 vertices: vertex,
// edge, triangle, 4-cycle 0-1-2-3-0).
func (d *decomp) coreSum(k int, pair, clique bool, w *weights) (uint64, error) {
	if pair {
		return d.pairSum(k-2, w)
	}
	o := d.l.o
	var total sum
	var a acc
	switch k {
	case 1:
		for x := 0; x < o.n; x++ {
			total.add(d.vw(w, 0, uint32(x)))
		}
	case 2:
		for p := range o.nbr {
			t := a.mul(d.vw(w, 0, d.src[p]), d.vw(w, 1, o.nbr[p]))
			total.add(a.mul(t, d.ew(w, 0, 1, uint64(p))))
		}
	case 3:
		perms := permutations(3)
		return vertexSum(d, 0, func() struct{} { return struct{}{} }, func(_ struct{}, a *acc, u int) (uint64, error) {
			var total sum
			o.fwd.At(u, func(v, x uint32, puv, pux, pvx uint64) {
				vs := [3]uint32{uint32(u), v, x}
				// pos[a][b]: the position of vs[a] -> vs[b]
				var pos [3][3]uint64
				pos[0][1], pos[0][2], pos[1][2] = puv, pux, pvx
				pos[1][0], pos[2][0], pos[2][1] = d.rev[puv], d.rev[pux], d.rev[pvx]
				for _, pm := range perms { // core vertex i on vs[pm[i]]
					t := a.mul(d.vw(w, 0, vs[pm[0]]), d.vw(w, 1, vs[pm[1]]))
					t = a.mul(t, d.vw(w, 2, vs[pm[2]]))
					t = a.mul(t, d.ew(w, 0, 1, pos[pm[0]][pm[1]]))
					t = a.mul(t, d.ew(w, 0, 2, pos[pm[0]][pm[2]]))
					t = a.mul(t, d.ew(w, 1, 2, pos[pm[1]][pm[2]]))
					total.add(t)
				}
			})
			return total.result()
		})
	case 4:
		if clique {
			return d.cliqueSum(w)
		}
		return d.cycleSum(w)
	case 5:
		return d.cycle5Sum(w)
	default:
		return 0, fmt.Errorf("core of %d vertices", k)
	}
	if a.over {
		return 0, ErrOverflow
	}
	return total.result()
}

// cycleSum: every injective map of the 4-cycle 0-1-2-3-0 has one highest data vertex u = x_i;
// the opposite x_{i+2} = w and both middles are below u, so with A[w] and B[w] the weighted
// wedges u-v-w through position i+1 and i+3 and C[w] their products for one v, the maps are
// sum_w f_{i+2}(w)(A[w]B[w] - C[w]) (v1 != v2) times f_i(u).
func (d *decomp) cycleSum(w *weights) (uint64, error) {
	o := d.l.o
	type scratch struct {
		A, B, C []uint64
		touched *[]uint32
	}
	mk := func() scratch {
		return scratch{make([]uint64, o.n), make([]uint64, o.n), make([]uint64, o.n), new([]uint32)}
	}
	return vertexSum(d, 24, mk, func(sc scratch, a *acc, u int) (uint64, error) {
		A, B, C := sc.A, sc.B, sc.C
		touched := (*sc.touched)[:0]
		var total sum
		for i := 0; i < 4; i++ {
			j, opp, k := (i+1)%4, (i+2)%4, (i+3)%4
			for vi, v := range o.lower(u) {
				puv := o.off[u] + uint64(vi)
				fj := a.mul(d.vw(w, j, v), d.ew(w, i, j, puv))
				fk := a.mul(d.vw(w, k, v), d.ew(w, i, k, puv))
				for q := o.off[v]; q < o.off[v+1]; q++ {
					x := o.nbr[q]
					if x >= uint32(u) {
						break
					}
					s := a.mul(fj, d.ew(w, j, opp, q))
					t := a.mul(fk, d.ew(w, k, opp, q))
					if A[x] == 0 && B[x] == 0 && C[x] == 0 {
						touched = append(touched, x)
					}
					A[x] += s
					B[x] += t
					st := a.mul(s, t)
					C[x] += st
					a.over = a.over || A[x] < s || B[x] < t || C[x] < st
				}
			}
			var here sum
			for _, x := range touched {
				ab := a.mul(A[x], B[x])
				if C[x] > ab {
					return 0, fmt.Errorf("4-cycle core goes negative: a bug")
				}
				here.add(a.mul(d.vw(w, opp, x), ab-C[x]))
				A[x], B[x], C[x] = 0, 0, 0
			}
			touched = touched[:0]
			r, err := here.result()
			if err != nil {
				return 0, err
			}
			total.add(a.mul(r, d.vw(w, i, uint32(u))))
		}
		*sc.touched = touched
		return total.result()
	})
}

// coreOrders lists the separators S of s whose induced shape is a vertex, an edge, a triangle,
// a 4-cycle (listed in cycle order) or K2,t for t = 1, 3, 4 (the two hubs first), smallest
// first, with every component of s - S attached to one vertex or one edge of S.
func coreOrders(s Shape) [][]int {
	var out [][]int
	full := uint8(1<<s.K - 1)
	for size := 1; size <= 6; size++ {
		for mask := uint8(1); mask <= full; mask++ {
			if bits.OnesCount8(mask) != size {
				continue
			}
			order := coreOrder(s, mask)
			if order == nil {
				continue
			}
			if hangs(s, mask, components(s, mask)) {
				out = append(out, order)
			}
		}
	}
	return out
}

// coreOrder returns the vertices of mask in core order when they induce a vertex, an edge, a
// triangle or a 4-cycle, else nil.
func coreOrder(s Shape, mask uint8) []int {
	var vs []int
	edges := 0
	for m := mask; m != 0; m &= m - 1 {
		v := bits.TrailingZeros8(m)
		vs = append(vs, v)
		edges += bits.OnesCount8(s.Adj[v] & mask)
	}
	edges /= 2
	switch len(vs) {
	case 1:
		return vs
	case 2, 3:
		if edges == len(vs)*(len(vs)-1)/2 {
			return vs
		}
		return pairOrder(s, mask, vs)
	case 5:
		if o := cycleOrder(s, mask, vs); o != nil {
			return o
		}
		return pairOrder(s, mask, vs)
	case 6:
		return pairOrder(s, mask, vs)
	case 4:
		if edges == 6 {
			return vs
		}
		if edges != 4 {
			return pairOrder(s, mask, vs)
		}
		for _, v := range vs {
			if bits.OnesCount8(s.Adj[v]&mask) != 2 {
				return nil
			}
		}
		a := vs[0]
		nb := s.Adj[a] & mask
		b := bits.TrailingZeros8(nb)
		dd := bits.TrailingZeros8(nb &^ (1 << b))
		c := bits.TrailingZeros8(mask &^ (1<<a | 1<<b | 1<<dd))
		return []int{a, b, c, dd}
	}
	return nil
}

// coreCount counts inj(s) with the core on the vertices order: the weighted core sum minus the
// collisions of the pieces (global counts of smaller shapes).
func (d *decomp) coreCount(s Shape, order []int, pair, heavy bool) (uint64, error) {
	k := len(order)
	r := withRoots(s, order...)
	var mask uint8 = 1<<k - 1
	comps := components(r, mask)
	w, has, err := d.pieceWeights(r, k, comps)
	if err != nil {
		return 0, err
	}
	if !heavy && (pair || k >= 3) {
		return 0, errHeavy
	}
	total, err := d.coreSum(k, pair, k == 4 && r.Edges()-edgesOutside(r, k) == 6, w)
	if err != nil {
		return 0, err
	}
	var c sum
	for _, q := range collisions(r, comps, k, has) {
		x, ok := d.global[globalKey(q)]
		if !ok {
			return 0, fmt.Errorf("no global count of a %d-vertex quotient: a bug", q.K)
		}
		c.add(x)
	}
	cv, err := c.result()
	if err != nil {
		return 0, err
	}
	if cv > total {
		return 0, fmt.Errorf("decomposition goes negative (%d - %d): a bug", total, cv)
	}
	return total - cv, nil
}

// isPair reports whether a core order is a K2,t (t != 2): its vertices 0 and 1 are not adjacent.
func isPair(s Shape, order []int) bool {
	return len(order) >= 3 && s.Adj[order[0]]&(1<<order[1]) == 0
}

// pairOrder returns the vertices of mask as hubs a, b then w_1..w_t when they induce K2,t with
// t = 1, 3 or 4, else nil.
func pairOrder(s Shape, mask uint8, vs []int) []int {
	t := len(vs) - 2
	if t < 1 || t == 2 {
		return nil
	}
	var hubs, rest []int
	for _, v := range vs {
		switch bits.OnesCount8(s.Adj[v] & mask) {
		case t:
			hubs = append(hubs, v)
		case 2:
			rest = append(rest, v)
		}
	}
	if t == 1 { // a path a-w-b: the middle has degree 2, the ends 1
		if len(rest) != 1 {
			return nil
		}
		var ends []int
		for _, v := range vs {
			if v != rest[0] {
				ends = append(ends, v)
			}
		}
		if s.Adj[ends[0]]&(1<<ends[1]) != 0 {
			return nil
		}
		return []int{ends[0], ends[1], rest[0]}
	}
	if len(hubs) != 2 || len(rest) != t || s.Adj[hubs[0]]&(1<<hubs[1]) != 0 {
		return nil
	}
	hm := uint8(1)<<hubs[0] | uint8(1)<<hubs[1]
	for _, w := range rest {
		if s.Adj[w]&mask != hm {
			return nil
		}
	}
	return append(hubs, rest...)
}

// pairSum sums the weights over the injective maps of K2,t (hubs 0 and 1, the others 2..t+1):
// for each data vertex x on hub 0, the wedges x-w-y give per y and per subset B of the
// positions acc_B[y], the sum over common neighbours w of the product of the positions'
// weights; the injective choices of w_1..w_t are the inclusion-exclusion over the partitions
// of the positions, sum_pi mu(pi) prod_{B in pi} acc_B[y], mu(pi) = prod_B (-1)^(|B|-1)(|B|-1)!.
func (d *decomp) pairSum(t int, w *weights) (uint64, error) {
	o := d.l.o
	parts := setPartitions(t)
	nb := 1 << t
	type scratch struct {
		accs    [][]uint64
		seen    []bool
		touched *[]uint32
	}
	mk := func() scratch {
		accs := make([][]uint64, nb)
		for b := 1; b < nb; b++ {
			accs[b] = make([]uint64, o.n)
		}
		return scratch{accs, make([]bool, o.n), new([]uint32)}
	}
	return vertexSum(d, 8*uint64(nb)+1, mk, func(sc scratch, a *acc, x int) (uint64, error) {
		accs, seen := sc.accs, sc.seen
		touched := (*sc.touched)[:0]
		var h [MaxK]uint64
		fx := d.vw(w, 0, uint32(x))
		if fx == 0 {
			return 0, nil
		}
		for p := o.off[x]; p < o.off[x+1]; p++ {
			m := o.nbr[p]
			for q := o.off[m]; q < o.off[m+1]; q++ {
				y := o.nbr[q]
				if y == uint32(x) {
					continue
				}
				for i := 0; i < t; i++ {
					h[i] = a.mul(a.mul(d.vw(w, 2+i, m), d.ew(w, 0, 2+i, p)), d.ew(w, 2+i, 1, q))
				}
				if !seen[y] {
					seen[y] = true
					touched = append(touched, y)
				}
				for b := 1; b < nb; b++ {
					// the product over B = b, from B minus its lowest position
					low := bits.TrailingZeros(uint(b))
					var v uint64
					if b == 1<<low {
						v = h[low]
					} else {
						v = h[low]
						for r := b &^ (1 << low); r != 0; r &= r - 1 {
							v = a.mul(v, h[bits.TrailingZeros(uint(r))])
						}
					}
					accs[b][y] += v
					a.over = a.over || accs[b][y] < v
				}
			}
		}
		var here sum
		for _, y := range touched {
			var r signed
			for _, pt := range parts {
				v := pt.coef
				for _, b := range pt.blocks {
					v = a.mul(v, accs[b][y])
				}
				if pt.neg {
					r.sub(v)
				} else {
					r.add(v)
				}
			}
			for b := 1; b < nb; b++ {
				accs[b][y] = 0
			}
			seen[y] = false
			v, err := r.result()
			if err != nil {
				return 0, err
			}
			here.add(a.mul(v, d.vw(w, 1, y)))
		}
		*sc.touched = touched[:0]
		hv, err := here.result()
		if err != nil {
			return 0, err
		}
		return a.mul(hv, fx), nil
	})
}

// partition is a set partition of t positions (blocks as bit masks) with its Moebius
// coefficient |mu| and sign.
type partition struct {
	blocks []int
	coef   uint64
	neg    bool
}

// setPartitions lists the partitions of {0..t-1}.
func setPartitions(t int) []partition {
	var out []partition
	var blocks []int
	var rec func(i int)
	rec = func(i int) {
		if i == t {
			p := partition{blocks: append([]int(nil), blocks...), coef: 1}
			for _, b := range blocks {
				n := bits.OnesCount(uint(b))
				for j := 2; j < n; j++ {
					p.coef *= uint64(j)
				}
				if n%2 == 0 {
					p.neg = !p.neg
				}
			}
			out = append(out, p)
			return
		}
		for j := range blocks {
			blocks[j] |= 1 << i
			rec(i + 1)
			blocks[j] &^= 1 << i
		}
		blocks = append(blocks, 1<<i)
		rec(i + 1)
		blocks = blocks[:len(blocks)-1]
	}
	rec(0)
	return out
}

// pieceWeights multiplies the rooted counts of the pieces of r hanging from its first k
// vertices (the core) into weights per core vertex and edge; has[c] is the mask of the core
// vertices in component c's piece.
func (d *decomp) pieceWeights(r Shape, k int, comps [][]int) (*weights, []uint8, error) {
	w := &weights{}
	has := make([]uint8, len(comps))
	for ci, c := range comps {
		var att []int
		for i := 0; i < k; i++ {
			for _, v := range c {
				if r.Adj[v]&(1<<i) != 0 {
					att = append(att, i)
					break
				}
			}
		}
		for _, i := range att {
			has[ci] |= 1 << i
		}
		piece := induced(r, append(att, c...))
		var p []uint64
		var err error
		var slot *[]uint64
		if len(att) == 1 {
			p, err = d.vertexVec(piece)
			slot = &w.v[att[0]]
		} else {
			p, err = d.edgeVec(piece)
			slot = &w.e[att[0]][att[1]]
		}
		if err != nil {
			return nil, nil, err
		}
		if *slot == nil {
			*slot = p
		} else {
			m := vec{v: append([]uint64(nil), *slot...)}
			m.mulBy(p)
			if *slot, err = m.result(); err != nil {
				return nil, nil, err
			}
		}
	}
	return w, has, nil
}

// hangs reports whether every component attaches to one vertex or one edge of the core mask.
func hangs(s Shape, mask uint8, comps [][]int) bool {
	for _, c := range comps {
		var att uint8
		for _, v := range c {
			att |= s.Adj[v] & mask
		}
		n := bits.OnesCount8(att)
		if n > 2 || n == 2 && s.Adj[bits.TrailingZeros8(att)]&att == 0 {
			return false
		}
	}
	return true
}

// cycleOrder returns the vertices of mask in cycle order when they induce a cycle, else nil.
func cycleOrder(s Shape, mask uint8, vs []int) []int {
	for _, v := range vs {
		if bits.OnesCount8(s.Adj[v]&mask) != 2 {
			return nil
		}
	}
	order := []int{vs[0]}
	prev, cur := -1, vs[0]
	for {
		nb := s.Adj[cur] & mask
		next := bits.TrailingZeros8(nb)
		if next == prev {
			next = bits.TrailingZeros8(nb &^ (1 << next))
		}
		if next == vs[0] {
			break
		}
		order = append(order, next)
		prev, cur = cur, next
	}
	if len(order) != len(vs) {
		return nil
	}
	return order
}

// pos is the adjacency position of u -> v (an edge).
func (d *decomp) pos(u, v uint32) uint64 {
	o := d.l.o
	i, _ := slices.BinarySearch(o.all(int(u)), v)
	return o.off[u] + uint64(i)
}

// cycle5Sum sums the weights over the injective maps of the 5-cycle 0-1-2-3-4-0. For each x on
// 0, the walks x-a-b-c-d-x (b, c != x) are S = sum over edges b-c of W1[b] W4[c], W1 and W4 the
// weighted wedges from x; the walks that are not cycles have a = c, b = d or a = d (pairwise
// exclusive but for a = c with b = d), so the cycles are S - D(a=c) - D(b=d) - D(a=d) + D(both).
func (d *decomp) cycle5Sum(w *weights) (uint64, error) {
	o := d.l.o
	f := func(i int, v uint32) uint64 { return d.vw(w, i, v) }
	g := func(i, j int, u, v uint32) uint64 {
		if w.e[min(i, j)][max(i, j)] == nil {
			return 1
		}
		return d.ew(w, i, j, d.pos(u, v))
	}
	// per vertex m: the ordered triangles (m, b, c) weighted as (1, 2, 3) around m = a = d.
	tri := make([]uint64, o.n)
	if spans(d.threads, o.n, func(lo, hi int) bool {
		var a acc
		for m := lo; m < hi; m++ {
			var t sum
			for p := o.off[m]; p < o.off[m+1]; p++ {
				b := o.nbr[p]
				for _, c := range d.l.triangleList(p) {
					t.add(a.mul(a.mul(a.mul(f(2, b), f(3, c)), a.mul(d.ew(w, 1, 2, p), g(2, 3, b, c))), g(3, 4, c, uint32(m))))
				}
			}
			a.over = a.over || t.over
			tri[m] = t.v
		}
		return a.over
	}) {
		return 0, ErrOverflow
	}
	type scratch struct {
		W1, W4 []uint64
		t1     *[]uint32
	}
	mk := func() scratch { return scratch{make([]uint64, o.n), make([]uint64, o.n), new([]uint32)} }
	return vertexSum(d, 16, mk, func(sc scratch, a *acc, xi int) (uint64, error) {
		W1, W4 := sc.W1, sc.W4
		t1 := (*sc.t1)[:0]
		x := uint32(xi)
		f0 := f(0, x)
		if f0 == 0 {
			return 0, nil
		}
		var r signed
		for p := o.off[x]; p < o.off[x+1]; p++ {
			m := o.nbr[p]
			h1 := a.mul(f(1, m), d.ew(w, 0, 1, p))
			h4 := a.mul(f(4, m), d.ew(w, 4, 0, d.rev[p]))
			for q := o.off[m]; q < o.off[m+1]; q++ {
				y := o.nbr[q]
				if y == x {
					continue
				}
				if W1[y] == 0 && W4[y] == 0 {
					t1 = append(t1, y)
				}
				v1 := a.mul(h1, d.ew(w, 1, 2, q))
				v4 := a.mul(h4, d.ew(w, 3, 4, d.rev[q]))
				W1[y] += v1
				W4[y] += v4
				a.over = a.over || W1[y] < v1 || W4[y] < v4
			}
		}
		for _, b := range t1 {
			if W1[b] == 0 {
				continue
			}
			var inner sum
			for q := o.off[b]; q < o.off[b+1]; q++ {
				c := o.nbr[q]
				if c == x || W4[c] == 0 {
					continue
				}
				inner.add(a.mul(a.mul(d.ew(w, 2, 3, q), f(3, c)), W4[c]))
			}
			a.over = a.over || inner.over
			r.add(a.mul(a.mul(W1[b], f(2, b)), inner.v))
		}
		for _, y := range t1 {
			W1[y], W4[y] = 0, 0
		}
		*sc.t1 = t1[:0]
		for p := o.off[x]; p < o.off[x+1]; p++ {
			m := o.nbr[p]
			tl := d.l.triangleList(p) // common neighbours of x and m
			// D(a=c): m on 1 and 3
			var s2, s4 sum
			for q := o.off[m]; q < o.off[m+1]; q++ {
				b := o.nbr[q]
				if b != x {
					s2.add(a.mul(a.mul(f(2, b), d.ew(w, 1, 2, q)), d.ew(w, 2, 3, d.rev[q])))
				}
			}
			for _, dd := range tl {
				s4.add(a.mul(a.mul(f(4, dd), g(3, 4, m, dd)), g(4, 0, dd, x)))
			}
			a.over = a.over || s2.over || s4.over
			r.sub(a.mul(a.mul(a.mul(f(1, m), f(3, m)), d.ew(w, 0, 1, p)), a.mul(s2.v, s4.v)))
			// D(b=d): m on 2 and 4
			var s1, s3 sum
			for _, aa := range tl {
				s1.add(a.mul(a.mul(f(1, aa), g(0, 1, x, aa)), g(1, 2, aa, m)))
			}
			for q := o.off[m]; q < o.off[m+1]; q++ {
				c := o.nbr[q]
				if c != x {
					s3.add(a.mul(a.mul(f(3, c), d.ew(w, 2, 3, q)), d.ew(w, 3, 4, d.rev[q])))
				}
			}
			a.over = a.over || s1.over || s3.over
			r.sub(a.mul(a.mul(a.mul(f(2, m), f(4, m)), d.ew(w, 4, 0, d.rev[p])), a.mul(s1.v, s3.v)))
			// D(a=d): m on 1 and 4; the triangles at m avoiding x
			tm := tri[m]
			var sx sum
			for _, c := range tl { // b = x or c = x
				sx.add(a.mul(a.mul(a.mul(f(2, x), f(3, c)), a.mul(g(1, 2, m, x), g(2, 3, x, c))), g(3, 4, c, m)))
				sx.add(a.mul(a.mul(a.mul(f(2, c), f(3, x)), a.mul(g(1, 2, m, c), g(2, 3, c, x))), g(3, 4, x, m)))
			}
			a.over = a.over || sx.over
			if sx.v > tm {
				return 0, fmt.Errorf("5-cycle core goes negative: a bug")
			}
			r.sub(a.mul(a.mul(a.mul(f(1, m), f(4, m)), a.mul(d.ew(w, 0, 1, p), d.ew(w, 4, 0, d.rev[p]))), tm-sx.v))
			// D(a=c and b=d): m on 1 and 3, b on 2 and 4, triangle x-m-b
			for _, b := range tl {
				v := a.mul(a.mul(f(1, m), f(3, m)), a.mul(f(2, b), f(4, b)))
				v = a.mul(v, a.mul(d.ew(w, 0, 1, p), g(1, 2, m, b)))
				v = a.mul(v, a.mul(g(2, 3, b, m), g(3, 4, m, b)))
				r.add(a.mul(v, g(4, 0, b, x)))
			}
		}
		v, err := r.result()
		if err != nil {
			return 0, err
		}
		return a.mul(v, f0), nil
	})
}

// edgesOutside counts the edges of r with an end outside its first k vertices.
func edgesOutside(r Shape, k int) int {
	n := 0
	for v := k; v < r.K; v++ {
		n += bits.OnesCount8(r.Adj[v] & (1<<k - 1))
		for u := v + 1; u < r.K; u++ {
			if r.Adj[v]&(1<<u) != 0 {
				n++
			}
		}
	}
	return n
}

// cliqueSum sums the weights over the injective maps of K4: every 4-clique u < v < z < t once
// (two triangles on the edge u-v whose third vertices are adjacent), in its 24 orders.
func (d *decomp) cliqueSum(w *weights) (uint64, error) {
	o := d.l.o
	perms := permutations(4)
	weighted := false // any edge weight (else no positions are needed)
	for i := 0; i < 4; i++ {
		for j := i + 1; j < 4; j++ {
			weighted = weighted || w.e[i][j] != nil
		}
	}
	return vertexSum(d, 0, func() struct{} { return struct{}{} }, func(_ struct{}, a *acc, u int) (uint64, error) {
		var total sum
		for i, v := range o.above(u) {
			p := o.up[u] + uint64(i)
			tl := d.l.triangleList(p)
			for zi, z := range tl {
				if z <= v {
					continue
				}
				for _, t := range tl[zi+1:] {
					if !o.adjacent(int(z), int(t)) {
						continue
					}
					vs := [4]uint32{uint32(u), v, z, t}
					var ps [4][4]uint64 // ps[i][j]: the position of vs[i] -> vs[j]
					for i := 0; i < 4 && weighted; i++ {
						for j := i + 1; j < 4; j++ {
							ps[i][j] = d.pos(vs[i], vs[j])
							ps[j][i] = d.rev[ps[i][j]]
						}
					}
					for _, pm := range perms { // core vertex i on vs[pm[i]]
						x := uint64(1)
						for c := 0; c < 4; c++ {
							x = a.mul(x, d.vw(w, c, vs[pm[c]]))
							for e := c + 1; e < 4; e++ {
								x = a.mul(x, d.ew(w, c, e, ps[pm[c]][pm[e]]))
							}
						}
						total.add(x)
					}
				}
			}
		}
		return total.result()
	})
}

// adjacent reports whether a and b are adjacent.
func (o *ordered) adjacent(a, b int) bool {
	_, ok := slices.BinarySearch(o.all(a), uint32(b))
	return ok
}
