package mining

import (
	"context"
	"fmt"
	"math/bits"
)

// Homomorphism counts for the shapes with an apex r whose removal leaves a forest (the 6-cycle,
// theta graphs, ...): hom(P) = sum over x of the product over the trees of P - r of their
// homomorphism counts with r's neighbours restricted to N(x), by dynamic programming up each
// tree over dense per-vertex vectors (a subtree without a neighbour of r does not depend on x
// and is computed once). Every map has one kernel (the partition of P's vertices by image), so
//
//	inj(P) = hom(P) - sum over partitions pi other than singletons of inj(P/pi),
//
// P/pi the quotient (no term when a block holds an edge: there are no self-loops), whose
// counts are the smaller shapes' global counts.

// apex returns a vertex, or else an edge, whose removal leaves s a forest, as a mask (0: none).
func apex(s Shape) uint8 {
	for r := 0; r < s.K; r++ {
		edges := s.Edges() - s.Degree(r)
		if edges == s.K-1-len(components(s, 1<<r)) {
			return 1 << r
		}
	}
	for a := 0; a < s.K; a++ {
		for b := a + 1; b < s.K; b++ {
			if s.Adj[a]&(1<<b) == 0 {
				continue
			}
			m := uint8(1)<<a | uint8(1)<<b
			edges := s.Edges() - s.Degree(a) - s.Degree(b) + 1
			if edges == s.K-2-len(components(s, m)) {
				return m
			}
		}
	}
	return 0
}

// homCount counts the homomorphisms of s into the data graph with the apex rm (one vertex,
// or an edge whose data images are then every ordered data edge: a tree vertex adjacent to
// both ends is restricted to the edge's triangles).
//
// With an apex edge (r1, r2) the slots (data edges x -> y) are taken grouped by x, and the
// messages of the subtrees that touch r1 only (their support within N(x) and what they push
// to their parents) are kept for all the slots of one x; each tree is rooted at a vertex
// adjacent to r2 where it has one, so that the per-slot work is what r2's side adds. When an
// automorphism of s swaps r1 and r2, only the slots with y below x are taken, counted twice.
// The x (with an apex edge: the slots, in chunks of adjacency positions) are shared among the
// threads.
func (d *decomp) homCount(s Shape, rm uint8) (uint64, error) {
	o := d.l.o
	n := o.n
	comps := components(s, rm)
	r1 := bits.TrailingZeros8(rm)
	r2 := bits.TrailingZeros8(rm &^ (1 << r1)) // 8 when one vertex
	// x-independent messages per shape vertex (nil until computed)
	indep := make([][]uint64, s.K)
	dep := make([]bool, s.K)   // the subtree under v holds a neighbour of r
	onlyX := make([]bool, s.K) // ... of r1 and none of r2 (apex edge only)
	parent := make([]int, s.K)
	var orderAll [][]int // per tree: vertices in post-order
	for _, c := range comps {
		root := c[0]
		if r2 < 8 {
			for _, v := range c {
				if s.Adj[v]&(1<<r2) != 0 {
					root = v
					break
				}
			}
		}
		var post []int
		var visit func(v, p int)
		visit = func(v, p int) {
			parent[v] = p
			for nb := s.Adj[v] &^ rm; nb != 0; nb &= nb - 1 {
				u := bits.TrailingZeros8(nb)
				if u != p {
					visit(u, v)
				}
			}
			post = append(post, v)
		}
		visit(root, -1)
		orderAll = append(orderAll, post)
	}
	var a acc
	for _, post := range orderAll {
		for _, v := range post {
			dep[v] = s.Adj[v]&rm != 0
			var m uint8
			m = s.Adj[v] & rm
			for u := 0; u < s.K; u++ {
				if rm&(1<<u) == 0 && parent[u] == v && dep[u] {
					dep[v] = true
					if !onlyX[u] {
						m |= 1 << 7
					}
				}
			}
			onlyX[v] = r2 < 8 && dep[v] && m&^(1<<r1) == 0
			if dep[v] {
				continue
			}
			m1 := ones(n)
			for u := 0; u < s.K; u++ {
				if rm&(1<<u) != 0 || parent[u] != v {
					continue
				}
				for z := 0; z < n; z++ {
					var t sum
					for _, y := range o.all(z) {
						t.add(indep[u][y])
					}
					a.over = a.over || t.over
					m1[z] = a.mul(m1[z], t.v)
				}
			}
			indep[v] = m1
		}
	}
	if a.over {
		return 0, ErrOverflow
	}
	swap := false
	if r2 < 8 {
		for _, p := range permutations(s.K) {
			if p[r1] == uint8(r2) && p[r2] == uint8(r1) && s.permute(p) == s {
				swap = true
				break
			}
		}
	}
	// per worker and vertex: msg, pushX (8 bytes) and mark (1) per shape vertex, and push
	threads := scratchThreads(d.threads, n, 17*uint64(s.K)+8, d.l.scratch)
	nw := workersCount(threads, n)
	hs := make([]homScratch, nw)
	for i := range hs {
		hs[i].init(s.K, n)
	}
	h := homShape{s: s, rm: rm, r1: r1, r2: r2, dep: dep, onlyX: onlyX, parent: parent, orderAll: orderAll, indep: indep}
	ctx := d.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	var err error
	if r2 == 8 {
		_, err = o.vertexWorkers(ctx, threads, func(wk, x int) {
			w := &hs[wk]
			w.total.add(d.homSlot(&h, w, x, 0, 0, true))
		})
	} else {
		// the slots x -> y in chunks of adjacency positions: a hub's slots are shared out
		// (each piece computes x's r1-only messages again)
		_, err = o.slotWorkers(ctx, threads, func(wk, x int, lo, hi uint64) {
			w := &hs[wk]
			if swap {
				hi = min(hi, o.up[x])
			}
			for p := lo; p < hi; p++ {
				v := d.homSlot(&h, w, x, int(o.nbr[p]), p, p == lo)
				if swap {
					w.total.addProduct(v, 2)
				} else {
					w.total.add(v)
				}
			}
			if lo < hi {
				w.clearX(&h)
			}
		})
	}
	if err != nil {
		return 0, err
	}
	var total sum
	for i := range hs {
		total.merge(hs[i].total)
		if hs[i].a.over {
			return 0, ErrOverflow
		}
	}
	return total.result()
}

// homShape is what homCount fixed for one shape.
type homShape struct {
	s          Shape
	rm         uint8
	r1, r2     int
	dep, onlyX []bool
	parent     []int
	orderAll   [][]int
	indep      [][]uint64
}

// homScratch is one worker's dense messages with their supports, per shape vertex, and the
// pushes of the r1-only subtrees kept for the current x.
type homScratch struct {
	msg    [][]uint64
	supp   [][]uint32
	mark   [][]bool
	pushX  [][]uint64 // per vertex u with onlyX: its message pushed to the neighbours
	plistX [][]uint32
	push   []uint64
	plist  []uint32
	a      acc
	total  sum
	_      [cacheLine]byte // total is written per slot: each worker's on its own line
}

func (w *homScratch) init(k, n int) {
	w.msg, w.supp, w.mark = make([][]uint64, k), make([][]uint32, k), make([][]bool, k)
	w.pushX, w.plistX = make([][]uint64, k), make([][]uint32, k)
	for v := range k {
		w.msg[v] = make([]uint64, n)
		w.mark[v] = make([]bool, n)
		w.pushX[v] = make([]uint64, n)
	}
	w.push = make([]uint64, n)
}

func (w *homScratch) clearVertex(v int) {
	for _, z := range w.supp[v] {
		w.msg[v][z] = 0
		w.mark[v][z] = false
	}
	w.supp[v] = w.supp[v][:0]
	for _, z := range w.plistX[v] {
		w.pushX[v][z] = 0
	}
	w.plistX[v] = w.plistX[v][:0]
}

// clearX forgets the r1-only messages of the current x.
func (w *homScratch) clearX(h *homShape) {
	for v, ok := range h.onlyX {
		if ok {
			w.clearVertex(v)
		}
	}
}

// scatter adds the message mu on each support vertex to push over the vertices nbrs lists for
// it, appending to plist each entry that leaves zero (mu > 0, and a wrap to zero is an
// overflow, flagged), and returns plist.
func scatter(push []uint64, plist []uint32, mu []uint64, supp []uint32, a *acc, nbrs func(uint32) []uint32) []uint32 {
	var carry uint64 // the overflow flag, kept out of memory in the inner loop
	for _, yy := range supp {
		my := mu[yy]
		if my == 0 {
			continue
		}
		for _, z := range nbrs(yy) {
			p := push[z]
			if p == 0 {
				plist = append(plist, z)
			}
			var c uint64
			push[z], c = bits.Add64(p, my, 0)
			carry |= c
		}
	}
	a.over = a.over || carry != 0
	return plist
}

// homSlot returns the product over the trees of their homomorphism counts for one image of the
// apex: vertex x, or the edge x -> y at adjacency position slot; fresh is set on the first
// slot of an x (the r1-only messages are then computed, and kept for the next slots).
func (d *decomp) homSlot(h *homShape, w *homScratch, x, y int, slot uint64, fresh bool) uint64 {
	o := d.l.o
	s, rm, r1, r2 := h.s, h.rm, h.r1, h.r2
	a := &w.a
	restrict := func(m uint8) []uint32 {
		switch {
		case r2 == 8 || m == 1<<r1:
			return o.all(x)
		case m == 1<<r2:
			return o.all(y)
		default:
			return d.l.triangleList(slot)
		}
	}
	prod := uint64(1)
	for _, post := range h.orderAll {
		for _, v := range post {
			if !h.dep[v] || h.onlyX[v] && !fresh {
				continue
			}
			first := true
			msg, mark := w.msg[v], w.mark[v]
			set := func(list []uint32, val func(z uint32) uint64) {
				if first {
					for _, z := range list {
						if !mark[z] {
							mark[z] = true
							w.supp[v] = append(w.supp[v], z)
							msg[z] = val(z)
						}
					}
					first = false
					return
				}
				for _, z := range w.supp[v] {
					msg[z] = a.mul(msg[z], val(z))
				}
			}
			if m := s.Adj[v] & rm; m != 0 {
				set(restrict(m), func(uint32) uint64 { return 1 })
			}
			// children whose messages change with the slot first (their pushes are the
			// smaller supports), then the kept ones
			for pass := 0; pass < 2; pass++ {
				for u := 0; u < s.K; u++ {
					if rm&(1<<u) != 0 || h.parent[u] != v || !h.dep[u] || h.onlyX[u] != (pass == 1) {
						continue
					}
					if !first && !h.onlyX[u] {
						// v restricted to N(x) (or N(y)) and u to a subset of it: scatter each
						// support vertex w of u into N(w) ∩ N(x), the triangle list of x-w
						mv, mu := s.Adj[v]&rm, s.Adj[u]&rm
						var end int
						switch {
						case mv == 1<<r1 && mu&(1<<r1) != 0:
							end = x
						case mv == 1<<r2 && mu&(1<<r2) != 0:
							end = y
						default:
							end = -1
						}
						if end >= 0 {
							push := w.push
							plist := scatter(push, w.plist[:0], w.msg[u], w.supp[u], a, func(ww uint32) []uint32 {
								return d.l.triangleList(d.pos(uint32(end), ww))
							})
							for _, z := range w.supp[v] {
								msg[z] = a.mul(msg[z], push[z])
							}
							for _, z := range plist {
								push[z] = 0
							}
							w.plist = plist[:0]
							continue
						}
						// v's support is known: gather from u's message where that reads fewer
						// adjacency entries than scattering it
						var gather, scatter uint64
						for _, z := range w.supp[v] {
							gather += o.degree(int(z))
						}
						for _, yy := range w.supp[u] {
							scatter += o.degree(int(yy))
						}
						if gather < scatter {
							mu := w.msg[u]
							for _, z := range w.supp[v] {
								if msg[z] == 0 {
									continue
								}
								var t sum
								for _, yy := range o.all(int(z)) {
									t.add(mu[yy])
								}
								a.over = a.over || t.over
								msg[z] = a.mul(msg[z], t.v)
							}
							continue
						}
					}
					push := w.push
					plist := w.plist[:0]
					if h.onlyX[u] {
						push, plist = w.pushX[u], w.plistX[u]
					}
					if !h.onlyX[u] || fresh {
						plist = scatter(push, plist, w.msg[u], w.supp[u], a, func(yy uint32) []uint32 { return o.all(int(yy)) })
						if h.onlyX[u] {
							w.plistX[u] = plist
						}
					}
					if first {
						set(plist, func(z uint32) uint64 { return push[z] })
					} else {
						for _, z := range w.supp[v] {
							msg[z] = a.mul(msg[z], push[z])
						}
					}
					if !h.onlyX[u] {
						for _, z := range plist {
							push[z] = 0
						}
						w.plist = plist[:0]
					}
				}
			}
			// the x-independent children
			for u := 0; u < s.K; u++ {
				if rm&(1<<u) != 0 || h.parent[u] != v || h.dep[u] {
					continue
				}
				for _, z := range w.supp[v] {
					var t sum
					for _, yy := range o.all(int(z)) {
						t.add(h.indep[u][yy])
					}
					a.over = a.over || t.over
					msg[z] = a.mul(msg[z], t.v)
				}
			}
		}
		root := post[len(post)-1]
		var t sum
		for _, z := range w.supp[root] {
			t.add(w.msg[root][z])
		}
		a.over = a.over || t.over
		prod = a.mul(prod, t.v)
		for _, v := range post {
			if !h.onlyX[v] {
				w.clearVertex(v)
			}
		}
	}
	return prod
}

// homInj turns hom(s) into inj(s) through the quotients' global counts.
func (d *decomp) homInj(s Shape, hom uint64) (uint64, error) {
	var sub sum
	block := make([]int, s.K)
	var err error
	var rec func(i int, merged bool)
	rec = func(i int, merged bool) {
		if err != nil {
			return
		}
		if i == s.K {
			if !merged {
				return
			}
			q, _ := quotient(s, block)
			x, ok := d.global[globalKey(q)]
			if !ok {
				err = fmt.Errorf("no global count of a %d-vertex quotient: a bug", q.K)
				return
			}
			sub.add(x)
			return
		}
		// join an earlier block (its representative j < i) unless adjacent to a member
		for j := 0; j < i; j++ {
			if block[j] != j {
				continue
			}
			ok := true
			for u := 0; u < i; u++ {
				if block[u] == j && s.Adj[i]&(1<<u) != 0 {
					ok = false
					break
				}
			}
			if ok {
				block[i] = j
				rec(i+1, true)
			}
		}
		block[i] = i
		rec(i+1, merged)
	}
	rec(0, false)
	if err != nil {
		return 0, err
	}
	c, err := sub.result()
	if err != nil {
		return 0, err
	}
	if c > hom {
		return 0, fmt.Errorf("homomorphisms %d < non-injective %d: a bug", hom, c)
	}
	return hom - c, nil
}
