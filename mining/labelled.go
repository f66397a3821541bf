package mining

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"slices"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// LabelledMotif is one connected k-vertex pattern with vertex labels and its counts (distinct
// subgraphs; embeddings are these times Automorphisms, the label-preserving automorphisms).
type LabelledMotif struct {
	Shape  Shape
	Labels []uint32 // per shape vertex
	// Name is the shape's name (3 to 5 vertices).
	Name          string
	Pattern       string // inline, with the labels
	Automorphisms uint64
	NonInduced    uint64
	Induced       uint64
}

// Embeddings returns the non-induced and induced embedding counts, or ErrOverflow.
func (m LabelledMotif) Embeddings() (nonInduced, induced uint64, err error) {
	return embeddings(m.Pattern, m.NonInduced, m.Induced, m.Automorphisms)
}

// labelledKey is a shape with labels in a fixed vertex order.
type labelledKey struct {
	code   uint64
	labels [MaxK]uint32
}

// canonicalLabelled returns the relabelling of (s, labels) with the smallest (code, labels).
func canonicalLabelled(s Shape, labels [MaxK]uint32) (Shape, [MaxK]uint32) {
	best, bl := s, labels
	for _, p := range permutations(s.K) {
		t := s.permute(p)
		var tl [MaxK]uint32
		for i := 0; i < s.K; i++ {
			tl[p[i]] = labels[i]
		}
		if c := cmp.Compare(t.Code(), best.Code()); c < 0 || (c == 0 && slices.Compare(tl[:s.K], bl[:s.K]) < 0) {
			best, bl = t, tl
		}
	}
	return best, bl
}

// CountLabelled runs a census of the connected opts.K-vertex patterns (K = 3..5) with their
// vertex labels: one count per shape and label assignment up to isomorphism (edge labels are
// ignored). It enumerates every connected induced K-vertex subgraph once (Wernicke's ESU), so it
// takes time proportional to their number: it is meant for small and medium graphs. Non-induced
// counts follow from the induced ones by counting, in each induced class, the connected spanning
// edge subsets.
func CountLabelled(ctx context.Context, g *graph.Graph, opts Options) ([]LabelledMotif, error) {
	k := opts.K
	if k < 3 || k > 5 {
		return nil, fmt.Errorf("labelled census: motif size %d: expected 3..5", k)
	}
	o := newOrdered(g)
	label := func(x uint32) uint32 { return g.VertexLabel(o.orig[x]) }
	raw := map[labelledKey]int{} // raw (shape, labels) in enumeration order -> class
	var classes []labelledKey    // canonical forms
	classOf := map[labelledKey]int{}
	induced := []uint64{}
	class := func(s Shape, labels [MaxK]uint32) int {
		cs, cl := canonicalLabelled(s, labels)
		key := labelledKey{cs.Code(), cl}
		c, ok := classOf[key]
		if !ok {
			c = len(classes)
			classOf[key] = c
			classes = append(classes, key)
			induced = append(induced, 0)
		}
		return c
	}
	sub := make([]uint32, 0, k)
	adjCount := make([]uint8, o.n) // members of sub adjacent to each vertex
	inSub := make([]bool, o.n)
	var visit func(ext []uint32, root uint32)
	record := func() {
		s := Shape{K: k}
		var labels [MaxK]uint32
		for i, x := range sub {
			labels[i] = label(x)
			for j := i + 1; j < k; j++ {
				if _, ok := slices.BinarySearch(o.all(int(x)), sub[j]); ok {
					s.Adj[i] |= 1 << j
					s.Adj[j] |= 1 << i
				}
			}
		}
		key := labelledKey{s.Code(), labels}
		c, ok := raw[key]
		if !ok {
			c = class(s, labels)
			raw[key] = c
		}
		induced[c]++
	}
	add := func(x uint32, d int8) {
		inSub[x] = d > 0
		for _, y := range o.all(int(x)) {
			adjCount[y] = uint8(int8(adjCount[y]) + d)
		}
	}
	visit = func(ext []uint32, root uint32) {
		if len(sub) == k {
			record()
			return
		}
		for i := len(ext) - 1; i >= 0; i-- {
			w := ext[i]
			rest := slices.Clone(ext[:i])
			// exclusive neighbours of w: above the root, not in sub and not next to it
			for _, u := range o.all(int(w)) {
				if u > root && !inSub[u] && adjCount[u] == 0 {
					rest = append(rest, u)
				}
			}
			sub = append(sub, w)
			add(w, 1)
			visit(rest, root)
			add(w, -1)
			sub = sub[:len(sub)-1]
		}
	}
	for v := range o.n {
		if v&255 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		sub = append(sub[:0], uint32(v))
		add(uint32(v), 1)
		var ext []uint32
		for _, u := range o.all(v) {
			if u > uint32(v) {
				ext = append(ext, u)
			}
		}
		visit(ext, uint32(v))
		add(uint32(v), -1)
	}
	// Non-induced: each induced class contributes to the classes of its connected spanning
	// edge subsets (same labels).
	nonInduced := make([]uint64, len(classes))
	for c := range len(induced) {
		key := classes[c]
		h := shapeFromCode(k, key.code)
		var edges [][2]int
		for i := 0; i < k; i++ {
			for j := i + 1; j < k; j++ {
				if h.Adj[i]&(1<<j) != 0 {
					edges = append(edges, [2]int{i, j})
				}
			}
		}
		for mask := 1; mask < 1<<len(edges); mask++ {
			t := Shape{K: k}
			for m := mask; m != 0; m &= m - 1 {
				e := edges[bits.TrailingZeros(uint(m))]
				t.Adj[e[0]] |= 1 << e[1]
				t.Adj[e[1]] |= 1 << e[0]
			}
			if !t.Connected() {
				continue
			}
			d := class(t, key.labels)
			for len(nonInduced) < len(classes) {
				nonInduced = append(nonInduced, 0)
			}
			var carry uint64
			nonInduced[d], carry = bits.Add64(nonInduced[d], induced[c], 0)
			if carry != 0 {
				return nil, ErrOverflow
			}
		}
	}
	out := make([]LabelledMotif, len(classes))
	for c, key := range classes {
		s := shapeFromCode(k, key.code)
		m := LabelledMotif{Shape: s, Labels: slices.Clone(key.labels[:k]), Name: s.Name(), NonInduced: nonInduced[c], Induced: induced[c]}
		for _, p := range permutations(k) {
			t := s.permute(p)
			same := t.Code() == s.Code()
			for i := 0; i < k && same; i++ {
				same = key.labels[p[i]] == key.labels[i]
			}
			if same {
				m.Automorphisms++
			}
		}
		m.Pattern = inline(labelledPattern(s, m.Labels))
		out[c] = m
	}
	order := ConnectedShapes(k)
	rank := map[uint64]int{}
	for i, s := range order {
		rank[s.Code()] = i
	}
	slices.SortFunc(out, func(a, b LabelledMotif) int {
		if c := cmp.Compare(rank[a.Shape.Code()], rank[b.Shape.Code()]); c != 0 {
			return c
		}
		return slices.Compare(a.Labels, b.Labels)
	})
	return out, nil
}

func shapeFromCode(k int, code uint64) Shape {
	s := Shape{K: k}
	for i := 0; i < k; i++ {
		s.Adj[i] = uint8(code >> (8 * i))
	}
	return s
}

// labelledPattern is s as a pattern with exact vertex labels (wildcard edge labels), its
// vertices in s's order.
func labelledPattern(s Shape, labels []uint32) *pattern.Pattern {
	vl := make([]pattern.Label, s.K)
	names := make([]string, s.K)
	for i := range vl {
		vl[i] = pattern.Exact(labels[i])
		names[i] = string(rune('a' + i))
	}
	var edges []pattern.Edge
	for i := 0; i < s.K; i++ {
		for j := i + 1; j < s.K; j++ {
			if s.Adj[i]&(1<<j) != 0 {
				edges = append(edges, pattern.Edge{U: i, V: j, Label: pattern.Wildcard})
			}
		}
	}
	p, err := pattern.New(vl, edges, names)
	if err != nil {
		panic("mining: " + err.Error())
	}
	return p
}
