package sgsi

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/checked"
	"github.com/submatch/submatch/internal/leafcount"
	"github.com/submatch/submatch/internal/par"
	"github.com/submatch/submatch/internal/setops"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// The leaf step (issue 21, branch sgsileaf): a count's leaves, the pattern vertices of degree
// one, are not joined, nor (branch sgsitail) the order's closing vertices, whose neighbours are
// all joined before them (plan.ClosingVertices: the vertices the cpu engine's plan postpones
// besides leaves, such as the middle of a path of degree-2 vertices or a vertex closing a
// cycle). The joins stop before them, and each row of the last table (a match of
// the other vertices) adds the number of injective placements of the counted vertices: per group
// (plan.GroupLeaves: the counted vertices of the same parents, edge labels and vertex label) its
// set S_g, the intersection of its parents' lists in the group's label graphs filtered by the
// group's candidates, less the row's vertices in it; groups in one collision class (vertex
// labels that may coincide) share data
// vertices, and the class is counted from the sizes of their sets' intersections as the cpu
// engine's leaf counter counts (internal/leafcount: falling factorials, binomials for groups the
// symmetry restrictions order, Venn regions and their DP for several groups). A leaf that a
// restriction ties to a joined vertex or to another group's leaf is joined instead
// (plan.GroupLeaves), and so are all leaves of an induced count (their non-adjacency to the
// row's other vertices is not counted) and of a listing. The step runs on the host, over the
// last table, on the count's threads: the tables are host memory on every backend.

// leafGroup is a leaf group as the leaf step reads it.
type leafGroup struct {
	parents []leafParent // by column
	pu      int          // the first parent (a pattern vertex): the sizes' key when it is the only one
	u       int          // a member: its candidates are every member's
	g       leafcount.Group
	// collide has bit j set for each column whose vertex may lie in the set: its label may be
	// the group's, and it is not a parent.
	collide uint64
}

// leafParent is a group's parent: its column and the label graph of the group's edge to it.
type leafParent struct {
	col int
	key lgKey
}

// splitLeaves returns order without the pattern's leaves (degree one, the neighbour of degree
// more), and the leaves in order.
func splitLeaves(p *pattern.Pattern, order []int) (joined, leaves []int) {
	for _, u := range order {
		if isLeaf(p, u) {
			leaves = append(leaves, u)
		} else {
			joined = append(joined, u)
		}
	}
	return joined, leaves
}

func isLeaf(p *pattern.Pattern, u int) bool {
	if p.Degree(u) != 1 {
		return false
	}
	return p.Degree(bits.TrailingZeros32(p.NeighborMask(u))) > 1
}

// planLeaves groups the leaves postponed (q.order holds the other vertices) under the
// restrictions restr, appends the leaves it cannot count to q.order and the counted ones after
// them, and sets q.joined, q.leafGroups and q.leafClasses.
func (q *query) planLeaves(postponed []int, restr []plan.Restriction, edgeLabels bool) {
	q.leafGroups, q.leafClasses = nil, nil
	if len(postponed) == 0 {
		q.joined = len(q.order)
		return
	}
	p := q.p
	order, groups, classes := plan.GroupLeaves(p, q.order, postponed, restr)
	order, groups, classes, tails := findTails(p, order, groups, classes, restr, q.tailLimit)
	q.joined = len(order)
	for _, lg := range groups {
		u := lg.Vertices[0]
		g := leafGroup{pu: order[lg.Parents[0].Level], u: u, g: leafcount.Of(&lg)}
		var parents uint64
		for _, pe := range lg.Parents {
			g.parents = append(g.parents, leafParent{pe.Level, lgKey{edgeKey(p, u, order[pe.Level], edgeLabels), q.vlabels[u], bothSides}})
			parents |= 1 << pe.Level
		}
		for j, w := range order[:q.joined] {
			if parents>>j&1 == 0 && plan.LabelsMayCollide(p.VertexLabel(w), lg.VertexLabel) {
				g.collide |= 1 << j
			}
		}
		q.leafGroups = append(q.leafGroups, g)
		order = append(order, lg.Vertices...)
	}
	for _, c := range classes {
		q.leafClasses = append(q.leafClasses, c.Groups)
	}
	q.tails, q.chains, q.pairs = nil, nil, nil
	for i, t := range tails {
		if t.pair {
			q.pairs = append(q.pairs, q.planPair(t, tails[i+1], order, edgeLabels))
		}
		if t.pair || i > 0 && tails[i-1].pair {
			order = append(order, t.inner[0], t.b)
			continue
		}
		if len(t.inner) > 1 {
			q.chains = append(q.chains, q.planChain(t, order, edgeLabels))
			order = append(append(order, t.inner...), t.b)
			continue
		}
		a, b, u := t.inner[0], t.b, t.u
		col := slices.Index(order, u)
		lt := leafTail{col: col, a: a, b: b,
			ka: lgKey{edgeKey(p, a, u, edgeLabels), q.vlabels[a], bothSides},
			kb: lgKey{edgeKey(p, b, a, edgeLabels), q.vlabels[b], bothSides},
			kr: lgKey{edgeKey(p, a, b, edgeLabels), q.vlabels[a], bothSides}}
		for _, w := range t.ws {
			lt.ws = append(lt.ws, leafParent{slices.Index(order, w), lgKey{edgeKey(p, b, w, edgeLabels), q.vlabels[b], bothSides}})
		}
		for j, w := range order[:q.joined] {
			if j != col && plan.LabelsMayCollide(p.VertexLabel(w), p.VertexLabel(a)) {
				lt.collideA |= 1 << j
			}
			if plan.LabelsMayCollide(p.VertexLabel(w), p.VertexLabel(b)) {
				lt.collideB |= 1 << j
			}
		}
		q.tails = append(q.tails, lt)
		order = append(order, a, b)
	}
	q.order = order
}

// leafTail is a tail the leaf step counts: the pendant path u - a - b, a of degree 2 and b a
// leaf, u joined (its column col), a and b counted; or (branch leafrate) a path u - a - b whose
// end b has other neighbours ws, all joined (b a closing vertex, such as the last vertices of
// q2/q_12_1's walk 4 - 5 - 6 - 7). For a row R with u's vertex v, A the list of v by the edge
// u-a (key ka) filtered by a's candidates, I the intersection of the ws' vertices' lists by
// their edges to b (all data vertices when there are none) and B_x that of x by the edge a-b
// (kb) filtered by b's candidates and I, the tail's placements are Σ_{x ∈ A∖R} |B_x ∖ R| = W -
// Σ_{x ∈ A∩R} |B_x| - Σ_{r ∈ R∩C(b)∩I} |A∖R ∩ N(r)| with W = Σ_{x∈A} |B_x| (x ≠ b as b is
// x's neighbour; b may be v). N(r) is r's list by the edge a-b with a's label (kr). Only the
// columns whose labels may be a's (collideA, never u's) or b's (collideB) are looked at.
type leafTail struct {
	col                int
	a, b               int
	ka, kb, kr         lgKey
	ws                 []leafParent // b's other neighbours, by column, and their edges to b
	collideA, collideB uint64
}

// keys returns the label graphs the tail reads: ka, kb, kr, then the ws' edges.
func (t *leafTail) keys() []lgKey { return withParents([]lgKey{t.ka, t.kb, t.kr}, t.ws) }

// withParents appends to k the label graphs of b's other parents' edges ws.
func withParents(k []lgKey, ws []leafParent) []lgKey {
	for _, w := range ws {
		k = append(k, w.key)
	}
	return k
}

// tailCache is one goroutine's A, |B_x| for each x of A and W of a tail, for u's vertex and the
// ws' in key (valid: written at all), and I for the ws' vertices; memo holds W by u's vertex
// for the ws' (tails whose columns collide with neither a nor b need no more).
type tailCache struct {
	key   []uint32
	valid bool
	hasA  bool // set holds A for key[0]
	wOK   bool // w holds W for A and I
	// byY memoises |A ∩ N(y)| by y, a candidate of b, while u's vertex stays (tails with ws).
	byY   sizeMemo
	set   []uint32
	sizes []int64
	w     int64
	inter []uint32
	lists [][]uint32
	memo  sizeMemo
}

// pathTail is a tail as findTails finds it: pattern vertices, inner from u's side (a_1, the
// neighbour of u, ... a_k, b's neighbour: a leafTail's a when k is 1, else a chainTail's).
type pathTail struct {
	u     int
	inner []int
	b     int
	ws    []int
	pair  bool // a pairTail with the next tail (both pendant, one inner vertex each)
}

// findTails takes out of GroupLeaves' result the tails the leaf step counts: a group of one
// vertex b with a parent a of degree 2 (the latest such parent), then (branch leafpath) as
// many of the vertices before a on its path as have degree 2 and are joined, up to limit(b)
// inner vertices in all (0: b is not a tail's), the path's other end u joined. The tail is cut
// at u's end until u is joined and not another tail's, two vertices or more stay joined, no
// other vertex of the order loses its last earlier neighbour (its join would be cartesian),
// no inner vertex is another tail's u, inner vertex or one of b's other parents (nor the
// other tails' inner vertices this tail's u or other parents), no restriction names an inner
// vertex or b, b's group is alone in its collision class, and no inner vertex's label is one
// that another counted vertex's may be (so the tail shares no data vertex with the other
// counted vertices, and the class products stay exact). Before them it takes the pairs of
// pendant tails on one u whose labels may coincide (pairFits; the first of a pair has pair
// set, the second follows it). It returns order without the tails' inner vertices, the groups
// (parents' levels renumbered) and classes without their b, and the tails.
func findTails(p *pattern.Pattern, order []int, groups []plan.LeafGroup, classes []plan.LeafClass, restr []plan.Restriction, limit func(b int) int) ([]int, []plan.LeafGroup, []plan.LeafClass, []pathTail) {
	var tails []pathTail
	drop := map[int]bool{} // groups taken out
	dropped := map[int]bool{}
	restricted := func(w int) bool {
		return slices.ContainsFunc(restr, func(r plan.Restriction) bool { return r.Less == w || r.Greater == w })
	}
	// Pairs of pendant tails on one u whose labels may coincide (pairTail), first: a tail of
	// the pair taken alone would leave the other joined.
	for gi := range groups {
		for gj := gi + 1; gj < len(groups) && !drop[gi]; gj++ {
			t1, ok1 := pendantTail(p, order, groups[gi], limit, restricted)
			t2, ok2 := pendantTail(p, order, groups[gj], limit, restricted)
			if drop[gj] || !ok1 || !ok2 || t1.u != t2.u || !pairFits(p, order, groups, classes, gi, gj, tails, dropped, t1, t2) {
				continue
			}
			t1.pair = true
			tails = append(tails, t1, t2)
			drop[gi], drop[gj] = true, true
			dropped[t1.inner[0]], dropped[t2.inner[0]] = true, true
		}
	}
	for gi, lg := range groups {
		if len(lg.Vertices) != 1 || drop[gi] {
			continue
		}
		b, a := lg.Vertices[0], -1
		for _, pe := range lg.Parents {
			if w := order[pe.Level]; p.Degree(w) == 2 {
				a = w
			}
		}
		if a < 0 || restricted(b) || !slices.ContainsFunc(classes, func(c plan.LeafClass) bool { return len(c.Groups) == 1 && c.Groups[0] == gi }) {
			continue
		}
		var ws []int
		for _, pe := range lg.Parents {
			if w := order[pe.Level]; w != a {
				ws = append(ws, w)
			}
		}
		// The path from b: a, then the joined vertices of degree 2 before it (inner, from b's
		// side), u the first vertex that is not one.
		inner := []int{a}
		u := bits.TrailingZeros32(p.NeighborMask(a) &^ (1 << b))
		for len(inner) < limit(b) && p.Degree(u) == 2 && slices.Contains(order, u) && !slices.Contains(ws, u) && !slices.Contains(inner, u) {
			next := bits.TrailingZeros32(p.NeighborMask(u) &^ (1 << inner[len(inner)-1]))
			inner, u = append(inner, u), next
		}
		for len(inner) > limit(b) {
			u, inner = inner[len(inner)-1], inner[:len(inner)-1]
		}
		for len(inner) > 0 && !tailFits(p, order, groups, gi, tails, dropped, restricted, pathTail{u: u, inner: inner, b: b, ws: ws}) {
			u, inner = inner[len(inner)-1], inner[:len(inner)-1]
		}
		if len(inner) == 0 {
			continue
		}
		slices.Reverse(inner)
		tails = append(tails, pathTail{u: u, inner: inner, b: b, ws: ws})
		drop[gi] = true
		for _, w := range inner {
			dropped[w] = true
		}
	}
	if len(tails) == 0 {
		return order, groups, classes, nil
	}
	var keep []int
	level := make([]int, len(order))
	for i, w := range order {
		level[i] = len(keep)
		if !dropped[w] {
			keep = append(keep, w)
		}
	}
	index := make([]int, len(groups))
	var kept []plan.LeafGroup
	for gi, lg := range groups {
		index[gi] = len(kept)
		if drop[gi] {
			continue
		}
		lg.Parents = slices.Clone(lg.Parents)
		for k := range lg.Parents {
			lg.Parents[k].Level = level[lg.Parents[k].Level]
		}
		kept = append(kept, lg)
	}
	var cls []plan.LeafClass
	for _, c := range classes {
		if drop[c.Groups[0]] { // (all its groups: a tail's b alone, or a pair's two)
			continue
		}
		nc := plan.LeafClass{}
		for _, gi := range c.Groups {
			nc.Groups = append(nc.Groups, index[gi])
		}
		cls = append(cls, nc)
	}
	return keep, kept, cls, tails
}

// tailFits reports whether findTails may count t (b's group gi, the tails before it taken and
// their inner vertices in dropped): see findTails.
func tailFits(p *pattern.Pattern, order []int, groups []plan.LeafGroup, gi int, tails []pathTail, dropped map[int]bool, restricted func(int) bool, t pathTail) bool {
	if !slices.Contains(order, t.u) || dropped[t.u] || len(order)-len(dropped)-len(t.inner) < 2 {
		return false
	}
	gone := func(w int) bool { return dropped[w] || slices.Contains(t.inner, w) }
	for _, w := range t.inner {
		if restricted(w) {
			return false
		}
		for hi, h := range groups {
			if hi != gi && plan.LabelsMayCollide(h.VertexLabel, p.VertexLabel(w)) {
				return false
			}
		}
	}
	mine := append(slices.Clone(t.inner), t.b)
	for _, o := range tails {
		// (u another tail's inner vertex, or an inner vertex another tail's u: the path
		// b - a - u - b' of two tails, a component of a disconnected pattern; u would not be
		// joined. The same for b's other parents.)
		for _, w := range o.inner {
			if w == t.u || slices.Contains(t.ws, w) {
				return false
			}
			for _, x := range mine {
				if plan.LabelsMayCollide(p.VertexLabel(w), p.VertexLabel(x)) {
					return false
				}
			}
		}
		for _, w := range t.inner {
			if w == o.u || slices.Contains(o.ws, w) {
				return false
			}
		}
	}
	return keepsJoins(p, order, gone)
}

// pendantTail returns the tail u - a - b of group lg if it is a pendant one that a pair may
// take: lg one leaf b whose parent a, joined, has degree 2, u joined, no restriction on a or b.
func pendantTail(p *pattern.Pattern, order []int, lg plan.LeafGroup, limit func(int) int, restricted func(int) bool) (pathTail, bool) {
	if len(lg.Vertices) != 1 || len(lg.Parents) != 1 {
		return pathTail{}, false
	}
	b, a := lg.Vertices[0], order[lg.Parents[0].Level]
	if p.Degree(a) != 2 || limit(b) < 1 || restricted(a) || restricted(b) {
		return pathTail{}, false
	}
	u := bits.TrailingZeros32(p.NeighborMask(a) &^ (1 << b))
	return pathTail{u: u, inner: []int{a}, b: b}, slices.Contains(order, u)
}

// pairFits reports whether findTails may count the pendant tails t1 and t2 (b's groups gi and
// gj) on one u as a pair: their groups alone in their collision classes or the two of one, u
// joined and not another tail's inner vertex, two vertices or more left joined, the joins
// connected, no label of theirs one that another counted vertex's or a joined vertex's may be
// (u's for the b's; the a's are u's neighbours): only the pair's vertices may coincide.
func pairFits(p *pattern.Pattern, order []int, groups []plan.LeafGroup, classes []plan.LeafClass, gi, gj int, tails []pathTail, dropped map[int]bool, t1, t2 pathTail) bool {
	a1, a2 := t1.inner[0], t2.inner[0]
	if dropped[t1.u] || len(order)-len(dropped)-2 < 2 {
		return false
	}
	if !slices.ContainsFunc(classes, func(c plan.LeafClass) bool {
		return slices.Equal(c.Groups, []int{gi, gj}) || slices.Equal(c.Groups, []int{gj, gi})
	}) {
		for _, g := range []int{gi, gj} {
			if !slices.ContainsFunc(classes, func(c plan.LeafClass) bool { return slices.Equal(c.Groups, []int{g}) }) {
				return false
			}
		}
	}
	mine := []int{a1, t1.b, a2, t2.b}
	may := func(l pattern.Label, skipA bool) bool {
		for k, x := range mine {
			if (!skipA || k%2 == 1) && plan.LabelsMayCollide(l, p.VertexLabel(x)) {
				return true
			}
		}
		return false
	}
	for hi, h := range groups {
		if hi != gi && hi != gj && may(h.VertexLabel, false) {
			return false
		}
	}
	for _, o := range tails {
		for _, w := range append(slices.Clone(o.inner), o.b) {
			if may(p.VertexLabel(w), false) {
				return false
			}
		}
	}
	for _, w := range order {
		if w != a1 && w != a2 && !dropped[w] && may(p.VertexLabel(w), w == t1.u) {
			return false
		}
	}
	return keepsJoins(p, order, func(w int) bool { return dropped[w] || w == a1 || w == a2 })
}

// keepsJoins reports whether no vertex of order that gone keeps loses its last earlier
// neighbour when the gone ones are taken out (a pattern of several components has vertices
// without one anyway).
func keepsJoins(p *pattern.Pattern, order []int, gone func(int) bool) bool {
	var all, kept uint32
	for _, w := range order {
		if gone(w) {
			all |= 1 << w
			continue
		}
		if kept != 0 && p.NeighborMask(w)&all != 0 && p.NeighborMask(w)&kept == 0 {
			return false
		}
		all |= 1 << w
		kept |= 1 << w
	}
	return true
}

// leafRows is how many rows a goroutine of the leaf step takes at a time (between checks of
// the context); leafPollEntries how many list entries it reads at most between two checks
// within them (rows whose sets are read per row, classLeaves or leafScan, read their parents'
// whole lists: on hubs, 4096 rows of them took seconds).
const (
	leafRows        = 4096
	leafPollEntries = 1 << 18
)

// leafScratch is one goroutine's buffers for the leaf step, kept by the runner from table to
// table (its caches are keyed by data vertices, not by rows).
type leafScratch struct {
	sets [][]uint32 // per group of the class counted: S_g before the row's vertices are taken out
	// per group: S_g as last written (leafSet), for the parents' data vertices in key (valid:
	// written at all); consecutive rows share their first columns
	gsets, key [][]uint32
	valid      []bool
	memos      []sizeMemo // per group of several parents: |S_g| by its last parent's vertex
	classMemos []sizeMemo // per class of several groups: its intersections' sizes
	lists      [][]uint32 // the parents' lists of a group of several parents
	tails      []tailCache
	chains     []chainCache
	pairs      []pairCache
	pairCnt    pairCounters // the pairs' counters by data vertex (nil without pairs)
	buf        []uint32     // their intersection's buffers (setops.IntersectAll)
	tmp        []uint32
	inter      [1 << plan.MaxClassGroups]int64
	used       [1 << plan.MaxClassGroups]int64
	gs         []leafcount.Group
	arith      leafcount.Counter
	// read counts the list entries the goroutine read, polled its count when it last checked
	// the context.
	read, polled int
	// The row before (prev, once hasPrev) and each factor's count for it (valid unless ok is
	// false): a factor whose columns (deps) the row shares with it is reused. The factors are
	// the classes, then the tails, the chains and the pairs (factor).
	prev    []uint32
	hasPrev bool
	deps    []uint64
	val     []uint64
	ok      []bool
}

// sizeMemo is a goroutine's memo of counts by the data vertex of one column (idx), for the
// data vertices of other columns (keyCols; key holds them): width values at val[i*width:] for
// idx's i-th candidate (cands), valid when stamp[i] is epoch (a new key takes a new epoch). A
// group of several parents memoises |S_g| by its last parent (the latest column) for the
// others, a class of several groups the sizes of its sets' intersections (before the row's
// vertices are taken out) by its groups' latest parent, a tail its W by u's vertex for b's
// other parents': rows that share the early columns repeat the last ones' few candidates
// (q2/q_12_1's 126 M rows intersected two lists each without it).
//
// With key columns the values also go to a second level (far) that keeps them across keys: a
// direct-mapped table of slots keyed by the key columns' vertices and idx's, read when the
// stamp misses. Rows whose key columns change from row to row (a group's two parents the last
// two columns, or any table sorted out of core before its chunks) still repeat their keys: at
// R-MAT 20, a table of q_12_1 of 8.4 M rows held 77 k pairs of a closing vertex's parents
// (issue 21, branch sgsi12).
type sizeMemo struct {
	idx     int
	keyCols []int
	cands   []uint32
	width   int
	key     []uint32
	ok      bool
	epoch   uint32
	stamp   []uint32
	val     []int64
	// far: slot s holds the key columns' vertices and idx's at farKeys[s*(len(keyCols)+1):],
	// its values at farVals[s*width:], when bit s of farFull is set; farShift maps a hash to
	// a slot (64 less the slots' log2).
	farKeys  []uint32
	farVals  []int64
	farFull  []uint64
	farShift uint
	// farTries counts the stamp misses the second level was read for since the last
	// farCheck of them, farHits those it held: a level that holds fewer than one in
	// farMinHitRate is let go (its probes and writes, a cache miss each, cost more than it saves).
	farTries, farHits uint32
}

// farCheck is how many reads of a memo's second level are weighed at a time; farMinHitRate the
// least share of them (1/farMinHitRate) it must hold to be kept.
const (
	farCheck      = 1 << 16
	farMinHitRate = 16
)

// maxMemoValues bounds a sizeMemo's values (8 bytes each, per goroutine; a stamp per
// candidate besides); a memo of more is not kept (each row then intersects). maxFarValues
// bounds its second level's (far) values the same way (its keys besides).
const (
	maxMemoValues = 1 << 20
	maxFarValues  = 1 << 18
)

// init sets the memo up for idx's candidates cands, width values each, unless there are too
// many or --memory has no room: then stamp stays nil, the memo unused. With key columns it
// also sets up the second level (far), as many slots as there may be keys up to
// maxFarValues/width, when --memory has room for them.
func (m *sizeMemo) init(r *runner, idx int, keyCols []int, cands []uint32, width int) {
	m.idx, m.keyCols, m.cands, m.width = idx, keyCols, cands, width
	n := len(cands)
	if n*width > maxMemoValues || r.reserve("the leaf step's memo", uint64(4*n+8*n*width)) != nil {
		return
	}
	m.key, m.stamp, m.val = make([]uint32, len(keyCols)), make([]uint32, n), make([]int64, n*width)
	if len(keyCols) == 0 {
		return
	}
	keys := math.Inf(1) // (the keys there may be: the product of the columns' candidates)
	if r.q != nil {
		keys = float64(n)
		for _, c := range keyCols {
			keys *= float64(len(r.cands[r.q.order[c]]))
		}
	}
	slots := uint64(1)
	for slots < maxFarValues/uint64(width) && float64(slots) < keys {
		slots *= 2
	}
	if slots <= uint64(n) || r.reserve("the leaf step's memo", farBytes(slots, len(keyCols), width)) != nil {
		return
	}
	m.farKeys = make([]uint32, slots*uint64(len(keyCols)+1))
	m.farVals = make([]int64, slots*uint64(width))
	m.farFull = make([]uint64, (slots+63)/64)
	m.farShift = uint(64 - bits.TrailingZeros64(slots))
}

// farBytes is the host memory of a second level of slots slots for keyCols key columns and
// width values a slot.
func farBytes(slots uint64, keyCols, width int) uint64 {
	return slots*(4*uint64(keyCols+1)+8*uint64(width)) + 8*((slots+63)/64)
}

// lookup returns the index of the row's idx vertex among the candidates (-1: not one) and
// whether its values (at) hold for the row's key columns.
func (m *sizeMemo) lookup(row []uint32) (i int, hit bool) { return m.lookupAt(row, row[m.idx]) }

// lookupAt is lookup for data vertex x instead of the row's idx vertex. A stamp that misses
// takes the values from the second level when a slot holds them; a second level that held
// too few of farCheck reads is let go.
func (m *sizeMemo) lookupAt(row []uint32, x uint32) (i int, hit bool) {
	same := m.ok
	for k, c := range m.keyCols {
		same = same && m.key[k] == row[c]
		m.key[k] = row[c]
	}
	if !same {
		m.ok = true
		if m.epoch++; m.epoch == 0 { // (wrapped: every stamp is stale)
			clear(m.stamp)
			m.epoch = 1
		}
	}
	i, found := slices.BinarySearch(m.cands, x)
	if !found {
		return -1, false
	}
	if m.stamp[i] == m.epoch {
		return i, true
	}
	if m.farFull == nil {
		return i, false
	}
	if m.farTries++; m.farTries == farCheck {
		if m.farHits < farCheck/farMinHitRate {
			m.farKeys, m.farVals, m.farFull = nil, nil, nil
			return i, false
		}
		m.farTries, m.farHits = 0, 0
	}
	s := m.farSlot(x)
	if m.farFull[s/64]>>(s%64)&1 == 0 {
		return i, false
	}
	k := len(m.key)
	keys := m.farKeys[s*uint64(k+1):]
	if keys[k] != x || !slices.Equal(keys[:k], m.key) {
		return i, false
	}
	copy(m.at(i), m.farVals[s*uint64(m.width):(s+1)*uint64(m.width)])
	m.stamp[i] = m.epoch
	m.farHits++
	return i, true
}

// farSlot is the second level's slot of the current key with idx's vertex x.
func (m *sizeMemo) farSlot(x uint32) uint64 {
	const mul = 0x9e3779b97f4a7c15
	h := (uint64(x) + 1) * mul
	for _, v := range m.key {
		h = (h ^ uint64(v)) * mul
	}
	return h >> m.farShift
}

// at returns candidate i's values.
func (m *sizeMemo) at(i int) []int64 { return m.val[i*m.width : (i+1)*m.width] }

// done marks candidate i's values (written through at) valid for the current key, and writes
// them to the second level (over the slot's earlier key); i < 0 (not a candidate) is ignored.
func (m *sizeMemo) done(i int) {
	if i < 0 {
		return
	}
	m.stamp[i] = m.epoch
	if m.farFull == nil {
		return
	}
	x := m.cands[i]
	s := m.farSlot(x)
	k := len(m.key)
	keys := m.farKeys[s*uint64(k+1) : (s+1)*uint64(k+1)]
	copy(keys, m.key)
	keys[k] = x
	copy(m.farVals[s*uint64(m.width):], m.at(i))
	m.farFull[s/64] |= 1 << (s % 64)
}

// drop lets go of the memo's memory: it is unused from then on.
func (m *sizeMemo) drop() {
	m.key, m.stamp, m.val, m.ok = nil, nil, nil, false
	m.farKeys, m.farVals, m.farFull = nil, nil, nil
}

// bytes is the memo's host memory.
func (m *sizeMemo) bytes() uint64 {
	b := 4*uint64(len(m.stamp)) + 8*uint64(len(m.val))
	if m.farFull != nil {
		b += farBytes(uint64(len(m.farVals)/m.width), len(m.keyCols), m.width)
	}
	return b
}

// newLeafScratch appends a goroutine's buffers for the leaf step of r's query to
// r.leafScratch, before its memos reserve their memory (so that each memo's reservation
// counts those set up before it, leafBytes). The pairs' counters come first: over --memory
// (once the memos have given way, shedLeafMemos) it appends nothing and returns the error.
func (r *runner) newLeafScratch() error {
	q := r.q
	ng := len(q.leafGroups)
	sc := &leafScratch{sets: make([][]uint32, ng), gsets: make([][]uint32, ng), key: make([][]uint32, ng),
		valid: make([]bool, ng), memos: make([]sizeMemo, ng), tails: make([]tailCache, len(q.tails)),
		prev: make([]uint32, q.joined), val: make([]uint64, q.factors()), ok: make([]bool, q.factors()),
		deps: make([]uint64, 0, q.factors()), pairs: make([]pairCache, len(q.pairs))}
	if len(q.pairs) > 0 {
		nv := r.s.g.NumVertices()
		const what = "the leaf step's pair counters"
		err := r.reserve(what, pairBytes(nv))
		if err != nil && r.shedLeafMemos() {
			err = r.reserve(what, pairBytes(nv))
		}
		if err != nil {
			return err
		}
		sc.pairCnt = pairCounters{cnt: make([]uint64, nv), touched: make([]uint32, 0, nv)}
	}
	r.leafScratch = append(r.leafScratch, sc)
	deps := make([]uint64, ng)
	for gi, g := range q.leafGroups {
		sc.key[gi] = make([]uint32, len(g.parents))
		deps[gi] = g.collide
		last := 0
		for _, pe := range g.parents {
			deps[gi] |= 1 << pe.col
			last = max(last, pe.col)
		}
		if len(g.parents) > 1 {
			var early []int
			for _, pe := range g.parents {
				if pe.col != last {
					early = append(early, pe.col)
				}
			}
			sc.memos[gi].init(r, last, early, r.cands[q.order[last]], 1)
		}
	}
	sc.classMemos = make([]sizeMemo, len(q.leafClasses))
	for ci, class := range q.leafClasses {
		var d, parents uint64
		for _, gi := range class {
			d |= deps[gi]
			for _, pe := range q.leafGroups[gi].parents {
				parents |= 1 << pe.col
			}
		}
		sc.deps = append(sc.deps, d)
		if len(class) > 1 {
			last := bits.Len64(parents) - 1
			var early []int
			for c := range last {
				if parents>>c&1 != 0 {
					early = append(early, c)
				}
			}
			sc.classMemos[ci].init(r, last, early, r.cands[q.order[last]], 1<<len(class))
		}
	}
	for i, t := range q.tails {
		d := 1<<t.col | t.collideA | t.collideB
		for _, w := range t.ws {
			d |= 1 << w.col
		}
		sc.deps = append(sc.deps, d)
		c := &sc.tails[i]
		c.key, c.lists = make([]uint32, 1+len(t.ws)), make([][]uint32, 0, len(t.ws))
		// (A tail whose columns collide with a or b corrects W per row: tailCount.)
		idx, keys := tailMemoCols(&t)
		c.memo.init(r, idx, keys, r.cands[q.order[idx]], 1)
		if len(t.ws) > 0 {
			c.byY.init(r, t.col, []int{t.col}, r.cands[t.b], 1)
		}
	}
	for i := range q.chains {
		sc.chains = append(sc.chains, r.newChainCache(&q.chains[i]))
		sc.deps = append(sc.deps, q.chains[i].deps)
	}
	for i, t := range q.pairs {
		sc.pairs[i].memo.init(r, t.col, nil, r.cands[q.order[t.col]], 1)
		sc.deps = append(sc.deps, 1<<t.col)
	}
	return nil
}

// tailMemoCols returns the columns a tail's memo of W is keyed by: the latest of u's and the
// ws' (idx, its stamps') and the others (keys, their epoch's).
func tailMemoCols(t *leafTail) (idx int, keys []int) {
	idx = t.col
	for _, w := range t.ws {
		idx = max(idx, w.col)
	}
	if idx != t.col {
		keys = append(keys, t.col)
	}
	for _, w := range t.ws {
		if w.col != idx {
			keys = append(keys, w.col)
		}
	}
	return idx, keys
}

// leafBytes is the host memory of the leaf step's sizes, memos and pair counters.
func (r *runner) leafBytes() uint64 {
	b := r.pairCounterBytes()
	for _, s := range r.leafSizes {
		b += 4 * uint64(len(s))
	}
	for _, sc := range r.leafScratch {
		for _, m := range sc.memos {
			b += m.bytes()
		}
		for _, c := range sc.tails {
			b += c.memo.bytes() + c.byY.bytes()
		}
		for _, c := range sc.chains {
			b += c.top.bytes()
			for _, m := range c.memos {
				b += m.bytes()
			}
		}
		for _, c := range sc.pairs {
			b += c.memo.bytes()
		}
		for _, m := range sc.classMemos {
			b += m.bytes()
		}
	}
	return b
}

// pairCounterBytes is the host memory of the goroutines' pair counters (pairCounters).
func (r *runner) pairCounterBytes() uint64 {
	var b uint64
	for _, sc := range r.leafScratch {
		b += sc.pairCnt.bytes()
	}
	return b
}

// shedLeafMemos lets go of the leaf step's memos (for the rest of the count) and sizes (a later
// table may take them again), not the pair counters; it reports whether they held any memory.
func (r *runner) shedLeafMemos() bool {
	if r.leafBytes() == r.pairCounterBytes() {
		return false
	}
	clear(r.leafSizes)
	for _, sc := range r.leafScratch {
		for i := range sc.memos {
			sc.memos[i].drop()
		}
		for i := range sc.classMemos {
			sc.classMemos[i].drop()
		}
		for i := range sc.tails {
			sc.tails[i].memo.drop()
			sc.tails[i].byY.drop()
		}
		for i := range sc.pairs {
			sc.pairs[i].memo.drop()
		}
		for i := range sc.chains {
			sc.chains[i].top.drop()
			for j := range sc.chains[i].memos {
				sc.chains[i].memos[j].drop()
			}
		}
	}
	return true
}

// leafCount adds to the total the leaf placements of every row of table (rows of width
// q.joined), on the count's threads.
func (r *runner) leafCount(table []uint32) error {
	q := r.q
	k := q.joined
	rows := len(table) / k
	lgs := make([][]*labelGraph, len(q.leafGroups), len(q.leafGroups)+len(q.tails)+len(q.chains)+len(q.pairs))
	// (After the groups': lgs[len(q.leafGroups)+i] is tail i's keys(), then chain i's
	// allKeys() at lgs[len(q.leafGroups)+len(q.tails)+i], then the pairs' keys().)
	for _, t := range q.tails {
		lgs = append(lgs, r.labels(t.keys()))
	}
	for _, t := range q.chains {
		lgs = append(lgs, r.labels(t.allKeys()))
	}
	for _, t := range q.pairs {
		lgs = append(lgs, r.labels(t.keys()))
	}
	if r.leafSizes == nil {
		r.leafSizes = make([][]uint32, len(q.leafGroups))
	}
	for i, g := range q.leafGroups {
		for _, pe := range g.parents {
			lgs[i] = append(lgs[i], r.s.label(pe.key))
		}
		if c := r.cands[g.pu]; len(g.parents) == 1 && r.leafSizes[i] == nil && rows >= len(c) && r.reserve("the leaf step's sizes", 4*uint64(len(c))) == nil {
			// Rows share parents: |S_g| once for each candidate of the parent (over
			// --memory: each row scans its parent's list).
			sizes := make([]uint32, len(c))
			par.For(len(c), r.threads, func(x int) { sizes[x] = uint32(r.leafScan(i, c[x], lgs[i][0])) })
			r.leafSizes[i] = sizes
		}
	}
	nw, err := r.leafWorkers(rows)
	if err != nil {
		return err
	}
	var next atomic.Int64
	sums := make([]uint64, nw)
	errs := make([]error, nw)
	read := make([]int, nw)
	for w := range nw {
		read[w] = r.leafScratch[w].read
	}
	defer func() { // (the entries the step read: its Items)
		if r.st == nil || len(r.st.PerStep) <= len(q.steps) {
			return // (a runner of the tests, without the steps' stats)
		}
		for w := range nw {
			r.st.PerStep[len(q.steps)].Items += uint64(r.leafScratch[w].read - read[w])
		}
	}()
	par.For(nw, nw, func(w int) {
		sc := r.leafScratch[w]
		sum := uint64(0)
		for {
			if err := r.ctx.Err(); err != nil {
				errs[w] = err
				break
			}
			start := int(next.Add(leafRows)) - leafRows
			if start >= rows {
				break
			}
			for x := start; x < min(rows, start+leafRows); x++ {
				if sc.read-sc.polled >= leafPollEntries {
					sc.polled = sc.read
					if err := r.ctx.Err(); err != nil {
						errs[w], sums[w] = err, sum
						return
					}
				}
				n, ok := r.rowLeaves(table[x*k:(x+1)*k], lgs, sc)
				if ok {
					sum, ok = checked.Add(sum, n)
				}
				if !ok {
					errs[w] = fmt.Errorf("sgsi: the leaf step's count: %w", engine.ErrOverflow)
					return
				}
			}
		}
		sums[w] = sum
	})
	for w := range nw {
		var ok bool
		if r.total, ok = checked.Add(r.total, sums[w]); !ok && errs[w] == nil {
			errs[w] = fmt.Errorf("sgsi: the leaf step's count: %w", engine.ErrOverflow)
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// leafWorkers sets up the leaf step's goroutines for a table of rows rows (newLeafScratch: their
// memos within --memory) and returns how many count it: fewer where --memory leaves no room for
// another's pair counters.
func (r *runner) leafWorkers(rows int) (int, error) {
	nw := rowWorkers(rows, r.threads)
	for len(r.leafScratch) < nw {
		if err := r.newLeafScratch(); err != nil {
			if len(r.leafScratch) == 0 {
				return 0, err
			}
			return len(r.leafScratch), nil // (fewer goroutines: each holds its counters)
		}
	}
	return nw, nil
}

// rowLeaves returns the number of injective placements of the counted leaves for one row (the
// product of its factors: collision classes, tails, chains and pairs); ok is false on uint64
// overflow (of a factor or of the product) unless a later factor is 0, which makes the row's
// count 0 whatever came before. A factor whose columns the row shares with the goroutine's row
// before keeps that row's count: rows that share a prefix (a join's extensions of one row)
// recount only the factors on their last columns.
func (r *runner) rowLeaves(row []uint32, lgs [][]*labelGraph, sc *leafScratch) (uint64, bool) {
	changed := ^uint64(0)
	if sc.hasPrev {
		changed = 0
		for j, x := range row {
			if sc.prev[j] != x {
				changed |= 1 << j
			}
		}
	}
	copy(sc.prev, row)
	sc.hasPrev = true
	total := uint64(1)
	over := false // a factor or the product overflowed: the row's answer unless a factor is 0
	for f := range sc.val {
		if !sc.ok[f] || sc.deps[f]&changed != 0 {
			n, ok := r.factor(f, row, lgs, sc)
			if !ok {
				over, sc.ok[f] = true, false
				continue
			}
			sc.val[f], sc.ok[f] = n, true
		}
		n := sc.val[f]
		if n == 0 { // (the factors after it are not counted for this row: not reusable)
			clear(sc.ok[f+1:])
			return 0, true
		}
		var ok bool
		if total, ok = checked.Mul(total, n); !ok {
			over = true
		}
	}
	if over {
		return 0, false
	}
	return total, true
}

// factors is the number of the leaf step's factors of a row: its collision classes, tails,
// chains and pairs, in this order (factor).
func (q *query) factors() int {
	return len(q.leafClasses) + len(q.tails) + len(q.chains) + len(q.pairs)
}

// factor returns factor f of the row's count (query.factors): a collision class's placements,
// a tail's (0 where its count is not positive), a chain's or a pair's; ok is false on uint64
// overflow. A tail's, chain's or pair's label graphs follow the groups' in lgs, in the order of
// the factors.
func (r *runner) factor(f int, row []uint32, lgs [][]*labelGraph, sc *leafScratch) (uint64, bool) {
	q := r.q
	if f < len(q.leafClasses) {
		class := q.leafClasses[f]
		if len(class) == 1 {
			gi := class[0]
			return leafcount.Placements(q.leafGroups[gi].g, r.leafSize(gi, row, lgs[gi], sc))
		}
		return r.classLeaves(f, row, lgs, sc)
	}
	i := f - len(q.leafClasses)
	l := lgs[len(q.leafGroups)+i]
	switch {
	case i < len(q.tails):
		return uint64(max(r.tailCount(i, row, l, sc), 0)), true
	case i < len(q.tails)+len(q.chains):
		return r.chainCount(i-len(q.tails), row, l, sc)
	default:
		return r.pairCount(i-len(q.tails)-len(q.chains), row, l, sc)
	}
}

// labels returns the label graphs of keys (built before the step).
func (r *runner) labels(keys []lgKey) []*labelGraph {
	l := make([]*labelGraph, len(keys))
	for i, k := range keys {
		l[i] = r.s.label(k)
	}
	return l
}

// tailCount returns tail i's placements for the row (leafTail), lgs its label graphs (keys).
func (r *runner) tailCount(i int, row []uint32, lgs []*labelGraph, sc *leafScratch) int64 {
	t := &r.q.tails[i]
	c := &sc.tails[i]
	var n int64
	if c.memo.stamp != nil {
		k, hit := c.memo.lookup(row)
		if hit {
			n = c.memo.at(k)[0]
		} else {
			r.tailFill(t, c, row, lgs, sc)
			if n = c.w; k >= 0 {
				c.memo.at(k)[0] = n
				c.memo.done(k)
			}
		}
		if t.collideA|t.collideB == 0 {
			return n
		}
		r.tailSet(t, c, row[t.col], lgs, sc) // (a hit leaves A as it was)
	} else {
		r.tailFill(t, c, row, lgs, sc)
		n = c.w
	}
	bitsB := r.bitsHost[uint64(t.b)*r.bitWords:]
	for j, x := range row {
		if t.collideA>>j&1 == 0 {
			continue
		}
		if k, found := slices.BinarySearch(c.set, x); found {
			n -= r.tailSize(t, c, row, k, lgs, sc)
		}
	}
	for j, y := range row {
		if t.collideB>>j&1 == 0 || !bitIn(bitsB, y) || !r.inParents(t.ws, row, y, lgs[3:]) {
			continue
		}
		nl := lgs[2].list(y)
		m := r.tailAdj(c, row, y, lgs[2], sc)
		for jj, x := range row { // (A ∩ R is not in the sum)
			if t.collideA>>jj&1 != 0 && x != y {
				if _, found := slices.BinarySearch(c.set, x); found {
					if _, adj := slices.BinarySearch(nl, x); adj {
						m--
					}
				}
			}
		}
		n -= m
	}
	return n
}

// inParents reports whether y is in the lists of the ws' vertices of the row (lgs: their label
// graphs), that is in I when y is a candidate of b.
func (r *runner) inParents(ws []leafParent, row []uint32, y uint32, lgs []*labelGraph) bool {
	for k, w := range ws {
		if _, found := slices.BinarySearch(lgs[k].list(row[w.col]), y); !found {
			return false
		}
	}
	return true
}

// bitIn reports whether bit x of the bitset b is set.
func bitIn(b []uint32, x uint32) bool { return b[x/32]>>(x&31)&1 != 0 }

// tailFill writes the tail's cache (tailCache) for the row's u and ws vertices unless it holds
// them: I when the ws' vertices changed, A when u's did (tailSet), then W. Without ws each
// |B_x| is kept (sizes). With ws, W = Σ_{x∈A} |B_x ∩ I| is summed by y of I instead:
// Σ_{y∈I} |A ∩ N(y)|, N(y) y's list by the a-b edge (kr), each term memoised by y while u's
// vertex stays (byY). Rows that change the ws' vertices from row to row (a tail closing on the
// last column) then read |I| memo entries where they intersected each x's list with I (issue
// 21, q20/q_12_1: A a hub's list of thousands, I a handful of common neighbours).
func (r *runner) tailFill(t *leafTail, c *tailCache, row []uint32, lgs []*labelGraph, sc *leafScratch) {
	sameW := c.valid
	if len(t.ws) > 0 {
		sameW = r.otherParents(t.ws, t.b, row, lgs[3:], c.key[1:], &c.valid, &c.inter, &c.lists, sc)
	}
	c.valid = true
	if r.tailSet(t, c, row[t.col], lgs, sc) && sameW && c.wOK {
		return
	}
	c.w, c.wOK = 0, true
	if len(t.ws) == 0 {
		for _, n := range c.sizes {
			c.w += n
		}
		return
	}
	for _, y := range c.inter {
		c.w += r.tailAdj(c, row, y, lgs[2], sc)
	}
}

// tailSet writes A for u's vertex v (and, without ws, each |B_x|) unless the cache holds it,
// which it reports.
func (r *runner) tailSet(t *leafTail, c *tailCache, v uint32, lgs []*labelGraph, sc *leafScratch) bool {
	if c.hasA && c.key[0] == v {
		return true
	}
	c.key[0], c.hasA, c.wOK = v, true, false
	bitsA := r.bitsHost[uint64(t.a)*r.bitWords:]
	c.set = c.set[:0]
	list := lgs[0].list(v)
	sc.read += len(list)
	for _, x := range list {
		if bitIn(bitsA, x) {
			c.set = append(c.set, x)
		}
	}
	if len(t.ws) > 0 {
		return false
	}
	c.sizes = c.sizes[:0]
	bitsB := r.bitsHost[uint64(t.b)*r.bitWords:]
	for _, x := range c.set {
		var n int64
		bl := lgs[1].list(x)
		sc.read += len(bl)
		for _, y := range bl {
			if bitIn(bitsB, y) {
				n++
			}
		}
		c.sizes = append(c.sizes, n)
	}
	return false
}

// tailAdj returns |A ∩ N(y)| for a vertex y of b's candidates (N(y): y's list by the a-b edge,
// lg), from the tail's memo by y (byY: valid while u's vertex stays) when it holds it.
func (r *runner) tailAdj(c *tailCache, row []uint32, y uint32, lg *labelGraph, sc *leafScratch) int64 {
	i, hit := -1, false
	if c.byY.stamp != nil {
		i, hit = c.byY.lookupAt(row, y)
	}
	if hit {
		return c.byY.at(i)[0]
	}
	nl := lg.list(y)
	sc.read += min(len(nl), len(c.set))
	n := int64(setops.IntersectCount(c.set, nl))
	if i >= 0 {
		c.byY.at(i)[0] = n
		c.byY.done(i)
	}
	return n
}

// tailSize returns |B_x| (|B_x ∩ I| with ws, I written for the row's ws vertices) for x, the
// k-th vertex of A.
func (r *runner) tailSize(t *leafTail, c *tailCache, row []uint32, k int, lgs []*labelGraph, sc *leafScratch) int64 {
	if len(t.ws) == 0 {
		return c.sizes[k]
	}
	if !r.otherParents(t.ws, t.b, row, lgs[3:], c.key[1:], &c.valid, &c.inter, &c.lists, sc) {
		c.wOK = false // (I changed without W)
	}
	bl := lgs[1].list(c.set[k])
	sc.read += min(len(bl), len(c.inter))
	return int64(setops.IntersectCount(bl, c.inter))
}

// leafCand reports whether x is a candidate of group gi's vertices.
func (r *runner) leafCand(gi int, x uint32) bool {
	b := r.bitsHost[uint64(r.q.leafGroups[gi].u)*r.bitWords:]
	return b[x/32]>>(x&31)&1 != 0
}

// leafScan returns |S_g| of group gi for the parent's vertex v: v's list counted without being
// written out.
func (r *runner) leafScan(gi int, v uint32, lg *labelGraph) int64 {
	var n int64
	for _, x := range lg.list(v) {
		if r.leafCand(gi, x) {
			n++
		}
	}
	return n
}

// leafSet returns S_g of group gi for the row: the intersection of the parents' lists filtered
// by the group's candidates, written into sc.gsets[gi] unless it holds the set of the same
// parents' data vertices.
func (r *runner) leafSet(gi int, row []uint32, lgs []*labelGraph, sc *leafScratch) []uint32 {
	g := &r.q.leafGroups[gi]
	key := sc.key[gi]
	same := sc.valid[gi]
	for k, pe := range g.parents {
		same = same && key[k] == row[pe.col]
		key[k] = row[pe.col]
	}
	if same {
		return sc.gsets[gi]
	}
	sc.valid[gi] = true
	sc.lists = sc.lists[:0]
	for k, pe := range g.parents {
		list := lgs[k].list(row[pe.col])
		sc.read += len(list)
		sc.lists = append(sc.lists, list)
	}
	dst := sc.gsets[gi][:0]
	for _, x := range setops.IntersectAll(sc.lists, &sc.buf, &sc.tmp) {
		if r.leafCand(gi, x) {
			dst = append(dst, x)
		}
	}
	sc.gsets[gi] = dst
	return dst
}

// leafSize returns |S_g| less the row's vertices in it, for group gi alone: from r.leafSizes
// when it holds the parent's vertex, else by leafScan; for a group of several parents from its
// set (leafSet).
func (r *runner) leafSize(gi int, row []uint32, lgs []*labelGraph, sc *leafScratch) int64 {
	g := &r.q.leafGroups[gi]
	if len(g.parents) > 1 {
		if sc.memos[gi].stamp != nil {
			return r.memoSize(gi, row, lgs, sc)
		}
		set := r.leafSet(gi, row, lgs, sc)
		n := int64(len(set))
		for c, x := range row {
			if g.collide>>c&1 != 0 {
				if _, found := slices.BinarySearch(set, x); found {
					n--
				}
			}
		}
		return n
	}
	lg := lgs[0]
	v := row[g.parents[0].col]
	list := lg.list(v)
	n := int64(-1)
	if sizes := r.leafSizes[gi]; sizes != nil {
		if i, found := slices.BinarySearch(r.cands[g.pu], v); found {
			n = int64(sizes[i])
		}
	}
	if n < 0 {
		n = r.leafScan(gi, v, lg)
		sc.read += len(list)
	}
	for c, x := range row {
		if g.collide>>c&1 != 0 && r.leafCand(gi, x) {
			if _, found := slices.BinarySearch(list, x); found {
				n--
			}
		}
	}
	return n
}

// classLeaves counts collision class ci of several groups for one row: the sizes of every
// intersection of their sets, from the class's memo (sizeMemo) or from the sets written out
// (the smallest searched in the others), less the row's vertices in each, then leafcount's
// class count.
func (r *runner) classLeaves(ci int, row []uint32, lgs [][]*labelGraph, sc *leafScratch) (uint64, bool) {
	q := r.q
	class := q.leafClasses[ci]
	m := len(class)
	inter := sc.inter[:1<<m]
	memo := &sc.classMemos[ci]
	i, hit := -1, false
	if memo.stamp != nil {
		i, hit = memo.lookup(row)
	}
	if hit {
		copy(inter, memo.at(i))
	} else {
		for b, gi := range class {
			sc.sets[b] = r.leafSet(gi, row, lgs[gi], sc)
		}
		for mask := 1; mask < 1<<m; mask++ {
			best := -1
			for b := range class {
				if mask>>b&1 != 0 && (best < 0 || len(sc.sets[b]) < len(sc.sets[best])) {
					best = b
				}
			}
			var n int64
			for _, x := range sc.sets[best] {
				in := true
				for b := 0; b < m && in; b++ {
					if b != best && mask>>b&1 != 0 {
						_, in = slices.BinarySearch(sc.sets[b], x)
					}
				}
				if in {
					n++
				}
			}
			inter[mask] = n
		}
		if i >= 0 {
			copy(memo.at(i), inter)
			memo.done(i)
		}
	}
	sc.gs = sc.gs[:0]
	var collide uint64
	for _, gi := range class {
		sc.gs = append(sc.gs, q.leafGroups[gi].g)
		collide |= q.leafGroups[gi].collide
	}
	used := sc.used[:1<<m]
	leafcount.UsedIn(used, collide, func(b, c int) bool {
		gi := class[b]
		return r.inGroup(gi, row[c], row, lgs[gi])
	})
	for mask := 1; mask < 1<<m; mask++ {
		inter[mask] -= used[mask]
	}
	return sc.arith.Class(sc.gs, inter)
}

// inGroup reports whether x lies in S_g of group gi for the row: a candidate of the group in
// every parent's list.
func (r *runner) inGroup(gi int, x uint32, row []uint32, lgs []*labelGraph) bool {
	if !r.leafCand(gi, x) {
		return false
	}
	for k, pe := range r.q.leafGroups[gi].parents {
		if _, in := slices.BinarySearch(lgs[k].list(row[pe.col]), x); !in {
			return false
		}
	}
	return true
}

// memoSize is leafSize for a group of several parents with a memo (sizeMemo): |S_g| from the
// memo, else from its set (leafSet), less the row's vertices in S_g (inGroup).
func (r *runner) memoSize(gi int, row []uint32, lgs []*labelGraph, sc *leafScratch) int64 {
	g := &r.q.leafGroups[gi]
	m := &sc.memos[gi]
	var n int64
	if i, hit := m.lookup(row); hit {
		n = m.at(i)[0]
	} else {
		n = int64(len(r.leafSet(gi, row, lgs, sc)))
		if i >= 0 {
			m.at(i)[0] = n
			m.done(i)
		}
	}
	for c, x := range row {
		if g.collide>>c&1 != 0 && r.inGroup(gi, x, row, lgs) {
			n--
		}
	}
	return n
}
