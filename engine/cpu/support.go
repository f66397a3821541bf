package cpu

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// Edge supports: counting the postponed vertices by lookups instead of intersections.
//
// The support of a data edge (x, y) is |N(x) ∩ N(y)|, the number of triangles on it. All of
// them come from one pass over the graph (edgeSupports: each edge's common neighbours counted
// once, from its endpoint of lower degree, as triangle counting does). A postponed group whose
// parents are two pattern-adjacent levels (their data vertices then form an edge) has the
// edge's support as its set's size before the used vertices are taken out; a group on one
// parent has the parent's degree. The used vertices adjacent in the pattern to every parent are
// always in the set and are taken out as a constant; any other is tested by adjacency. So the
// leaf counter's intersection at every assignment becomes a lookup.
//
// When the plan's postponed vertices are two single vertices d and e (two groups of one class),
// the count of an assignment is |S_d| |S_e| − |S_d ∩ S_e ∖ U|, and the second term, summed over
// every assignment, is the number of embeddings of the quotient pattern, d and e merged into one
// vertex adjacent to both's parents (an assignment and a common vertex are an embedding of the
// quotient, and conversely). So the search sums |S_d| |S_e| alone, and the quotient is counted
// once by the engine (for STMatch's q3, a triangle with a vertex on two of its edges, the
// quotient is the 4-clique, which the clique counter counts in milliseconds; the search then
// enumerates the triangles with two lookups each, where it intersected twice). With symmetry
// restrictions the sum covers the assignments that pass them: exactly 1/s of the quotient's
// embeddings (plan.Plan.QuotientShare), which requires every automorphism of the pattern to
// keep {d, e}.
//
// It applies to counts (not listing, not induced: plans with postponed vertices are never
// induced) whose groups have a wildcard vertex label, edges that adjacency alone decides
// (hubEdge), no symmetry window, and one or two parents joined in the pattern: STMatch's q3, q10
// and q13. The supports cost 4 bytes per adjacency entry (8 per edge: 0.8 MB for wiki-Vote), a
// bit set of the vertices per thread during the pass, and, per worker and group, a row of 4
// bytes per data vertex (supportRowLimit; above it, a binary search per lookup).

// supportMode chooses whether counts take edge supports where they apply: 0 when the plan's
// node bound is at least uniqueAltMinNodes (a small search does not pay for the pass and the
// quotient's count), 1 always, -1 never (tests and benchmarks).
var supportMode = 0

// supportUsed counts the counts that took edge supports (tests).
var supportUsed atomic.Int64

// supportRowLimit bounds the data graph's vertices for which workers keep a parent's supports
// as a row indexed by vertex (4 bytes each); above it a lookup binary-searches the parent's
// list (a variable so that tests can take that path).
var supportRowLimit = 1 << 22

// supportGroup is one postponed group counted by lookups.
type supportGroup struct {
	group   *plan.LeafGroup
	parents []int         // the parents' levels, shallowest first (one or two)
	always  int64         // used vertices always in the set: adjacent in the pattern to every parent
	tests   []supportTest // the other non-parent levels: their data vertices are tested by adjacency
}

// supportTest is a level whose data vertex may lie in a group's set: it does when it is
// adjacent to the data vertex of each parent k with check[k] (the others are its neighbours in
// the pattern).
type supportTest struct {
	level int
	check [2]bool
}

// supportPlan says how a plan's postponed vertices are counted from edge supports.
type supportPlan struct {
	groups []supportGroup
	// pair is set when the groups are two single vertices d and e of one class: the search
	// sums |S_d| |S_e| and the quotient's embeddings, divided by share, are taken off.
	pair  bool
	d, e  int
	share uint64
	// fixed is the level j below the last whose data vertex the most tests pair with the last
	// level's (either side of the test), or -1: while the last level's candidates are run
	// through, those tests ask whether each candidate is a neighbour of one fixed data vertex,
	// which supportLast answers from a bit row of that vertex's neighbours (supportCounter.mark).
	fixed int
}

// supportShape returns how plan pl of a count on g counts its postponed vertices from edge
// supports, or nil when it cannot (see the comment above).
func supportShape(g *graph.Graph, pl *plan.Plan) *supportPlan {
	if len(pl.Levels) == 0 || len(pl.Groups) == 0 || len(pl.Groups) > 2 || len(pl.Classes) != 1 {
		return nil
	}
	sp := &supportPlan{fixed: -1}
	for gi := range pl.Groups {
		lg := &pl.Groups[gi]
		if !lg.VertexLabel.Any || lg.Bounded() || len(lg.Parents) == 0 || len(lg.Parents) > 2 {
			return nil
		}
		sg := supportGroup{group: lg}
		for _, pe := range lg.Parents {
			if !hubEdge(g, pe.EdgeLabel) {
				return nil
			}
			sg.parents = append(sg.parents, pe.Level)
		}
		slices.Sort(sg.parents)
		vertexOf := func(j int) int { return pl.Levels[j].Vertex }
		if len(sg.parents) == 2 && !pl.Pattern.Adjacent(vertexOf(sg.parents[0]), vertexOf(sg.parents[1])) {
			return nil // the parents' data vertices need not be an edge
		}
		for j := range pl.Levels {
			if slices.Contains(sg.parents, j) {
				continue
			}
			st := supportTest{level: j}
			for k, pj := range sg.parents {
				st.check[k] = !pl.Pattern.Adjacent(vertexOf(j), vertexOf(pj))
			}
			if st.check == [2]bool{} {
				sg.always++
			} else {
				sg.tests = append(sg.tests, st)
			}
		}
		sp.groups = append(sp.groups, sg)
	}
	sp.fixed = fixedLevel(sp.groups, len(pl.Levels)-1)
	if len(sp.groups) == 2 {
		a, b := sp.groups[0].group, sp.groups[1].group
		if len(a.Vertices) != 1 || len(b.Vertices) != 1 {
			return nil
		}
		sp.pair, sp.d, sp.e = true, a.Vertices[0], b.Vertices[0]
		share, ok := pl.QuotientShare(sp.d, sp.e, supportAutLimit)
		if !ok {
			return nil
		}
		sp.share = share
	}
	return sp
}

// fixedLevel returns the level below last that the most of the groups' adjacency tests pair
// with level last (the tested level against a parent, either of them last), or -1 when no
// test involves last and an earlier level.
func fixedLevel(groups []supportGroup, last int) int {
	tests := make(map[int]int)
	for _, sg := range groups {
		for _, st := range sg.tests {
			for k, p := range sg.parents {
				if !st.check[k] {
					continue
				}
				switch {
				case st.level == last && p < last:
					tests[p]++
				case p == last && st.level < last:
					tests[st.level]++
				}
			}
		}
	}
	best := -1
	for j, c := range tests {
		if best < 0 || c > tests[best] || (c == tests[best] && j < best) {
			best = j
		}
	}
	return best
}

// supportSkew is added to the collisions (tests: a wrong formula must fail the oracle tests).
var supportSkew int64

// supportAutLimit bounds the automorphism group QuotientShare enumerates.
const supportAutLimit = 1 << 14

// supportFor returns how the count of problem p with plan pl counts its postponed vertices from
// edge supports, or nil when it counts them otherwise: the shape does not apply, the last-level
// or pair sum does (they need no intersection per assignment either), the search is small
// (supportMode), or the supports do not fit p's memory limit.
func supportFor(p *engine.Problem, pl *plan.Plan) *supportPlan {
	if supportMode < 0 || pl.Empty || p.Semantics.Induced {
		return nil
	}
	if _, ok := asClique(p); ok {
		return nil
	}
	sp := supportShape(p.Data, pl)
	if sp == nil || lastSumFor(p.Data, pl, &leafCounter{memoised: make([]bool, len(pl.Groups))}) != nil || pairSumFor(p.Data, pl) != nil {
		return nil
	}
	if supportMode == 0 && pl.NodeBound() < uniqueAltMinNodes {
		return nil
	}
	if p.MemoryLimit > 0 && supportBytes(p, sp) > memoryLeft(p)/2 {
		return nil
	}
	return sp
}

// supportBytes is what edge supports add to a count: 4 bytes per adjacency entry, and per
// thread a bit set of the vertices (the pass) and a row per group (the search).
func supportBytes(p *engine.Problem, sp *supportPlan) uint64 {
	n := uint64(p.Data.NumVertices())
	threads := uint64(p.ThreadCount())
	perThread := n / 8
	if n <= uint64(supportRowLimit) {
		perThread += 4 * n * uint64(len(sp.groups))
	}
	return 8*p.Data.NumEdges() + threads*perThread
}

// supportNote is the line --explain adds when a count takes edge supports.
func supportNote(sp *supportPlan, p *pattern.Pattern) string {
	if !sp.pair {
		return "the CPU engine counts the postponed vertices from edge supports (common neighbours per data edge, one pass over the graph) instead of intersecting at every assignment"
	}
	return fmt.Sprintf("the CPU engine counts %s and %s from edge supports (common neighbours per data edge, one pass over the graph) as |S_%s| |S_%s| per assignment, and takes off the embeddings of the pattern with %s and %s merged, counted apart",
		p.Name(sp.d), p.Name(sp.e), p.Name(sp.d), p.Name(sp.e), p.Name(sp.d), p.Name(sp.e))
}

// quotient returns p with e merged into d: d takes e's edges (d and e are not adjacent; an
// edge both have keeps d's label), e is removed.
func quotient(p *pattern.Pattern, d, e int) (*pattern.Pattern, error) {
	n := p.NumVertices()
	index := func(u int) int { // vertices after e shift down by one; e becomes d
		if u == e {
			u = d
		}
		if u > e {
			return u - 1
		}
		return u
	}
	var labels []pattern.Label
	var names []string
	for u := range n {
		if u != e {
			labels = append(labels, p.VertexLabel(u))
			names = append(names, p.Name(u))
		}
	}
	var edges []pattern.Edge
	for _, ed := range p.Edges() {
		if ed.U != e && ed.V != e {
			edges = append(edges, pattern.Edge{U: index(ed.U), V: index(ed.V), Label: ed.Label})
		}
	}
	for _, ed := range p.Edges() {
		if ed.U != e && ed.V != e {
			continue
		}
		w := ed.U + ed.V - e
		if p.Adjacent(d, w) {
			continue
		}
		edges = append(edges, pattern.Edge{U: index(d), V: index(w), Label: ed.Label})
	}
	return pattern.New(labels, edges, names)
}

// supportCount is what the workers of one count share: the plan's shape and the supports.
type supportCount struct {
	plan *supportPlan
	sup  []uint32 // per adjacency entry of the data graph
	// collisions is the quotient's embeddings divided by share: what the sum of |S_d| |S_e|
	// counts beyond the embeddings (pair only).
	collisions uint64
}

// supportCounter is a worker's side of a supportCount: a row per group, the supports of the
// data vertex of its shallowest parent indexed by neighbour.
type supportCounter struct {
	*supportCount
	g       *graph.Graph
	offsets []uint64
	rows    [][]uint32
	rowKey  []uint32 // 1 + the data vertex whose supports rows[k] holds; 0: none
	// adj holds the neighbours of one data vertex (1 + it in adjKey; 0: none) while supportLast
	// runs through the last level's candidates (mark, unmark): the tests that pair that vertex
	// with a candidate then load a bit instead of searching a neighbour list.
	adj    plan.Bitset
	adjKey uint32
}

func newSupportCounter(sc *supportCount, g *graph.Graph) *supportCounter {
	k := len(sc.plan.groups)
	return &supportCounter{supportCount: sc, g: g, offsets: g.Raw().Offsets, rows: make([][]uint32, k), rowKey: make([]uint32, k)}
}

// count returns the number of placements of the postponed vertices for the data vertices m of
// the levels, or, for a pair, |S_d| |S_e| (ok is false on overflow).
func (sc *supportCounter) count(m []uint32) (uint64, bool) {
	if !sc.plan.pair {
		sg := &sc.plan.groups[0]
		return placements(sg.group, sc.size(0, m))
	}
	a, b := sc.size(0, m), sc.size(1, m)
	if a <= 0 || b <= 0 {
		return 0, true
	}
	return mulChecked(uint64(a), uint64(b))
}

// size returns |S_g ∖ U| of the k-th group for the data vertices m.
func (sc *supportCounter) size(k int, m []uint32) int64 {
	sg := &sc.plan.groups[k]
	x := m[sg.parents[0]]
	var s int64
	y := x
	if len(sg.parents) == 1 {
		s = int64(sc.g.Degree(x))
	} else {
		y = m[sg.parents[1]]
		s = int64(sc.support(k, x, y))
	}
	s -= sg.always
	for _, st := range sg.tests {
		u := m[st.level]
		if st.check[0] && !sc.adjacent(u, x) {
			continue
		}
		if st.check[1] && !sc.adjacent(u, y) {
			continue
		}
		s--
	}
	return s
}

// adjacent reports whether data vertices u and v are adjacent: a bit of the marked row when one
// of them is its vertex, else a search of the shorter list. (The shape's edges are decided by
// adjacency alone: hubEdge.)
func (sc *supportCounter) adjacent(u, v uint32) bool {
	if k := sc.adjKey; k != 0 {
		if u == k-1 {
			return sc.adj.Has(v)
		}
		if v == k-1 {
			return sc.adj.Has(u)
		}
	}
	_, ok := sc.g.HasEdge(u, v)
	return ok
}

// supportMarkRatio: supportLast marks the fixed vertex's neighbours (two passes over its list,
// setting then clearing bits) when they are at most this many times the candidates it runs
// through (each of which then loads a bit instead of a binary search of about log2(degree)
// unpredictable steps); 0 never marks (a variable so that tests take both paths).
var supportMarkRatio = supportMarkDefault

// supportMarkDefault is supportMarkRatio outside tests.
const supportMarkDefault = 16

// mark sets the row of the fixed level's data vertex in m for a loop over cands candidates of
// the last level, when the plan has a fixed level, the graph is small enough for rows
// (supportRowLimit) and the loop long enough to pay for it (supportMarkRatio).
func (sc *supportCounter) mark(m []uint32, cands int) {
	if !sc.plan.marks(sc.g) {
		return
	}
	j := sc.plan.fixed
	f := m[j]
	nb := sc.g.Neighbors(f)
	if len(nb) > supportMarkRatio*cands {
		return
	}
	if sc.adj == nil {
		sc.adj = plan.NewBitset(sc.g.NumVertices())
	}
	for _, z := range nb {
		sc.adj.Set(z)
	}
	sc.adjKey = f + 1
}

// marks reports whether counts of this plan on g mark the fixed level's rows (mark), for
// some candidates at least: a fixed level and a graph within supportRowLimit.
func (sp *supportPlan) marks(g *graph.Graph) bool {
	return sp.fixed >= 0 && supportMarkRatio > 0 && g.NumVertices() <= supportRowLimit
}

// unmark clears the row mark set, if any.
func (sc *supportCounter) unmark() {
	if sc.adjKey == 0 {
		return
	}
	for _, z := range sc.g.Neighbors(sc.adjKey - 1) {
		sc.adj.Clear(z)
	}
	sc.adjKey = 0
}

// support returns the support of data edge (x, y) through the k-th group's row of x's supports,
// filled when x changes, or by a binary search of x's list above supportRowLimit.
func (sc *supportCounter) support(k int, x, y uint32) uint32 {
	if sc.g.NumVertices() > supportRowLimit {
		return sc.sup[edgeEntry(sc.g, x, y)]
	}
	row := sc.rows[k]
	if sc.rowKey[k] != x+1 {
		if row == nil {
			row = make([]uint32, sc.g.NumVertices())
			sc.rows[k] = row
		}
		lo := sc.offsets[x]
		sups := sc.sup[lo:sc.offsets[x+1]]
		for i, z := range sc.g.Neighbors(x) {
			row[z] = sups[i]
		}
		sc.rowKey[k] = x + 1
	}
	return row[y]
}

// edgeEntry returns the position of y in the adjacency array of the graph within x's list (x
// and y adjacent): its run (by y's vertex label) searched by bisection.
func edgeEntry(g *graph.Graph, x, y uint32) uint64 {
	runs := g.Runs(x)
	lo, hi := g.RunsWithVertexLabel(x, g.VertexLabel(y))
	for r := lo; r < hi; r++ {
		if i, found := slices.BinarySearch(g.RunNeighbors(x, r), y); found {
			return runs[r].Start + uint64(i)
		}
	}
	panic("cpu: edgeEntry of vertices that are not adjacent")
}

// edgeSupports returns |N(x) ∩ N(y)| for every adjacency entry (x, y) of g, on threads
// goroutines, or ok false when stop was set first. Each edge is counted once, by its endpoint of
// higher (degree, id): that endpoint's neighbours are marked in a bit set and the other's list
// is scanned against it, which also finds the entry of the edge in the other's list. So no two
// goroutines write one entry, and the work is at most the lower degree per edge.
func edgeSupports(g *graph.Graph, threads int, stop *atomic.Bool) (sup []uint32, ok bool) {
	raw := g.Raw()
	off, nb := raw.Offsets, raw.Neighbors
	sup = make([]uint32, len(nb))
	n := g.NumVertices()
	const chunk = 32
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, threads) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			marks := plan.NewBitset(n)
			for !stop.Load() {
				lo := int(next.Add(chunk)) - chunk
				if lo >= n {
					return
				}
				for x := lo; x < min(lo+chunk, n) && !stop.Load(); x++ {
					supportsOf(uint32(x), off, nb, sup, marks, stop)
				}
			}
		}()
	}
	wg.Wait()
	return sup, !stop.Load()
}

// supportsOf sets the supports of the edges whose endpoint of higher (degree, id) is x.
func supportsOf(x uint32, off []uint64, nb, sup []uint32, marks plan.Bitset, stop *atomic.Bool) {
	xs := nb[off[x]:off[x+1]]
	dx := len(xs)
	for _, z := range xs {
		marks.Set(z)
	}
	for i, y := range xs {
		ys := nb[off[y]:off[y+1]]
		if dy := len(ys); dy > dx || (dy == dx && y > x) {
			continue
		}
		if i&63 == 63 && stop.Load() {
			break
		}
		var cnt uint32
		rev := -1
		for j, z := range ys {
			if z == x {
				rev = j
			}
			cnt += uint32(marks[z>>6] >> (z & 63) & 1)
		}
		sup[off[x]+uint64(i)] = cnt
		sup[off[y]+uint64(rev)] = cnt
	}
	for _, z := range xs {
		marks.Clear(z)
	}
}

// prepareSupports computes the supports and, for a pair, the quotient's count for a count of
// problem p with plan pl; ok is false when ctx ended first.
func prepareSupports(ctx context.Context, p *engine.Problem, pl *plan.Plan, sp *supportPlan, stop *atomic.Bool) (*supportCount, bool, error) {
	sc := &supportCount{plan: sp}
	start := time.Now()
	var quotientTime time.Duration
	if sp.pair {
		qp, err := quotient(pl.Pattern, sp.d, sp.e)
		if err != nil {
			return nil, false, fmt.Errorf("cpu engine: the quotient pattern: %w", err)
		}
		q := *p
		q.Pattern, q.Semantics, q.Progress = qp, engine.Semantics{}, nil
		res, err := Engine{}.Count(ctx, &q)
		if err != nil || res.Partial {
			if ctx.Err() != nil {
				return nil, false, nil
			}
			return nil, false, fmt.Errorf("cpu engine: counting the quotient pattern %s: %w", qp, err)
		}
		if res.Count%sp.share != 0 {
			return nil, false, fmt.Errorf("cpu engine: the quotient's %d embeddings are not a multiple of %d", res.Count, sp.share)
		}
		sc.collisions = uint64(int64(res.Count/sp.share) + supportSkew)
		quotientTime = time.Since(start)
	}
	sup, ok := edgeSupports(p.Data, p.ThreadCount(), stop)
	if !ok {
		return nil, false, nil
	}
	sc.sup = sup
	p.Logger().Debug("cpu: edge supports", "quotient", quotientTime, "collisions", sc.collisions,
		"supports", time.Since(start)-quotientTime, "bytes", 4*len(sup))
	return sc, true, nil
}
