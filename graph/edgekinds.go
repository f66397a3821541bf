package graph

import (
	"cmp"
	"slices"

	"github.com/submatch/submatch/internal/par"
)

// EdgeKind names edges by their labels: those joining a vertex of label A to one of label B
// (either way round) by an edge of label Edge, or of any label when AnyEdge. A pattern's edges
// are such kinds; the edges of no kind of a pattern's are in none of its (non-induced) matches.
type EdgeKind struct {
	A, B    uint32
	Edge    uint32
	AnyEdge bool
}

// kindPair is one (neighbour label, edge label) pair a vertex label keeps (any: every edge label).
type kindPair struct {
	vl, el uint32
	any    bool
}

// kindIndex is each vertex label's kept pairs, sorted by (neighbour label, edge label), one
// any-edge pair standing for every exact one of its neighbour label: the order of a vertex's runs.
type kindIndex map[uint32][]kindPair

func newKindIndex(kinds []EdgeKind) kindIndex {
	ix := kindIndex{}
	for _, k := range kinds {
		ix[k.A] = append(ix[k.A], kindPair{k.B, k.Edge, k.AnyEdge})
		ix[k.B] = append(ix[k.B], kindPair{k.A, k.Edge, k.AnyEdge})
	}
	for l, ps := range ix {
		// By neighbour label, its any-edge pair first, then by edge label.
		slices.SortFunc(ps, func(a, b kindPair) int {
			if a.vl == b.vl && a.any != b.any {
				if a.any {
					return -1
				}
				return 1
			}
			return cmp.Or(cmp.Compare(a.vl, b.vl), cmp.Compare(a.el, b.el))
		})
		// Drop repeats, and the exact pairs of a neighbour label that has an any-edge pair.
		out := ps[:0]
		for _, p := range ps {
			if n := len(out); n > 0 && out[n-1].vl == p.vl && (out[n-1].any || out[n-1].el == p.el) {
				continue
			}
			out = append(out, p)
		}
		ix[l] = out
	}
	return ix
}

// labels is the sorted vertex labels the index keeps vertices of.
func (ix kindIndex) labels() []uint32 {
	ls := make([]uint32, 0, len(ix))
	for l := range ix {
		ls = append(ls, l)
	}
	slices.Sort(ls)
	return ls
}

// keptRuns calls f for each run of v's list that pairs (v's label's kept pairs) keep, in the
// list's order, with the run's end: exact pairs found by binary search (RunWith), any-edge pairs
// as their neighbour label's runs (RunsWithVertexLabel), never a scan of the whole run index.
func (g *Graph) keptRuns(v uint32, pairs []kindPair, f func(r Run, end uint64)) {
	base := g.offsets[v]
	for _, p := range pairs {
		if !p.any {
			if lo, hi := g.RunWith(v, p.vl, p.el); lo < hi {
				f(Run{VertexLabel: p.vl, EdgeLabel: p.el, Start: base + lo}, base+hi)
			}
			continue
		}
		runs := g.Runs(v)
		lo, hi := g.RunsWithVertexLabel(v, p.vl)
		for i := lo; i < hi; i++ {
			f(runs[i], g.runEnd(v, runs, i))
		}
	}
}

// keptEntriesOf is the number of entries of v's list that pairs keep, and in how many runs.
func (g *Graph) keptEntriesOf(v uint32, pairs []kindPair) (entries, runs uint64) {
	g.keptRuns(v, pairs, func(r Run, end uint64) {
		entries += end - r.Start
		runs++
	})
	return entries, runs
}

// SubgraphByEdgeKinds is the subgraph of g made of the edges of the given kinds and the vertices
// they join (a vertex none of them touches is left out), with its labels: every non-induced match
// of a pattern whose edges are of these kinds and whose vertices each have an edge lies in it,
// and it holds no other match (it is a subgraph of g). Its vertices keep g's order (new id = rank
// among the kept vertices, so every run stays sorted), and its OriginalID is the vertex's dense
// id in g. It reads the vertices of the kinds' labels only (the label index), their kept runs
// found by binary search, on all cores, and sorts the kept vertices alone. When the kept entries (twice the edges) are more than
// maxEntries it returns false without building the subgraph.
func (g *Graph) SubgraphByEdgeKinds(kinds []EdgeKind, maxEntries uint64) (*Graph, bool) {
	h, _, ok := g.SubgraphByEdgeKindsWithin(kinds, maxEntries, 0)
	return h, ok
}

// SubgraphByEdgeKindsWithin is SubgraphByEdgeKinds that also returns false, without building the
// subgraph, when maxBytes is not 0 and making it takes more than maxBytes at its peak
// (EdgeKindsBytes), checked before each of its two passes. It returns the subgraph's size as far
// as it was found: none when the first pass was not made, else the kept vertices, entries and runs
// (an Entries above maxEntries: refused for them, else for maxBytes when false).
func (g *Graph) SubgraphByEdgeKindsWithin(kinds []EdgeKind, maxEntries, maxBytes uint64) (*Graph, SubgraphSize, bool) {
	ix := newKindIndex(kinds)
	labels := ix.labels()
	c := 0
	for _, l := range labels {
		c += len(g.VerticesWithLabel(l))
	}
	size := SubgraphSize{}
	if len(labels) > 0 {
		size.MaxLabel = labels[len(labels)-1]
	}
	if maxBytes > 0 && g.EdgeKindsBytes(c, size) > maxBytes {
		return nil, size, false // (the first pass alone would not fit)
	}
	cands := make([]uint32, 0, c) // by label, then id
	for _, l := range labels {
		cands = append(cands, g.VerticesWithLabel(l)...)
	}
	// Pass 1: every candidate's kept entries and runs.
	deg, nruns := make([]uint64, len(cands)), make([]uint64, len(cands))
	par.Ranges(len(cands), 0, inducedChunk, func(_, lo, hi int) bool {
		for i := lo; i < hi; i++ {
			v := cands[i]
			deg[i], nruns[i] = g.keptEntriesOf(v, ix[g.vertexLabels[v]])
		}
		return true
	})
	// The kept vertices (an edge of a kind) in g's order: few, sorted alone.
	type keptVertex struct {
		v          uint32
		deg, nruns uint64
	}
	nk := 0
	for _, d := range deg {
		if d > 0 {
			nk++
		}
	}
	keptBy := make([]keptVertex, 0, nk)
	var entries uint64
	for i, v := range cands {
		if deg[i] > 0 {
			keptBy = append(keptBy, keptVertex{v, deg[i], nruns[i]})
			entries += deg[i]
		}
	}
	size.Vertices, size.Entries = len(keptBy), entries
	for _, kv := range keptBy {
		size.Runs += kv.nruns
	}
	if entries > maxEntries || (maxBytes > 0 && g.EdgeKindsBytes(c, size) > maxBytes) {
		return nil, size, false
	}
	slices.SortFunc(keptBy, func(a, b keptVertex) int { return cmp.Compare(a.v, b.v) })
	kept := make([]uint32, len(keptBy))
	for i, kv := range keptBy {
		kept[i], deg[i], nruns[i] = kv.v, kv.deg, kv.nruns
	}
	k := len(kept)
	offsets, runOffsets := make([]uint64, k+1), make([]uint64, k+1)
	for i := range k {
		offsets[i+1], runOffsets[i+1] = offsets[i]+deg[i], runOffsets[i]+nruns[i]
	}
	// A neighbour's new id: its rank among the kept vertices, from a table of g's vertices when
	// they are many, else by binary search.
	var newID []uint32
	if idTable(k, g.NumVertices()) {
		newID = make([]uint32, g.NumVertices())
		for i, v := range kept {
			newID[v] = uint32(i)
		}
	}
	// Pass 2: copy the kept runs, renumbered.
	return g.subgraphOfRuns(kept, offsets, runOffsets, newID, func(v uint32, f func(r Run, end uint64)) {
		g.keptRuns(v, ix[g.vertexLabels[v]], f)
	}), size, true
}

// EdgeKindsBytes is the memory SubgraphByEdgeKinds takes at its peak for a subgraph of size s
// (s.Vertices 0: its first pass alone) when c vertices have a label of its kinds: the subgraph's
// (SubgraphSize.Bytes), and while it is made the candidates (4 bytes each) and their kept entries
// and runs (16), the kept vertices twice (28 bytes each) and, when they are many, a new id for
// every vertex of g (4 bytes); allocSlack beside.
func (g *Graph) EdgeKindsBytes(c int, s SubgraphSize) uint64 {
	b := 20*uint64(c) + allocSlack
	if s.Vertices == 0 {
		return b
	}
	b += s.Bytes(g.edgeLabels != nil) + 28*uint64(s.Vertices)
	if idTable(s.Vertices, g.NumVertices()) {
		b += 4 * uint64(g.NumVertices())
	}
	return b
}

// idTable reports whether SubgraphByEdgeKinds renumbers the neighbours of its k kept vertices
// with a table of g's n vertices (else by binary search among them).
func idTable(k, n int) bool { return 64*k > n }

// EdgeKindShareEstimate estimates SubgraphByEdgeKinds' size from the label index and a sample,
// without a pass over the graph, as LabelledShareEstimate does: the vertices of the kinds' labels
// that keep an entry and the entries they keep, summed exactly over each label's samples/2
// vertices of largest id and over samples/2 of the others spread evenly over them, scaled to the
// others' number. lookups is the run lookups the subgraph's making does (a vertex of the kinds'
// labels, one for each (neighbour label, edge label) pair its label keeps); exact reports that
// every such vertex was read.
func (g *Graph) EdgeKindShareEstimate(kinds []EdgeKind, samples int) (vertices int, lookups, entries uint64, exact bool) {
	ix := newKindIndex(kinds)
	var vs, es float64
	for l, ps := range ix {
		lookups += uint64(len(g.VerticesWithLabel(l)) * len(ps))
	}
	_, exact = g.sampleLabels(ix.labels(), samples, func(v uint32, weight float64) {
		if e, _ := g.keptEntriesOf(v, ix[g.vertexLabels[v]]); e > 0 {
			vs += weight
			es += weight * float64(e)
		}
	})
	return int(vs + 0.5), lookups, uint64(es + 0.5), exact
}
