package mining

import (
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
func (d *decomp) homCount(s Shape, rm uint8) (uint64, error) {
	o := d.l.o
	n := o.n
	comps := components(s, rm)
	r1 := bits.TrailingZeros8(rm)
	r2 := bits.TrailingZeros8(rm &^ (1 << r1)) // 8 when one vertex
	// x-independent messages per shape vertex (nil until computed), and per-x scratch.
	indep := make([][]uint64, s.K)
	dep := make([]bool, s.K) // the subtree under v holds a neighbour of r
	parent := make([]int, s.K)
	var orderAll [][]int // per tree: vertices in post-order
	for _, c := range comps {
		root := c[0]
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
			for u := 0; u < s.K; u++ {
				if rm&(1<<u) == 0 && parent[u] == v && dep[u] {
					dep[v] = true
				}
			}
			if dep[v] {
				continue
			}
			m := ones(n)
			for u := 0; u < s.K; u++ {
				if rm&(1<<u) != 0 || parent[u] != v {
					continue
				}
				for z := 0; z < n; z++ {
					var t uint64
					for _, y := range o.all(z) {
						t += indep[u][y]
					}
					m[z] = a.mul(m[z], t)
				}
			}
			indep[v] = m
		}
	}
	// per x: dense messages with support lists for the x-dependent vertices
	msg := make([][]uint64, s.K)
	supp := make([][]uint32, s.K)
	mark := make([][]bool, s.K)
	for v := range msg {
		msg[v] = make([]uint64, n)
		mark[v] = make([]bool, n)
	}
	push := make([]uint64, n)
	pmark := make([]bool, n)
	var plist []uint32
	var total sum
	slots := n
	if r2 < 8 {
		slots = len(o.nbr)
	}
	for slot := 0; slot < slots; slot++ {
		// the data images of the apex's vertex (x) or edge (x -> y at position slot)
		x, y := slot, 0
		if r2 < 8 {
			x, y = int(d.src[slot]), int(o.nbr[slot])
		}
		restrict := func(m uint8) []uint32 {
			switch {
			case r2 == 8 || m == 1<<r1:
				return o.all(x)
			case m == 1<<r2:
				return o.all(y)
			default:
				return d.l.triangleList(uint64(slot))
			}
		}
		prod := uint64(1)
		for _, post := range orderAll {
			for _, v := range post {
				if !dep[v] {
					continue
				}
				// support: N(x) if v is adjacent to r, else that of the pushes of its
				// x-dependent children, intersected
				first := true
				set := func(list []uint32, val func(z uint32) uint64) {
					if first {
						for _, z := range list {
							if !mark[v][z] {
								mark[v][z] = true
								supp[v] = append(supp[v], z)
								msg[v][z] = val(z)
							}
						}
						first = false
						return
					}
					// intersect: multiply, zero out the rest
					for _, z := range supp[v] {
						msg[v][z] = a.mul(msg[v][z], val(z))
					}
				}
				if m := s.Adj[v] & rm; m != 0 {
					set(restrict(m), func(uint32) uint64 { return 1 })
				}
				for u := 0; u < s.K; u++ {
					if rm&(1<<u) != 0 || parent[u] != v {
						continue
					}
					if !dep[u] {
						continue
					}
					// push u's message to the neighbours of its support
					for _, y := range supp[u] {
						my := msg[u][y]
						if my == 0 {
							continue
						}
						for _, z := range o.all(int(y)) {
							if !pmark[z] {
								pmark[z] = true
								plist = append(plist, z)
							}
							push[z] += my
							a.over = a.over || push[z] < my
						}
					}
					if first {
						set(plist, func(z uint32) uint64 { return push[z] })
					} else {
						for _, z := range supp[v] {
							if pmark[z] {
								msg[v][z] = a.mul(msg[v][z], push[z])
							} else {
								msg[v][z] = 0
							}
						}
					}
					for _, z := range plist {
						push[z] = 0
						pmark[z] = false
					}
					plist = plist[:0]
				}
				// the x-independent children
				for u := 0; u < s.K; u++ {
					if rm&(1<<u) != 0 || parent[u] != v || dep[u] {
						continue
					}
					for _, z := range supp[v] {
						var t uint64
						for _, y := range o.all(int(z)) {
							t += indep[u][y]
						}
						msg[v][z] = a.mul(msg[v][z], t)
					}
				}
			}
			root := post[len(post)-1]
			var t sum
			for _, z := range supp[root] {
				t.add(msg[root][z])
			}
			a.over = a.over || t.over
			prod = a.mul(prod, t.v)
			for _, v := range post {
				for _, z := range supp[v] {
					msg[v][z] = 0
					mark[v][z] = false
				}
				supp[v] = supp[v][:0]
			}
		}
		total.add(prod)
	}
	if a.over {
		return 0, ErrOverflow
	}
	return total.result()
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
