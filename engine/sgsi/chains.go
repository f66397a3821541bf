package sgsi

import (
	"math/bits"
	"slices"

	"github.com/submatch/submatch/internal/checked"
	"github.com/submatch/submatch/internal/setops"
	"github.com/submatch/submatch/plan"
)

// Chains (issue 21, branch leafpath): a tail whose path u - a_1 - ... - a_k - b has k ≥ 2
// inner vertices of degree 2 (findTails), b a leaf or a closing vertex on other joined
// neighbours ws, is counted by the leaf step as well, its inner vertices not joined. For a
// row R with u's vertex v, its placements are the paths v - x_1 - ... - x_k - y with x_i a
// candidate of a_i in the list of the vertex before it by their edge, y a candidate of b in
// x_k's list and in I (the intersection of the ws' vertices' lists by their edges to b; all
// data vertices when there are none), every vertex outside R and the path's vertices
// distinct. Adjacent ones differ anyway (no self-loops), and so do two whose labels cannot
// coincide: only a position's collide columns (the row's vertices whose labels may be its; for
// a_1 never u's, its neighbour) and clash positions (earlier ones, not its neighbour, whose
// labels may be its) can repeat a vertex. Where no position from i on has either (free[i]),
// every walk below position i-1 is a path: its count is the number of walks (chainWalks),
// memoised per goroutine by the vertex for each inner position (sizeMemo, keyed by the ws'
// vertices) and, when free[0], by u's vertex for the whole tail. Elsewhere the positions are
// placed one by one (chainBelow), the vertices they may repeat skipped, down to the first
// free one; b's position, when not free, is the walks' count less the vertices of R and of
// the path that may be b's and are in the last list and I (the walks count each such y once).
// The tails' vertices share no data vertex with the other counted vertices (findTails), so
// a chain is a factor of the row's product.

// chainTail is a tail of two inner vertices or more as the leaf step reads it.
type chainTail struct {
	col   int   // u's column
	verts []int // a_1, ..., a_k, b: the counted vertices by position
	// keys[i] is position i's label graph: the list of the vertex before it (u's for 0) by
	// their edge, of position i's label.
	keys []lgKey
	ws   []leafParent // b's other neighbours, by column, and their edges to b
	// collide[i]: the row's columns whose vertex may be position i's; clash[i]: the earlier
	// positions, not its neighbour, whose vertex may be position i's.
	collide []uint64
	clash   []uint32
	free    []bool // free[i] (0 ≤ i ≤ len(verts)): no position from i on has either
	deps    uint64 // the columns the count reads
}

// planChain compiles tail t (more than one inner vertex) for the leaf step; order holds the
// joined vertices first (q.joined of them).
func (q *query) planChain(t pathTail, order []int, edgeLabels bool) chainTail {
	p := q.p
	c := chainTail{col: slices.Index(order, t.u), verts: append(slices.Clone(t.inner), t.b)}
	c.deps = 1 << c.col
	prev := t.u
	for _, w := range c.verts {
		c.keys = append(c.keys, lgKey{edgeKey(p, w, prev, edgeLabels), q.vlabels[w], bothSides})
		prev = w
	}
	for _, w := range t.ws {
		col := slices.Index(order, w)
		c.ws = append(c.ws, leafParent{col, lgKey{edgeKey(p, t.b, w, edgeLabels), q.vlabels[t.b], bothSides}})
		c.deps |= 1 << col
	}
	m := len(c.verts)
	c.collide, c.clash, c.free = make([]uint64, m), make([]uint32, m), make([]bool, m+1)
	for i, x := range c.verts {
		l := p.VertexLabel(x)
		for j, w := range order[:q.joined] {
			if (i > 0 || j != c.col) && plan.LabelsMayCollide(p.VertexLabel(w), l) {
				c.collide[i] |= 1 << j
			}
		}
		for j := range max(0, i-1) {
			if plan.LabelsMayCollide(p.VertexLabel(c.verts[j]), l) {
				c.clash[i] |= 1 << j
			}
		}
		c.deps |= c.collide[i]
	}
	c.free[m] = true
	for i := m - 1; i >= 0; i-- {
		c.free[i] = c.free[i+1] && c.collide[i] == 0 && c.clash[i] == 0
	}
	return c
}

// allKeys returns the label graphs the chain reads: keys, then the ws' edges.
func (t *chainTail) allKeys() []lgKey { return withParents(slices.Clone(t.keys), t.ws) }

// chainCache is one goroutine's state for a chain: I for the ws' vertices in ikey (valid:
// written at all), the path placed so far, the walks' memos per inner position and the
// tail's by u's vertex (top, when free[0]); over is set when a count overflowed uint64.
type chainCache struct {
	ikey   []uint32
	ivalid bool
	inter  []uint32
	lists  [][]uint32
	path   []uint32
	memos  []sizeMemo
	top    sizeMemo
	over   bool
}

// newChainCache sets up chain t's cache for r's goroutine, its memos within --memory.
func (r *runner) newChainCache(t *chainTail) chainCache {
	c := chainCache{ikey: make([]uint32, len(t.ws)), lists: make([][]uint32, 0, len(t.ws)),
		path: make([]uint32, len(t.verts)), memos: make([]sizeMemo, len(t.verts)-1)}
	var wcols []int
	for _, w := range t.ws {
		wcols = append(wcols, w.col)
	}
	for i := range c.memos { // (the deepest first: each serves the ones above it)
		i = len(c.memos) - 1 - i
		c.memos[i].init(r, t.col, wcols, r.cands[t.verts[i]], 1)
	}
	if t.free[0] {
		c.top.init(r, t.col, wcols, r.cands[r.q.order[t.col]], 1)
	}
	return c
}

// chainCount returns chain i's placements for the row (lgs: its allKeys' label graphs); ok is
// false on uint64 overflow.
func (r *runner) chainCount(i int, row []uint32, lgs []*labelGraph, sc *leafScratch) (uint64, bool) {
	t := &r.q.chains[i]
	c := &sc.chains[i]
	m := len(t.verts)
	if len(t.ws) > 0 { // (the memos' keys are the ws' vertices: they change with I)
		r.otherParents(t.ws, t.verts[m-1], row, lgs[m:], c.ikey, &c.ivalid, &c.inter, &c.lists, sc)
	}
	c.over = false
	if !t.free[0] {
		n := r.chainBelow(t, c, -1, row[t.col], row, lgs, sc)
		return n, !c.over
	}
	j, hit := -1, false
	if c.top.stamp != nil {
		if j, hit = c.top.lookup(row); hit {
			return uint64(c.top.at(j)[0]), true
		}
	}
	n := r.chainWalks(t, c, -1, row[t.col], row, lgs, sc)
	if c.over {
		return 0, false
	}
	if j >= 0 {
		c.top.at(j)[0] = int64(n)
		c.top.done(j)
	}
	return n, true
}

// chainWalks returns the number of walks below position i (-1: u) from its vertex x through
// the later positions' candidates (b's in I), each vertex in the list of the one before it:
// from the memo of position i when it holds x.
func (r *runner) chainWalks(t *chainTail, c *chainCache, i int, x uint32, row []uint32, lgs []*labelGraph, sc *leafScratch) uint64 {
	var memo *sizeMemo
	j := -1
	if i >= 0 && c.memos[i].stamp != nil {
		memo = &c.memos[i]
		var hit bool
		if j, hit = memo.lookupAt(row, x); hit {
			return uint64(memo.at(j)[0])
		}
	}
	next := i + 1
	list := lgs[next].list(x)
	cand := r.bitsHost[uint64(t.verts[next])*r.bitWords:]
	var n uint64
	switch {
	case next == len(t.verts)-1 && len(t.ws) > 0:
		sc.read += min(len(list), len(c.inter))
		n = uint64(setops.IntersectCount(list, c.inter))
	case next == len(t.verts)-1:
		sc.read += len(list)
		for _, y := range list {
			if bitIn(cand, y) {
				n++
			}
		}
	default:
		sc.read += len(list)
		for _, y := range list {
			if bitIn(cand, y) {
				var ok bool
				if n, ok = checked.Add(n, r.chainWalks(t, c, next, y, row, lgs, sc)); !ok {
					c.over = true
				}
			}
		}
	}
	if j >= 0 && !c.over {
		memo.at(j)[0] = int64(n)
		memo.done(j)
	}
	return n
}

// chainBelow returns the placements of the positions after i (-1: u) for the path placed so
// far (c.path[:i+1], x position i's vertex): chainWalks from the first free position on, the
// positions before it placed one by one.
func (r *runner) chainBelow(t *chainTail, c *chainCache, i int, x uint32, row []uint32, lgs []*labelGraph, sc *leafScratch) uint64 {
	next := i + 1
	if t.free[next] {
		return r.chainWalks(t, c, i, x, row, lgs, sc)
	}
	list := lgs[next].list(x)
	if next == len(t.verts)-1 { // b: the walks less the vertices that may repeat one
		n := r.chainWalks(t, c, i, x, row, lgs, sc)
		for m := t.collide[next]; m != 0; m &= m - 1 {
			if r.chainEnd(t, c, row[bits.TrailingZeros64(m)], list) {
				n--
			}
		}
		for m := t.clash[next]; m != 0; m &= m - 1 {
			if r.chainEnd(t, c, c.path[bits.TrailingZeros32(m)], list) {
				n--
			}
		}
		return n
	}
	sc.read += len(list)
	cand := r.bitsHost[uint64(t.verts[next])*r.bitWords:]
	var n uint64
next:
	for _, y := range list {
		if !bitIn(cand, y) {
			continue
		}
		for m := t.collide[next]; m != 0; m &= m - 1 {
			if row[bits.TrailingZeros64(m)] == y {
				continue next
			}
		}
		for m := t.clash[next]; m != 0; m &= m - 1 {
			if c.path[bits.TrailingZeros32(m)] == y {
				continue next
			}
		}
		c.path[next] = y
		var ok bool
		if n, ok = checked.Add(n, r.chainBelow(t, c, next, y, row, lgs, sc)); !ok {
			c.over = true
		}
	}
	return n
}

// chainEnd reports whether y is a candidate of b's in I and in list (the list of b's
// neighbour's vertex by their edge).
func (r *runner) chainEnd(t *chainTail, c *chainCache, y uint32, list []uint32) bool {
	if !bitIn(r.bitsHost[uint64(t.verts[len(t.verts)-1])*r.bitWords:], y) {
		return false
	}
	if len(t.ws) > 0 {
		if _, in := slices.BinarySearch(c.inter, y); !in {
			return false
		}
	}
	_, in := slices.BinarySearch(list, y)
	return in
}

// otherParents writes into *inter the intersection of the lists of b's other parents' vertices
// in the row (ws, by their edges to b: lgs), filtered by b's candidates, unless key holds
// their vertices as last written (and *valid is set); it reports whether it did not (the
// same vertices).
func (r *runner) otherParents(ws []leafParent, b int, row []uint32, lgs []*labelGraph, key []uint32, valid *bool, inter *[]uint32, lists *[][]uint32, sc *leafScratch) bool {
	same := *valid
	for k, w := range ws {
		same = same && key[k] == row[w.col]
		key[k] = row[w.col]
	}
	if same {
		return true
	}
	*valid = true
	*lists = (*lists)[:0]
	for k, w := range ws {
		l := lgs[k].list(row[w.col])
		sc.read += len(l)
		*lists = append(*lists, l)
	}
	bitsB := r.bitsHost[uint64(b)*r.bitWords:]
	*inter = (*inter)[:0]
	for _, y := range setops.IntersectAll(*lists, &sc.buf, &sc.tmp) {
		if bitIn(bitsB, y) {
			*inter = append(*inter, y)
		}
	}
	return false
}
