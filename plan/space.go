package plan

import (
	"context"
	"slices"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/par"
	"github.com/submatch/submatch/pattern"
)

// EdgeIndex is one directed pattern edge u->w of the candidate space (CFL's CPI, DAF's CS): for
// the i-th candidate v of u, List(i) holds the candidates of w adjacent to v through an edge
// with the right labels, sorted. Searching with these lists intersects only candidates, which
// are usually far fewer than the label-matching neighbours in the data graph.
type EdgeIndex struct {
	offsets []uint64 // len(C(u))+1
	values  []uint32 // data vertex ids
}

// List returns the candidates of w adjacent to the i-th candidate of u.
func (e *EdgeIndex) List(i int) []uint32 { return e.values[e.offsets[i]:e.offsets[i+1]] }

// Entries returns the number of stored neighbour entries.
func (e *EdgeIndex) Entries() int { return len(e.values) }

// Bytes returns the memory the index holds: its entries and offsets.
func (e *EdgeIndex) Bytes() uint64 { return 4*uint64(len(e.values)) + 8*uint64(len(e.offsets)) }

// DefaultSpaceLimit bounds the candidate space, in neighbour entries (4 bytes each), when a plan
// does not set one: above it the engine intersects the graph's label runs directly.
const DefaultSpaceLimit = 1 << 28

// buildSpace builds an EdgeIndex for every backward edge of every level and every parent edge of
// a leaf group (keyed by the group's first vertex), keyed by [parent vertex][child vertex],
// unless the space would hold more than limit entries. An index for the same key in known (a
// plan for the same graph, pattern and candidates) is taken, not built: its content depends on
// the two vertices' candidates and labels only.
func buildSpace(g *graph.Graph, pl *Plan, limit int, known map[[2]int]*EdgeIndex, cancelled func() bool) map[[2]int]*EdgeIndex {
	type edge struct{ parent, child int }
	var edges []edge
	var estimate int
	for _, l := range pl.Levels {
		for _, be := range l.Backward {
			edges = append(edges, edge{pl.Levels[be.Level].Vertex, l.Vertex})
		}
	}
	for _, lg := range pl.Groups {
		for _, pe := range lg.Parents {
			edges = append(edges, edge{pl.Levels[pe.Level].Vertex, lg.Vertices[0]})
		}
	}
	p := pl.Pattern
	// Edges whose parents and children have equal candidate sets and label constraints have
	// equal indexes (every edge of a clique pattern, say): build one and share it.
	same := func(a, b edge) bool {
		la, _ := p.EdgeLabel(a.parent, a.child)
		lb, _ := p.EdgeLabel(b.parent, b.child)
		return la == lb && p.VertexLabel(a.child) == p.VertexLabel(b.child) &&
			slices.Equal(pl.CandidateBits[a.parent], pl.CandidateBits[b.parent]) &&
			slices.Equal(pl.CandidateBits[a.child], pl.CandidateBits[b.child])
	}
	twin := make([]int, len(edges)) // index of the first equal edge
	for i, e := range edges {
		twin[i] = i
		for j := 0; j < i; j++ {
			if twin[j] == j && same(edges[j], e) {
				twin[i] = j
				break
			}
		}
		if twin[i] != i {
			continue
		}
		for _, v := range pl.Candidates[e.parent] {
			estimate += g.Degree(v)
			if estimate > limit {
				return nil
			}
		}
	}
	// The indexes to build (one per set of equal edges, none already known) are built on all
	// cores when they hold enough entries together to pay for it (the plan's serial time
	// is a fixed cost of every count): each depends only on its edge.
	var build []int
	for i, e := range edges {
		if twin[i] == i && known[[2]int{e.parent, e.child}] == nil {
			build = append(build, i)
		}
	}
	built := make([]*EdgeIndex, len(edges))
	one := func(k int) {
		e := edges[build[k]]
		built[build[k]] = buildEdgeIndex(g, pl, e.parent, e.child, cancelled)
	}
	if estimate >= parallelSpaceEntries && len(build) > 1 {
		par.For(len(build), 0, one)
	} else {
		for k := range build {
			one(k)
		}
	}
	if cancelled() {
		return nil
	}
	space := make(map[[2]int]*EdgeIndex, len(edges))
	for i, e := range edges {
		key := [2]int{e.parent, e.child}
		switch {
		case twin[i] != i:
			first := edges[twin[i]]
			space[key] = space[[2]int{first.parent, first.child}]
		case built[i] != nil:
			space[key] = built[i]
		default:
			space[key] = known[key]
		}
	}
	return space
}

// parallelSpaceEntries is the size of a candidate space, in neighbour entries of the parents'
// candidates, from which its indexes are built on all cores (wiki-Vote's labelled patterns:
// 10^4-10^5, built serially since that is faster in a fresh process, see parallelRefineChecks;
// a variable for tests).
var parallelSpaceEntries = 1 << 18

// buildEdgeIndex builds the index of pattern edge parent->child (nil when cancelled).
func buildEdgeIndex(g *graph.Graph, pl *Plan, parent, child int, cancelled func() bool) *EdgeIndex {
	p := pl.Pattern
	vl := p.VertexLabel(child)
	el, _ := p.EdgeLabel(parent, child)
	cands := pl.Candidates[parent]
	childBits := pl.CandidateBits[child]
	// Size the values once (the matching runs bound them): growing one slice of tens of
	// millions of entries by appending cost more than filling it. Where one run holds the
	// matching neighbours (oneRun) it is found once, in the sizing pass.
	elv, exact := oneRun(g, vl, el)
	var runs [][2]uint32 // with one run: where it lies in the candidate's list (graph.RunWith)
	if exact {
		runs = make([][2]uint32, len(cands))
	}
	bound := 0
	for i, v := range cands {
		if exact {
			lo, hi := g.RunWith(v, vl.Value, elv)
			runs[i] = [2]uint32{uint32(lo), uint32(hi)}
			bound += int(hi - lo)
			continue
		}
		for r, run := range g.Runs(v) {
			if vl.Matches(run.VertexLabel) && el.Matches(run.EdgeLabel) {
				bound += len(g.RunNeighbors(v, r))
			}
		}
	}
	idx := &EdgeIndex{offsets: make([]uint64, len(cands)+1), values: make([]uint32, 0, bound)}
	for i, v := range cands {
		if i%checkEvery == 0 && cancelled() {
			return nil
		}
		if exact {
			for _, w := range g.Neighbors(v)[runs[i][0]:runs[i][1]] {
				if childBits.Has(w) {
					idx.values = append(idx.values, w)
				}
			}
			idx.offsets[i+1] = uint64(len(idx.values))
			continue
		}
		start := len(idx.values)
		multi := 0
		for r, run := range g.Runs(v) {
			if !vl.Matches(run.VertexLabel) || !el.Matches(run.EdgeLabel) {
				continue
			}
			multi++
			for _, w := range g.RunNeighbors(v, r) {
				if childBits.Has(w) {
					idx.values = append(idx.values, w)
				}
			}
		}
		if multi > 1 { // wildcards merged several runs: restore id order
			seg := idx.values[start:]
			slices.Sort(seg)
		}
		idx.offsets[i+1] = uint64(len(idx.values))
	}
	return idx
}

// oneRun reports whether the neighbours of a data vertex that satisfy (vl, el) form one run of
// its list, and the run's edge label: when both labels are exact, or vl is and the graph has no
// edge labels (every edge's is 0, so a wildcard edge label adds no other run; STMatch's
// labelled patterns on wiki-Vote).
func oneRun(g *graph.Graph, vl, el pattern.Label) (uint32, bool) {
	switch {
	case vl.Any:
		return 0, false
	case !el.Any:
		return el.Value, true
	}
	return 0, !g.HasEdgeLabels()
}

// Arrays exposes the index's storage (for device uploads): List(i) is
// values[offsets[i]:offsets[i+1]]. The slices alias the index and must not be modified.
func (e *EdgeIndex) Arrays() (offsets []uint64, values []uint32) { return e.offsets, e.values }

// BuildEdgeIndex builds the index of the pattern edge parent->child over pl's candidates, as
// Space holds it for the plan's own edges, for a search in another order (the pbe engine's
// inter stage); nil when ctx ends.
func (pl *Plan) BuildEdgeIndex(ctx context.Context, g *graph.Graph, parent, child int) *EdgeIndex {
	return buildEdgeIndex(g, pl, parent, child, func() bool { return ctx.Err() != nil })
}
