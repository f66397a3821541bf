package mining

import "fmt"

// signed accumulates a count as a sum of positive and negative terms, each checked, and
// reports the difference (which must not be negative: the terms are an inclusion-exclusion).
type signed struct{ pos, neg sum }

func (s *signed) add(x uint64)           { s.pos.add(x) }
func (s *signed) sub(x uint64)           { s.neg.add(x) }
func (s *signed) addProduct(a, b uint64) { s.pos.addProduct(a, b) }
func (s *signed) subProduct(a, b uint64) { s.neg.addProduct(a, b) }
func (s *signed) addProduct3(a, b, c uint64) {
	p, over := mul(a, b)
	s.pos.over = s.pos.over || over
	s.pos.addProduct(p, c)
}

func (s signed) result() (uint64, error) {
	p, err := s.pos.result()
	if err != nil {
		return 0, err
	}
	n, err := s.neg.result()
	if err != nil {
		return 0, err
	}
	if n > p {
		return 0, fmt.Errorf("formula is negative (%d - %d): a bug", p, n)
	}
	return p - n, nil
}

func chooseOK(n uint64, k int, s *signed) uint64 {
	c, over := choose(n, k)
	s.pos.over = s.pos.over || over
	return c
}

// formula returns the non-induced (unique) count of shape s when a closed formula covers it.
// Each formula counts every copy once from the part that is unique to it (its centre vertex,
// central edge or triangle) and subtracts, by inclusion-exclusion, the choices where two
// pattern vertices fall on one data vertex; the identities are in docs/mining.md.
func (l *locals) formula(s Shape) (uint64, bool, error) {
	o := l.o
	var r signed
	deg := func(v uint32) uint64 { return o.degree(int(v)) }
	eachVertex := func(fn func(v uint32, d uint64)) {
		for v := 0; v < o.n; v++ {
			fn(uint32(v), o.degree(v))
		}
	}
	eachEdge := func(fn func(u, v uint32, p uint64)) {
		for u := 0; u < o.n; u++ {
			for i, v := range o.above(u) {
				fn(uint32(u), v, o.up[u]+uint64(i))
			}
		}
	}
	diamond := func() uint64 {
		var d signed
		eachEdge(func(_, _ uint32, p uint64) { d.add(chooseOK(uint64(l.te[p]), 2, &d)) })
		v, _ := d.result()
		return v
	}
	switch s.Name() {
	case "3-path":
		eachVertex(func(_ uint32, d uint64) { r.add(chooseOK(d, 2, &r)) })
	case "triangle":
		r.add(l.tri)
	case "3-star":
		eachVertex(func(_ uint32, d uint64) { r.add(chooseOK(d, 3, &r)) })
	case "4-path":
		eachEdge(func(u, v uint32, _ uint64) { r.addProduct(deg(u)-1, deg(v)-1) })
		r.subProduct(3, l.tri)
	case "tailed triangle":
		eachVertex(func(v uint32, d uint64) {
			if l.tv[v] > 0 {
				r.addProduct(l.tv[v], d-2)
			}
		})
	case "4-cycle":
		r.add(l.c4)
	case "diamond":
		eachEdge(func(_, _ uint32, p uint64) { r.add(chooseOK(uint64(l.te[p]), 2, &r)) })
	case "4-clique":
		r.add(l.k4)
	case "4-star":
		eachVertex(func(_ uint32, d uint64) { r.add(chooseOK(d, 4, &r)) })
	case "5-path":
		// Ordered (b, d) around a centre c, a beyond b, e beyond d; minus a = d or e = b
		// (triangles), minus a = e (4-cycles), plus a = d and e = b together; halved (reversal).
		eachVertex(func(c uint32, d uint64) {
			r.addProduct(l.s1[c], l.s1[c])
			if d > 0 {
				r.subProduct(d, (d-1)*(d-1))
			}
			if l.tv[c] > 0 {
				r.subProduct(4*l.tv[c], d-1)
			}
		})
		r.addProduct(6, l.tri)
		r.subProduct(8, l.c4)
		v, err := r.result()
		return v / 2, true, err
	case "fork":
		eachVertex(func(a uint32, d uint64) {
			if d >= 3 {
				r.addProduct(chooseOK(d-1, 2, &r), l.s1[a])
			}
			if l.tv[a] > 0 {
				r.subProduct(2*l.tv[a], d-2)
			}
		})
	case "cricket":
		eachVertex(func(a uint32, d uint64) {
			if l.tv[a] > 0 && d >= 4 {
				r.addProduct(l.tv[a], chooseOK(d-2, 2, &r))
			}
		})
	case "bull":
		eachEdge(func(u, v uint32, p uint64) {
			if t := uint64(l.te[p]); t > 0 {
				r.addProduct3(t, deg(u)-2, deg(v)-2)
				r.subProduct(t, t-1)
			}
		})
	case "tadpole":
		eachVertex(func(a uint32, d uint64) {
			if l.tv[a] > 0 {
				r.addProduct(l.tv[a], l.s1[a])
				r.subProduct(2*l.tv[a], d-1)
			}
		})
		eachEdge(func(_, _ uint32, p uint64) {
			if t := uint64(l.te[p]); t > 0 {
				r.subProduct(2*t, t-1)
			}
		})
	case "banner":
		eachVertex(func(v uint32, d uint64) {
			if l.c4v[v] > 0 {
				r.addProduct(l.c4v[v], d-2)
			}
		})
		r.subProduct(2, diamond())
	case "butterfly":
		eachVertex(func(a uint32, _ uint64) { r.add(chooseOK(l.tv[a], 2, &r)) })
		eachEdge(func(_, _ uint32, p uint64) { r.subProduct(2, chooseOK(uint64(l.te[p]), 2, &r)) })
	case "house":
		eachEdge(func(_, _ uint32, p uint64) { r.addProduct(l.c4e[p], uint64(l.te[p])) })
		r.subProduct(4, diamond())
	case "dart":
		eachEdge(func(u, v uint32, p uint64) {
			if t := uint64(l.te[p]); t >= 2 {
				r.addProduct(chooseOK(t, 2, &r), deg(u)+deg(v)-6)
			}
		})
	case "kite":
		eachEdge(func(_, _ uint32, p uint64) {
			if t := uint64(l.te[p]); t >= 2 {
				r.addProduct(t-1, l.sd[p]-2*t)
			}
		})
		r.subProduct(12, l.k4)
	case "gem":
		r.pos.merge(l.gem)
		r.subProduct(12, l.k4)
	case "tailed 4-clique":
		eachVertex(func(v uint32, d uint64) {
			if l.k4v[v] > 0 {
				r.addProduct(l.k4v[v], d-3)
			}
		})
	case "3-book":
		eachEdge(func(_, _ uint32, p uint64) { r.add(chooseOK(uint64(l.te[p]), 3, &r)) })
	case "4-wheel":
		r.add(l.w4)
	case "4-wheel minus spoke":
		r.add(l.w4s)
	case "5-cycle":
		r.add(l.c5)
	case "K2,3":
		r.add(l.k23)
	case "5-clique minus edge":
		r.pos.merge(l.k5e)
	case "K5 minus 3-path":
		eachEdge(func(_, _ uint32, p uint64) {
			if t := uint64(l.te[p]); t >= 3 && l.k4e[p] > 0 {
				r.addProduct(l.k4e[p]/2, t-2)
			}
		})
	case "5-clique":
		r.add(l.k5)
	default:
		return 0, false, nil
	}
	v, err := r.result()
	return v, true, err
}
