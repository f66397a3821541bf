package cpu

import (
	"slices"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/setops"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// lastSum counts the last enumerated level together with the postponed vertices below it, for
// all of the level's data vertices at once, instead of looping over them: the last level v and
// the one postponed vertex e that hangs on it (a leaf group with v among its parents) form an
// edge whose other ends are fixed by earlier levels, and the number of such edges depends only on
// the data vertices of v's parents and of e's other parents (the key), not on the levels between
// them. It is computed once a key, with the per-element sizes behind it, and every assignment of
// the other levels corrects it for injectivity by inclusion-exclusion over the few vertices it
// uses and over the one other postponed vertex b, if any (a group without v among its parents),
// which may take v's or e's data vertex.
//
// With U the data vertices of the levels before v (all distinct), D the set of v (the common
// neighbours of its parents; v has no symmetry window and no induced checks), E_x = S_E ∩ N(x)
// the set of e when v takes x (S_E: the common neighbours of e's other parents) and B̄ the set of
// b minus U, the count of the assignments of v, e and b, all distinct and outside U, is
//
//	Σ_{x ∈ D∖U} [ (|B̄| - [x ∈ B̄]) |E_x ∖ U| - |B̄ ∩ E_x| ]
//	  = |B̄| T1 - Σ_{x ∈ B̄∩D} |E_x ∖ U| - Σ_{y ∈ B̄∩S_E} |D ∩ N(y) ∖ U|,
//	T1 = Σ_{x∈D} |E_x| - Σ_{u ∈ U∩D} |E_u| - Σ_{u ∈ U∩S_E} |D ∩ N(u) ∖ U|
//
// (x ∉ E_x, as E_x lies in x's neighbourhood; y ∈ E_x exactly when x ∈ N(y), for y ∈ S_E; x ∈
// D∖U ∩ B̄ is x ∈ B̄ ∩ D, as B̄ excludes U). The key's tables are Σ_{x∈D} |E_x|, |E_x| for every x
// of D and |D ∩ N(y)| for every y of S_E: |D| + |S_E| intersections a key, after which an
// assignment costs a lookup per element of B̄ and per used vertex. Without b the count is T1.
// Two triangles sharing a vertex (STMatch's q1: v and e the second triangle's other vertices,
// hanging on the shared vertex only, which is the key) take |N(c)| intersections a shared
// vertex c where the loop took one per (c, a, d).
//
// The level's checks are those of Plan.Admits: the candidate bit (every common neighbour of its
// parents is a candidate when it completes a match, see leafCounter), injectivity (D ∖ U) and no
// induced non-adjacency (plans with postponed vertices are never induced).
type lastSum struct {
	level   int   // v's level, the last
	eg, bg  int   // e's group and b's (-1: none)
	eParent int   // the index in e's Parents of its edge to v
	others  []int // the indices of e's other parents
	vLabel  pattern.Label
	eLabel  pattern.Label
	edge    pattern.Label // the v-e edge's label
	byRow   bool          // adjacency alone decides the v-e edge (hubEdge): hub rows may answer
	// levels: those whose data vertices determine D and S_E (the tables are for key)
	levelKey
	d, se  []uint32 // D and S_E for key
	sizeE  []int64  // |E_x| for each x of d
	countD []int64  // |D ∩ N(y)| for each y of se
	total  int64    // Σ |E_x|
	nbuf   []uint32
	bbar   []uint32
	inD    []uint32 // the used vertices in D
	inSE   []uint32 // the used vertices in S_E
	pos    []int32
}

// lastSumFor returns the last-level sum for pl (lc is the worker's leaf counter), or nil when it
// does not apply or is not expected to pay. It applies when the last level has no symmetry window
// and no induced checks, and the postponed vertices are e alone, or e and one other single vertex
// b whose parents are earlier levels. The loop over v costs, at every assignment of the earlier
// levels, the leaf counter's work for each element of D (e's set, an intersection or a size-cache
// lookup, and the class's count); the sum costs |D| + |S_E| intersections a key and a lookup per
// element of B̄ an assignment. So it is taken when the key leaves out some earlier level (the
// tables are shared by every assignment of the levels left out), and, where the key is every
// earlier level, when the leaf counter does not memoise e: the intersections are then the same
// as the loop's and the per-element work is saved (a vertex on top of a clique with another
// hanging on part of it: q5, q14), while a memoised e (its parents recur across assignments, q2)
// has its sizes from the cache, which the sum would compute again.
func lastSumFor(g *graph.Graph, pl *plan.Plan, lc *leafCounter) *lastSum {
	if !lastSumEnabled || len(pl.Levels) < 2 || len(pl.Groups) == 0 || len(pl.Groups) > 2 {
		return nil
	}
	last := len(pl.Levels) - 1
	lvl := &pl.Levels[last]
	if len(lvl.Backward) == 0 || lvl.Bounded() || len(lvl.NonAdjacent) > 0 {
		return nil
	}
	ls := &lastSum{level: last, eg: -1, bg: -1, vLabel: lvl.VertexLabel}
	for gi := range pl.Groups {
		lg := &pl.Groups[gi]
		if len(lg.Vertices) != 1 || len(lg.Parents) == 0 || lg.Bounded() {
			return nil
		}
		onV := -1
		for k, pe := range lg.Parents {
			if pe.Level == last {
				onV = k
			}
		}
		switch {
		case onV >= 0 && ls.eg < 0:
			ls.eg, ls.eParent = gi, onV
		case onV < 0 && ls.bg < 0:
			ls.bg = gi
		default:
			return nil
		}
	}
	if ls.eg < 0 {
		return nil
	}
	e := &pl.Groups[ls.eg]
	if len(e.Parents) < 2 {
		return nil // S_E would be every candidate of e
	}
	ls.eLabel, ls.edge = e.VertexLabel, e.Parents[ls.eParent].EdgeLabel
	ls.byRow = hubEdge(g, ls.edge)
	inKey := make([]bool, last)
	for _, be := range lvl.Backward {
		inKey[be.Level] = true
	}
	for k, pe := range e.Parents {
		if k != ls.eParent {
			ls.others = append(ls.others, k)
			inKey[pe.Level] = true
		}
	}
	for j, in := range inKey {
		if in {
			ls.levels = append(ls.levels, j)
		}
	}
	if len(ls.levels) == last && (lc.memoised[ls.eg] || !lastSumWhole) {
		// The key changes with every assignment: the sum saves the loop's per-element work
		// (the leaf counter's set and class count for each data vertex of v) but shares no
		// intersection, and loses to the leaf counter's size cache when that memoises e (its
		// parents recur across assignments).
		return nil
	}
	ls.key = make([]uint32, len(ls.levels))
	return ls
}

// lastSumSkipsLevel reports whether the search of pl over g counts its last level by the
// last-level sum with a key that leaves out an earlier level (q1's shape): it then never loops over
// the last level's data vertices, which Predict leaves out of its time. Where the key is every
// earlier level the sum saves per-element work but no intersection, and Predict keeps the loop's
// figures.
func lastSumSkipsLevel(g *graph.Graph, pl *plan.Plan) bool {
	ls := lastSumFor(g, pl, &leafCounter{memoised: make([]bool, len(pl.Groups))})
	return ls != nil && len(ls.levels) < ls.level
}

// lastSumPairs reports whether the search of pl over g counts its last level by the last-level
// sum with a key of every earlier level and D the same set as S_E (e's other parents are v's
// parents, by the same edge labels, and e and v have the same vertex label): rebuild then tests
// each pair of D once a key (pairSizes) where the loop over v intersects e's set for every
// element, and the last level's data vertices are never search nodes. Predict prices that
// (Terms): on STMatch's q20 on wiki-Vote, the tail order whose e and f sit on such a sum took 22
// s of CPU where another order of about the same estimate (its twins counted below a loop)
// took 68 s.
func lastSumPairs(g *graph.Graph, pl *plan.Plan) bool {
	lc := &leafCounter{memoised: make([]bool, len(pl.Groups))}
	for _, class := range pl.Classes {
		if b := memoPosition(pl, class.Groups); b >= 0 {
			lc.memoised[class.Groups[b]] = true
		}
	}
	ls := lastSumFor(g, pl, lc)
	if ls == nil || len(ls.levels) < ls.level {
		return false
	}
	lvl, e := &pl.Levels[ls.level], &pl.Groups[ls.eg]
	if len(lvl.Backward) != len(ls.others) || lvl.VertexLabel != e.VertexLabel {
		return false
	}
	for _, k := range ls.others {
		pe := e.Parents[k]
		if !slices.ContainsFunc(lvl.Backward, func(be plan.BackEdge) bool { return be.Level == pe.Level && be.EdgeLabel == pe.EdgeLabel }) {
			return false
		}
	}
	return true
}

// lastSumEnabled turns the last-level sum off (for tests and benchmarks).
var lastSumEnabled = true

// lastSumWhole lets benchmarks and tests turn off the sum where its key is every earlier level.
var lastSumWhole = true

// adjacent reports whether data vertices x and y are joined by an edge that satisfies the v-e
// edge's label.
func (ls *lastSum) adjacent(g *graph.Graph, x, y uint32) bool {
	if ls.byRow {
		_, ok := g.HasEdge(x, y)
		return ok
	}
	return g.HasEdgeLabelled(x, y, ls.edge.Value)
}

// countWithin returns |s ∩ NeighbourSet(x, vl, edge)| for a sorted s whose elements all have
// vertex label vl: by x's hub row when it has one and adjacency alone decides the edge.
func (ls *lastSum) countWithin(w *worker, s []uint32, x uint32, vl pattern.Label) int64 {
	if ls.byRow {
		if row := w.hubs.rowOf(x); row != nil {
			var n int64
			for _, y := range s {
				n += int64(row[y>>6] >> (y & 63) & 1)
			}
			return n
		}
	}
	list := plan.NeighbourSet(w.g, x, vl, ls.edge, &ls.nbuf)
	return int64(setops.IntersectCount(s, list))
}

// rebuild computes the tables for the data vertices in w.m. D is the level's set (kept by its
// level prefix when it has one) and S_E the prefix of e's chain without its last parent, v (see
// prefixChain): both are computed again only from the first parent that changed. When they are
// the same set (e's other parents are v's, as for a vertex on top of a clique), every element
// has both vertex labels and |D ∩ N(y)| is |E_y|.
func (ls *lastSum) rebuild(w *worker) {
	lc := &w.leaves
	ls.d = append(ls.d[:0], w.candidates(ls.level)...)
	ls.se = append(ls.se[:0], lc.chainPrefix(ls.eg, len(ls.others), w.m, w.mi)...)
	ls.sizeE = slices.Grow(ls.sizeE[:0], len(ls.d))[:len(ls.d)]
	ls.total = 0
	if slices.Equal(ls.d, ls.se) {
		ls.pairSizes(w)
		ls.countD = append(ls.countD[:0], ls.sizeE...)
	} else {
		for k, x := range ls.d {
			n := int64(0)
			if len(ls.se) > 0 {
				n = ls.countWithin(w, ls.se, x, ls.eLabel)
			}
			ls.sizeE[k] = n
		}
		ls.countD = slices.Grow(ls.countD[:0], len(ls.se))[:len(ls.se)]
		for k, y := range ls.se {
			n := int64(0)
			if len(ls.d) > 0 {
				n = ls.countWithin(w, ls.d, y, ls.vLabel)
			}
			ls.countD[k] = n
		}
	}
	for _, n := range ls.sizeE {
		ls.total += n
	}
	ls.keep(w.m)
}

// pairSizes sets sizeE when D is S_E (every element then has both vertex labels): |E_x| is the
// number of elements of D adjacent to x by the v-e edge, a symmetric relation, so each pair x < y
// is tested once, by x's hub row when it has one, else by merging the elements after x with x's
// list, and counted for both.
func (ls *lastSum) pairSizes(w *worker) {
	s, sizes := ls.d, ls.sizeE
	clear(sizes)
	for k, x := range s {
		tail := s[k+1:]
		if len(tail) == 0 {
			break
		}
		if ls.byRow {
			if row := w.hubs.rowOf(x); row != nil {
				rest := sizes[k+1 : k+1+len(tail)]
				var n int64
				for j, y := range tail {
					bit := int64(row[y>>6] >> (y & 63) & 1)
					n += bit
					rest[j] += bit
				}
				sizes[k] += n
				continue
			}
		}
		list := plan.NeighbourSet(w.g, x, ls.eLabel, ls.edge, &ls.nbuf)
		list = list[lowerBound(list, 0, tail[0]):]
		i, j := 0, 0
		for i < len(tail) && j < len(list) {
			switch {
			case tail[i] < list[j]:
				i++
			case tail[i] > list[j]:
				j++
			default:
				sizes[k]++
				sizes[k+1+i]++
				i++
				j++
			}
		}
	}
}

// find returns the position of x in the sorted s, or -1.
func find(s []uint32, x uint32) int {
	if k := lowerBound(s, 0, x); k < len(s) && s[k] == x {
		return k
	}
	return -1
}

// positions sets out[k] to the position in the sorted s of the k-th element of the sorted b, or
// -1: by binary search when s is much longer, else by one merge.
func positions(b, s []uint32, out []int32) []int32 {
	out = slices.Grow(out[:0], len(b))[:len(b)]
	if len(s) > 8*len(b) {
		for k, y := range b {
			out[k] = int32(find(s, y))
		}
		return out
	}
	j := 0
	for k, y := range b {
		for j < len(s) && s[j] < y {
			j++
		}
		if j < len(s) && s[j] == y {
			out[k] = int32(j)
		} else {
			out[k] = -1
		}
	}
	return out
}

// count returns the number of assignments of the last level and the postponed vertices for the
// data vertices of the earlier levels in w.m (ok is false on overflow).
func (ls *lastSum) count(w *worker) (uint64, bool) {
	if !ls.current(w.m) {
		ls.rebuild(w)
	}
	used := w.m[:ls.level]
	g := w.g
	// The used vertices that lie in D and in S_E: the only ones the corrections look at.
	inD, inSE := ls.inD[:0], ls.inSE[:0]
	t1 := ls.total
	for _, u := range used {
		if k := find(ls.d, u); k >= 0 {
			inD = append(inD, u)
			t1 -= ls.sizeE[k]
		}
		if find(ls.se, u) >= 0 {
			inSE = append(inSE, u)
		}
	}
	ls.inD, ls.inSE = inD, inSE
	// adjacentTo counts the vertices of us adjacent to y.
	adjacentTo := func(us []uint32, y uint32) int64 {
		var n int64
		for _, u := range us {
			if ls.adjacent(g, u, y) {
				n++
			}
		}
		return n
	}
	for _, u := range inSE {
		t1 -= ls.countD[find(ls.se, u)] - adjacentTo(inD, u)
	}
	if ls.bg < 0 {
		return uint64(t1), true
	}
	b := w.leaves.commonNeighbours(ls.bg, w.m, w.mi)
	bbar := ls.bbar[:0]
	for _, y := range b {
		if !slices.Contains(used, y) {
			bbar = append(bbar, y)
		}
	}
	ls.bbar = bbar
	// over sums, over the y of B̄ in set (at position p of set), table[p] less y's neighbours
	// among the used vertices us: t2 over D with |E_y ∖ U|, t3 over S_E with |D ∩ N(y) ∖ U|.
	over := func(set []uint32, table []int64, us []uint32) int64 {
		ls.pos = positions(bbar, set, ls.pos)
		var t int64
		for k, y := range bbar {
			if p := ls.pos[k]; p >= 0 {
				t += table[p] - adjacentTo(us, y)
			}
		}
		return t
	}
	t2, t3 := over(ls.d, ls.sizeE, inSE), over(ls.se, ls.countD, inD)
	n, ok := mulChecked(uint64(len(bbar)), uint64(t1))
	return n - uint64(t2+t3), ok
}
