package plan

import (
	"slices"

	"github.com/submatch/submatch/pattern"
)

// LeafKey identifies postponed (or counted) vertices that have identical candidate sets given
// the matched vertices: the same neighbours (none for isolated vertices), edge labels and vertex
// label. The CPU plan's leaf groups and GENEVA's counted classes both key on it.
type LeafKey struct {
	parents uint32
	vl      pattern.Label
	els     [pattern.MaxVertices]pattern.Label
}

// LeafKeyOf returns u's LeafKey in p.
func LeafKeyOf(p *pattern.Pattern, u int) LeafKey {
	k := LeafKey{parents: p.NeighborMask(u), vl: p.VertexLabel(u)}
	for w := 0; w < p.NumVertices(); w++ {
		if el, ok := p.EdgeLabel(u, w); ok {
			k.els[w] = el
		}
	}
	return k
}

// groupLeaves decides which postponed vertices are counted combinatorially and groups them;
// the rest are appended to the enumeration order. A postponed vertex is enumerated instead when a
// symmetry restriction ties it to a postponed vertex outside its group, or (unless windows) to
// an enumerated one, when the restrictions inside its group are not a total order, or when its
// collision class is too large to count. With windows, a group with parents whose members are
// all tied alike to enumerated vertices (groupWindow) keeps them as its window.
func groupLeaves(p *pattern.Pattern, order, postponed []int, rs []Restriction, candBits []Bitset, cands [][]uint32, windows bool) ([]int, []LeafGroup, []LeafClass) {
	keys := map[int]LeafKey{}
	for _, u := range postponed {
		keys[u] = LeafKeyOf(p, u)
	}
	for {
		demote := map[int]bool{}
		inPostponed := func(u int) bool { return slices.Contains(postponed, u) }
		for _, r := range rs {
			a, b := r.Less, r.Greater
			pa, pb := inPostponed(a), inPostponed(b)
			if pa && ((pb && keys[a] != keys[b]) || (!pb && (!windows || p.Degree(a) == 0))) {
				demote[a] = true
			}
			if pb && ((pa && keys[a] != keys[b]) || (!pa && (!windows || p.Degree(b) == 0))) {
				demote[b] = true
			}
		}
		groups := collectGroups(postponed, keys)
		for _, members := range groups {
			_, _, common := groupWindow(members, postponed, rs)
			if (!restrictionsTotal(members, rs) && hasInternalRestriction(members, rs)) || !common {
				for _, u := range members {
					demote[u] = true
				}
			}
		}
		// Collision classes: demote groups beyond what the counter handles.
		if len(demote) == 0 {
			for _, class := range collisionClasses(groups, keys) {
				states := 1
				for i, gi := range class {
					states *= len(groups[gi]) + 1
					if i >= MaxClassGroups || states > maxClassStates {
						for _, u := range groups[gi] {
							demote[u] = true
						}
					}
				}
			}
		}
		if len(demote) == 0 {
			break
		}
		var keep []int
		for _, u := range postponed {
			if demote[u] {
				order = append(order, u)
			} else {
				keep = append(keep, u)
			}
		}
		postponed = keep
	}

	groups := collectGroups(postponed, keys)
	lv := levelOf(p.NumVertices(), order)
	out := make([]LeafGroup, len(groups))
	for i, members := range groups {
		k := keys[members[0]]
		lg := LeafGroup{Vertices: members, VertexLabel: k.vl}
		for w := 0; w < p.NumVertices(); w++ {
			if k.parents&(1<<w) != 0 {
				lg.Parents = append(lg.Parents, ParentEdge{Level: lv[w], EdgeLabel: k.els[w]})
			}
		}
		if len(lg.Parents) == 0 {
			lg.Candidates = candBits[members[0]]
			lg.CandidateCount = len(cands[members[0]])
		}
		lg.Ordered = hasInternalRestriction(members, rs)
		lower, upper, _ := groupWindow(members, postponed, rs)
		for _, w := range lower {
			lg.Lower = append(lg.Lower, lv[w])
		}
		for _, w := range upper {
			lg.Upper = append(lg.Upper, lv[w])
		}
		out[i] = lg
	}
	var classes []LeafClass
	for _, class := range collisionClasses(groups, keys) {
		classes = append(classes, LeafClass{Groups: class})
	}
	return order, out, classes
}

// collectGroups partitions the postponed vertices by key, in a deterministic order.
func collectGroups(postponed []int, keys map[int]LeafKey) [][]int {
	var groups [][]int
	index := map[LeafKey]int{}
	for _, u := range postponed {
		k := keys[u]
		if i, ok := index[k]; ok {
			groups[i] = append(groups[i], u)
			continue
		}
		index[k] = len(groups)
		groups = append(groups, []int{u})
	}
	return groups
}

// collisionClasses joins groups whose vertex labels may coincide (connected components).
func collisionClasses(groups [][]int, keys map[int]LeafKey) [][]int {
	return CollisionClasses(len(groups), func(i int) pattern.Label { return keys[groups[i][0]].vl })
}

// CollisionClasses partitions items 0..n-1 into the connected components of "their vertex labels
// may coincide" (label(i) and label(j) equal, or either a wildcard): items in different classes
// can never take the same data vertex. Classes and their members come in order of first member.
func CollisionClasses(n int, label func(i int) pattern.Label) [][]int {
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			i = parent[i]
		}
		return i
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if LabelsMayCollide(label(i), label(j)) {
				parent[find(i)] = find(j)
			}
		}
	}
	var classes [][]int
	index := map[int]int{}
	for i := 0; i < n; i++ {
		r := find(i)
		if c, ok := index[r]; ok {
			classes[c] = append(classes[c], i)
			continue
		}
		index[r] = len(classes)
		classes = append(classes, []int{i})
	}
	return classes
}

// groupWindow returns the enumerated vertices (not postponed) that every member of a group must
// be greater than (lower) and smaller than (upper), sorted, and whether every member has the same:
// each member's own restrictions with an enumerated vertex, and those the restrictions inside the
// group imply (a < x < y gives a < y). Only then are the group's restrictions its internal order
// and one window on all of its members.
func groupWindow(members, postponed []int, rs []Restriction) (lower, upper []int, common bool) {
	lo := make([][]int, len(members))
	hi := make([][]int, len(members))
	idx := func(u int) int { return slices.Index(members, u) }
	for _, r := range rs {
		a, b := idx(r.Less), idx(r.Greater)
		switch {
		case a >= 0 && b < 0 && !slices.Contains(postponed, r.Greater):
			hi[a] = append(hi[a], r.Greater)
		case b >= 0 && a < 0 && !slices.Contains(postponed, r.Less):
			lo[b] = append(lo[b], r.Less)
		}
	}
	for range members { // len(members) rounds carry the bounds along every chain of the order
		for _, r := range rs {
			if a, b := idx(r.Less), idx(r.Greater); a >= 0 && b >= 0 {
				lo[b] = append(lo[b], lo[a]...)
				hi[a] = append(hi[a], hi[b]...)
			}
		}
		for k := range members {
			slices.Sort(lo[k])
			lo[k] = slices.Compact(lo[k])
			slices.Sort(hi[k])
			hi[k] = slices.Compact(hi[k])
		}
	}
	for k := range members {
		if !slices.Equal(lo[k], lo[0]) || !slices.Equal(hi[k], hi[0]) {
			return nil, nil, false
		}
	}
	return lo[0], hi[0], true
}

func hasInternalRestriction(members []int, rs []Restriction) bool {
	for _, r := range rs {
		if slices.Contains(members, r.Less) && slices.Contains(members, r.Greater) {
			return true
		}
	}
	return false
}

// restrictionsTotal reports whether the restrictions among members imply a total order on them.
func restrictionsTotal(members []int, rs []Restriction) bool {
	k := len(members)
	idx := map[int]int{}
	for i, u := range members {
		idx[u] = i
	}
	less := make([][]bool, k)
	for i := range less {
		less[i] = make([]bool, k)
	}
	for _, r := range rs {
		a, okA := idx[r.Less]
		b, okB := idx[r.Greater]
		if okA && okB {
			less[a][b] = true
		}
	}
	for m := 0; m < k; m++ {
		for i := 0; i < k; i++ {
			for j := 0; j < k; j++ {
				if less[i][m] && less[m][j] {
					less[i][j] = true
				}
			}
		}
	}
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			if less[i][j] == less[j][i] {
				return false
			}
		}
	}
	return true
}

// GroupWithin reports whether the admissible data vertices of postponed group a are within those
// of group b for every assignment: a has parents, a's candidates are b's (so labels agree), and
// b is isolated or its parent edges are among a's, and b's window (LeafGroup.Window) is
// among a's bounds. Every common neighbour of the parents is a
// candidate (the filters keep every vertex that has a candidate neighbour for each pattern
// neighbour), so a's admissible vertices lie in its candidates, and they are joined to b's
// parents.
func (pl *Plan) GroupWithin(a, b int) bool {
	ga, gb := &pl.Groups[a], &pl.Groups[b]
	if len(ga.Parents) == 0 || !pl.CandidateBits[ga.Vertices[0]].SubsetOf(pl.CandidateBits[gb.Vertices[0]]) ||
		!subsetInts(gb.Lower, ga.Lower) || !subsetInts(gb.Upper, ga.Upper) {
		return false
	}
	for _, pe := range gb.Parents {
		if !slices.Contains(ga.Parents, pe) {
			return false
		}
	}
	return true
}

// GroupLeaves groups the postponed vertices of a plan made elsewhere (engine/sgsi's leaf step):
// the vertices of postponed, pairwise non-adjacent with every neighbour in order (leaves, and
// ClosingVertices), that the leaf counter can count under the restrictions rs (checked on the
// whole order), as groupLeaves does without windows; the others are appended to order, which it
// returns with the groups and their collision classes. Group parents are levels of the returned
// order.
func GroupLeaves(p *pattern.Pattern, order, postponed []int, rs []Restriction) ([]int, []LeafGroup, []LeafClass) {
	return groupLeaves(p, slices.Clone(order), slices.Clone(postponed), rs, nil, nil, false)
}

// ClosingVertices returns order without its closing vertices (each with neighbours, all of them
// earlier in order), and those vertices in order: the vertices the plan postpones besides leaves
// (postponeClosingVertices). They are pairwise non-adjacent and no later vertex of order is
// adjacent to one, so what is left still reaches each vertex from an earlier one wherever order
// did.
func ClosingVertices(p *pattern.Pattern, order []int) (rest, closing []int) {
	return postponeClosingVertices(p, order, nil)
}
