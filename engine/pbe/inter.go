package pbe

import (
	"cmp"
	"context"
	"math/bits"
	"slices"
	"sort"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/checked"
	"github.com/submatch/submatch/internal/leafcount"
	"github.com/submatch/submatch/internal/par"
	"github.com/submatch/submatch/internal/setops"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// The inter-partition stage (PBE's Algorithm 3, on the host, depth first).
//
// For a connected pattern every inter-partition match maps at least one pattern edge onto a cut
// edge. The search is seeded with every cut edge, in both orientations, on every pattern edge (the
// prime pattern edge, one program per pattern edge: its ends first, then the other vertices, each
// adjacent to an earlier one), and extended vertex by vertex. The exactly-once rule is PBE's
// DUPREMOVE: data edges are ordered by (smaller end, larger end), and a partial match is dropped as
// soon as the image of a pattern edge is a cut edge smaller than the prime data edge. Each match
// has one smallest cut image edge, the image of one pattern edge in one orientation, so it is found
// from that seed only. (Images of distinct pattern edges are distinct data edges: matches are
// injective.)
//
// A disconnected pattern's inter-partition matches need not use any cut edge (two components in
// two parts): pbe.go handles those on the host (the whole graph's count less the parts').
//
// Shared execution (the default; sharedPlan) runs one program per orbit of Aut(p) on the pattern's
// edges instead of one per edge, and stands each match found for its orbit (PBE's equivalent
// search sequences and REMAP). Without it (Engine.Unshared), unique counts keep one match of
// every orbit of Aut(p) with the symmetry restrictions of package plan, applied as filters (valid
// whatever the order of the search); an orbit's matches use the same data vertices, so they are
// all inter-partition or all intra-partition. Embedding counts do the same and multiply by
// |Aut(p)| (every orbit of embeddings has |Aut(p)| members, induced or not); only listing
// enumerates every embedding.
//
// Candidates come from the intersection of the earlier neighbours' sorted lists (the runs on
// the pattern's labels, or the whole lists of a graph with one vertex label and no edge labels),
// narrowed first to the window the symmetry restrictions leave (ids above the earlier vertices
// that must be smaller, below those that must be larger), and the last position of a count is
// counted, not extended. Where no sorted list is known (wildcards on a labelled graph), the
// smallest earlier neighbour list is scanned and the other edges are looked up.
//
// Host-only shortcuts (the device kernel, interdev.go, intersects every list and checks every
// candidate; the counts are the same): a step whose earlier neighbours include an earlier step's
// (reuse) starts from that step's candidates, kept, instead of intersecting those lists again;
// one set, the root's whole list on a plain graph or kept, is marked in a bitset and tested
// instead of merged when the shortest other list is at most GallopThreshold times longer (the
// top roots are hubs: merging their lists was most of the time on R-MAT); a plain list narrowed
// to ids above its vertex starts at that vertex's forward index (fwd); and a count's last
// position counts the candidates from DUPREMOVE's bound on (dupFree) without checks, less the
// other positions' vertices among them, checking only those below it.

// backEdge is a constraint from an earlier position.
type backEdge struct {
	pos   int
	label pattern.Label
	// list, when not nil, holds the earlier vertex's neighbours among this step's candidates
	// (the candidate space, attachSpace): the sorted list a step's candidates come from.
	list *edgeList
}

// edgeList is the candidate space's index of one directed pattern edge parent->child for the
// host inter stage (package plan's EdgeIndex): for the i-th candidate of parent (sorted), its
// neighbours among child's candidates, on the edge's labels, sorted. id numbers it in its plan.
type edgeList struct {
	id      int
	parent  []uint32
	offsets []uint64
	values  []uint32
}

// step places one pattern vertex.
type step struct {
	u      int
	label  pattern.Label
	back   []backEdge // adjacent earlier positions (candidates come from the first's neighbours)
	nonAdj []int      // non-adjacent earlier positions (induced)
	others []int      // earlier positions not in back (a candidate from back's lists differs from the rest)
	// coreOthers are others before the program's counted tail (all of others outside it): a
	// tail step's candidate differs from those, the other tail steps' being counted apart.
	coreOthers []int
	// runOthers, for a step of one back edge, are the positions of others joined to its back
	// neighbour by a pattern edge of that edge's label, with this step's vertex label: their
	// vertices lie in the back neighbour's run the step's candidates come from (when that is
	// the graph's adjacency, not the candidate space), so countOne tests them by id and part.
	runOthers []int
	// reuse, when not 0, is an earlier position j >= 2 whose back edges (two or more) are back
	// edges of this step too, with the same labels and vertex label: its candidates, kept
	// (keep), narrowed to this step's window, stand for the intersection of those lists, and
	// rest are the other back edges (host only; the device kernel intersects every list).
	reuse int
	rest  []backEdge
	keep  bool        // a later step reuses this step's candidates
	less  []int       // earlier positions whose data vertex must be smaller
	more  []int       // earlier positions whose data vertex must be larger
	cand  plan.Bitset // the vertex's candidates, filtered on the whole graph (nil: any)
}

// program is one search order.
type program struct {
	steps []step // positions 0 and 1: the ends of the prime pattern edge, placed on a cut edge
	// tail is the first position a count places all at once (countTail): the steps from it on
	// are pairwise non-adjacent, adjacent and restricted only to earlier positions, so once
	// the positions before it are placed, each has a set of candidates of its own and the
	// matches are the injective choices of one candidate each (len(steps)-1: the last position
	// alone, countLast). classes are the tail's positions by collision class (vertex labels
	// that may meet: equal, or a wildcard), each of at most plan.MaxClassGroups; tailExact says
	// every tail step has a sorted list on any graph (exact vertex and edge labels).
	tail      int
	classes   [][]int
	tailExact bool
	// leafSeed says that position 1 is a leaf of the pattern, unrestricted, in a program
	// without non-adjacency: a count then searches the other positions once a root for all its
	// seeds (seed), and counts the seeds each complete partial match admits (countSeeds).
	leafSeed bool
	// spaced: every back edge has its list in the candidate space (attachSpace).
	spaced bool
}

// interPlan is the inter-partition plan of a problem.
type interPlan struct {
	programs []program
	// mult is what every match found stands for: |Aut(p)| for an embedding count searched one
	// match an orbit, else 1; huge says that |Aut(p)| exceeds a uint64 (mult is then unset).
	mult uint64
	huge bool
	// remap, when not nil (shared execution, listing), is Aut(p): every match found stands for
	// its orbit, the matches m∘σ (m∘σ maps u to m(σ(u))) for every σ of remap, or for a unique
	// listing the one of them that keep's restrictions keep.
	remap [][]int
	keep  []plan.Restriction
	// lists are the candidate space's indexes the programs' back edges read (attachSpace).
	lists []*edgeList
}

// spaceWork and spaceShare bound the candidate space the host inter stage builds: the entries
// its building reads (the parents' candidates' degrees) at most spaceWork times the graph's
// adjacency entries, and the entries it holds at most spaceShare times (R-MAT 18 with 1,000
// zipf labels, an 8-vertex walk's 19 lists: an estimate above 1x, 0.28x held).
const (
	spaceWork  = 8
	spaceShare = 1
)

// attachSpace gives every back edge of ip's programs (on a graph with vertex or edge labels)
// its list in the candidate space of pl's candidates, when the space is estimated within
// spaceWork and spaceShare: the steps then intersect candidates only, not whole label
// runs (a walk's vertex of a frequent label: R-MAT 18 with 1,000 zipf labels). A step's reuse
// of an earlier step's candidates (filtered on that step's candidate set) is kept only where its
// own candidate set lies within that one. The error is ctx's.
func (ip *interPlan) attachSpace(ctx context.Context, g *graph.Graph, pl *plan.Plan) error {
	if plain(g) || pl.Candidates == nil {
		return nil
	}
	type edge struct{ parent, child int }
	need := map[edge]bool{}
	est := uint64(0)
	for k := range ip.programs {
		steps := ip.programs[k].steps
		for i := range steps {
			for _, b := range steps[i].back {
				e := edge{steps[b.pos].u, steps[i].u}
				if !need[e] {
					need[e] = true
					for _, v := range pl.Candidates[e.parent] {
						est += uint64(g.Degree(v))
					}
				}
			}
		}
	}
	if est > spaceWork*2*g.NumEdges() {
		return nil
	}
	lists := map[edge]*edgeList{}
	held := uint64(0)
	for e := range need {
		idx := pl.BuildEdgeIndex(ctx, g, e.parent, e.child)
		if idx == nil {
			return ctx.Err()
		}
		if held += uint64(idx.Entries()); held > spaceShare*2*g.NumEdges() {
			return nil
		}
		offsets, values := idx.Arrays()
		lists[e] = &edgeList{parent: pl.Candidates[e.parent], offsets: offsets, values: values}
	}
	for k := range ip.programs {
		steps := ip.programs[k].steps
		for i := range steps {
			st := &steps[i]
			for _, bs := range [][]backEdge{st.back, st.rest} {
				for j := range bs {
					bs[j].list = lists[edge{steps[bs[j].pos].u, st.u}]
				}
			}
			if st.reuse > 0 && !pl.CandidateBits[st.u].SubsetOf(pl.CandidateBits[steps[st.reuse].u]) {
				st.reuse, st.rest = 0, nil
			}
		}
	}
	for k := range ip.programs {
		ip.programs[k].spaced = true
	}
	for e := range need {
		l := lists[e]
		l.id = len(ip.lists)
		ip.lists = append(ip.lists, l)
	}
	return nil
}

// spaceBytes is the memory of ip's lists (attachSpace).
func (ip *interPlan) spaceBytes() uint64 {
	n := uint64(0)
	for _, l := range ip.lists {
		n += 4*uint64(len(l.values)) + 8*uint64(len(l.offsets))
	}
	return n
}

// sameParts is, for each of ip's lists, the bitset of its entries whose vertex lies in the part
// (of) of the parent's candidate whose list holds it (countOne's bits for a step on that list).
func (ip *interPlan) sameParts(of []uint32) []plan.Bitset {
	bs := make([]plan.Bitset, len(ip.lists))
	for k, l := range ip.lists {
		b := plan.NewBitset(len(l.values))
		for i, x := range l.parent {
			for e := l.offsets[i]; e < l.offsets[i+1]; e++ {
				if of[l.values[e]] == of[x] {
					b[e>>6] |= 1 << (e & 63)
				}
			}
		}
		bs[k] = b
	}
	return bs
}

// remapLimit is the largest group a shared listing remaps through (a larger one lists with one
// search order per pattern edge).
const remapLimit = 1 << 14

// newInterPlan makes the programs; cand, when not nil, holds every pattern vertex's candidates
// (package plan's filtering, on the whole graph: every match maps a vertex to a candidate).
// With orbits (counting) the programs keep one match of every orbit of Aut(p) and mult says
// how many matches each stands for; without (listing), unique matching alone restricts them,
// or, shared, remap expands each match found into its orbit.
// The pattern must be connected, with at least one edge. The error is ctx's, when it ends during
// the symmetry's searches (the group's restrictions, its orbits on the edges, their stabilisers'
// restrictions: 20-118 ms for a 5-cube, a 31-cycle or a 30-leaf star under load) or while a
// listing's group is enumerated (sharedPlan).
func newInterPlan(ctx context.Context, p *pattern.Pattern, induced, unique, orbits, shared bool, cand []plan.Bitset) (*interPlan, error) {
	size := make([]int, p.NumVertices())
	for u := range size {
		size[u] = -1
		if cand != nil && cand[u] != nil {
			size[u] = cand[u].Count()
		}
	}
	var ip *interPlan
	if shared {
		var err error
		if ip, err = sharedPlan(ctx, p, induced, unique, orbits, size); err != nil {
			return nil, err
		}
	}
	if ip == nil {
		var err error
		if ip, err = unsharedPlan(ctx, p, induced, unique, orbits, size); err != nil {
			return nil, err
		}
	}
	if cand != nil {
		for k := range ip.programs {
			for i := range ip.programs[k].steps {
				st := &ip.programs[k].steps[i]
				st.cand = cand[st.u]
			}
		}
	}
	return ip, nil
}

// identity is 0, 1, ..., n-1.
func identity(n int) []int {
	id := make([]int, n)
	for i := range id {
		id[i] = i
	}
	return id
}

// unsharedPlan runs one program per pattern edge, each with the symmetry restrictions of the
// whole group (unique or orbits).
func unsharedPlan(ctx context.Context, p *pattern.Pattern, induced, unique, orbits bool, size []int) (*interPlan, error) {
	var restr []plan.Restriction
	ip := &interPlan{mult: 1}
	if unique || orbits {
		var err error
		if restr, err = plan.StabilizerRestrictionsContext(ctx, p, nil, identity(p.NumVertices())); err != nil {
			return nil, err
		}
		if !unique {
			ip.setMult(restr)
		}
	}
	for _, e := range p.Edges() {
		pr, _ := orderedProgram(p, []int{e.U, e.V}, size, induced, func([]int) ([]plan.Restriction, error) { return restr, nil })
		ip.programs = append(ip.programs, pr)
	}
	return ip, nil
}

// orderedProgram is the program from first in searchOrder's order, a counted tail last, with
// the restrictions restrict gives for its order; or, where they leave no tail of two or more
// positions (program.tail) and the order without one differs, the program of that order (a
// star's leaves ordered by the stabilisers' restrictions: the tail's order took 3x as long,
// TestHugeAutomorphismGroup). The error is restrict's.
func orderedProgram(p *pattern.Pattern, first, size []int, induced bool, restrict func(order []int) ([]plan.Restriction, error)) (program, error) {
	order := searchOrder(p, first, size, true)
	restr, err := restrict(order)
	if err != nil {
		return program{}, err
	}
	pr := makeProgram(p, order, induced, restr)
	if plain := searchOrder(p, first, size, false); pr.tail == len(pr.steps)-1 && !slices.Equal(plain, order) {
		if restr, err = restrict(plain); err != nil {
			return program{}, err
		}
		pr = makeProgram(p, plain, induced, restr)
	}
	return pr, nil
}

// sharedPlan is PBE's shared execution of equivalent search sequences: one program per orbit of
// Aut(p) on the pattern's edges, run from its representative (U, V). An automorphism σ maps a
// match m whose smallest cut image edge is the image of the edge σ(e) onto m∘σ, whose smallest
// cut image edge (the same data edge) is the image of e; so the matches found from every edge of
// an orbit are the representative's, remapped. Among the representative's, those of one orbit
// of the pointwise stabiliser of U and V (which keeps the prime data edge, and so DUPREMOVE) are
// cut to one by that stabiliser's symmetry restrictions, and, when an automorphism reverses
// (U, V), the orientation to V < U: graph.Build numbers vertices by degree, so the second
// position is the prime edge's lighter end, whose list the next vertices' candidates come from
// (U < V, the hub second, made 4-cycles about 2x slower than the unshared path). Each match found
// then stands for exactly one orbit of Aut(p) acting on the inter-partition embeddings
// (orbit-stabiliser: |orbit of (U, V)|·|stabiliser| = |Aut(p)|): a count multiplies by |Aut(p)|
// (embeddings) or 1 (unique), a listing remaps it through the group. It returns nil for a
// listing whose group is beyond remapLimit, and for a trivial group (the unshared programs are
// the same); ctx's error when it ends while a listing's group is enumerated (0.4-1.1 s for a
// 5-cube's 3,840 automorphisms, on the 2-core VM under load; the rest of the planning took 20-30
// ms for it).
func sharedPlan(ctx context.Context, p *pattern.Pattern, induced, unique, orbits bool, size []int) (*interPlan, error) {
	global, err := plan.StabilizerRestrictionsContext(ctx, p, nil, identity(p.NumVertices()))
	if err != nil || len(global) == 0 {
		// Aut(p) is trivial: one orbit an edge, the unshared programs, without EdgeOrbits' and
		// StabilizerRestrictions' searches (a second for a 32-vertex 3-regular pattern).
		return nil, err
	}
	ip := &interPlan{mult: 1}
	if !orbits {
		// |Aut(p)| from the stabiliser chain first: enumerating 2^14 automorphisms only to find
		// more took 20 ms (K8).
		if a, ok := plan.RestrictionsAutomorphisms(global); !ok || a > remapLimit {
			return nil, nil
		}
		if ip.remap, err = plan.AutomorphismGroupContext(ctx, p, remapLimit); err != nil || ip.remap == nil {
			return nil, err
		}
		if unique {
			ip.keep = global
		}
	} else if !unique {
		ip.setMult(global)
	}
	eo, err := plan.EdgeOrbitsContext(ctx, p)
	if err != nil {
		return nil, err
	}
	for _, o := range eo {
		pr, err := orderedProgram(p, []int{o.U, o.V}, size, induced, func(order []int) ([]plan.Restriction, error) {
			restr, err := plan.StabilizerRestrictionsContext(ctx, p, order[:2], order)
			if o.Reversible {
				restr = append(restr, plan.Restriction{Less: o.V, Greater: o.U})
			}
			return restr, err
		})
		if err != nil {
			return nil, err
		}
		ip.programs = append(ip.programs, pr)
	}
	return ip, nil
}

// setMult sets mult to |Aut(p)|, the product of the stabiliser chain's orbit sizes that restr,
// p's SymmetryRestrictions, give (enumerating the group takes |Aut(p)| steps: 21! for a star of
// 21 leaves), or huge when that exceeds a uint64.
func (ip *interPlan) setMult(restr []plan.Restriction) {
	ip.mult, ip.huge = 1, false
	if a, ok := plan.RestrictionsAutomorphisms(restr); ok {
		ip.mult = a
	} else {
		ip.huge = true
	}
}

// total is what matches found stand for, false when that overflows a uint64.
func (ip *interPlan) total(matches uint64) (uint64, bool) {
	if ip.huge {
		return 0, matches == 0
	}
	return checked.Mul(matches, ip.mult)
}

// expand wraps a listing's visit so that every match found yields the matches it stands for
// (remap; visit itself without).
func (ip *interPlan) expand(visit func([]uint32) bool) func([]uint32) bool {
	if ip.remap == nil {
		return visit
	}
	var out []uint32
	return func(m []uint32) bool {
		out = append(out[:0], m...)
		for _, sigma := range ip.remap {
			for u, su := range sigma {
				out[u] = m[su]
			}
			if ip.keep == nil {
				if !visit(out) {
					return false
				}
				continue
			}
			if restricted(out, ip.keep) {
				return visit(out)
			}
		}
		return true
	}
}

// restricted reports whether m passes every restriction of rs.
func restricted(m []uint32, rs []plan.Restriction) bool {
	for _, r := range rs {
		if m[r.Less] >= m[r.Greater] {
			return false
		}
	}
	return true
}

// searchOrder orders p's vertices after first (a leaf of the two second: program.leafSeed): most
// earlier neighbours first, then fewest candidates (size; -1: unknown), then highest degree;
// with tail, when tailVertices finds two or more vertices to count at once, the others are
// ordered so and those come last (program.tail).
func searchOrder(p *pattern.Pattern, first []int, size []int, tail bool) []int {
	n := p.NumVertices()
	var last []int
	if tail {
		last = tailVertices(p, first, size)
	}
	if len(last) < 2 {
		last = nil
	}
	order := append([]int(nil), first...)
	if len(order) == 2 && p.Degree(order[0]) == 1 && p.Degree(order[1]) > 1 {
		order[0], order[1] = order[1], order[0] // a leaf second: a count searches once for all its seeds
	}
	placed := make([]bool, n)
	for _, u := range slices.Concat(first, last) {
		placed[u] = true
	}
	for len(order) < n-len(last) {
		best, bestBack, bestDeg, bestSize := -1, -1, -1, -1
		for u := range n {
			if placed[u] {
				continue
			}
			back := 0
			for _, w := range order {
				if p.Adjacent(u, w) {
					back++
				}
			}
			better := back > bestBack
			if back == bestBack {
				switch {
				case size[u] != bestSize && size[u] >= 0 && bestSize >= 0:
					better = size[u] < bestSize
				default:
					better = p.Degree(u) > bestDeg
				}
			}
			if better {
				best, bestBack, bestDeg, bestSize = u, back, p.Degree(u), size[u]
			}
		}
		order = append(order, best)
		placed[best] = true
	}
	return append(order, last...)
}

// tailVertices picks, greedily, vertices outside first to place last and count at once: pairwise
// non-adjacent, the rest staying connected, the collision classes fitting (classesFit); lowest
// degree first (leaves), then most candidates (size: a large set is better counted than
// enumerated), then lowest id.
func tailVertices(p *pattern.Pattern, first []int, size []int) []int {
	n := p.NumVertices()
	byCost := make([]int, 0, n)
	for u := range n {
		if !slices.Contains(first, u) {
			byCost = append(byCost, u)
		}
	}
	slices.SortStableFunc(byCost, func(a, b int) int {
		return cmp.Or(cmp.Compare(p.Degree(a), p.Degree(b)), cmp.Compare(size[b], size[a]))
	})
	in := make([]bool, n)
	var tail []int
	var labels []pattern.Label
	for _, u := range byCost {
		if slices.ContainsFunc(tail, func(w int) bool { return p.Adjacent(u, w) }) ||
			!classesFit(append(labels, p.VertexLabel(u))) {
			continue
		}
		in[u] = true
		if !connectedWithout(p, first[0], in) {
			in[u] = false
			continue
		}
		tail, labels = append(tail, u), append(labels, p.VertexLabel(u))
	}
	return tail
}

// connectedWithout reports whether the vertices of p not in out are connected (from start).
func connectedWithout(p *pattern.Pattern, start int, out []bool) bool {
	seen := make([]bool, p.NumVertices())
	seen[start] = true
	stack, reached := []int{start}, 1
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for w := range p.NumVertices() {
			if !seen[w] && !out[w] && p.Adjacent(u, w) {
				seen[w] = true
				stack = append(stack, w)
				reached++
			}
		}
	}
	for _, o := range out {
		if o {
			reached++
		}
	}
	return reached == p.NumVertices()
}

// makeProgram is the program that places p's vertices in order, checking restr.
func makeProgram(p *pattern.Pattern, order []int, induced bool, restr []plan.Restriction) program {
	n := p.NumVertices()
	pos := make([]int, n)
	for i, u := range order {
		pos[u] = i
	}
	pr := program{steps: make([]step, n)}
	for i, u := range order {
		s := step{u: u, label: p.VertexLabel(u)}
		for j := range i {
			w := order[j]
			if l, ok := p.EdgeLabel(u, w); ok {
				s.back = append(s.back, backEdge{pos: j, label: l})
			} else {
				s.others = append(s.others, j)
				if induced {
					s.nonAdj = append(s.nonAdj, j)
				}
			}
		}
		if len(s.back) == 1 {
			x := order[s.back[0].pos]
			for _, j := range s.others {
				if l, ok := p.EdgeLabel(x, order[j]); ok && l == s.back[0].label && p.VertexLabel(order[j]) == s.label {
					s.runOthers = append(s.runOthers, j)
				}
			}
		}
		for _, r := range restr {
			a, b := pos[r.Less], pos[r.Greater]
			switch {
			case b == i && a < i:
				s.less = append(s.less, a)
			case a == i && b < i:
				s.more = append(s.more, b)
			}
		}
		pr.steps[i] = s
	}
	pr.setTail(induced)
	pr.leafSeed = n > 2 && !induced && len(pr.steps[1].less)+len(pr.steps[1].more) == 0
	for i := 2; i < n; i++ {
		st := &pr.steps[i]
		pr.leafSeed = pr.leafSeed && !slices.ContainsFunc(st.back, func(b backEdge) bool { return b.pos == 1 }) &&
			!slices.Contains(st.less, 1) && !slices.Contains(st.more, 1)
	}
	for i := 3; i < n; i++ {
		pr.reuseFor(i)
	}
	return pr
}

// setTail sets the counted tail (program.tail): the longest suffix from position 2 on whose
// steps have no back edge, symmetry restriction or (induced) non-adjacency among themselves and
// whose collision classes fit leafcount's counter, and the steps' coreOthers.
func (pr *program) setTail(induced bool) {
	n := len(pr.steps)
	pr.tail = max(n-1, 0)
	for k := n - 2; k >= 2 && !induced && pr.tailFits(k); k-- {
		pr.tail = k
	}
	pr.classes, pr.tailExact = nil, true
	wild := false // a wildcard vertex meets every label: the tail is then one class
	for i := pr.tail; i < n && i >= 2; i++ {
		for _, b := range pr.steps[i].back {
			pr.tailExact = pr.tailExact && !b.label.Any
		}
		wild = wild || pr.steps[i].label.Any
	}
	pr.tailExact = pr.tailExact && !wild
	for i := pr.tail; i < n && i >= 2; i++ {
		c := slices.IndexFunc(pr.classes, func(cl []int) bool {
			return wild || pr.steps[cl[0]].label == pr.steps[i].label
		})
		if c < 0 {
			pr.classes = append(pr.classes, []int{i})
		} else {
			pr.classes[c] = append(pr.classes[c], i)
		}
	}
	for i := range pr.steps {
		st := &pr.steps[i]
		st.coreOthers = st.others
		if i > pr.tail {
			k := 0
			for k < len(st.others) && st.others[k] < pr.tail {
				k++
			}
			st.coreOthers = st.others[:k]
		}
	}
}

// tailFits reports whether the steps from position k on may be counted as a tail: none has a
// back edge or a restriction to another of them, and their collision classes fit.
func (pr *program) tailFits(k int) bool {
	var labels []pattern.Label
	for i := k; i < len(pr.steps); i++ {
		st := &pr.steps[i]
		for _, b := range st.back {
			if b.pos >= k {
				return false
			}
		}
		for _, j := range slices.Concat(st.less, st.more) {
			if j >= k {
				return false
			}
		}
		labels = append(labels, st.label)
	}
	return classesFit(labels)
}

// classesFit reports whether the vertex labels of a tail make collision classes of at most
// plan.MaxClassGroups steps each (a wildcard meets every label).
func classesFit(labels []pattern.Label) bool {
	for _, l := range labels {
		n := 0
		for _, m := range labels {
			if l.Any || m.Any || l == m {
				n++
			}
		}
		if n > plan.MaxClassGroups {
			return false
		}
	}
	return true
}

// reuseFor sets step i's reuse to the earlier step, from position 2 on, with the most back edges
// (two or more, the latest of equals) that are all step i's, on the same labels, and marks that
// step keep.
func (pr *program) reuseFor(i int) {
	st := &pr.steps[i]
	best := 0
	for j := 2; j < min(i, pr.tail); j++ { // not a tail step's: a count does not place those
		sj := &pr.steps[j]
		if len(sj.back) < 2 || sj.label != st.label || best > 0 && len(sj.back) < len(pr.steps[best].back) {
			continue
		}
		if subsetBack(sj.back, st.back) {
			best = j
		}
	}
	if best == 0 {
		return
	}
	st.reuse, st.rest = best, nil
	for _, b := range st.back {
		if !slices.Contains(pr.steps[best].back, b) {
			st.rest = append(st.rest, b)
		}
	}
	pr.steps[best].keep = true
}

// subsetBack reports whether every back edge of a is one of b's (same position and label).
func subsetBack(a, b []backEdge) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// interStats are one worker's counters.
type interStats struct {
	matches uint64
	seeds   uint64 // partial matches of two vertices the seeds made (level 2)
	nodes   uint64
	bytes   uint64 // adjacency bytes the extensions read
	// held is the host memory the worker's bitsets took (rootSet and the levels' marks): what
	// interHostBytes accounts for, less the shared forward index and inPart.
	held uint64
	// overflow says that the matches passed a uint64 (a counted tail's, or their sum).
	overflow bool
}

// add adds b's counters to a's (overflow where the matches' sum passes a uint64: workers whose
// counted tails each fit).
func (a *interStats) add(b interStats) {
	var ok bool
	a.matches, ok = checked.Add(a.matches, b.matches)
	a.overflow = a.overflow || !ok
	a.seeds += b.seeds
	a.nodes += b.nodes
	a.bytes += b.bytes
	a.held += b.held
	a.overflow = a.overflow || b.overflow
}

// interHostBytes is the host memory, beside the graph and the partitioning, that runInter's
// counting workers take on a graph of n vertices and entries adjacency entries (plain: graph's
// plain) with ip's programs on threads threads: on a plain graph the forward index (4 bytes a
// vertex, shared) and each worker's root bitset (rootSet); inPart (a bit an entry, shared) when
// a counted step has one back edge; the candidate space's lists (attachSpace) and a bit an entry
// of them (sameParts); and each worker's bitset of the kept candidates of every
// position some step reuses (markKept: made on first use, so this is a bound). The positions'
// candidate buffers (level: at most a few lists of the largest degree each) are left out.
func interHostBytes(n int, entries uint64, plain bool, ip *interPlan, threads int) uint64 {
	per := uint64(ip.reusedPositions()) * plan.BitsetBytes(n)
	var shared uint64
	if plain {
		per += plan.BitsetBytes(n)
		shared = 4 * uint64(n)
	}
	if ip.countsOne() {
		shared += plan.BitsetBytes(int(entries))
	}
	shared += ip.spaceBytes()
	for _, l := range ip.lists {
		shared += plan.BitsetBytes(len(l.values))
	}
	workers, _ := interWorkers(n, threads, nil)
	return shared + uint64(workers)*per
}

// countsOne reports whether some step of ip's programs that a count counts (the tail, or the
// last position) has one back edge: countOne's candidates, counted from the bits of inPart.
func (ip *interPlan) countsOne() bool {
	for k := range ip.programs {
		pr := &ip.programs[k]
		for i := max(pr.tail, 2); i < len(pr.steps); i++ {
			if len(pr.steps[i].back) == 1 && len(pr.steps[i].nonAdj) == 0 {
				return true
			}
		}
	}
	return false
}

// reusedPositions is the number of distinct positions whose kept candidates some step of ip's
// programs reuses (step.reuse), each of which a worker may mark in a bitset (markKept).
func (ip *interPlan) reusedPositions() int {
	var seen uint64
	for k := range ip.programs {
		for _, st := range ip.programs[k].steps {
			if st.reuse > 0 {
				seen |= 1 << st.reuse
			}
		}
	}
	return bits.OnesCount64(seen)
}

// interWorkers is the number of workers runInter runs on n roots with threads threads (one when
// listing: visit not nil), and the roots' chunk.
func interWorkers(n, threads int, visit func([]uint32) bool) (int, int) {
	if visit != nil {
		return par.Workers(n, 1, 64), 64
	}
	return par.Workers(n, max(threads, 1), 16), 16
}

// searcher is one worker's state.
type searcher struct {
	g       *graph.Graph
	of      []uint32
	entry   uint64 // bytes an adjacency entry moves
	pr      *program
	f       []uint32 // data vertex of every position
	out     []uint32 // data vertex of every pattern vertex (listing)
	prime   uint64   // key of the prime data edge
	st      interStats
	visit   func([]uint32) bool // nil when counting
	stopped bool
	ctx     context.Context
	tick    uint32
	// plain is set when every adjacency list is one run sorted by id (one vertex label,
	// plainLabel, and no edge labels).
	plain      bool
	plainLabel uint32
	levels     []level // every position's intersection storage
	// rootSet marks the neighbours of rootOf (the data vertex at position 0; -1: none marked),
	// on a plain graph: the candidates of a position adjacent to the root are tested against it
	// instead of merged with the root's list, which is a hub's at the top roots (rootBits).
	rootSet plan.Bitset
	rootOf  int64
	// fwd, on a plain graph, is every vertex's index of its first neighbour above it (the
	// lists' entries up to it are at most the vertex: a window above it starts there).
	fwd []uint32
	// offsets and nbr are the graph's adjacency (graph.Raw), for countOne; inPart marks every
	// adjacency entry whose neighbour lies in the part of the vertex whose list holds it (nil:
	// none of the programs counts a step of one back edge).
	offsets []uint64
	nbr     []uint32
	inPart  plan.Bitset
	// listSame are the bits of inPart for the entries of the plan's lists (sameParts), by id.
	listSame []plan.Bitset
	// tail is the program's counted tail when a count places it at once, else len(steps)-1
	// (listing: the last position too is extended); lc, meet and inter count a tail's classes.
	tail int
	// leafSeed: the program's seeds are searched together (program.leafSeed); seeds are the
	// root's, in increasing ids, while they are (position 1 then holds noVertex).
	leafSeed bool
	cached   bool // gather takes the counted steps' wide (countSeeds)
	seeds    []uint32
	// span and taken are countSeeds' seeds counted by runs, and the counted steps' candidates
	// a seed may be (mayTake).
	span  []uint32
	taken [][]uint32
	apart []int // spanSeeds' indexes of the seeds taken
	// placedKeys are countLastSeeds' keys of the seeds placed at positions 2 on, placedIDs the
	// placed vertices among its candidates.
	placedKeys []uint64
	placedIDs  []uint32
	lc         leafcount.Counter
	meet       [1 << plan.MaxClassGroups][]uint32
	inter      [1 << plan.MaxClassGroups]int64
}

// ones are the groups of a tail's class: one vertex each, unordered.
var ones = [plan.MaxClassGroups]leafcount.Group{{N: 1}, {N: 1}, {N: 1}, {N: 1}}

// level is one position's storage for the intersection of its earlier neighbours' lists.
type level struct {
	sets     [][]uint32
	buf, tmp []uint32
	// dup and part are, for every back edge, dupFree's bound and the part of its earlier vertex.
	dup  []uint64
	part []uint32
	// lo and hi are the window of the last intersection at this position; kept, when keptOK,
	// its candidates (before admit), for a later step's reuse.
	lo, hi uint64
	kept   []uint32
	keptOK bool
	at     int         // the index in kept of the candidate placed (keep)
	mark   plan.Bitset // kept's members when marked, for a later step's filter (markKept)
	marked bool
	list   []uint32 // a tail step's candidates (tailList)
	taken  []uint32 // a copy of them for countSeeds (mayTake)
	// wide, when wideOK, is a counted step's intersection with the smallest seed's prime edge,
	// which gather narrows to a larger seed's window instead of intersecting again (countSeeds).
	wide   []uint32
	wideOK bool
}

// newSearcher is a worker's searcher on g.
func newSearcher(ctx context.Context, g *graph.Graph, of []uint32, entry uint64, visit func([]uint32) bool, fwd []uint32, inPart plan.Bitset) *searcher {
	r := g.Raw()
	s := &searcher{g: g, of: of, entry: entry, visit: visit, ctx: ctx, rootOf: -1, offsets: r.Offsets, nbr: r.Neighbors, inPart: inPart}
	if l, ok := plainLabel(g); ok {
		s.plain, s.plainLabel, s.fwd = true, l, fwd
	}
	return s
}

// plainLabel returns g's one vertex label and whether g is plain: every adjacency list one run
// sorted by id (one vertex label and no edge labels).
func plainLabel(g *graph.Graph) (label uint32, plain bool) {
	l, ok := g.UniformVertexLabel()
	return l, ok && !g.HasEdgeLabels()
}

// plain reports whether g is plain (plainLabel).
func plain(g *graph.Graph) bool {
	_, ok := plainLabel(g)
	return ok
}

// forward is, on a plain graph, every vertex's index of its first neighbour above it (nil on
// another graph), on threads workers.
func forward(g *graph.Graph, threads int) []uint32 {
	if !plain(g) {
		return nil
	}
	n := g.NumVertices()
	fwd := make([]uint32, n)
	par.Ranges(n, par.Workers(n, max(threads, 1), 4096), 4096, func(_, lo, hi int) bool {
		for v := lo; v < hi; v++ {
			fwd[v] = uint32(setops.LowerBound(g.Neighbors(uint32(v)), 0, uint32(v)+1))
		}
		return true
	})
	return fwd
}

// samePart is the bitset over g's adjacency entries of those whose neighbour lies in the part
// (of) of the vertex whose list holds them, built on threads workers (each its own words).
func samePart(g *graph.Graph, of []uint32, threads int) plan.Bitset {
	r := g.Raw()
	entries := len(r.Neighbors)
	words := (entries + 63) / 64
	bs := plan.NewBitset(entries)
	par.Ranges(words, par.Workers(words, max(threads, 1), 4096), 4096, func(_, lo, hi int) bool {
		e, end := uint64(lo)*64, min(uint64(hi)*64, uint64(entries))
		// The owner of entry e: the last vertex whose list starts at or before it.
		v := sort.Search(len(r.Offsets)-1, func(v int) bool { return r.Offsets[v+1] > e })
		for ; e < end; e++ {
			for r.Offsets[v+1] <= e {
				v++
			}
			if of[r.Neighbors[e]] == of[v] {
				bs[e>>6] |= 1 << (e & 63)
			}
		}
		return true
	})
	return bs
}

// use sets the program the searcher runs.
func (s *searcher) use(pr *program) {
	s.pr = pr
	n := len(pr.steps)
	if len(s.f) < n {
		s.f = make([]uint32, n)
		s.levels = make([]level, n)
	}
	s.tail, s.leafSeed = n-1, false
	if s.visit == nil {
		s.tail, s.leafSeed = pr.counted(pr.tailExact || s.plain || pr.spaced)
	}
}

// counted is what a count running pr places at once (searcher.use; the prediction asks it too,
// countsAtOnce): the first position of the counted tail (len(steps)-1: the last position alone)
// and whether the seeds are searched together (leafSeed). sortedTail says every tail step has a
// sorted list (tailExact, a plain graph, or the candidate space's lists); without, neither.
func (pr *program) counted(sortedTail bool) (tail int, leafSeed bool) {
	n := len(pr.steps)
	if !sortedTail {
		return n - 1, false
	}
	return min(pr.tail, n-1), pr.leafSeed && n > 2
}

// noVertex stands at position 1 while a root's seeds are searched together: no vertex is it.
const noVertex = ^uint32(0)

func edgeKey(x, y uint32) uint64 {
	if x > y {
		x, y = y, x
	}
	return uint64(x)<<32 | uint64(y)
}

// window is the id interval [lo, hi) the symmetry restrictions leave step st given the earlier
// positions: above those that must be smaller, below those that must be larger (empty when
// lo >= hi).
func (s *searcher) window(st *step) (lo, hi uint64) {
	lo, hi = 0, 1<<32
	for _, j := range st.less {
		lo = max(lo, uint64(s.f[j])+1)
	}
	for _, j := range st.more {
		hi = min(hi, uint64(s.f[j]))
	}
	return lo, hi
}

// clip narrows the sorted list ws to the ids in [lo, hi).
func clip(ws []uint32, lo, hi uint64) []uint32 { return clipFrom(ws, 0, lo, hi) }

// clipFrom is clip for a list whose entries before from are below lo.
func clipFrom(ws []uint32, from int, lo, hi uint64) []uint32 {
	if lo >= hi {
		return nil
	}
	if lo > 0 {
		ws = ws[setops.LowerBound(ws, from, uint32(lo)):]
	}
	if hi < 1<<32 {
		ws = ws[:setops.LowerBound(ws, 0, uint32(hi))]
	}
	return ws
}

// sorted returns the neighbours of x that step st may take across the pattern edge b, as a
// list sorted by id, and whether there is one: the run on the step's vertex label and b's edge
// label, or x's whole list on a plain graph (empty when the labels cannot match there).
func (s *searcher) sorted(st *step, b backEdge, x uint32) ([]uint32, bool) {
	ws, _, lo, hi, ok := s.sortedRange(st, b, x)
	return ws[lo:hi], ok
}

// sortedRange is where sorted's list lies, ws[lo:hi]: among the graph's adjacency entries, or
// in b's list of the candidate space (x is a candidate of its position's vertex: every vertex
// placed before a counted position is); same marks ws's entries in their list owner's part.
func (s *searcher) sortedRange(st *step, b backEdge, x uint32) (ws []uint32, same plan.Bitset, lo, hi uint64, ok bool) {
	switch {
	case b.list != nil:
		if r, found := slices.BinarySearch(b.list.parent, x); found {
			var same plan.Bitset
			if s.listSame != nil {
				same = s.listSame[b.list.id]
			}
			return b.list.values, same, b.list.offsets[r], b.list.offsets[r+1], true
		}
	}
	switch {
	case !st.label.Any && !b.label.Any:
		lo, hi := s.g.RunWith(x, st.label.Value, b.label.Value)
		return s.nbr, s.inPart, s.offsets[x] + lo, s.offsets[x] + hi, true
	case s.plain:
		if !st.label.Matches(s.plainLabel) || !b.label.Matches(0) {
			return nil, nil, 0, 0, true
		}
		return s.nbr, s.inPart, s.offsets[x], s.offsets[x+1], true
	}
	return nil, nil, 0, 0, false
}

// root runs the program from data vertex v at position 0: every cut edge at v on the prime
// pattern edge's labels seeds it (each cut edge is reached from both ends, so in both
// orientations). The neighbours come from v's label run where the pattern's labels name one,
// so a vertex whose label does not match reads nothing and a match reads only its run.
func (s *searcher) root(v uint32) {
	if !s.place(0, v, -1) {
		return
	}
	g := s.g
	second := &s.pr.steps[1]
	lo, hi := s.window(second)
	b := second.back[0]
	if ws, ok := s.sorted(second, b, v); ok {
		s.seed(v, clip(ws, lo, hi), true)
		return
	}
	if second.label.Any {
		s.seed(v, g.Neighbors(v), b.label.Any)
		return
	}
	// A wildcard edge label on a labelled graph: every run of the vertex label, each sorted.
	rlo, rhi := g.RunsWithVertexLabel(v, second.label.Value)
	for r := rlo; r < rhi; r++ {
		s.seed(v, clip(g.RunNeighbors(v, r), lo, hi), true)
	}
}

// seed extends the partial match of v at position 0 with each w of ws across the cut at
// position 1; matched says that ws are v's neighbours on the prime edge's label (so the edge
// needs no check).
func (s *searcher) seed(v uint32, ws []uint32, matched bool) {
	skip := -1
	if matched {
		skip = 0
	}
	a := s.of[v]
	if s.leafSeed {
		// Position 1 is a leaf: the other positions do not depend on its vertex but through
		// the prime edge. They are searched once, with the smallest seed's prime edge (the
		// weakest DUPREMOVE: every seed's partial matches are among those), and countSeeds
		// counts each seed where they are complete (the seeds ascend, and so do their keys).
		s.seeds = s.seeds[:0]
		for _, w := range ws {
			if s.of[w] != a && s.place(1, w, skip) {
				s.seeds = append(s.seeds, w)
			}
		}
		if len(s.seeds) > 0 {
			// A wildcard leaf on a labelled graph reads v's whole list, sorted by id only
			// within each (vertex label, edge label) run: the seeds must ascend.
			if !slices.IsSorted(s.seeds) {
				slices.Sort(s.seeds)
			}
			s.st.seeds += uint64(len(s.seeds))
			s.prime, s.f[1] = edgeKey(v, s.seeds[0]), noVertex
			s.extend(2)
			s.seeds = s.seeds[:0]
		}
		return
	}
	for _, w := range ws {
		if s.stopped {
			return
		}
		if s.of[w] != a && s.place(1, w, skip) {
			s.prime = edgeKey(v, w)
			s.st.seeds++
			s.extend(2)
		}
	}
}

// countSeeds counts, at position i where a count places the rest at once (tail, or the last
// position), the matches of every seed of the root (leafSeed) that the partial match placed
// admits: those whose edge is below every cut edge among the positions placed (DUPREMOVE), and
// that are none of their vertices. The rest's count for a seed (countRest, with its prime edge)
// falls as the seed's key grows (DUPREMOVE's bound rises: fewer candidates), so it is counted at
// the ends of runs of seeds and the runs halved only where the ends differ (countSpan), the
// seed's own vertex left out (noVertex at position 1); a seed that a counted step could take
// (in its candidates with the smallest seed's bound, taken: mayTake) is counted on its own. The
// counted steps' lists are intersected once (wide), for the smallest seed. Where the rest is the
// last position alone, countLastSeeds counts each of its candidates once with the seeds it
// admits instead.
func (s *searcher) countSeeds(i int) {
	cut := ^uint64(0) // the smallest cut edge among positions 2 to i-1 and their back edges
	for j := 2; j < i; j++ {
		v := s.f[j]
		for _, b := range s.pr.steps[j].back {
			if x := s.f[b.pos]; s.of[x] != s.of[v] {
				cut = min(cut, edgeKey(v, x))
			}
		}
	}
	x, prime := s.f[0], s.prime
	// The seeds below cut (their keys ascend with their ids); none: nothing to count.
	seeds := s.seeds[:sort.Search(len(s.seeds), func(k int) bool { return edgeKey(x, s.seeds[k]) >= cut })]
	if len(seeds) == 0 {
		return
	}
	// Every counted step's intersection once, with the smallest seed's prime edge (the widest).
	n := len(s.pr.steps)
	for j := i; j < n; j++ {
		lv := &s.levels[j]
		filter, _ := s.gather(j, &s.pr.steps[j])
		lv.wide = lv.wide[:0]
		for _, v := range setops.IntersectAll(lv.sets, &lv.buf, &lv.tmp) {
			if filter == nil || filter.Has(v) {
				lv.wide = append(lv.wide, v)
			}
		}
		lv.wideOK = true
	}
	s.cached = true
	defer func() {
		s.cached = false
		for j := i; j < n; j++ {
			s.levels[j].wideOK = false
		}
	}()
	if i == n-1 {
		s.addMatches(s.countLastSeeds(i, seeds))
		s.prime = prime
		return
	}
	s.mayTake(i)
	s.span = s.span[:0]
	if s.spanSeeds(i, seeds) {
		seeds = nil // spanSeeds sorted them
	}
	for _, y := range seeds {
		k := edgeKey(x, y)
		if slices.Contains(s.f[2:i], y) {
			continue
		}
		if !slices.ContainsFunc(s.taken, func(l []uint32) bool { _, ok := slices.BinarySearch(l, y); return ok }) {
			s.span = append(s.span, y)
			continue
		}
		s.prime, s.f[1] = k, y
		s.addMatches(s.countRest(i))
		s.f[1] = noVertex
	}
	if len(s.span) > 0 {
		first, ok := s.countAt(i, s.span[0])
		last, ok2 := s.countAt(i, s.span[len(s.span)-1])
		if !ok || !ok2 {
			s.st.overflow = true
		} else {
			s.addMatches(s.countSpan(i, s.span, first, last))
		}
	}
	s.prime = prime
}

// countLastSeeds is countSeeds where the rest is the last position i alone: the pairs of a seed
// y of seeds (those below the placed positions' smallest cut edge, ascending) and a candidate v
// of step i that complete a match, each candidate counted once with the seeds it admits rather
// than each seed recounting the candidates (countSpan, and a seed that is a candidate counted
// on its own). The candidates are wide's (the smallest seed's prime edge: every seed's are among
// them). DUPREMOVE keeps (x, y), x the root, as the match's smallest cut edge when it is below
// v's cut back edges, the least of whose keys is v's threshold; the seeds' keys ascend with
// their ids, so those admitted are the seeds below it, found by binary search. From free on
// (dupFree's bound with the last seed's prime edge) no back edge of v is below that seed's: v
// admits every seed, and those candidates are counted together. Injectivity: y is none of the
// placed vertices (placedKeys, the seeds among them) nor v (a seed is v only when v is not
// adjacent to the root: an edge (x, v) across the cut is its own threshold).
func (s *searcher) countLastSeeds(i int, seeds []uint32) (uint64, bool) {
	st, lv := &s.pr.steps[i], &s.levels[i]
	x := s.f[0]
	s.placedKeys = s.placedKeys[:0]
	for _, y := range s.f[2:i] {
		if inSorted(seeds, y) {
			s.placedKeys = append(s.placedKeys, edgeKey(x, y))
		}
	}
	s.prime = edgeKey(x, seeds[len(seeds)-1])
	free := s.dupFree(i, st)
	cands := lv.wide
	k := len(cands)
	if free < 1<<32 {
		k = setops.LowerBound(cands, 0, uint32(free))
	}
	// The placed vertices among the candidates, ascending: none of them is v (injectivity).
	s.placedIDs = s.placedIDs[:0]
	for _, j := range st.others {
		if v := s.f[j]; v != noVertex && inSorted(cands, v) {
			s.placedIDs = append(s.placedIDs, v)
		}
	}
	slices.Sort(s.placedIDs)
	// Past free: each candidate with every seed but the placed ones (all) and itself (hits).
	past, all := cands[k:], uint64(len(seeds)-len(s.placedKeys))
	n, hits := uint64(len(past)), uint64(setops.IntersectCount(past, seeds))
	for _, v := range s.placedIDs {
		if uint64(v) >= free {
			n--
			if inSorted(seeds, v) {
				hits--
			}
		}
	}
	total, ok := checked.Mul(n, all)
	if !ok {
		return 0, false
	}
	total -= hits // (a seed among them leaves all at 1 or more)
	// Below free: each candidate with the seeds below its threshold.
	rooted := slices.ContainsFunc(st.back, func(b backEdge) bool { return b.pos == 0 })
	sp, pp := 0, 0 // seeds[sp:] and placedIDs[pp:] are at least the candidate (cands ascend)
	for _, v := range cands[:k] {
		if pp < len(s.placedIDs) && s.placedIDs[pp] == v {
			pp++
			continue
		}
		seed := false
		if !rooted {
			sp = setops.LowerBound(seeds, sp, v)
			seed = sp < len(seeds) && seeds[sp] == v
		}
		if total, ok = checked.Add(total, s.lastAdmits(i, st, seeds, v, seed)); !ok {
			return 0, false
		}
	}
	return total, true
}

// lastAdmits is the number of seeds (countLastSeeds') that the candidate v of the last step st
// (position i), below free, admits: those whose key is below v's threshold (the least key of
// its cut back edges), but the placed ones (placedKeys) and v itself when it is one (seed: only
// when v is not adjacent to the root, whose cut edge to it would be its threshold).
func (s *searcher) lastAdmits(i int, st *step, seeds []uint32, v uint32, seed bool) uint64 {
	x, t, pv := s.f[0], ^uint64(0), s.of[v]
	for b, part := range s.levels[i].part { // (dupFree's parts of the back neighbours)
		if part != pv {
			t = min(t, edgeKey(s.f[st.back[b].pos], v))
		}
	}
	c := uint64(len(seeds))
	if t <= s.prime { // not above the last seed's key: a prefix of the seeds
		c = uint64(sort.Search(len(seeds), func(k int) bool { return edgeKey(x, seeds[k]) >= t }))
	}
	for _, pk := range s.placedKeys {
		if pk < t {
			c--
		}
	}
	if seed && edgeKey(x, v) < t {
		c--
	}
	return c
}

// inSorted reports whether the sorted list vs holds v.
func inSorted(vs []uint32, v uint32) bool {
	_, ok := slices.BinarySearch(vs, v)
	return ok
}

// spanSeeds, when the counted steps' candidates a seed may be (taken) are no more than the
// seeds, sorts seeds as countSeeds' loop does, finding the few to set apart by binary search in
// seeds rather than every seed in them: those placed at positions 2 to i-1 (skipped) and those
// taken (counted alone); the others go to span, copied a run at a time. false: nothing done.
func (s *searcher) spanSeeds(i int, seeds []uint32) bool {
	n := 0
	for _, l := range s.taken {
		n += len(l)
	}
	if n > len(seeds) {
		return false
	}
	s.apart = s.apart[:0]
	for _, l := range s.taken {
		for _, y := range l {
			if c, ok := slices.BinarySearch(seeds, y); ok {
				s.apart = append(s.apart, c)
			}
		}
	}
	slices.Sort(s.apart)
	from := 0
	for k, c := range s.apart {
		if k > 0 && s.apart[k-1] == c {
			continue
		}
		s.span = append(s.span, seeds[from:c]...)
		from = c + 1
		if y := seeds[c]; !slices.Contains(s.f[2:i], y) {
			s.prime, s.f[1] = edgeKey(s.f[0], y), y
			s.addMatches(s.countRest(i))
			s.f[1] = noVertex
		}
	}
	s.span = append(s.span, seeds[from:]...)
	// The placed vertices among the rest are skipped.
	for _, y := range s.f[2:i] {
		if c, ok := slices.BinarySearch(s.span, y); ok {
			s.span = slices.Delete(s.span, c, c+1)
		}
	}
	return true
}

// mayTake sets taken to the candidates, with the present prime edge (the smallest seed's: the
// most), of the counted steps from position i on whose vertex label may be the seed's.
func (s *searcher) mayTake(i int) {
	s.taken = s.taken[:0]
	leaf := s.pr.steps[1].label
	for j := i; j < len(s.pr.steps); j++ {
		if st := &s.pr.steps[j]; leaf.Any || st.label.Any || st.label == leaf {
			lv := &s.levels[j]
			lv.taken = append(lv.taken[:0], s.tailList(j, st)...) // list is countRest's
			s.taken = append(s.taken, lv.taken)
		}
	}
}

// countAt is countRest at position i for the seed y, without its vertex (noVertex stays at
// position 1).
func (s *searcher) countAt(i int, y uint32) (uint64, bool) {
	s.prime = edgeKey(s.f[0], y)
	return s.countRest(i)
}

// countSpan is the sum of countAt over the seeds ys (ascending), given its values first and last
// at their ends: the values fall along ys, so equal ends mean every seed's is the same.
func (s *searcher) countSpan(i int, ys []uint32, first, last uint64) (uint64, bool) {
	switch {
	case first == last:
		return checked.Mul(first, uint64(len(ys)))
	case len(ys) == 2:
		return checked.Add(first, last)
	}
	m := len(ys) / 2
	mid, ok := s.countAt(i, ys[m])
	if !ok {
		return 0, false
	}
	a, ok := s.countSpan(i, ys[:m+1], first, mid)
	if !ok {
		return 0, false
	}
	b, ok := s.countSpan(i, ys[m:], mid, last)
	if !ok {
		return 0, false
	}
	sum, ok := checked.Add(a, b)
	return sum - mid, ok
}

// allBack, as place's adj, says that every back edge is known to be there with its label.
const allBack = -2

// place checks v at position i against everything but the candidate source and sets f[i]. The
// edge to position adj (-1: none; allBack: every back edge) is known to be there with a
// matching label (v was read from its adjacency on that label), so only the exactly-once rule
// is checked on it.
func (s *searcher) place(i int, v uint32, adj int) bool {
	st := &s.pr.steps[i]
	g := s.g
	if !st.label.Matches(g.VertexLabel(v)) || st.cand != nil && !st.cand.Has(v) {
		return false
	}
	for _, w := range s.f[:i] {
		if w == v {
			return false
		}
	}
	for _, j := range st.less {
		if s.f[j] >= v {
			return false
		}
	}
	for _, j := range st.more {
		if s.f[j] <= v {
			return false
		}
	}
	for _, b := range st.back {
		x := s.f[b.pos]
		if b.pos != adj && adj != allBack {
			if l, ok := g.HasEdge(v, x); !ok || !b.label.Matches(l) {
				return false
			}
		}
		if i >= 2 && s.of[v] != s.of[x] && edgeKey(v, x) < s.prime {
			return false // DUPREMOVE: a smaller cut image edge
		}
	}
	for _, j := range st.nonAdj {
		if _, ok := g.HasEdge(v, s.f[j]); ok {
			return false
		}
	}
	s.f[i] = v
	return true
}

// admit is place for a candidate of intersect at position i >= 2: its label, its edges to the
// earlier neighbours and its symmetry window are known, and it differs from those neighbours
// (graphs have no self-loops), so the candidate set (when cand says so), injectivity with the
// positions others, the exactly-once rule (below free, dupFree's bound) and non-adjacency are
// checked.
func (s *searcher) admit(i int, st *step, v uint32, free uint64, cand bool, others []int) bool {
	if cand && st.cand != nil && !st.cand.Has(v) {
		return false
	}
	for _, j := range others {
		if s.f[j] == v {
			return false
		}
	}
	if uint64(v) < free && !s.dupKeeps(i, v) {
		return false
	}
	for _, j := range st.nonAdj {
		if _, ok := s.g.HasEdge(v, s.f[j]); ok {
			return false
		}
	}
	s.f[i] = v
	return true
}

// dupFree is the smallest id from which no candidate of step st (at position i) can fail
// DUPREMOVE, given the prime edge (p0, p1), p0 < p1: for a back neighbour x, the edge (v, x)
// has a smaller key than the prime edge for every v when x < p0, for v < p1 when x = p0, and
// for v < p0 when x > p0 (v = p0 is placed already). It keeps every back edge's bound and part
// for dupKeeps.
func (s *searcher) dupFree(i int, st *step) uint64 {
	lv := &s.levels[i]
	lv.dup, lv.part = lv.dup[:0], lv.part[:0]
	free := uint64(0)
	for _, b := range st.back {
		x := s.f[b.pos]
		t := s.dupBound(x)
		lv.dup, lv.part = append(lv.dup, t), append(lv.part, s.of[x])
		free = max(free, t)
	}
	return free
}

// dupBound is DUPREMOVE's bound for a back neighbour x (dupFree): the edge (v, x) is smaller
// than the prime edge (p0, p1) for every v when x < p0, for v < p1 when x = p0, for v < p0
// otherwise.
func (s *searcher) dupBound(x uint32) uint64 {
	p0, p1 := s.prime>>32, s.prime&(1<<32-1)
	switch {
	case uint64(x) < p0:
		return 1 << 32
	case uint64(x) == p0:
		return p1
	}
	return p0
}

// dupKeeps is DUPREMOVE for a candidate v at position i, adjacent to every back neighbour and
// distinct from the placed vertices, with dupFree's bounds: no back edge is a cut edge with a
// smaller key than the prime edge.
func (s *searcher) dupKeeps(i int, v uint32) bool {
	lv := &s.levels[i]
	pv := s.of[v]
	for k, t := range lv.dup {
		if uint64(v) < t && lv.part[k] != pv {
			return false // DUPREMOVE: a smaller cut image edge
		}
	}
	return true
}

// extend places positions i onwards.
func (s *searcher) extend(i int) {
	if s.stopped {
		return
	}
	n := len(s.pr.steps)
	if i == n {
		s.addMatches(1, true)
		if s.visit != nil {
			if len(s.out) < n {
				s.out = make([]uint32, n)
			}
			for j := range s.pr.steps {
				s.out[s.pr.steps[j].u] = s.f[j]
			}
			if !s.visit(s.out[:n]) {
				s.stopped = true
			}
		}
		return
	}
	s.st.nodes++
	if s.tick++; s.tick&4095 == 0 && s.ctx.Err() != nil {
		s.stopped = true
		return
	}
	if i == s.tail && (len(s.seeds) > 0 || i < n-1) {
		for k := i; k < n; k++ {
			for _, b := range s.pr.steps[k].back {
				s.st.bytes += uint64(s.g.Degree(s.f[b.pos])) * s.entry
			}
		}
		if len(s.seeds) > 0 {
			s.countSeeds(i)
		} else {
			s.countTail(i)
		}
		return
	}
	st := &s.pr.steps[i]
	for _, b := range st.back {
		s.st.bytes += uint64(s.g.Degree(s.f[b.pos])) * s.entry
	}
	if st.keep {
		s.levels[i].keptOK = false
	}
	if i == n-1 && s.visit == nil {
		if c, ok := s.countOne(i, st, st.others); ok {
			s.addMatches(c, true) // checked: a counted tail may have brought matches near 2^64
			return
		}
	}
	if filter, ok := s.gather(i, st); ok {
		free := s.dupFree(i, st)
		if i == n-1 && s.visit == nil {
			s.addMatches(s.countLast(i, st, filter, free, st.others), true)
			return
		}
		lv := &s.levels[i]
		cands := setops.IntersectAll(lv.sets, &lv.buf, &lv.tmp)
		if st.keep {
			cands, filter = s.keepCands(i, cands, filter), nil
		}
		for k, v := range cands {
			if s.stopped {
				return
			}
			if (filter == nil || filter.Has(v)) && s.admit(i, st, v, free, true, st.others) {
				lv.at = k
				s.extend(i + 1)
			}
		}
		return
	}
	// Candidates: the neighbours of the earlier vertex of smallest degree.
	src := st.back[0].pos
	for _, b := range st.back[1:] {
		if s.g.Degree(s.f[b.pos]) < s.g.Degree(s.f[src]) {
			src = b.pos
		}
	}
	list := s.g.Neighbors(s.f[src])
	l := st.back[s.backIndex(st, src)].label
	adj := -1 // the edge to src needs its label checked unless the list is on it
	if l.Any {
		adj = src
	}
	if !st.label.Any && !l.Any {
		list = s.g.NeighborsWith(s.f[src], st.label.Value, l.Value)
		adj = src
	}
	for _, v := range list {
		if s.stopped {
			return
		}
		if s.place(i, v, adj) {
			s.extend(i + 1)
		}
	}
}

// countLast counts the matches the last position i of a count completes, from gather's sets
// and filter, dupFree's bound free. The candidate set is not checked: a
// candidate that passes the rest completes a match, and every match maps each vertex to a
// candidate (package plan's filtering is sound). From free on, a candidate adjacent to every
// earlier position passes if it is none of the other positions' vertices, so unless induced
// non-adjacency is to be checked, that part is counted, less those vertices found in it.
func (s *searcher) countLast(i int, st *step, filter plan.Bitset, free uint64, others []int) uint64 {
	lv := &s.levels[i]
	n := uint64(0)
	cands := setops.IntersectAll(lv.sets, &lv.buf, &lv.tmp)
	if len(st.nonAdj) > 0 {
		for _, v := range cands {
			if (filter == nil || filter.Has(v)) && s.admit(i, st, v, free, false, others) {
				n++
			}
		}
		return n
	}
	k := len(cands)
	if free < 1<<32 {
		k = setops.LowerBound(cands, 0, uint32(free))
		n = countIn(cands[k:], filter)
		// Less the other positions' vertices among them (injectivity).
		for _, j := range others {
			if v := s.f[j]; uint64(v) >= free && v != noVertex && (filter == nil || filter.Has(v)) {
				if c := setops.LowerBound(cands, k, v); c < len(cands) && cands[c] == v {
					n--
				}
			}
		}
	}
	for _, v := range cands[:k] {
		if (filter == nil || filter.Has(v)) && s.admit(i, st, v, free, false, others) {
			n++
		}
	}
	return n
}

// countStep is the number of candidates of step st at position i, placed last or in a counted
// tail, that pass every check against the positions placed (others: those not in back): the
// candidates of countOne, or of gather's lists (countLast).
func (s *searcher) countStep(i int, st *step, others []int) uint64 {
	if c, ok := s.countOne(i, st, others); ok {
		return c
	}
	filter, _ := s.gather(i, st) // a tail step has a sorted list (use)
	return s.countLast(i, st, filter, s.dupFree(i, st), others)
}

// countOne counts the candidates of step st at position i that complete a match, false unless
// st has one back edge, a sorted list on it and no induced non-adjacency (and inPart is set):
// the list's entries within the symmetry window, of which those below DUPREMOVE's bound t (the
// edge to the back neighbour x is smaller than the prime edge: every v when x < p0, v < p1 when
// x = p0, v < p0 otherwise) pass only within x's part, which inPart's bits count 64 at a time;
// less the positions others' vertices among those (injectivity). The candidate set is not
// checked (countLast says why).
func (s *searcher) countOne(i int, st *step, others []int) (uint64, bool) {
	nbr, same, a, k, e, ok := s.oneRange(st)
	if !ok {
		return 0, false
	}
	n := e - k + same.CountRange(a, k)
	b := st.back[0]
	for _, j := range others {
		v := s.f[j]
		if b.list == nil && slices.Contains(st.runOthers, j) {
			// v is in the run: counted when in the window, and past the bound or in x's part.
			if v != noVertex && a < e && nbr[a] <= v && v <= nbr[e-1] && (k < e && v >= nbr[k] || s.of[v] == s.of[s.f[b.pos]]) {
				n--
			}
			continue
		}
		if c := a + uint64(setops.LowerBound(nbr[a:e], 0, v)); c < e && nbr[c] == v && (c >= k || same[c>>6]&(1<<(c&63)) != 0) {
			n--
		}
	}
	return n, true
}

// oneRange is where the candidates of step st lie when it has one back edge, a sorted list on it
// with same-part bits (same), and no induced non-adjacency (ok false otherwise): nbr[a:e] within
// the symmetry window, of which those from k on are past DUPREMOVE's bound (countOne says which)
// and those before pass where same's bit is set.
func (s *searcher) oneRange(st *step) (nbr []uint32, same plan.Bitset, a, k, e uint64, ok bool) {
	if len(st.back) != 1 || len(st.nonAdj) > 0 {
		return nil, nil, 0, 0, 0, false
	}
	x := s.f[st.back[0].pos]
	nbr, same, a, e, ok = s.sortedRange(st, st.back[0], x)
	if !ok || same == nil {
		return nil, nil, 0, 0, 0, false
	}
	lo, hi := s.window(st)
	if lo >= hi {
		return nbr, same, a, a, a, true
	}
	t := s.dupBound(x)
	a += uint64(setops.LowerBound(nbr[a:e], 0, uint32(min(lo, 1<<32-1))))
	if lo >= 1<<32 {
		a = e
	}
	if hi < 1<<32 {
		e = a + uint64(setops.LowerBound(nbr[a:e], 0, uint32(hi)))
	}
	k = e
	if t < 1<<32 {
		k = a + uint64(setops.LowerBound(nbr[a:e], 0, uint32(t)))
	}
	return nbr, same, a, k, e, true
}

// countTail counts the matches that complete the partial match placed before position i, the
// program's counted tail (program.tail): in every collision class the injective choices of one
// candidate a step (leafcount's Counter on the sizes of the steps' candidate sets and of their
// intersections), the classes' counts multiplied (classes of one step: countStep, no list made).
func (s *searcher) countTail(i int) {
	s.addMatches(s.countRest(i))
}

// addMatches adds n matches (overflow: ok false, or the sum past a uint64).
func (s *searcher) addMatches(n uint64, ok bool) {
	if ok {
		s.st.matches, ok = checked.Add(s.st.matches, n)
	}
	s.st.overflow = s.st.overflow || !ok
}

// countRest is the number of matches that complete the partial match placed before position i,
// where a count places the rest at once: the tail (countTail), or the last position; ok false
// on overflow.
func (s *searcher) countRest(i int) (uint64, bool) {
	if i == len(s.pr.steps)-1 {
		st := &s.pr.steps[i]
		return s.countStep(i, st, st.others), true
	}
	total := uint64(1)
	for _, cl := range s.pr.classes {
		var c uint64
		ok := true
		if len(cl) == 1 {
			st := &s.pr.steps[cl[0]]
			c = s.countStep(cl[0], st, st.coreOthers)
		} else {
			c, ok = s.countClass(cl)
		}
		if ok {
			total, ok = checked.Mul(total, c)
		}
		if !ok || total == 0 {
			return 0, ok
		}
	}
	return total, true
}

// countClass counts the injective choices of one candidate for each of the tail steps at
// positions cl (one collision class): their lists (tailList) and the sizes of every
// intersection of them (meet), for leafcount's Counter.
//
// The step of one back edge with the longest range (oneRange; the leaf of a hub's frequent
// label) is not listed when its range is at least as long as the shortest other list: its size
// is countOne's, and an intersection with it keeps the other steps' common candidates that its
// range holds and passes (binary search, then the same-part bit below DUPREMOVE's bound).
func (s *searcher) countClass(cl []int) (uint64, bool) {
	k := len(cl)
	lazy, span := -1, uint64(0)
	for b, i := range cl {
		if _, _, a, _, e, ok := s.oneRange(&s.pr.steps[i]); ok && e-a > span {
			lazy, span = b, e-a
		}
	}
	short := ^uint64(0)
	for b, i := range cl {
		if b == lazy {
			continue
		}
		s.meet[1<<b] = s.tailList(i, &s.pr.steps[i])
		if len(s.meet[1<<b]) == 0 {
			return 0, true
		}
		short = min(short, uint64(len(s.meet[1<<b])))
	}
	if lazy >= 0 && span < short {
		i := cl[lazy]
		s.meet[1<<lazy] = s.tailList(i, &s.pr.steps[i])
		if len(s.meet[1<<lazy]) == 0 {
			return 0, true
		}
		lazy = -1
	}
	for mask := 1; mask < 1<<k; mask++ {
		low := mask & -mask
		switch {
		case lazy >= 0 && mask == 1<<lazy:
			st := &s.pr.steps[cl[lazy]]
			c, _ := s.countOne(cl[lazy], st, st.coreOthers)
			if c == 0 {
				return 0, true
			}
			s.inter[mask] = int64(c)
			continue
		case lazy >= 0 && mask&(1<<lazy) != 0:
			// The others' intersection (a smaller mask, made), its members in lazy's range.
			s.meet[mask] = s.inRange(&s.pr.steps[cl[lazy]], s.meet[mask^1<<lazy], s.meet[mask][:0])
		case low != mask:
			// The lowest step's list with the others' intersection (a smaller mask, made).
			s.meet[mask] = setops.Intersect(s.meet[low], s.meet[mask^low], s.meet[mask])
		}
		s.inter[mask] = int64(len(s.meet[mask]))
	}
	return s.lc.Class(ones[:k], s.inter[:1<<k])
}

// inRange appends to dst the members of vs that step st (oneRange's) counts as candidates: in
// its range, and from DUPREMOVE's bound on or with their same-part bit set.
func (s *searcher) inRange(st *step, vs, dst []uint32) []uint32 {
	nbr, same, a, k, e, _ := s.oneRange(st)
	for _, v := range vs {
		c := a + uint64(setops.LowerBound(nbr[a:e], 0, v))
		if c < e && nbr[c] == v && (c >= k || same[c>>6]&(1<<(c&63)) != 0) {
			dst = append(dst, v)
		}
		a = c // vs ascends
	}
	return dst
}

// tailList writes to position i's level the candidates of tail step st that pass every check
// against the positions placed before the tail (the candidate set aside: countLast says why),
// and returns them.
func (s *searcher) tailList(i int, st *step) []uint32 {
	lv := &s.levels[i]
	if nbr, same, a, k, e, ok := s.oneRange(st); ok {
		// One back edge: the entries before DUPREMOVE's bound by their same-part bits.
		lv.list = lv.list[:0]
		for c := a; c < k; c = (c | 63) + 1 { // a word of bits at a time
			w := same[c>>6] >> (c & 63)
			if rest := k - c; rest < 64 {
				w &= 1<<rest - 1
			}
			for ; w != 0; w &= w - 1 {
				lv.list = append(lv.list, nbr[c+uint64(bits.TrailingZeros64(w))])
			}
		}
		lv.list = append(lv.list, nbr[k:e]...)
		return s.unplaced(lv, st)
	}
	filter, _ := s.gather(i, st) // a tail step has a sorted list (use)
	free := s.dupFree(i, st)
	cands := setops.IntersectAll(lv.sets, &lv.buf, &lv.tmp)
	k := len(cands)
	if free < 1<<32 {
		k = setops.LowerBound(cands, 0, uint32(free))
	}
	lv.list = lv.list[:0]
	for _, v := range cands[:k] {
		if (filter == nil || filter.Has(v)) && s.dupKeeps(i, v) {
			lv.list = append(lv.list, v)
		}
	}
	if filter == nil {
		lv.list = append(lv.list, cands[k:]...) // past DUPREMOVE's bound: every one passes
	} else {
		for _, v := range cands[k:] {
			if filter.Has(v) {
				lv.list = append(lv.list, v)
			}
		}
	}
	return s.unplaced(lv, st)
}

// unplaced takes the vertices placed before the tail (st's coreOthers) out of lv's list
// (injectivity), found by binary search, and returns it.
func (s *searcher) unplaced(lv *level, st *step) []uint32 {
	for _, j := range st.coreOthers {
		if c, found := slices.BinarySearch(lv.list, s.f[j]); found {
			lv.list = slices.Delete(lv.list, c, c+1)
		}
	}
	return lv.list
}

// gather sets position i's level's sets to the sorted lists whose intersection is its
// candidates, within the symmetry and DUPREMOVE windows (ok false when an earlier neighbour
// has no sorted list): every earlier neighbour's list on its pattern edge's labels, or an
// earlier step's kept candidates for the lists it shares (reuse). One set may be left out for a
// filter, the candidates then being the intersection's members in it: the root's list (a plain
// graph's), else kept, when another is no more than GallopThreshold times longer (testing a bit
// beats merging, and galloping up to there).
func (s *searcher) gather(i int, st *step) (filter plan.Bitset, ok bool) {
	lv := &s.levels[i]
	lv.sets = lv.sets[:0]
	lo, hi := s.window(st)
	// DUPREMOVE's window: when two earlier neighbours lie in different parts, a candidate is
	// across the cut from one of them, x, so key(v, x) must exceed the prime edge's key, whose
	// smaller end is plo: v > plo (v < plo would make the smaller key; v == plo is placed).
	part := s.of[s.f[st.back[0].pos]]
	for _, b := range st.back[1:] {
		if s.of[s.f[b.pos]] != part {
			lo = max(lo, s.prime>>32+1)
			break
		}
	}
	lv.lo, lv.hi = lo, hi
	if s.cached && lv.wideOK {
		lv.sets = append(lv.sets, clip(lv.wide, lo, hi))
		return nil, true
	}
	back := st.back
	var kept []uint32
	var rv *level
	if st.reuse > 0 {
		if rv = &s.levels[st.reuse]; rv.keptOK && lo >= rv.lo && hi <= rv.hi {
			// kept[at] is the vertex placed there: a window above it starts after it.
			from := 0
			if lo > uint64(s.f[st.reuse]) {
				from = rv.at + 1
			}
			kept, back = clipFrom(rv.kept, from, lo, hi), st.rest
			if len(kept) == 0 {
				lv.sets = append(lv.sets, nil)
				return nil, true
			}
		} else {
			rv = nil
		}
	}
	var root []uint32
	rooted := false
	for _, b := range back {
		ws, ok := s.sorted(st, b, s.f[b.pos])
		if !ok {
			return nil, false
		}
		if b.pos == 0 && s.plain {
			root, rooted = ws, true // clipped only if it is intersected
			continue
		}
		from := 0
		if x := s.f[b.pos]; s.fwd != nil && lo > uint64(x) && len(ws) > 0 {
			from = int(s.fwd[x]) // a plain list: its entries up to fwd[x] are at most x
		}
		lv.sets = append(lv.sets, clipFrom(ws, from, lo, hi))
	}
	if rooted {
		if len(lv.sets) == 0 && rv == nil || setops.GallopThreshold*len(root) < len(shortest(lv.sets, kept)) {
			lv.sets, rooted = append(lv.sets, clip(root, lo, hi)), false
		} else {
			s.markRoot()
			filter = s.rootSet
		}
	}
	if rv == nil {
		narrow(lv.sets)
		return filter, true
	}
	lv.sets = append(lv.sets, kept)
	narrow(lv.sets)
	if filter == nil && len(lv.sets) > 1 && len(shortest(lv.sets[:len(lv.sets)-1], nil)) <= setops.GallopThreshold*len(kept) {
		filter, lv.sets = s.markKept(rv), lv.sets[:len(lv.sets)-1] // kept stays in the narrowing
	}
	return filter, true
}

// shortest is the shortest of sets and more (more when not nil and no longer than them).
func shortest(sets [][]uint32, more []uint32) []uint32 {
	if len(sets) == 0 {
		return more
	}
	m := slices.MinFunc(sets, func(a, b []uint32) int { return cmp.Compare(len(a), len(b)) })
	if more != nil && len(more) <= len(m) {
		return more
	}
	return m
}

// narrow clips every set to the range [largest first element, smallest last element], outside
// which their intersection has nothing (every set empty when one is).
func narrow(sets [][]uint32) {
	lo, hi := uint32(0), uint32(1<<32-1)
	for _, ws := range sets {
		if len(ws) == 0 {
			for k := range sets {
				sets[k] = nil
			}
			return
		}
		lo, hi = max(lo, ws[0]), min(hi, ws[len(ws)-1])
	}
	for k, ws := range sets {
		if ws[0] < lo || ws[len(ws)-1] > hi {
			sets[k] = clip(ws, uint64(lo), uint64(hi)+1)
		}
	}
}

// keepCands copies position i's candidates (those in filter, when not nil) to its level's kept,
// for a later step's reuse (the previous kept's marks cleared), and returns them.
func (s *searcher) keepCands(i int, cands []uint32, filter plan.Bitset) []uint32 {
	lv := &s.levels[i]
	if lv.marked {
		for _, v := range lv.kept {
			lv.mark.Clear(v)
		}
		lv.marked = false
	}
	lv.kept = lv.kept[:0]
	for _, v := range cands {
		if filter == nil || filter.Has(v) {
			lv.kept = append(lv.kept, v)
		}
	}
	lv.keptOK = true
	return lv.kept
}

// markKept marks lv's kept in its mark, once per kept (the bitset made on first use: only the
// levels whose candidates a later step filters on have one).
func (s *searcher) markKept(lv *level) plan.Bitset {
	if !lv.marked {
		if lv.mark == nil {
			lv.mark = plan.NewBitset(s.g.NumVertices())
			s.st.held += plan.BitsetBytes(s.g.NumVertices())
		}
		for _, v := range lv.kept {
			lv.mark.Set(v)
		}
		lv.marked = true
	}
	return lv.mark
}

// countIn is the number of vs in filter (all of them when it is nil).
func countIn(vs []uint32, filter plan.Bitset) uint64 {
	if filter == nil {
		return uint64(len(vs))
	}
	n := uint64(0)
	for _, v := range vs {
		if filter.Has(v) {
			n++
		}
	}
	return n
}

// markRoot makes rootSet the neighbours of the data vertex at position 0 (a plain graph's whole
// list), clearing the previous root's.
func (s *searcher) markRoot() {
	v := s.f[0]
	if s.rootOf == int64(v) {
		return
	}
	if s.rootSet == nil {
		s.rootSet = plan.NewBitset(s.g.NumVertices())
		s.st.held += plan.BitsetBytes(s.g.NumVertices())
	} else if s.rootOf >= 0 {
		for _, w := range s.g.Neighbors(uint32(s.rootOf)) {
			s.rootSet.Clear(w)
		}
	}
	for _, w := range s.g.Neighbors(v) {
		s.rootSet.Set(w)
	}
	s.rootOf = int64(v)
}

// backIndex is the index in st.back of the earlier position pos.
func (s *searcher) backIndex(st *step, pos int) int {
	for k, b := range st.back {
		if b.pos == pos {
			return k
		}
	}
	return 0
}

// runInter runs the inter-partition stage over threads workers (counting: visit nil) or one
// (listing, in increasing ids), rooted at every data vertex in turn (no list of the cut edges is made: each
// vertex's cut edges are found in its adjacency list, in parallel). It returns the counters and
// whether it stopped early (cancelled, or visit said stop).
func runInter(ctx context.Context, g *graph.Graph, of []uint32, entry uint64, ip *interPlan, threads int, visit func([]uint32) bool) (interStats, bool) {
	roots := g.NumVertices()
	// A count takes the roots from the last id down, in small chunks: ids ascend with the degree
	// (graph.Build's numbering), so the hubs, whose roots take longest, start first and the
	// light roots fill the threads at the end instead of a hub chunk running alone.
	workers, chunk := interWorkers(roots, threads, visit)
	last := roots - 1
	if visit != nil {
		last = -1
	}
	searchers := make([]*searcher, workers)
	fwd := forward(g, len(searchers))
	var inPart plan.Bitset
	var listSame []plan.Bitset
	if visit == nil && ip.countsOne() {
		inPart, listSame = samePart(g, of, len(searchers)), ip.sameParts(of)
	}
	stopped := par.Ranges(roots, len(searchers), chunk, func(w, lo, hi int) bool {
		s := searchers[w]
		if s == nil {
			s = newSearcher(ctx, g, of, entry, visit, fwd, inPart)
			s.listSame = listSame
			searchers[w] = s
		}
		for r := lo; r < hi && !s.stopped; r++ {
			v := r
			if last >= 0 {
				v = last - r
			}
			for k := range ip.programs {
				s.use(&ip.programs[k])
				s.root(uint32(v))
			}
		}
		return !s.stopped && ctx.Err() == nil
	})
	var total interStats
	for _, s := range searchers {
		if s != nil {
			total.add(s.st)
		}
	}
	return total, stopped
}
