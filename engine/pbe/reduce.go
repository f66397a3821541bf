package pbe

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
)

// Reduction to the vertices and edges a match can use. A match maps every pattern vertex to a
// data vertex with its label, so when no pattern vertex is a wildcard every match lies among the
// data vertices whose label some pattern vertex has, and the subgraph they induce (every edge
// among them, with its label) holds exactly the same matches in every convention (embeddings,
// induced, unique): the edges among a match's vertices are the same there. A non-induced match
// also maps every pattern edge to a data edge of its kind (its ends' labels and its edge label,
// graph.EdgeKind), so it lies in the subgraph of the edges of the pattern's kinds, without the
// vertices none of them touches (a pattern vertex without an edge keeps the induced subgraph), and
// that subgraph holds no other match. PBE's stages run on that subgraph when it is small
// (ReduceMaxShare), so partitioning, the parts and the inter stage's filtering only see what the
// search needs; counts are unchanged and listed matches are mapped back to the data graph's ids.
// On a labelled graph (R-MAT scale 23 with 1,000 zipf labels) a 6-vertex query's induced subgraph
// keeps about a tenth of the vertices and a hundredth of the edges; with 1,000 edge labels too
// (SGSI's datasets, issue 21), the edges of a 12-vertex walk's kinds are about a thousandth of
// those (R-MAT scale 20: 1,466,232 edges induced, 81 of its kinds).

// ReduceMaxShare is the largest share of the data graph's adjacency entries the label-induced
// subgraph may hold for the stages to run on it: above, copying it would cost more memory than
// the partitioning it saves is worth.
const ReduceMaxShare = 0.5

// Under a host memory limit (Problem.MemoryLimit, --memory) the subgraph is memory the engine
// takes beyond the data graph, held through the count and kept for the next: it is made only
// when making it fits the limit (graph.InducedBytes, graph.EdgeKindsBytes: the copy, its label
// index and the making's tables), and what it holds (reduction.bytes) is charged: the count runs
// within the rest (the reduced problem's MemoryLimit is the limit less it, so the parts are made
// for the rest where the limit is the partition budget, and the stages' buffers held to it
// where it is not). Where it does not fit, or the parts do not fit what it leaves (prepare), the
// stages run on the whole graph, as without the reduction; a kept subgraph a count does not use
// is let go under a limit (it would be held uncharged).

// reduction is a label-induced subgraph kept for the next count of the same graph and labels.
type reduction struct {
	g      *graph.Graph
	labels []uint32
	kinds  []graph.EdgeKind // nil: induced by the labels
	sub    *graph.Graph     // nil: the subgraph is too large (the stages run on g)
	bytes  uint64           // the memory sub holds (graph.SubgraphSize.Bytes)
}

// of reports whether r is the reduction of g to labels and kinds.
func (r *reduction) of(g *graph.Graph, labels []uint32, kinds []graph.EdgeKind) bool {
	return r.g == g && slices.Equal(r.labels, labels) && slices.Equal(r.kinds, kinds)
}

// patternLabels is the sorted set of the pattern's vertex labels (false when one is a wildcard).
func patternLabels(p *engine.Problem) ([]uint32, bool) {
	var ls []uint32
	for u := range p.Pattern.NumVertices() {
		l := p.Pattern.VertexLabel(u)
		if l.Any {
			return nil, false
		}
		ls = append(ls, l.Value)
	}
	slices.Sort(ls)
	return slices.Compact(ls), true
}

// edgeKinds is the kinds of p's pattern edges (graph.EdgeKind), sorted, where reduce takes the
// subgraph of those kinds: a non-induced count whose pattern has an edge at every vertex (labels
// from patternLabels: no wildcard vertex) and whose kinds leave something out (an edge label, or
// a vertex of another label); else nil.
func edgeKinds(p *engine.Problem, labels []uint32) []graph.EdgeKind {
	q := p.Pattern
	if p.Semantics.Induced || q.NumEdges() == 0 {
		return nil
	}
	for u := range q.NumVertices() {
		if q.Degree(u) == 0 {
			return nil
		}
	}
	g := p.Data
	vs, exact := 0, false
	for _, l := range labels {
		vs += len(g.VerticesWithLabel(l))
	}
	var kinds []graph.EdgeKind
	for _, e := range q.Edges() {
		a, b := q.VertexLabel(e.U).Value, q.VertexLabel(e.V).Value
		kinds = append(kinds, graph.EdgeKind{A: min(a, b), B: max(a, b), Edge: e.Label.Value, AnyEdge: e.Label.Any})
		exact = exact || !e.Label.Any
	}
	if vs >= g.NumVertices() && !exact && len(labels) == 1 {
		return nil // (every vertex, every edge: the whole graph)
	}
	slices.SortFunc(kinds, compareKinds)
	return slices.Compact(kinds)
}

// compareKinds orders edge kinds by their fields.
func compareKinds(x, y graph.EdgeKind) int {
	switch {
	case x.A != y.A:
		return cmp.Compare(x.A, y.A)
	case x.B != y.B:
		return cmp.Compare(x.B, y.B)
	case x.AnyEdge != y.AnyEdge:
		if x.AnyEdge {
			return -1
		}
		return 1
	case x.Edge != y.Edge:
		return cmp.Compare(x.Edge, y.Edge)
	}
	return 0
}

// reduce is p on the subgraph of its data graph that holds its matches (the edges of the
// pattern's kinds where edgeKinds gives them, else the subgraph induced by the vertices with a
// pattern vertex's label), or p itself when some pattern vertex is a wildcard, that subgraph is
// the whole graph or holds more than ReduceMaxShare of its adjacency, or it does not fit p's
// MemoryLimit; the reduced problem's MemoryLimit is p's less the subgraph's bytes. It records
// what it did in st.
func (e *Engine) reduce(p *engine.Problem, st *Stats) *engine.Problem {
	labels, ok := patternLabels(p)
	limit := p.MemoryLimit
	if !ok || p.Pattern.NumVertices() == 0 || e.wholeGraph {
		if limit > 0 {
			e.release()
		}
		return p
	}
	t0 := time.Now()
	g := p.Data
	kinds := edgeKinds(p, labels)
	e.mu.Lock()
	r := e.reduced
	e.mu.Unlock()
	if !r.of(g, labels, kinds) {
		e.release() // (before the next is made: never two at once)
		var why string
		r, why = makeReduction(g, labels, kinds, limit)
		if why != "" {
			st.ReduceSkipped = why
		} else {
			e.mu.Lock()
			e.reduced = r
			e.mu.Unlock()
		}
	}
	st.ReduceTime = time.Since(t0)
	if r.sub == nil {
		return p
	}
	if limit > 0 && r.bytes >= limit {
		// Kept from a count under a larger limit (or none): this one's cannot hold it.
		e.release()
		st.ReduceSkipped = fmt.Sprintf("the kept reduced subgraph holds %d bytes, --memory is %d", r.bytes, limit)
		return p
	}
	st.Reduced, st.ReducedVertices, st.ReducedEdges, st.ReducedBytes = true, uint64(r.sub.NumVertices()), r.sub.NumEdges(), r.bytes
	rp := *p
	rp.Data = r.sub
	if limit > 0 {
		rp.MemoryLimit = limit - r.bytes
	}
	return &rp
}

// makeReduction makes g's reduction to labels (and kinds, where not nil). Its sub is nil when
// the subgraph is the whole graph or holds more than ReduceMaxShare of the adjacency, or when
// making it does not fit limit (0: no limit): why then says so, and the reduction is not to be
// kept (another count's limit may hold it).
func makeReduction(g *graph.Graph, labels []uint32, kinds []graph.EdgeKind, limit uint64) (r reduction, why string) {
	r = reduction{g: g, labels: labels, kinds: kinds}
	maxEntries := uint64(ReduceMaxShare * float64(2*g.NumEdges()))
	if kinds != nil {
		sub, size, ok := g.SubgraphByEdgeKindsWithin(kinds, maxEntries, limit)
		if !ok && size.Entries <= maxEntries {
			return r, fmt.Sprintf("making the subgraph of the pattern's edge kinds (%d vertices, %d entries) needs more than --memory, %d bytes",
				size.Vertices, size.Entries, limit)
		}
		if ok && sub.NumEdges() < g.NumEdges() {
			r.sub = sub
		}
	} else if s := g.InducedSize(labels); s.Vertices < g.NumVertices() && s.Entries <= maxEntries {
		if need := g.InducedBytes(s); limit > 0 && need > limit {
			return r, fmt.Sprintf("making the label-induced subgraph needs %d bytes, --memory is %d", need, limit)
		}
		r.sub = g.InducedByVertexLabels(labels)
	}
	if r.sub != nil {
		raw := r.sub.Raw()
		r.bytes = graph.SubgraphSize{Vertices: r.sub.NumVertices(), Entries: uint64(len(raw.Neighbors)),
			Runs: uint64(len(raw.Runs)), MaxLabel: labels[len(labels)-1]}.Bytes(raw.EdgeLabels != nil)
	}
	return r, ""
}

// release lets the kept reduction go, with the partitioning kept of it.
func (e *Engine) release() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.reduced.sub != nil && e.cache.g == e.reduced.sub {
		e.cache.g, e.cache.pt = nil, nil
	}
	e.reduced = reduction{}
}
