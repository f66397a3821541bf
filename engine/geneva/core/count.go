package core

import (
	"cmp"
	"fmt"
	"github.com/submatch/submatch/internal/checked"
	"math/bits"
	"slices"
	"strings"

	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// Tail counting. A closing vertex of a query is one whose neighbours are all matched before it:
// given an embedding of the other vertices, its admissible data vertices are the common
// neighbours of its neighbours' data vertices (with its label), so the embeddings of the whole
// query that extend a row are counted from the sizes of those sets instead of enumerated, the way
// the CPU engine counts its postponed leaves (package plan, LeafGroup). PlanCounting picks an
// independent set of such vertices, plans the rest with GENMATCHORDER and leaves them to one
// final Counting step; per row of its input the step counts the injective assignments of the
// counted vertices to their sets, avoiding the row's own vertices.
//
// The counted vertices are split into classes whose labels may collide (equal labels or a
// wildcard; different classes can never share a data vertex, so the row's count is the product
// of the classes' counts). Within a class, vertices with the same neighbours, edge labels and
// vertex label have one candidate set. A class is counted exactly:
//   - one set S and k vertices: (|S|)_k, the falling factorial; C(|S|, k) when the symmetry
//     restrictions order the k vertices totally (unique counts);
//   - up to MaxCountClassVertices vertices over several sets: inclusion-exclusion over the set
//     partitions π of the vertices, Σ_π ∏_{B ∈ π} (-1)^(|B|-1) (|B|-1)! |∩_{v ∈ B} S_v| (sets
//     taken without the row's vertices), precomputed per class as a polynomial (CountTerm) in the
//     sizes of the intersections of its distinct sets.
//
// Vertices that fit neither, that a symmetry restriction ties to anything but its own ordered
// set, or whose class would need more than MaxCountPairs (set, neighbour) pairs, are matched by
// extension steps as before. Induced counts and listing never count.

// MaxCountClassVertices bounds the vertices of a class with several distinct candidate sets
// (Bell(4) = 15 set partitions; every term of the inclusion-exclusion then fits 128 bits).
const MaxCountClassVertices = 4

// MaxCountPairs bounds the (set, neighbour) pairs of one class: the kernel gives each its lane.
const MaxCountPairs = 32

// CountedClass is a class of counted query vertices whose data vertices may coincide.
type CountedClass struct {
	// Sets[j] are vertices with one candidate set (same neighbours, edge and vertex labels).
	Sets [][]int
	// Ordered is set when the class is one set whose vertices the symmetry restrictions order
	// totally (unique counts): C(|S|, k) instead of the falling factorial.
	Ordered bool
}

// CountKind says how a class of a Counting step is counted.
type CountKind uint8

const (
	// CountFalling is one set S and K vertices: |S|(|S|-1)...(|S|-K+1).
	CountFalling CountKind = iota
	// CountChoose is one set and K vertices in a fixed order: C(|S|, K).
	CountChoose
	// CountTerms is several sets: the sum of the class's Terms.
	CountTerms
)

// Parent is a matched neighbour of a counted vertex: its table column and the partition of the
// edge between them.
type Parent struct {
	Column int
	Part   Part
}

// CountSet is a candidate set of a Counting step: the data vertices with Label adjacent, in each
// parent's partition, to the parent's data vertex; Vertices are the query vertices taking theirs
// from it.
type CountSet struct {
	Label    pattern.Label
	Parents  []Parent
	Vertices []int
}

// CountTerm is Coef times the product of x[f] over Factors, where x[B] is the size of the
// intersection of the class's sets in the bit set B, without the row's vertices.
type CountTerm struct {
	Coef    int64
	Factors []uint8
}

// CountClass is one class of a Counting step (lowered CountedClass).
type CountClass struct {
	Kind CountKind
	Sets []CountSet
	// K is the number of vertices counted (all from Sets[0] unless Kind is CountTerms).
	K     int
	Terms []CountTerm
}

// String describes the class for test failures.
func (c CountClass) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "{kind %d k %d sets", c.Kind, c.K)
	for _, s := range c.Sets {
		fmt.Fprintf(&b, " %v%v<-%v", s.Vertices, s.Label, s.Parents)
	}
	if len(c.Terms) > 0 {
		fmt.Fprintf(&b, " terms %v", c.Terms)
	}
	b.WriteString("}")
	return b.String()
}

// PlanCounting plans q for a count with tail counting: it picks the closing vertices to count
// (closingSet), drops those its classes cannot count (countedClasses), plans the rest with
// GENMATCHORDER (cost-aware when est is given) and, for unique counts, drops the counted vertices
// that the symmetry restrictions of the resulting order tie to anything but their own ordered
// set, re-planning until none is dropped.
func PlanCounting(q *pattern.Pattern, est *Estimates, unique bool) *Plan {
	counted := closingSet(q, est)
	for {
		classes, demote := countedClasses(q, counted, nil)
		if demote != 0 {
			counted &^= demote
			continue
		}
		pl := matchOrder(q, est, counted)
		if unique {
			classes, demote = countedClasses(q, counted, pl.Restrictions)
			if demote != 0 {
				counted &^= demote
				continue
			}
		}
		pl.Counted = classes
		return pl
	}
}

// closingSet picks the vertices to count as the CPU planner does: plan the whole query, then
// take every vertex whose neighbours all come before it in the plan's order. No two are adjacent
// (the later one would follow the earlier), none is the source of a phase or starts a component
// (a source has a later neighbour), so every other vertex keeps its path to its component's first
// vertex: the rest of the query is planned as before. A vertex the plan matches early to prune
// has a later neighbour and is left alone. (Choosing by estimated fan-out instead did worse on
// the github queries: the sampled estimates are far off in absolute terms on correlated data.)
func closingSet(q *pattern.Pattern, est *Estimates) uint32 {
	var before, counted uint32
	for _, u := range matchOrder(q, est, 0).Order {
		if nb := q.NeighborMask(u); nb != 0 && nb&^before == 0 {
			counted |= 1 << u
		}
		before |= 1 << u
	}
	return counted
}

// countedClasses splits the counted vertices into classes and sets, and returns the vertices to
// match instead (demote): beyond a class's bounds, or, given the symmetry restrictions rs (nil:
// no unique count), tied by one to a vertex outside their set, or in a set that they do not
// order totally, or in a class with an ordered set and other sets.
func countedClasses(q *pattern.Pattern, counted uint32, rs []plan.Restriction) (classes []CountedClass, demote uint32) {
	// Sets: vertices by key, in vertex order.
	var sets [][]int
	keys := map[plan.LeafKey]int{}
	for m := counted; m != 0; m &= m - 1 {
		u := bits.TrailingZeros32(m)
		k := plan.LeafKeyOf(q, u)
		if i, ok := keys[k]; ok {
			sets[i] = append(sets[i], u)
			continue
		}
		keys[k] = len(sets)
		sets = append(sets, []int{u})
	}
	setOf := map[int]int{}
	for i, s := range sets {
		for _, u := range s {
			setOf[u] = i
		}
	}
	// Restrictions: allowed only inside one set, and only as a total order of the set.
	ordered := make([]bool, len(sets))
	for _, r := range rs {
		ia, oka := setOf[r.Less]
		ib, okb := setOf[r.Greater]
		switch {
		case oka && okb && ia == ib:
			ordered[ia] = true
		case oka || okb:
			if oka {
				demote |= 1 << r.Less
			}
			if okb {
				demote |= 1 << r.Greater
			}
		}
	}
	for i, s := range sets {
		if ordered[i] && !totalOrder(s, rs) {
			for _, u := range s {
				demote |= 1 << u
			}
		}
	}
	if demote != 0 {
		return nil, demote
	}
	// Classes: sets whose labels may collide, joined transitively.
	groups := plan.CollisionClasses(len(sets), func(i int) pattern.Label { return q.VertexLabel(sets[i][0]) })
	for _, g := range groups {
		if len(g) == 1 {
			classes = append(classes, CountedClass{Sets: [][]int{sets[g[0]]}, Ordered: ordered[g[0]]})
			continue
		}
		// Several sets: an ordered set, or one of MaxCountClassVertices vertices or more, keeps
		// the class to itself (the largest such); otherwise the largest sets first, while the
		// class holds MaxCountClassVertices vertices and MaxCountPairs (set, neighbour) pairs.
		// The rest is matched; the classes are recomputed by the caller (a demoted wildcard may
		// have joined two of them).
		byLen := slices.Clone(g)
		slices.SortStableFunc(byLen, func(a, b int) int {
			if ordered[a] != ordered[b] {
				if ordered[a] {
					return -1
				}
				return 1
			}
			return cmp.Compare(len(sets[b]), len(sets[a]))
		})
		if ordered[byLen[0]] || len(sets[byLen[0]]) >= MaxCountClassVertices {
			for _, i := range byLen[1:] {
				for _, u := range sets[i] {
					demote |= 1 << u
				}
			}
			continue
		}
		vertices, pairs := 0, 0
		for _, i := range byLen {
			deg := q.Degree(sets[i][0]) // the set's parents
			kept := 0
			for _, u := range sets[i] {
				if vertices < MaxCountClassVertices && (kept > 0 || pairs+deg <= MaxCountPairs) {
					if kept == 0 {
						pairs += deg
					}
					kept++
					vertices++
					continue
				}
				demote |= 1 << u
			}
		}
		if demote != 0 {
			continue
		}
		var cc CountedClass
		for _, i := range g {
			cc.Sets = append(cc.Sets, sets[i])
		}
		classes = append(classes, cc)
	}
	if demote != 0 {
		return nil, demote
	}
	return classes, 0
}

// totalOrder reports whether the restrictions among members imply a total order on them.
func totalOrder(members []int, rs []plan.Restriction) bool {
	k := len(members)
	less := make([][]bool, k)
	for i := range less {
		less[i] = make([]bool, k)
	}
	for _, r := range rs {
		a, b := slices.Index(members, r.Less), slices.Index(members, r.Greater)
		if a >= 0 && b >= 0 {
			less[a][b] = true
		}
	}
	for m := range k {
		for i := range k {
			for j := range k {
				less[i][j] = less[i][j] || less[i][m] && less[m][j]
			}
		}
	}
	for i := range k {
		for j := i + 1; j < k; j++ {
			if less[i][j] == less[j][i] {
				return false
			}
		}
	}
	return true
}

// lowerClass lowers a counted class for the tables' columns (col) and partitions (part).
func lowerClass(q *pattern.Pattern, cc CountedClass, col []int, part func(pattern.Label) Part) CountClass {
	var c CountClass
	var setOf []int // set index of each vertex, for the terms
	for j, vs := range cc.Sets {
		u := vs[0]
		s := CountSet{Label: q.VertexLabel(u), Vertices: slices.Clone(vs)}
		for nb := q.NeighborMask(u); nb != 0; nb &= nb - 1 {
			w := bits.TrailingZeros32(nb)
			el, _ := q.EdgeLabel(u, w)
			s.Parents = append(s.Parents, Parent{Column: col[w], Part: part(el)})
		}
		c.Sets = append(c.Sets, s)
		c.K += len(vs)
		for range vs {
			setOf = append(setOf, j)
		}
	}
	switch {
	case len(c.Sets) == 1 && cc.Ordered:
		c.Kind = CountChoose
	case len(c.Sets) == 1:
		c.Kind = CountFalling
	default:
		c.Kind = CountTerms
		c.Terms = partitionTerms(setOf)
	}
	return c
}

// partitionTerms returns the inclusion-exclusion polynomial for vertices whose candidate sets
// are setOf[i] (indices of distinct sets, < 8): the sum over set partitions π of the vertices
// of ∏_{B ∈ π} (-1)^(|B|-1) (|B|-1)! x[sets of B], with equal monomials merged and zero terms
// dropped, in a deterministic order.
func partitionTerms(setOf []int) []CountTerm {
	k := len(setOf)
	coef := map[string]int64{}
	factorsOf := map[string][]uint8{}
	var keys []string
	block := make([]int, k) // restricted growth string: block[i] <= 1 + max(block[:i])
	var rec func(i, blocks int)
	rec = func(i, blocks int) {
		if i == k {
			masks := make([]uint8, blocks)
			sizes := make([]int, blocks)
			for v, b := range block {
				masks[b] |= 1 << setOf[v]
				sizes[b]++
			}
			c := int64(1)
			for _, sz := range sizes {
				f := int64(1)
				for j := 2; j < sz; j++ {
					f *= int64(j)
				}
				if sz%2 == 0 {
					f = -f
				}
				c *= f
			}
			slices.Sort(masks)
			key := string(masks)
			if _, ok := coef[key]; !ok {
				keys = append(keys, key)
				factorsOf[key] = masks
			}
			coef[key] += c
			return
		}
		for b := 0; b <= blocks; b++ {
			block[i] = b
			rec(i+1, max(blocks, b+1))
		}
	}
	rec(0, 0)
	var terms []CountTerm
	for _, key := range keys {
		if coef[key] != 0 {
			terms = append(terms, CountTerm{Coef: coef[key], Factors: factorsOf[key]})
		}
	}
	return terms
}

// u128 is an unsigned 128-bit integer.
type u128 struct{ hi, lo uint64 }

func (a u128) add(b u128) u128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, _ := bits.Add64(a.hi, b.hi, c)
	return u128{hi, lo}
}

// mul multiplies by x, reporting whether the product overflows 128 bits.
func (a u128) mul(x uint64) (u128, bool) {
	h1, l1 := bits.Mul64(a.lo, x)
	h2, l2 := bits.Mul64(a.hi, x)
	hi, c := bits.Add64(h1, l2, 0)
	return u128{hi, l1}, h2 != 0 || c != 0
}

// ClassValue counts class c from x, the sizes of the intersections of its sets without the row's
// vertices (x[B] for every non-empty bit set B of sets; x[1] for a one-set class). ok is false
// when the count does not fit a uint64 (it is then not zero).
func (c *CountClass) ClassValue(x []uint64) (uint64, bool) {
	switch c.Kind {
	case CountFalling:
		return checked.Falling(x[1], c.K)
	case CountChoose:
		return checked.Binomial(x[1], c.K)
	}
	var pos, neg u128
	for _, t := range c.Terms {
		p := u128{0, uint64(max(t.Coef, -t.Coef))}
		for _, f := range t.Factors {
			var over bool
			if p, over = p.mul(x[f]); over {
				// Unreachable for sets of fewer than 2^32 vertices and at most four factors.
				return 0, false
			}
		}
		if t.Coef > 0 {
			pos = pos.add(p)
		} else {
			neg = neg.add(p)
		}
	}
	lo, b := bits.Sub64(pos.lo, neg.lo, 0)
	hi, _ := bits.Sub64(pos.hi, neg.hi, b)
	return lo, hi == 0
}

// countScratch is the host backend's per-Run buffers for counting steps.
type countScratch struct {
	lists [][]uint32
	hist  [16]uint64
	x     [16]uint64
}

// parentRow returns the neighbours of the parent's data vertex with label l, sorted by (label,
// id), from row.
func (in *Inputs) parentRow(p Parent, l pattern.Label, row []uint32) []uint32 {
	return in.candidates(NewVertex{Source: p.Column, Part: p.Part, Label: l}, row)
}

// inSorted reports whether x is in list, sorted by (label, id).
func (in *Inputs) inSorted(list []uint32, x uint32) bool {
	_, found := slices.BinarySearch(LabelRange(list, in.PCSR.VertexLabels, in.PCSR.VertexLabels[x]), x)
	return found
}

// countRow returns the number of ways to extend row by the counting step's vertices; ok is false
// when it overflows a uint64. It works as the kernel does: a one-set class with one parent is
// its row's length less the row's vertices in it; otherwise each set's shortest parent row is
// scanned, each vertex tested against the set's other parents and the class's other sets.
func (in *Inputs) countRow(s *Step, row []uint32, sc *countScratch) (uint64, bool) {
	total, overflow := uint64(1), false
	labels := in.PCSR.VertexLabels
	for ci := range s.Classes {
		c := &s.Classes[ci]
		clear(sc.x[:])
		if len(c.Sets) == 1 && len(c.Sets[0].Parents) == 1 {
			set := &c.Sets[0]
			list := in.parentRow(set.Parents[0], set.Label, row)
			n := uint64(len(list))
			for _, r := range row {
				if set.Label.Matches(labels[r]) && in.inSorted(list, r) {
					n--
				}
			}
			sc.x[1] = n
		} else {
			sc.lists = sc.lists[:0]
			for _, set := range c.Sets {
				for _, p := range set.Parents {
					sc.lists = append(sc.lists, in.parentRow(p, set.Label, row))
				}
			}
			clear(sc.hist[:])
			member := func(j int, x uint32, lists [][]uint32) bool {
				if !c.Sets[j].Label.Matches(labels[x]) {
					return false
				}
				for _, l := range lists {
					if !in.inSorted(l, x) {
						return false
					}
				}
				return true
			}
			var setsFirst [MaxCountClassVertices + 1]int // each set's first list
			for i, st := range c.Sets {
				setsFirst[i+1] = setsFirst[i] + len(st.Parents)
			}
			for j := range c.Sets {
				lists := sc.lists[setsFirst[j]:setsFirst[j+1]]
				driver := lists[0]
				for _, l := range lists[1:] {
					if len(l) < len(driver) {
						driver = l
					}
				}
			scan:
				for _, x := range driver {
					if slices.Contains(row, x) || !member(j, x, lists) {
						continue
					}
					mask := 1 << j
					for i := range c.Sets {
						if i == j || !member(i, x, sc.lists[setsFirst[i]:setsFirst[i+1]]) {
							continue
						}
						if i < j {
							continue scan // counted with set i
						}
						mask |= 1 << i
					}
					sc.hist[mask]++
				}
			}
			for b := 1; b < 1<<len(c.Sets); b++ {
				for m := b; m < 1<<len(c.Sets); m++ {
					if m&b == b {
						sc.x[b] += sc.hist[m]
					}
				}
			}
		}
		v, ok := c.ClassValue(sc.x[:])
		switch {
		case ok && v == 0:
			return 0, true // no extension, whatever the other classes hold
		case !ok:
			overflow = true
		default:
			hi, lo := bits.Mul64(total, v)
			overflow = overflow || hi != 0
			total = lo
		}
	}
	if overflow {
		return 0, false
	}
	return total, true
}
