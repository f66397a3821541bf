package cpu

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/leafcount"
	"github.com/submatch/submatch/internal/setops"
	"github.com/submatch/submatch/internal/zeroed"
	"github.com/submatch/submatch/plan"
)

// leafCounter counts, for one complete assignment of the enumerated levels, the injective
// assignments of the postponed vertices (leaves and isolated vertices) without enumerating them.
//
// Each leaf group g has a set S_g of admissible data vertices (the common matching neighbours of
// its parents' data vertices, or the candidates of an isolated vertex) minus the data vertices
// already used. Every common neighbour is a candidate: the filters only require, for each pattern
// neighbour, a candidate neighbour, and the parents' data vertices are candidates. Groups in different collision classes cannot share a data vertex, so the count is the
// product over classes. Within a class of one group of k vertices the count is the falling
// factorial (S)_k, or C(S, k) when symmetry breaking orders the group. For several groups the
// class's universe is split into Venn regions (their sizes from intersection sizes by Möbius
// inversion) and a dynamic programme over regions distributes the groups' vertices.
type leafCounter struct {
	g      *graph.Graph
	pl     *plan.Plan
	groups []plan.LeafGroup

	// isoIntersections[class][mask] is |∩ candidates| for masks of isolated groups only.
	isoIntersections [][]int64

	// sets[g] is S_g for the current assignment (parented groups), with scratch buffers.
	sets           [][]uint32
	setBuf, tmpBuf [][]uint32
	unionBuf       [][][]uint32
	chains         []prefixChain
	hubs           *hubView // nil: none
	// space[g][k] is the candidate-space index of the k-th parent edge of group g (nil without
	// a candidate space).
	space [][]*plan.EdgeIndex
	inter []int64 // per subset mask: intersection size minus used vertices
	// arith counts a class from inter (Venn regions and their DP); classGroups are the classes'
	// groups as it sees them.
	arith       leafcount.Counter
	classGroups [][]leafcount.Group

	used [1 << plan.MaxClassGroups]int64 // per subset mask: used vertices in the intersection

	// memo[class], for a class whose only parented group has several parents (the others, if
	// any, isolated; see memoPosition), caches that group's intersection sizes by its parents'
	// data vertices: the same parents recur across many assignments (the two ends of a 4-cycle's
	// diagonal, reached through every middle vertex) and the intersections need not be
	// recomputed. memoised[g] marks such groups: they test membership by adjacency instead of a
	// materialised set.
	memo     []classMemo
	memoised []bool

	// within[g] has bit h set when S_g is a subset of S_h for every assignment
	// (plan.Plan.GroupWithin).
	within []uint64
	// collide[g] has bit j set for each level j whose data vertex may lie in S_g:
	// label-compatible, and not a parent of g (a parent's data vertex is never its own neighbour).
	collide []uint64
	// support, when not nil, counts the groups from edge supports instead (support.go).
	support *supportCounter
}

// Each class's direct-mapped size cache starts at minMemoSlots entries and grows (emptied) by
// 4x up to maxMemoSlots whenever it has missed twice its size, so small jobs pay for a small
// table; maxMemoParents bounds the key.
const (
	minMemoSlots   = 1 << 8
	maxMemoSlots   = 1 << 16
	maxMemoParents = 4
)

// classMemo is the size cache of a class with a memoised group at position bit: a direct-mapped
// table of slots of width words (keyWords+stride rounded up to a power of two, so that no slot
// straddles cache lines). A slot holds its key, the parents' data vertices (two to a word), then
// the stride sizes |S_g ∩ the isolated groups' candidates of mask| before removing used vertices,
// for every mask of the class containing the group, indexed by without(mask, bit). An empty
// slot's zero key matches no assignment: the group's parents (two at least) take distinct data
// vertices.
type classMemo struct {
	bit, stride, width int // bit < 0: the class is not memoised
	table              []int64
	slots, misses      int
}

const keyWords = maxMemoParents / 2

// prefixChain holds, for a parented group, the intersections of its parents' lists taken in the
// order of the parents' levels: sets[k] is the intersection of the first k+1 parents' lists,
// computed with key[k] the data vertex of the k-th parent, for k < valid. A deeper level changes
// more often than a shallower one, so most calls find every prefix but the last still valid and
// intersect once (wiki-Vote's 5-clique with two vertices on top, STMatch's q23: one intersection
// of the first four parents' common neighbours with the fifth's instead of four).
type prefixChain struct {
	order []int // indices into the group's Parents, by level
	key   []uint32
	sets  [][]uint32
	bufs  [][]uint32
	valid int
}

func newPrefixChain(parents []plan.ParentEdge) prefixChain {
	order := make([]int, len(parents))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(parents[a].Level, parents[b].Level) })
	n := len(parents)
	return prefixChain{order: order, key: make([]uint32, n), sets: make([][]uint32, n), bufs: make([][]uint32, n)}
}

func (lc *leafCounter) init(g *graph.Graph, pl *plan.Plan) {
	lc.g, lc.pl, lc.groups = g, pl, pl.Groups
	ng := len(pl.Groups)
	lc.sets, lc.setBuf, lc.tmpBuf = make([][]uint32, ng), make([][]uint32, ng), make([][]uint32, ng)
	lc.unionBuf = make([][][]uint32, ng)
	lc.chains = make([]prefixChain, ng)
	for i, lg := range pl.Groups {
		lc.unionBuf[i] = make([][]uint32, len(lg.Parents))
		lc.chains[i] = newPrefixChain(lg.Parents)
	}
	if pl.Space != nil {
		lc.space = make([][]*plan.EdgeIndex, ng)
		for i, lg := range pl.Groups {
			for _, pe := range lg.Parents {
				parent := pl.Levels[pe.Level].Vertex
				lc.space[i] = append(lc.space[i], pl.Space[[2]int{parent, lg.Vertices[0]}])
			}
		}
	}
	lc.within = make([]uint64, ng)
	for gi := range pl.Groups {
		for gj := range pl.Groups {
			if gi != gj && pl.GroupWithin(gi, gj) {
				lc.within[gi] |= 1 << gj
			}
		}
	}
	lc.collide = make([]uint64, ng)
	for gi, lg := range pl.Groups {
		for j, l := range pl.Levels {
			isParent := false
			for _, pe := range lg.Parents {
				isParent = isParent || pe.Level == j
			}
			if !isParent && (lg.VertexLabel.Any || l.VertexLabel.Any || lg.VertexLabel.Value == l.VertexLabel.Value) {
				lc.collide[gi] |= 1 << j
			}
		}
	}
	lc.memo = make([]classMemo, len(pl.Classes))
	lc.memoised = make([]bool, ng)
	for ci, class := range pl.Classes {
		// The tables are allocated on first use: small jobs never need them.
		cm := &lc.memo[ci]
		if cm.bit = memoPosition(pl, class.Groups); cm.bit >= 0 {
			cm.stride = 1 << (len(class.Groups) - 1)
			cm.width = 1 << bits.Len(uint(keyWords+cm.stride-1))
			lc.memoised[class.Groups[cm.bit]] = true
		}
	}
	lc.isoIntersections = make([][]int64, len(pl.Classes))
	lc.classGroups = make([][]leafcount.Group, len(pl.Classes))
	for ci, class := range pl.Classes {
		m := len(class.Groups)
		for _, gi := range class.Groups {
			lc.classGroups[ci] = append(lc.classGroups[ci], leafcount.Of(&pl.Groups[gi]))
		}
		if m < 2 {
			continue
		}
		iso := make([]int64, 1<<m)
		for mask := 1; mask < 1<<m; mask++ {
			var sets []plan.Bitset
			allIso := true
			for b := 0; b < m; b++ {
				if mask&(1<<b) == 0 {
					continue
				}
				lg := &pl.Groups[class.Groups[b]]
				if len(lg.Parents) > 0 {
					allIso = false
					break
				}
				sets = append(sets, lg.Candidates)
			}
			if !allIso {
				continue
			}
			var n int64
			for wi := range sets[0] {
				w := sets[0][wi]
				for _, s := range sets[1:] {
					w &= s[wi]
				}
				n += int64(bits.OnesCount64(w))
			}
			iso[mask] = n
		}
		lc.isoIntersections[ci] = iso
	}
	lc.inter = make([]int64, 1<<plan.MaxClassGroups)
}

// memoPosition returns the position in class of the group whose intersection sizes are worth
// caching, or -1: the class's only parented group, or of a class of two parented groups the one
// whose deepest parent is deeper than all of the other's parents (the other's set, kept by its
// prefix chain, then stays the same while the memoised group's parents change: two triangles
// sharing a vertex, STMatch's q1, have two such groups), with 2 to maxMemoParents parents whose
// data vertices can recur across assignments: some level is not a parent (below the first
// parent, the same parents recur in consecutive assignments; above it, under different
// prefixes, as the two last levels of STMatch's q4 recur under every edge of their common
// neighbourhood). With every level a parent, every assignment has parents of its own. Only the
// sizes of the masks whose other groups are isolated are cached.
func memoPosition(pl *plan.Plan, class []int) int {
	pos := -1
	parented := 0
	for b, gi := range class {
		if len(pl.Groups[gi].Parents) > 0 {
			parented++
			if pos < 0 || deepestParent(&pl.Groups[gi]) > deepestParent(&pl.Groups[class[pos]]) {
				pos = b
			}
		}
	}
	switch {
	case parented == 0 || parented > 2:
		return -1
	case parented == 2:
		if len(class) != 2 || deepestParent(&pl.Groups[class[1-pos]]) >= deepestParent(&pl.Groups[class[pos]]) {
			return -1
		}
	}
	// The cache is keyed by the parents' data vertices alone and tests membership by adjacency:
	// it cannot hold a window (plan.Window), which depends on other levels.
	parents := pl.Groups[class[pos]].Parents
	if lg := &pl.Groups[class[pos]]; lg.Bounded() || len(parents) < 2 || len(parents) > maxMemoParents || len(parents) == len(pl.Levels) {
		return -1
	}
	return pos
}

// deepestParent returns the deepest level among the group's parents.
func deepestParent(lg *plan.LeafGroup) int {
	d := -1
	for _, pe := range lg.Parents {
		d = max(d, pe.Level)
	}
	return d
}

// materialise computes S_g of every parented group for the assignment m: the intersection of
// the parents' matching neighbour runs (one run, uncopied, for a single exact-label parent),
// narrowed to the group's window.
func (lc *leafCounter) materialise(m []uint32, mi []int) {
	for gi := range lc.groups {
		lg := &lc.groups[gi]
		if len(lg.Parents) == 0 || lc.memoised[gi] {
			continue
		}
		lc.sets[gi] = lc.commonNeighbours(gi, m, mi)
	}
}

// commonNeighbours computes S_g: the intersection of the parents' candidate-space lists, or of
// their matching label runs without a candidate space, narrowed to the group's window. It
// intersects them in the order of the parents' levels and keeps every prefix (see prefixChain),
// so that only the prefixes whose parents changed since the last call are computed again.
func (lc *leafCounter) commonNeighbours(gi int, m []uint32, mi []int) []uint32 {
	return lc.chainPrefix(gi, len(lc.chains[gi].order), m, mi)
}

// chainPrefix returns the intersection of the lists of the first n parents of group gi in the
// order of their levels (prefix n-1 of its chain) narrowed to the group's symmetry window
// (plan.LeafGroup.Window, with plan.Options.GroupWindows) for the data vertices m. Every set of
// a group that the leaf counter and the shortcuts count from comes from here, so none can miss
// the window: a window is one range of ids, so narrowing a prefix (which a hub row or more
// parents then filter) narrows the group's set.
func (lc *leafCounter) chainPrefix(gi, n int, m []uint32, mi []int) []uint32 {
	set, _ := lc.chainPrefixes(gi, n, m, mi)
	return set
}

// chainPrefixes returns chainPrefix's set, and the prefix before the window (unwindowed) for
// caches kept while the group's parents keep their data vertices but its window's levels change
// (the pair sum's local lists), which must then count only what is in set.
func (lc *leafCounter) chainPrefixes(gi, n int, m []uint32, mi []int) (set, unwindowed []uint32) {
	unwindowed = lc.unwindowedPrefix(gi, n, m, mi)
	return lc.groups[gi].Narrow(unwindowed, m, -1), unwindowed
}

// unwindowedPrefix is the prefix of chainPrefix before the window. It computes again only the
// prefixes whose parents changed; the prefixes from n on are left invalid.
func (lc *leafCounter) unwindowedPrefix(gi, n int, m []uint32, mi []int) []uint32 {
	c := &lc.chains[gi]
	lg := &lc.groups[gi]
	k := 0
	for k < min(c.valid, n) && c.key[k] == m[lg.Parents[c.order[k]].Level] {
		k++
	}
	for ; k < n; k++ {
		if k > 0 && len(c.sets[k-1]) == 0 {
			c.sets[k] = nil
		} else {
			c.sets[k] = lc.chainStep(gi, k, m, mi)
		}
		c.key[k] = m[lg.Parents[c.order[k]].Level]
	}
	c.valid = n
	return c.sets[n-1]
}

// chainStep computes prefix k of group gi's chain from prefix k-1: the k-th parent's list
// intersected with it, or prefix k-1 filtered by the parent's hub row, or (for the second
// parent, when its list is the shorter) that list filtered by the first parent's row.
func (lc *leafCounter) chainStep(gi, k int, m []uint32, mi []int) []uint32 {
	c := &lc.chains[gi]
	pk := c.order[k]
	if k == 0 {
		return lc.parentList(gi, pk, m, mi)
	}
	var s []uint32 // the k-th parent's list, once fetched
	if k == 1 {
		if s = lc.parentList(gi, pk, m, mi); len(s) < len(c.sets[0]) {
			if out, ok := lc.hubFilter(gi, c.order[0], s, m, c.bufs[k]); ok {
				c.bufs[k] = out
				return out
			}
		}
	}
	if out, ok := lc.hubFilter(gi, pk, c.sets[k-1], m, c.bufs[k]); ok {
		c.bufs[k] = out
		return out
	}
	if s == nil {
		s = lc.parentList(gi, pk, m, mi)
	}
	c.bufs[k] = intersect(c.sets[k-1], s, c.bufs[k])
	return c.bufs[k]
}

// hubFilter writes the elements of s (a subset of the group's admissible vertices: candidates
// of the right vertex label) adjacent to the k-th parent's data vertex into out, when that vertex
// has a hub row and adjacency alone decides the parent's edge (see hubEdge).
func (lc *leafCounter) hubFilter(gi, k int, s []uint32, m []uint32, out []uint32) ([]uint32, bool) {
	pe := lc.groups[gi].Parents[k]
	if lc.hubs == nil || !hubEdge(lc.g, pe.EdgeLabel) || !lc.hubs.ready(m[pe.Level]) {
		return out, false
	}
	return lc.hubs.filter(s, m[pe.Level], out)
}

// parentList returns the k-th parent's list of group gi: its candidate-space list, or its
// matching label runs without a candidate space.
func (lc *leafCounter) parentList(gi, k int, m []uint32, mi []int) []uint32 {
	pe := lc.groups[gi].Parents[k]
	if lc.space != nil {
		return lc.space[gi][k].List(mi[pe.Level])
	}
	return plan.NeighbourSet(lc.g, m[pe.Level], lc.groups[gi].VertexLabel, pe.EdgeLabel, &lc.unionBuf[gi][k])
}

// memoSizes returns the memoised group's intersection sizes for class ci (see classMemo), from
// the cache when its parents recur.
func (lc *leafCounter) memoSizes(ci int, class []int, m []uint32, mi []int) []int64 {
	cm := &lc.memo[ci]
	gi := class[cm.bit]
	var key [keyWords]int64
	h := uint64(14695981039346656037)
	for k, pe := range lc.groups[gi].Parents {
		x := m[pe.Level]
		key[k/2] |= int64(x) << (32 * (k % 2))
		h = (h ^ uint64(x)) * 1099511628211
	}
	if n := cm.slots; n == 0 || (cm.misses > 2*n && n < maxMemoSlots) {
		cm.slots = max(minMemoSlots, 4*n)
		cm.table, cm.misses = zeroed.Make[int64](cm.slots*cm.width), 0 // slots are read before they are filled
	}
	i := int(h&uint64(cm.slots-1)) * cm.width
	slot := cm.table[i : i+keyWords+cm.stride]
	if [keyWords]int64(slot) != key {
		cm.misses++
		copy(slot, key[:])
		lc.isolatedIntersections(class, cm.bit, lc.commonNeighbours(gi, m, mi), slot[keyWords:])
	}
	return slot[keyWords:]
}

// isolatedIntersections sets sizes[without(mask, bit)] to the number of elements of s (the set
// of class[bit]) in the candidates of every other group of mask for each mask containing bit
// whose other groups are isolated (the others are not read): a histogram of each element's
// memberships, then sums over supersets.
func (lc *leafCounter) isolatedIntersections(class []int, bit int, s []uint32, sizes []int64) {
	clear(sizes)
	if len(class) == 1 {
		sizes[0] = int64(len(s))
		return
	}
	for _, x := range s {
		in := 1 << bit
		for b, gi := range class {
			if b != bit && len(lc.groups[gi].Parents) == 0 && lc.groups[gi].Candidates.Has(x) {
				in |= 1 << b
			}
		}
		sizes[without(in, bit)]++
	}
	leafcount.SupersetSums(sizes)
}

// without removes bit from mask, shifting the bits above it down.
func without(mask, bit int) int {
	return mask&(1<<bit-1) | mask>>(bit+1)<<bit
}

// adjacentToParents reports whether x is in S_g, testing x against each parent's hub row or
// list. A candidate-space list holds the parent's matching neighbours among the group's
// candidates, so a row stands for it once x is known to be a candidate.
func (lc *leafCounter) adjacentToParents(gi int, x uint32, m []uint32, mi []int) bool {
	lg := &lc.groups[gi]
	if !lg.VertexLabel.Matches(lc.g.VertexLabel(x)) {
		return false
	}
	candidate := lc.space == nil || lc.pl.CandidateBits[lg.Vertices[0]].Has(x)
	for k, pe := range lg.Parents {
		if candidate && hubEdge(lc.g, pe.EdgeLabel) {
			if p := m[pe.Level]; lc.hubs != nil && lc.hubs.ready(p) {
				if row := lc.hubs.bitsOf(p); row[x>>6]&(1<<(x&63)) == 0 {
					return false
				}
				continue
			}
		}
		if lc.space != nil {
			l := lc.space[gi][k].List(mi[pe.Level])
			if i := lowerBound(l, 0, x); i == len(l) || l[i] != x {
				return false
			}
			continue
		}
		p := m[pe.Level]
		if pe.EdgeLabel.Any {
			if _, ok := lc.g.HasEdge(p, x); !ok {
				return false
			}
		} else if !lc.g.HasEdgeLabelled(p, x, pe.EdgeLabel.Value) {
			return false
		}
	}
	return true
}

// countInRows counts the elements of s in S_g of memoised group gi (of at most maxMemoParents
// parents) by its parents' hub rows, the rows looked up once; ok is false when some parent has
// no row or its edge needs more than adjacency (see hubEdge).
func (lc *leafCounter) countInRows(gi int, s []uint32, m []uint32) (n int64, ok bool) {
	lg := &lc.groups[gi]
	var rows [maxMemoParents][]uint64
	for k, pe := range lg.Parents {
		if !hubEdge(lc.g, pe.EdgeLabel) {
			return 0, false
		}
		p := m[pe.Level]
		if lc.hubs == nil || !lc.hubs.ready(p) {
			return 0, false
		}
		rows[k] = lc.hubs.bitsOf(p)
	}
	rs := rows[:len(lg.Parents)]
	cands := lc.pl.CandidateBits[lg.Vertices[0]]
next:
	for _, x := range s {
		for _, row := range rs {
			if row[x>>6]&(1<<(x&63)) == 0 {
				continue next
			}
		}
		if (lc.space == nil || cands.Has(x)) && lg.VertexLabel.Matches(lc.g.VertexLabel(x)) {
			n++
		}
	}
	return n, true
}

// member reports whether data vertex x is in S_g (materialise must have run).
func (lc *leafCounter) member(gi int, x uint32, m []uint32, mi []int) bool {
	lg := &lc.groups[gi]
	if len(lg.Parents) == 0 {
		return lg.Candidates.Has(x)
	}
	if lc.memoised[gi] {
		return lc.adjacentToParents(gi, x, m, mi)
	}
	s := lc.sets[gi]
	i := lowerBound(s, 0, x)
	return i < len(s) && s[i] == x
}

// setSize returns |S_g| before removing used vertices.
func (lc *leafCounter) setSize(gi int) int64 {
	lg := &lc.groups[gi]
	if len(lg.Parents) == 0 {
		return int64(lg.CandidateCount)
	}
	return int64(len(lc.sets[gi]))
}

// usedBy counts the assigned data vertices in S_g.
func (lc *leafCounter) usedBy(gi int, m []uint32, mi []int) int64 {
	var n int64
	for levels := lc.collide[gi]; levels != 0; levels &= levels - 1 {
		if j := bits.TrailingZeros64(levels); lc.member(gi, m[j], m, mi) {
			n++
		}
	}
	return n
}

// usedIn returns, for every mask of the class, the number of assigned data vertices that lie in
// every group of mask: a histogram of each vertex's memberships, then sums over supersets.
func (lc *leafCounter) usedIn(class []int, m []uint32, mi []int) []int64 {
	used := lc.used[:1<<len(class)]
	var levels uint64
	for _, gi := range class {
		levels |= lc.collide[gi]
	}
	leafcount.UsedIn(used, levels, func(b, j int) bool {
		gi := class[b]
		return lc.collide[gi]>>j&1 != 0 && lc.member(gi, m[j], m, mi)
	})
	return used
}

// count returns the number of injective assignments of all postponed vertices.
func (lc *leafCounter) count(m []uint32, mi []int) (uint64, bool) {
	if lc.support != nil {
		return lc.support.count(m)
	}
	if len(lc.pl.Classes) == 1 && len(lc.pl.Classes[0].Groups) == 1 {
		if n, ok, done := lc.countByRow(lc.pl.Classes[0].Groups[0], m, mi); done {
			return n, ok
		}
	}
	lc.materialise(m, mi)
	total := uint64(1)
	for ci, class := range lc.pl.Classes {
		c, ok := lc.classCount(ci, class.Groups, m, mi)
		if !ok {
			return 0, false
		}
		if c == 0 {
			return 0, true
		}
		if total, ok = mulChecked(total, c); !ok {
			return 0, false
		}
	}
	return total, true
}

// countByRow counts the only group gi of the only class without writing out its set, when its
// last parent (by level) has a hub row that decides its edge: the size of its chain's prefix
// without that parent (narrowed to the group's window, see chainPrefix), filtered by the row,
// less the used vertices in both. done is false when
// it does not apply (fewer than two parents, a memoised group, no row).
func (lc *leafCounter) countByRow(gi int, m []uint32, mi []int) (n uint64, ok, done bool) {
	lg := &lc.groups[gi]
	c := &lc.chains[gi]
	last := len(c.order) - 1
	if last < 1 || lc.memoised[gi] {
		return 0, false, false
	}
	pe := &lg.Parents[c.order[last]]
	v := m[pe.Level]
	if lc.hubs == nil || !hubEdge(lc.g, pe.EdgeLabel) || !lc.hubs.ready(v) {
		return 0, false, false
	}
	prefix := lc.chainPrefix(gi, last, m, mi)
	row := lc.hubs.bitsOf(v)
	var size int64
	for _, x := range prefix {
		size += int64(row[x>>6] >> (x & 63) & 1)
	}
	for levels := lc.collide[gi]; levels != 0; levels &= levels - 1 {
		x := m[bits.TrailingZeros64(levels)]
		if row[x>>6]&(1<<(x&63)) != 0 {
			if k := lowerBound(prefix, 0, x); k < len(prefix) && prefix[k] == x {
				size--
			}
		}
	}
	if lg.Ordered {
		n, ok = binomial(size, len(lg.Vertices))
	} else {
		n, ok = falling(size, len(lg.Vertices))
	}
	return n, ok, true
}

func (lc *leafCounter) classCount(ci int, class []int, m []uint32, mi []int) (uint64, bool) {
	var memo []int64 // sizes of the masks containing bit, for a memoised class
	bit := lc.memo[ci].bit
	if bit >= 0 {
		memo = lc.memoSizes(ci, class, m, mi)
	}
	if len(class) == 1 {
		lg := &lc.groups[class[0]]
		size := lc.setSize(class[0])
		if memo != nil {
			size = memo[0]
		}
		return placements(lg, size-lc.usedBy(class[0], m, mi))
	}
	k := len(class)
	full := 1<<k - 1
	used := lc.usedIn(class, m, mi)
	// Intersection sizes of every subset, minus used vertices.
	for mask := 1; mask <= full; mask++ {
		var size int64
		switch iso := lc.isoIntersections[ci]; {
		case memo != nil && mask&(1<<bit) != 0 && lc.allIsolated(class, mask&^(1<<bit)):
			size = memo[without(mask, bit)]
		case iso != nil && lc.allIsolated(class, mask):
			size = iso[mask]
		default:
			size = lc.intersectionSize(class, mask, m, mi)
		}
		lc.inter[mask] = size - used[mask]
	}
	return lc.arith.Class(lc.classGroups[ci], lc.inter[:full+1])
}

// placements returns the number of ways to place group lg's vertices on s admissible data
// vertices: C(s, k) when symmetry breaking orders the group, else (s)_k.
func placements(lg *plan.LeafGroup, s int64) (uint64, bool) {
	return leafcount.Placements(leafcount.Of(lg), s)
}

func (lc *leafCounter) allIsolated(class []int, mask int) bool {
	for b := range class {
		if mask&(1<<b) != 0 && len(lc.groups[class[b]].Parents) > 0 {
			return false
		}
	}
	return true
}

// intersectionSize counts the data vertices in every group of mask (used vertices included),
// by walking the smallest parented set and testing membership in the others.
func (lc *leafCounter) intersectionSize(class []int, mask int, m []uint32, mi []int) int64 {
	// A group whose set lies within every other's of mask: the intersection is its set. (A
	// memoised group's set is not materialised.)
	for b, gi := range class {
		if mask&(1<<b) == 0 || len(lc.groups[gi].Parents) == 0 || lc.memoised[gi] {
			continue
		}
		inAll := true
		for c, gj := range class {
			inAll = inAll && (c == b || mask&(1<<c) == 0 || lc.within[gi]&(1<<gj) != 0)
		}
		if inAll {
			return lc.setSize(gi)
		}
	}
	best := -1
	for b := range class {
		if mask&(1<<b) == 0 || len(lc.groups[class[b]].Parents) == 0 || lc.memoised[class[b]] {
			continue
		}
		if best < 0 || len(lc.sets[class[b]]) < len(lc.sets[class[best]]) {
			best = b
		}
	}
	if mask == 1<<best {
		return lc.setSize(class[best])
	}
	if other := mask &^ (1 << best); other&(other-1) == 0 {
		// Two groups: a merge (or galloping) count of two sorted sets, when the other's set is
		// materialised too (parented, not memoised).
		if gj := class[bits.TrailingZeros(uint(other))]; len(lc.groups[gj].Parents) > 0 && !lc.memoised[gj] {
			return int64(setops.IntersectCount(lc.sets[class[best]], lc.sets[gj]))
		} else if lc.memoised[gj] {
			// A memoised group against a materialised one: by its parents' rows, or (when some
			// has none) by its set, computed after all (its prefix chain keeps most of it).
			if n, ok := lc.countInRows(gj, lc.sets[class[best]], m); ok {
				return n
			}
			return int64(setops.IntersectCount(lc.sets[class[best]], lc.commonNeighbours(gj, m, mi)))
		}
	}
	var n int64
	for _, x := range lc.sets[class[best]] {
		in := true
		for b := 0; b < len(class) && in; b++ {
			if b != best && mask&(1<<b) != 0 {
				in = lc.member(class[b], x, m, mi)
			}
		}
		if in {
			n++
		}
	}
	return n
}
