package graph

// The builder as it was before edges were mapped in bulk and built on all cores: the reference
// the new one must agree with, array for array.

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
)

// refBuilder collects vertices and edges with arbitrary integer ids and builds a Graph.
// Duplicate edges with equal labels are merged; an edge given twice with two different labels is
// an error. Vertices without an explicit label get label 0.
type refBuilder struct {
	opts BuilderOptions

	// Original ids map to dense ids in the first of three ways that still fits: identity (every
	// id seen so far equals its dense index), table (ids small enough to index a slice:
	// table[id] is the dense id + 1, 0 for an id not seen), or the ids map.
	identity bool
	table    []uint32
	ids      map[int64]uint32
	orig     []int64
	labels   []uint32
	labelSet []bool

	src, dst, elab []uint32
	edgeLabelled   bool
	names          []string // by builder index; nil until SetVertexName

	// SelfLoopsDropped counts the self-loops dropped under DropSelfLoops.
	SelfLoopsDropped int
}

// newRefBuilder returns an empty builder.
func newRefBuilder(opts BuilderOptions) *refBuilder {
	return &refBuilder{opts: opts, identity: true}
}

// NumVertices returns the number of distinct vertices seen so far.
func (b *refBuilder) NumVertices() int { return len(b.orig) }

// Vertex returns the dense id of the vertex with original id id, creating it if needed.
func (b *refBuilder) Vertex(id int64) (uint32, error) {
	if b.identity {
		if id >= 0 && id < int64(len(b.orig)) {
			return uint32(id), nil
		}
		if id == int64(len(b.orig)) {
			return b.appendVertex(id)
		}
		b.identity = false
		b.table = make([]uint32, len(b.orig))
		for i := range b.table {
			b.table[i] = uint32(i) + 1
		}
	}
	if b.ids == nil {
		if id >= 0 && id < b.tableLimit() {
			if id >= int64(len(b.table)) {
				grown := min(max(id+1, 2*int64(len(b.table))), b.tableLimit())
				b.table = append(b.table, make([]uint32, grown-int64(len(b.table)))...)
			}
			if d := b.table[id]; d != 0 {
				return d - 1, nil
			}
			v, err := b.appendVertex(id)
			if err == nil {
				b.table[id] = v + 1
			}
			return v, err
		}
		// An id too large (or negative) for the table: map every id from now on.
		b.table = nil
		b.ids = make(map[int64]uint32, len(b.orig)+1)
		for i, o := range b.orig {
			b.ids[o] = uint32(i)
		}
	}
	if v, ok := b.ids[id]; ok {
		return v, nil
	}
	v, err := b.appendVertex(id)
	if err == nil {
		b.ids[id] = v
	}
	return v, err
}

// tableLimit bounds the ids the table may index: a few times the vertices seen so far, so that
// its 4 bytes an id stay proportionate to the graph (sparse ids, say 10^12, go to the map).
func (b *refBuilder) tableLimit() int64 {
	return 8*int64(len(b.orig)) + 1<<20
}

func (b *refBuilder) appendVertex(id int64) (uint32, error) {
	if len(b.orig) >= MaxVertices {
		return 0, fmt.Errorf("more than %d vertices", uint64(MaxVertices))
	}
	b.orig = append(b.orig, id)
	b.labels = append(b.labels, 0)
	b.labelSet = append(b.labelSet, false)
	return uint32(len(b.orig) - 1), nil
}

// HasVertex reports whether a vertex with original id id was seen.
func (b *refBuilder) HasVertex(id int64) bool {
	switch {
	case b.identity:
		return id >= 0 && id < int64(len(b.orig))
	case b.ids == nil:
		return id >= 0 && id < int64(len(b.table)) && b.table[id] != 0
	}
	_, ok := b.ids[id]
	return ok
}

// SetVertexLabel sets the label of vertex id (creating it). Giving one vertex two different labels
// is an error.
func (b *refBuilder) SetVertexLabel(id int64, label uint32) error {
	v, err := b.Vertex(id)
	if err != nil {
		return err
	}
	if b.labelSet[v] && b.labels[v] != label {
		return fmt.Errorf("vertex %d given two labels, %d and %d", id, b.labels[v], label)
	}
	b.labels[v] = label
	b.labelSet[v] = true
	return nil
}

// SetVertexName gives vertex id (creating it) a string name, which the graph keeps for output
// (Graph.VertexName). Once one vertex has a name, every vertex without one is named by its id.
func (b *refBuilder) SetVertexName(id int64, name string) error {
	v, err := b.Vertex(id)
	if err != nil {
		return err
	}
	if b.names == nil {
		b.names = make([]string, 0, len(b.orig))
	}
	for len(b.names) <= int(v) {
		b.names = append(b.names, strconv.FormatInt(b.orig[len(b.names)], 10))
	}
	b.names[v] = name
	return nil
}

// AddEdge adds the undirected edge u-v with the given label, creating the vertices.
func (b *refBuilder) AddEdge(u, v int64, label uint32) error {
	if u == v {
		if b.opts.DropSelfLoops {
			// The edge goes, the vertex stays (it may have no other edge).
			if _, err := b.Vertex(u); err != nil {
				return err
			}
			b.SelfLoopsDropped++
			return nil
		}
		return fmt.Errorf("%w on vertex %d (BuilderOptions.DropSelfLoops drops it)", ErrSelfLoop, u)
	}
	du, err := b.Vertex(u)
	if err != nil {
		return err
	}
	dv, err := b.Vertex(v)
	if err != nil {
		return err
	}
	b.src = append(b.src, du)
	b.dst = append(b.dst, dv)
	b.elab = append(b.elab, label)
	if label != 0 {
		b.edgeLabelled = true
	}
	return nil
}

type refAdjEntry struct{ nbr, label uint32 }

// refCountingLimit bounds the edges Build orders by counting (linear passes on one thread) rather
// than by sorting every adjacency list on all cores: below it the passes are the faster of the
// two even on many cores (wiki-Vote's 100k edges: about 2 ms against 22 ms on two cores).
// Edge-labelled graphs are always sorted (their lists are ordered by edge label within a vertex
// label's run, which no single pass over the vertices gives).
var refCountingLimit = 1 << 24

// Build produces the graph. The builder must not be used afterwards.
//
// Vertices are renumbered by ascending degree (ties by input order). Engines compare dense ids to
// break symmetry, so the smallest vertex of a match is its lowest-degree one and the search from
// it only walks towards higher degrees: this is what makes clique-like patterns cheap.
func (b *refBuilder) Build() (*Graph, error) {
	if !b.edgeLabelled && len(b.src) <= refCountingLimit {
		return b.buildCounting(), nil
	}
	return b.buildSorting()
}

// buildCounting is Build for graphs without edge labels, by counting sorts only: the unsorted
// lists bucketed by vertex, then every list sorted at once by walking the vertices in order and
// appending each to its neighbours' lists (the relation is symmetric), duplicates dropped, and
// the same walk again in the final numbering, ordered by (vertex label, id).
func (b *refBuilder) buildCounting() *Graph {
	n := len(b.orig)
	deg, unsorted := b.bucket()
	sorted := make([]uint32, len(unsorted))
	fill := slices.Clone(deg[:n])
	for y := range n {
		for _, x := range unsorted[deg[y]:deg[y+1]] {
			sorted[fill[x]] = uint32(y)
			fill[x]++
		}
	}
	unsorted, b.elab = nil, nil
	keep := make([]uint64, n)
	for v := range n {
		list := sorted[deg[v]:deg[v+1]]
		k := 0
		for i, x := range list {
			if i == 0 || x != list[k-1] {
				list[k] = x
				k++
			}
		}
		keep[v] = uint64(k)
	}
	order, newID := refRenumber(keep)
	g := b.newGraph(order, keep)
	// Walk the new ids by (label, id) so that every list comes out in that order.
	walk := order
	if _, uniform := g.UniformVertexLabel(); !uniform {
		walk = make([]uint32, n)
		for i := range walk {
			walk[i] = uint32(i)
		}
		slices.SortStableFunc(walk, func(a, c uint32) int { return cmp.Compare(g.vertexLabels[a], g.vertexLabels[c]) })
		for i, w := range walk {
			walk[i] = order[w]
		}
	}
	copy(fill, g.offsets[:n])
	for _, old := range walk {
		w := newID[old]
		for _, u := range sorted[deg[old] : deg[old]+keep[old]] {
			nu := newID[u]
			g.neighbors[fill[nu]] = w
			fill[nu]++
		}
	}
	b.finishGraph(g, order)
	return g
}

// bucket returns every vertex's neighbours, unsorted and with duplicates, as a CSR (deg the
// offsets), and releases the builder's edge arrays.
func (b *refBuilder) bucket() (deg []uint64, nbrs []uint32) {
	deg = b.offsets()
	nbrs = make([]uint32, deg[len(b.orig)])
	fill := slices.Clone(deg[:len(b.orig)])
	for i := range b.src {
		u, v := b.src[i], b.dst[i]
		nbrs[fill[u]] = v
		fill[u]++
		nbrs[fill[v]] = u
		fill[v]++
	}
	b.src, b.dst = nil, nil
	return deg, nbrs
}

// offsets returns where each vertex's list starts in a CSR of the edges as added (duplicates
// included): the prefix sums of the degrees, n+1 entries.
func (b *refBuilder) offsets() []uint64 {
	n := len(b.orig)
	deg := make([]uint64, n+1)
	for i := range b.src {
		deg[b.src[i]+1]++
		deg[b.dst[i]+1]++
	}
	for v := 1; v <= n; v++ {
		deg[v] += deg[v-1]
	}
	return deg
}

// buildSorting is Build by sorting each adjacency list (with its edge labels) on all cores.
func (b *refBuilder) buildSorting() (*Graph, error) {
	n := len(b.orig)
	deg := b.offsets()
	entries := make([]refAdjEntry, deg[n])
	fill := slices.Clone(deg[:n])
	for i := range b.src {
		u, v, l := b.src[i], b.dst[i], b.elab[i]
		entries[fill[u]] = refAdjEntry{v, l}
		fill[u]++
		entries[fill[v]] = refAdjEntry{u, l}
		fill[v]++
	}
	b.src, b.dst, b.elab = nil, nil, nil
	fill = nil

	// Deduplicate each list in parallel; keep[v] is the deduplicated length.
	keep := make([]uint64, n)
	if err := parallelVertices(n, nil, func(v int) error {
		list := entries[deg[v]:deg[v+1]]
		slices.SortFunc(list, func(a, c refAdjEntry) int {
			if a.nbr != c.nbr {
				return cmp.Compare(a.nbr, c.nbr)
			}
			return cmp.Compare(a.label, c.label)
		})
		k := 0
		for i, e := range list {
			if i > 0 && e.nbr == list[k-1].nbr {
				if e.label != list[k-1].label {
					u, w := b.originalOf(uint32(v)), b.originalOf(e.nbr)
					if u > w {
						u, w = w, u
					}
					return &EdgeLabelConflict{U: u, V: w, UName: b.nameOf(u), VName: b.nameOf(w), Labels: [2]uint32{list[k-1].label, e.label}}
				}
				continue
			}
			list[k] = e
			k++
		}
		keep[v] = uint64(k)
		return nil
	}); err != nil {
		return nil, err
	}

	order, newID := refRenumber(keep)
	g := b.newGraph(order, keep)
	labels := g.vertexLabels
	if b.edgeLabelled {
		g.edgeLabels = make([]uint32, g.offsets[n])
	}
	_ = parallelVertices(n, nil, func(i int) error {
		v := order[i]
		list := entries[deg[v] : deg[v]+keep[v]]
		for j := range list {
			list[j].nbr = newID[list[j].nbr]
		}
		slices.SortFunc(list, func(a, c refAdjEntry) int {
			if la, lc := labels[a.nbr], labels[c.nbr]; la != lc {
				return cmp.Compare(la, lc)
			}
			if a.label != c.label {
				return cmp.Compare(a.label, c.label)
			}
			return cmp.Compare(a.nbr, c.nbr)
		})
		dst := g.offsets[i]
		for j, e := range list {
			g.neighbors[dst+uint64(j)] = e.nbr
			if g.edgeLabels != nil {
				g.edgeLabels[dst+uint64(j)] = e.label
			}
		}
		return nil
	})
	entries = nil
	b.finishGraph(g, order)
	return g, nil
}

// renumber orders the vertices by ascending deduplicated degree keep (ties by input order):
// order[new] = old and newID[old] = new.
func refRenumber(keep []uint64) (order, newID []uint32) {
	n := len(keep)
	order = make([]uint32, n)
	for v := range order {
		order[v] = uint32(v)
	}
	slices.SortStableFunc(order, func(a, c uint32) int { return cmp.Compare(keep[a], keep[c]) })
	newID = make([]uint32, n)
	for i, v := range order {
		newID[v] = uint32(i)
	}
	return order, newID
}

// newGraph allocates the graph in the numbering order (order[new] = old): vertex labels, offsets
// from the deduplicated degrees keep, and the neighbour array, to be filled.
func (b *refBuilder) newGraph(order []uint32, keep []uint64) *Graph {
	n := len(order)
	labels := make([]uint32, n)
	for i, v := range order {
		labels[i] = b.labels[v]
	}
	g := &Graph{vertexLabels: labels, offsets: make([]uint64, n+1), runOffsets: make([]uint64, n+1)}
	for i, v := range order {
		g.offsets[i+1] = g.offsets[i] + keep[v]
	}
	g.neighbors = make([]uint32, g.offsets[n])
	return g
}

// finishGraph completes g, whose lists are filled: the run index, the original ids (when they
// are not the dense ones) and the names, in the numbering order.
func (b *refBuilder) finishGraph(g *Graph, order []uint32) {
	n := len(order)
	g.runs = buildRuns(g, g.runOffsets, nil)
	identity := b.identity
	orig := make([]int64, n)
	for i, v := range order {
		orig[i] = b.orig[v]
		if orig[i] != int64(i) {
			identity = false
		}
	}
	if !identity {
		g.originalIDs = orig
	}
	if b.names != nil {
		g.names = make([]string, n)
		for i, v := range order {
			if int(v) < len(b.names) {
				g.names[i] = b.names[v]
			} else {
				g.names[i] = strconv.FormatInt(b.orig[v], 10)
			}
		}
	}
}

func (b *refBuilder) originalOf(v uint32) int64 { return b.orig[v] }

// nameOf returns the name of the vertex with original id id (its id when it has none).
func (b *refBuilder) nameOf(id int64) string {
	if b.names != nil && b.HasVertex(id) {
		if v, _ := b.Vertex(id); int(v) < len(b.names) {
			return b.names[v]
		}
	}
	return strconv.FormatInt(id, 10)
}
