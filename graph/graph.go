// Package graph owns the in-memory data graph: an undirected simple graph with a uint32 label on
// every vertex and every edge, stored as a label-partitioned CSR.
//
// Vertices have dense ids 0..n-1; the id the input used is kept for output (OriginalID). The
// adjacency list of each vertex is ordered by (neighbour vertex label, edge label, neighbour id),
// so the neighbours that share one (vertex label, edge label) pair form one contiguous, sorted
// run. A per-vertex run index (sorted by the same key) finds a run by binary search, never by
// scanning the list. Offsets are 64-bit so graphs with more than 2^32 edges fit.
package graph

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"sync"
)

// Run is one contiguous block of a vertex's adjacency list: the neighbours with one vertex label
// reached by edges with one edge label. Its end is the start of the next run of the same vertex
// (or the end of the vertex's list).
type Run struct {
	VertexLabel uint32
	EdgeLabel   uint32
	Start       uint64
}

// Graph is immutable once built; it is safe for concurrent readers.
type Graph struct {
	vertexLabels []uint32 // per vertex
	offsets      []uint64 // n+1 entries into neighbors
	neighbors    []uint32 // 2m entries, grouped into runs
	edgeLabels   []uint32 // parallel to neighbors; nil when every edge label is 0
	runOffsets   []uint64 // n+1 entries into runs
	runs         []Run
	originalIDs  []int64  // nil when the original id of v is v itself
	names        []string // nil unless the input named its vertices with strings (VertexName)
	// boundsChecked: the arrays passed FromRawTrusted's checks (ValidateRules then adds the rest).
	boundsChecked bool

	uniformLabel struct { // computed on first use by UniformVertexLabel
		once  sync.Once
		label uint32
		ok    bool
	}
	byLabel struct { // computed on first use by VerticesWithLabel
		once sync.Once
		ids  []uint32 // every vertex, by (label, id)
		// Label l's vertices are ids[start[l]:start[l+1]] when the labels are small (dense),
		// else ids[at[l][0]:at[l][1]].
		start []int
		at    map[uint32][2]int
	}
}

// Raw exposes the arrays of a graph for serialisers and device uploads. The slices alias the
// graph's storage and must not be modified.
type Raw struct {
	VertexLabels []uint32
	Offsets      []uint64
	Neighbors    []uint32
	EdgeLabels   []uint32 // nil when all edge labels are 0
	RunOffsets   []uint64
	Runs         []Run
	OriginalIDs  []int64 // nil when ids are the identity
}

// Raw returns the graph's arrays (see Raw).
func (g *Graph) Raw() Raw {
	return Raw{g.vertexLabels, g.offsets, g.neighbors, g.edgeLabels, g.runOffsets, g.runs, g.originalIDs}
}

// FromRaw wraps arrays (for example a memory-mapped snapshot) as a Graph after checking every
// structural invariant, so a corrupt input is refused rather than trusted.
func FromRaw(r Raw) (*Graph, error) {
	g := wrapRaw(r)
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return g, nil
}

// wrapRaw makes a Graph of r's arrays, unchecked.
func wrapRaw(r Raw) *Graph {
	return &Graph{
		vertexLabels: r.VertexLabels, offsets: r.Offsets, neighbors: r.Neighbors, edgeLabels: r.EdgeLabels,
		runOffsets: r.RunOffsets, runs: r.Runs, originalIDs: r.OriginalIDs,
	}
}

// Validate checks the structural invariants: offsets monotone and in range, runs consistent with
// the labels of the neighbours they cover, sorted runs, symmetric edges with equal labels, no
// self-loops or duplicates. It runs on all cores in O(n + m); symmetry is checked by a keyed hash
// of the adjacency entries (a broken graph passes with probability about 2^-64; see checkRanges).
func (g *Graph) Validate() error {
	return g.validate()
}

func runKeyLess(a, b Run) bool {
	if a.VertexLabel != b.VertexLabel {
		return a.VertexLabel < b.VertexLabel
	}
	return a.EdgeLabel < b.EdgeLabel
}

// NumVertices returns n.
func (g *Graph) NumVertices() int { return len(g.vertexLabels) }

// NumEdges returns the number of undirected edges.
func (g *Graph) NumEdges() uint64 { return uint64(len(g.neighbors)) / 2 }

// VertexLabel returns the label of v.
func (g *Graph) VertexLabel(v uint32) uint32 { return g.vertexLabels[v] }

// VertexLabels returns all vertex labels (aliases storage; do not modify).
func (g *Graph) VertexLabels() []uint32 { return g.vertexLabels }

// UniformVertexLabel returns the label every vertex carries, and true, when the graph has
// vertices and they all carry one label (an unlabelled graph: label 0). It scans the labels on
// its first call only.
func (g *Graph) UniformVertexLabel() (label uint32, ok bool) {
	u := &g.uniformLabel
	u.once.Do(func() {
		if len(g.vertexLabels) == 0 {
			return
		}
		first := g.vertexLabels[0]
		u.label = first
		u.ok = !slices.ContainsFunc(g.vertexLabels, func(l uint32) bool { return l != first })
	})
	return u.label, u.ok
}

// VerticesWithLabel returns the vertices with label l, in increasing order (aliases storage; do
// not modify). The first call sorts the vertices by label, in time linear in their number (with
// labels below about twice the number of vertices; a map of the labels otherwise): a plan's
// filters then visit a label's vertices only, not every vertex once per pattern vertex.
func (g *Graph) VerticesWithLabel(l uint32) []uint32 {
	b := &g.byLabel
	b.once.Do(func() { b.ids, b.start, b.at = groupByLabel(g.vertexLabels) })
	if b.at != nil {
		r := b.at[l]
		return b.ids[r[0]:r[1]]
	}
	if uint64(l)+1 >= uint64(len(b.start)) {
		return nil
	}
	return b.ids[b.start[l]:b.start[l+1]]
}

// groupByLabel returns the vertex ids ordered by (label, id) and where each label's lie in them:
// start (label l's from start[l] to start[l+1]) by a counting sort when every label is below
// 2n+1024, else at (label l's from at[l][0] to at[l][1]) from a sort.
func groupByLabel(labels []uint32) (ids []uint32, start []int, at map[uint32][2]int) {
	n := len(labels)
	maxLabel := uint32(0)
	for _, l := range labels {
		maxLabel = max(maxLabel, l)
	}
	ids = make([]uint32, n)
	if uint64(maxLabel) < 2*uint64(n)+1024 {
		start = make([]int, int(maxLabel)+2)
		for _, l := range labels {
			start[l+1]++
		}
		for l := 1; l < len(start); l++ {
			start[l] += start[l-1]
		}
		next := slices.Clone(start[:len(start)-1])
		for v, l := range labels {
			ids[next[l]] = uint32(v)
			next[l]++
		}
		return ids, start, nil
	}
	for v := range ids {
		ids[v] = uint32(v)
	}
	slices.SortStableFunc(ids, func(a, b uint32) int { return cmp.Compare(labels[a], labels[b]) })
	at = map[uint32][2]int{}
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && labels[ids[hi]] == labels[ids[lo]] {
			hi++
		}
		at[labels[ids[lo]]] = [2]int{lo, hi}
		lo = hi
	}
	return ids, nil, at
}

// HasEdgeLabels reports whether any edge has a non-zero label.
func (g *Graph) HasEdgeLabels() bool { return g.edgeLabels != nil }

// Degree returns the number of neighbours of v.
func (g *Graph) Degree(v uint32) int { return int(g.offsets[v+1] - g.offsets[v]) }

// MaxDegree returns the largest degree.
func (g *Graph) MaxDegree() int {
	m := 0
	for v := range g.vertexLabels {
		m = max(m, int(g.offsets[v+1]-g.offsets[v]))
	}
	return m
}

// Neighbors returns the adjacency list of v, ordered by (vertex label, edge label, id): sorted by
// id only within each run.
func (g *Graph) Neighbors(v uint32) []uint32 { return g.neighbors[g.offsets[v]:g.offsets[v+1]] }

// NeighborEdgeLabels returns the edge labels parallel to Neighbors(v), or nil when the graph has
// no edge labels (every label is 0).
func (g *Graph) NeighborEdgeLabels(v uint32) []uint32 {
	if g.edgeLabels == nil {
		return nil
	}
	return g.edgeLabels[g.offsets[v]:g.offsets[v+1]]
}

func (g *Graph) edgeLabelAt(i uint64) uint32 {
	if g.edgeLabels == nil {
		return 0
	}
	return g.edgeLabels[i]
}

// Runs returns the run index of v, sorted by (vertex label, edge label).
func (g *Graph) Runs(v uint32) []Run { return g.runs[g.runOffsets[v]:g.runOffsets[v+1]] }

// RunNeighbors returns the neighbours covered by the i-th run of v.
func (g *Graph) RunNeighbors(v uint32, i int) []uint32 {
	runs := g.Runs(v)
	end := g.offsets[v+1]
	if i+1 < len(runs) {
		end = runs[i+1].Start
	}
	return g.neighbors[runs[i].Start:end]
}

// NeighborsWith returns the sorted neighbours of v that have vertex label vl and are joined to v
// by an edge with label el (one run, found by binary search; empty if there is none).
func (g *Graph) NeighborsWith(v, vl, el uint32) []uint32 {
	lo, hi := g.RunWith(v, vl, el)
	return g.neighbors[g.offsets[v]+lo : g.offsets[v]+hi]
}

// RunWith returns where NeighborsWith(v, vl, el) lies in v's adjacency list: the positions
// [lo, hi) of Neighbors(v) (lo == hi when there is no such run).
func (g *Graph) RunWith(v, vl, el uint32) (lo, hi uint64) {
	runs := g.Runs(v)
	// The first run not below (vl, el): by a scan of a short index (predictable branches), else
	// by binary search (written out: sort.Search's closure is not inlined, and this is in the
	// plan's inner loops).
	i, j := 0, len(runs)
	if j <= 16 {
		for i < j && (runs[i].VertexLabel < vl || (runs[i].VertexLabel == vl && runs[i].EdgeLabel < el)) {
			i++
		}
		j = i
	}
	for i < j {
		h := int(uint(i+j) >> 1)
		if r := runs[h]; r.VertexLabel < vl || (r.VertexLabel == vl && r.EdgeLabel < el) {
			i = h + 1
		} else {
			j = h
		}
	}
	if i == len(runs) || runs[i].VertexLabel != vl || runs[i].EdgeLabel != el {
		return 0, 0
	}
	end := g.offsets[v+1]
	if i+1 < len(runs) {
		end = runs[i+1].Start
	}
	return runs[i].Start - g.offsets[v], end - g.offsets[v]
}

// RunsWithVertexLabel returns the index range [lo, hi) of v's runs whose vertex label is vl
// (one run per edge label).
func (g *Graph) RunsWithVertexLabel(v, vl uint32) (lo, hi int) {
	runs := g.Runs(v)
	// The first run of label vl or above: by a scan of a short index, else by binary search
	// (written out, as RunWith's: sgsi's layout calls this for every vertex of every label graph).
	lo, hi = 0, len(runs)
	if hi <= 16 {
		for lo < hi && runs[lo].VertexLabel < vl {
			lo++
		}
		hi = lo
	}
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if runs[h].VertexLabel < vl {
			lo = h + 1
		} else {
			hi = h
		}
	}
	hi = lo
	for hi < len(runs) && runs[hi].VertexLabel == vl {
		hi++
	}
	return lo, hi
}

// HasEdge reports whether u and v are adjacent, and the label of the edge.
func (g *Graph) HasEdge(u, v uint32) (label uint32, ok bool) {
	// Search the shorter list.
	if g.Degree(u) > g.Degree(v) {
		u, v = v, u
	}
	lo, hi := g.RunsWithVertexLabel(u, g.vertexLabels[v])
	for r := lo; r < hi; r++ {
		if _, found := slices.BinarySearch(g.RunNeighbors(u, r), v); found {
			return g.Runs(u)[r].EdgeLabel, true
		}
	}
	return 0, false
}

// HasEdgeLabelled reports whether u and v are joined by an edge with label el.
func (g *Graph) HasEdgeLabelled(u, v, el uint32) bool {
	if g.Degree(u) > g.Degree(v) {
		u, v = v, u
	}
	_, found := slices.BinarySearch(g.NeighborsWith(u, g.vertexLabels[v], el), v)
	return found
}

// OriginalID returns the id vertex v had in the input.
func (g *Graph) OriginalID(v uint32) int64 {
	if g.originalIDs == nil {
		return int64(v)
	}
	return g.originalIDs[v]
}

// HasVertexNames reports whether the input named its vertices with strings (CSV files do): they
// are then printed with VertexName rather than OriginalID.
func (g *Graph) HasVertexNames() bool { return g.names != nil }

// VertexName returns the name vertex v had in the input: its string name when the graph has
// names, else its original id in decimal.
func (g *Graph) VertexName(v uint32) string {
	if g.names != nil {
		return g.names[v]
	}
	return strconv.FormatInt(g.OriginalID(v), 10)
}

// VertexNames returns the names by dense id, or nil (see HasVertexNames); not to be modified.
func (g *Graph) VertexNames() []string { return g.names }

// WithVertexNames returns a graph sharing g's arrays with names as its vertex names (by dense id;
// nil for none).
func (g *Graph) WithVertexNames(names []string) (*Graph, error) {
	if names != nil && len(names) != g.NumVertices() {
		return nil, fmt.Errorf("graph: %d names for %d vertices", len(names), g.NumVertices())
	}
	h := wrapRaw(g.Raw())
	h.names = names
	return h, nil
}

// HasOriginalIDs reports whether input ids differ from dense ids.
func (g *Graph) HasOriginalIDs() bool { return g.originalIDs != nil }
