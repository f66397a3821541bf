// Package dynamic owns the changing data graph of continuous matching: a mutable, undirected,
// simple graph with a uint32 label on every vertex and edge, that takes edge and vertex insertions
// and deletions, creates vertices on the fly for new original ids, and converts to and from the
// immutable graph.Graph (so it starts from any format submatch reads and can be written back as a
// snapshot).
//
// Every vertex keeps its neighbours in runs, one per (neighbour vertex label, edge label), sorted
// by that key; each run is a sorted slice of neighbour ids. The neighbours with one label pair are
// found by binary search over the runs, never by scanning, and an insertion or deletion moves only
// the tail of one run. Memory is proportional to the graph (a deleted edge frees its slot at once,
// Compact returns spare capacity and the ids of deleted vertices), not to the updates seen.
//
// Vertices have dense ids; the id the input used (the original id) is kept for output. A deleted
// vertex keeps its dense id until Compact, so ids stay stable between two compactions (a vertex
// deleted and added again gets its old dense id back).
package dynamic

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/submatch/submatch/graph"
)

// Errors returned (wrapped, with the vertices) by the mutators. Each names an invalid update: the
// graph is left unchanged.
var (
	ErrEdgeExists    = errors.New("the edge is already present")
	ErrNoEdge        = errors.New("no such edge")
	ErrNoVertex      = errors.New("no such vertex")
	ErrVertexExists  = errors.New("the vertex is already present")
	ErrSelfLoop      = errors.New("self-loop")
	ErrVertexHasEdge = errors.New("vertex still has edges")
	ErrTooManyIDs    = errors.New("too many vertices")
)

// Run is the sorted neighbours of one vertex with one vertex label, reached by edges with one edge
// label.
type Run struct {
	VertexLabel uint32
	EdgeLabel   uint32
	Neighbors   []uint32
}

// Graph is a mutable labelled graph. It is not safe for concurrent mutation; concurrent readers
// are safe while nobody mutates.
type Graph struct {
	// vs[v] is what an edge lookup or update reads of v first, in one cache line.
	vs   []vertex
	orig []int64
	adj  [][]Run

	// Original id -> dense id: table[id] = dense+1 for small non-negative ids, the map otherwise.
	table []uint32
	ids   map[int64]uint32

	// Alive vertices per label and all together, unordered; pos* give each vertex's index.
	byLabel  map[uint32][]uint32
	posLabel []uint32
	all      []uint32
	posAll   []uint32

	free     []uint32 // dense ids of vertices removed by Compact, for reuse
	numEdges uint64
	dead     int // deleted vertices not yet compacted
}

// New returns an empty graph.
func New() *Graph {
	return &Graph{ids: map[int64]uint32{}, byLabel: map[uint32][]uint32{}}
}

// FromGraph copies g (any loaded format or snapshot) into a mutable graph; dense ids are g's.
func FromGraph(g *graph.Graph) *Graph {
	n := g.NumVertices()
	d := New()
	d.vs = vertices(g.VertexLabels())
	d.orig = make([]int64, n)
	d.adj = make([][]Run, n)
	d.posLabel = make([]uint32, n)
	d.posAll = make([]uint32, n)
	for v := range n {
		u := uint32(v)
		d.orig[v] = g.OriginalID(u)
		d.mapID(d.orig[v], u)
		d.index(u)
		runs := g.Runs(u)
		if len(runs) == 0 {
			continue
		}
		// One backing array per vertex: its runs are subslices with capped capacity, so that an
		// insertion into one run reallocates that run alone.
		back := slices.Clone(g.Neighbors(u))
		rs := make([]Run, len(runs))
		for i, r := range runs {
			nb := g.RunNeighbors(u, i)
			start := int(r.Start - runs[0].Start)
			rs[i] = Run{VertexLabel: r.VertexLabel, EdgeLabel: r.EdgeLabel, Neighbors: back[start : start+len(nb) : start+len(nb)]}
		}
		d.adj[v] = rs
		d.vs[v].mask = maskOf(rs)
		d.vs[v].degree = uint32(g.Degree(u))
	}
	d.numEdges = g.NumEdges()
	return d
}

func (d *Graph) tableLimit() int64 { return 8*int64(len(d.orig)) + 1<<20 }

func (d *Graph) mapID(id int64, v uint32) {
	if id >= 0 && id < d.tableLimit() {
		if id >= int64(len(d.table)) {
			grown := min(max(id+1, 2*int64(len(d.table))), d.tableLimit())
			d.table = append(d.table, make([]uint32, grown-int64(len(d.table)))...)
		}
		d.table[id] = v + 1
		return
	}
	d.ids[id] = v
}

func (d *Graph) unmapID(id int64) {
	if id >= 0 && id < int64(len(d.table)) {
		d.table[id] = 0
		return
	}
	delete(d.ids, id)
}

// lookupAny returns the dense id of original id, alive or deleted (not yet compacted).
func (d *Graph) lookupAny(id int64) (uint32, bool) {
	if id >= 0 && id < int64(len(d.table)) {
		v := d.table[id]
		return v - 1, v != 0
	}
	v, ok := d.ids[id]
	return v, ok
}

// Lookup returns the dense id of the alive vertex with original id id.
func (d *Graph) Lookup(id int64) (uint32, bool) {
	v, ok := d.lookupAny(id)
	if !ok || !d.vs[v].alive {
		return 0, false
	}
	return v, true
}

func (d *Graph) index(v uint32) {
	l := d.vs[v].label
	list := d.byLabel[l]
	d.posLabel[v] = uint32(len(list))
	d.byLabel[l] = append(list, v)
	d.posAll[v] = uint32(len(d.all))
	d.all = append(d.all, v)
}

func (d *Graph) unindex(v uint32) {
	l := d.vs[v].label
	list := d.byLabel[l]
	i := d.posLabel[v]
	last := list[len(list)-1]
	list[i] = last
	d.posLabel[last] = i
	list = list[:len(list)-1]
	if len(list) == 0 {
		delete(d.byLabel, l)
	} else {
		d.byLabel[l] = list
	}
	i = d.posAll[v]
	last = d.all[len(d.all)-1]
	d.all[i] = last
	d.posAll[last] = i
	d.all = d.all[:len(d.all)-1]
}

// IDBound returns one more than the largest dense id in use (alive or deleted): the size of
// arrays indexed by vertex.
func (d *Graph) IDBound() int { return len(d.vs) }

// NumVertices returns the number of alive vertices.
func (d *Graph) NumVertices() int { return len(d.all) }

// NumEdges returns the number of undirected edges.
func (d *Graph) NumEdges() uint64 { return d.numEdges }

// Alive reports whether dense id v is an alive vertex.
func (d *Graph) Alive(v uint32) bool { return int(v) < len(d.vs) && d.vs[v].alive }

// Label returns the label of v.
func (d *Graph) Label(v uint32) uint32 { return d.vs[v].label }

// OriginalID returns the id v had in the input.
func (d *Graph) OriginalID(v uint32) int64 { return d.orig[v] }

// Degree returns the number of neighbours of v.
func (d *Graph) Degree(v uint32) int { return int(d.vs[v].degree) }

// Runs returns the runs of v sorted by (vertex label, edge label). The slices alias the graph's
// storage: valid until the next mutation, not to be modified.
func (d *Graph) Runs(v uint32) []Run { return d.adj[v] }

// Vertices returns every alive vertex, unordered (aliases storage; valid until the next mutation).
func (d *Graph) Vertices() []uint32 { return d.all }

// VerticesWithLabel returns the alive vertices with label l, unordered (aliases storage).
func (d *Graph) VerticesWithLabel(l uint32) []uint32 { return d.byLabel[l] }

// vertex is a vertex's label, degree and run mask, kept together so that an edge lookup or
// update reads them at once.
type vertex struct {
	// mask indexes the runs in O(1) in the common case: while bit 63 is clear, every run has
	// edge label 0 and a vertex label below 63, and bit l says a run of vertex label l is
	// present (its index is the number of lower bits set). Bit 63 set: binary search.
	mask   uint64
	label  uint32
	degree uint32
	alive  bool
}

// vertices returns n alive vertices with the given labels, degree 0 and no runs.
func vertices(labels []uint32) []vertex {
	vs := make([]vertex, len(labels))
	fillVertices(vs, labels)
	return vs
}

// fillVertices sets vs to the live vertices of the labels given.
func fillVertices(vs []vertex, labels []uint32) {
	for v, l := range labels {
		vs[v] = vertex{label: l, alive: true}
	}
}

const slowMask = 1 << 63

func maskOf(runs []Run) uint64 {
	var m uint64
	for _, r := range runs {
		if r.EdgeLabel != 0 || r.VertexLabel >= 63 {
			return slowMask
		}
		m |= 1 << r.VertexLabel
	}
	return m
}

// findRun returns the index of the run (vl, el) of v, or where it would be inserted.
func findRun(runs []Run, vl, el uint32) (int, bool) {
	if len(runs) <= 4 { // most vertices have a few runs: scan them
		for i := range runs {
			r := &runs[i]
			if r.VertexLabel > vl || (r.VertexLabel == vl && r.EdgeLabel >= el) {
				return i, r.VertexLabel == vl && r.EdgeLabel == el
			}
		}
		return len(runs), false
	}
	lo, hi := 0, len(runs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		r := &runs[m]
		if r.VertexLabel < vl || (r.VertexLabel == vl && r.EdgeLabel < el) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(runs) && runs[lo].VertexLabel == vl && runs[lo].EdgeLabel == el
}

// NeighborsWith returns the sorted neighbours of v with vertex label vl joined by an edge labelled
// el (aliases storage; valid until the next mutation).
func (d *Graph) NeighborsWith(v, vl, el uint32) []uint32 {
	i, ok := d.runIndex(v, vl, el)
	if !ok {
		return nil
	}
	return d.adj[v][i].Neighbors
}

// DegreeWith returns len(NeighborsWith(v, vl, el)), with fewer memory reads in the common case.
func (d *Graph) DegreeWith(v, vl, el uint32) int {
	if m := d.vs[v].mask; m&slowMask == 0 && el == 0 && vl < 63 {
		if m&(1<<vl) == 0 {
			return 0
		}
		return len(d.adj[v][bits.OnesCount64(m&(1<<vl-1))].Neighbors)
	}
	return len(d.NeighborsWith(v, vl, el))
}

// runIndex returns the index of v's run (vl, el), or where it would be inserted: from the
// label mask when it applies, else by search.
func (d *Graph) runIndex(v, vl, el uint32) (int, bool) {
	if m := d.vs[v].mask; m&slowMask == 0 && el == 0 && vl < 63 {
		return bits.OnesCount64(m & (1<<vl - 1)), m&(1<<vl) != 0
	}
	return findRun(d.adj[v], vl, el)
}

// RunsWithVertexLabel returns the runs of v whose vertex label is vl (one per edge label).
func (d *Graph) RunsWithVertexLabel(v, vl uint32) []Run {
	runs := d.adj[v]
	lo, _ := findRun(runs, vl, 0)
	hi := lo
	for hi < len(runs) && runs[hi].VertexLabel == vl {
		hi++
	}
	return runs[lo:hi]
}

// EdgeLabel returns the label of edge u-v and whether it exists.
func (d *Graph) EdgeLabel(u, v uint32) (uint32, bool) {
	if d.vs[u].degree > d.vs[v].degree {
		u, v = v, u
	}
	vl := d.vs[v].label
	if d.vs[u].mask&slowMask == 0 {
		_, ok := slices.BinarySearch(d.NeighborsWith(u, vl, 0), v)
		return 0, ok
	}
	runs := d.adj[u]
	i, _ := findRun(runs, vl, 0)
	for ; i < len(runs) && runs[i].VertexLabel == vl; i++ {
		if _, ok := slices.BinarySearch(runs[i].Neighbors, v); ok {
			return runs[i].EdgeLabel, true
		}
	}
	return 0, false
}

// HasEdgeLabelled reports whether u-v is an edge with label el.
func (d *Graph) HasEdgeLabelled(u, v, el uint32) bool {
	if d.vs[u].degree > d.vs[v].degree {
		u, v = v, u
	}
	_, ok := slices.BinarySearch(d.NeighborsWith(u, d.vs[v].label, el), v)
	return ok
}

// AddVertex adds a vertex with original id id and label l and returns its dense id. A vertex with
// that id that is alive is an error (ErrVertexExists); one deleted since the last Compact comes
// back with its old dense id.
func (d *Graph) AddVertex(id int64, l uint32) (uint32, error) {
	if v, ok := d.lookupAny(id); ok {
		if d.vs[v].alive {
			return v, fmt.Errorf("vertex %d: %w (label %d)", id, ErrVertexExists, d.vs[v].label)
		}
		d.vs[v].alive = true
		d.vs[v].label = l
		d.dead--
		d.index(v)
		return v, nil
	}
	var v uint32
	if k := len(d.free); k > 0 {
		v = d.free[k-1]
		d.free = d.free[:k-1]
		d.vs[v].label, d.vs[v].alive, d.orig[v], d.vs[v].degree, d.vs[v].mask = l, true, id, 0, 0
		d.adj[v] = d.adj[v][:0]
	} else {
		if len(d.vs) >= graph.MaxVertices {
			return 0, fmt.Errorf("vertex %d: %w (at most %d)", id, ErrTooManyIDs, uint64(graph.MaxVertices))
		}
		v = uint32(len(d.vs))
		d.vs = append(d.vs, vertex{label: l, alive: true})
		d.orig = append(d.orig, id)
		d.adj = append(d.adj, nil)
		d.posLabel = append(d.posLabel, 0)
		d.posAll = append(d.posAll, 0)
	}
	d.mapID(id, v)
	d.index(v)
	return v, nil
}

// DeleteVertex deletes the vertex v, which must have no edges left (ErrVertexHasEdge).
func (d *Graph) DeleteVertex(v uint32) error {
	if !d.Alive(v) {
		return fmt.Errorf("vertex %d: %w", v, ErrNoVertex)
	}
	if d.vs[v].degree != 0 {
		return fmt.Errorf("vertex %d: %w (%d)", d.orig[v], ErrVertexHasEdge, d.vs[v].degree)
	}
	d.unindex(v)
	d.vs[v].alive = false
	d.adj[v] = nil
	d.vs[v].mask = 0
	d.dead++
	return nil
}

// AddEdge inserts the edge u-v with label el between alive vertices.
func (d *Graph) AddEdge(u, v, el uint32) error {
	if d.InsertEdge(u, v, el) {
		return nil
	}
	if err := d.checkPair(u, v); err != nil {
		return err
	}
	if d.vs[u].degree > d.vs[v].degree {
		u, v = v, u
	}
	l, _ := d.EdgeLabel(u, v)
	return fmt.Errorf("edge %d-%d: %w (label %d)", d.orig[u], d.orig[v], ErrEdgeExists, l)
}

// InsertEdge is AddEdge for a caller that needs no error: false (the graph unchanged) where
// AddEdge fails. It allocates nothing when the vertices' lists have room.
func (d *Graph) InsertEdge(u, v, el uint32) bool {
	if !d.pairOK(u, v) {
		return false
	}
	if d.vs[u].degree > d.vs[v].degree {
		u, v = v, u // the presence check searches the shorter list
	}
	if el == 0 && d.vs[u].mask&slowMask == 0 {
		// Every edge of u has label 0: the run that the insertion searches is the only one
		// that could hold v.
		if !d.insertNew(u, v) {
			return false
		}
	} else {
		if _, ok := d.EdgeLabel(u, v); ok {
			return false
		}
		d.insertHalf(u, v, el)
	}
	d.insertHalf(v, u, el)
	d.numEdges++
	return true
}

// DeleteEdge removes the edge u-v and returns its label.
func (d *Graph) DeleteEdge(u, v uint32) (uint32, error) {
	if el, ok := d.RemoveEdge(u, v); ok {
		return el, nil
	}
	if err := d.checkPair(u, v); err != nil {
		return 0, err
	}
	if d.vs[u].degree > d.vs[v].degree {
		u, v = v, u
	}
	return 0, fmt.Errorf("edge %d-%d: %w", d.orig[u], d.orig[v], ErrNoEdge)
}

// RemoveEdge is DeleteEdge for a caller that needs no error: false (the graph unchanged) where
// DeleteEdge fails. It allocates nothing.
func (d *Graph) RemoveEdge(u, v uint32) (uint32, bool) {
	if !d.pairOK(u, v) {
		return 0, false
	}
	if d.vs[u].degree > d.vs[v].degree {
		u, v = v, u // the presence check searches the shorter list
	}
	var el uint32
	if d.vs[u].mask&slowMask == 0 {
		// Every edge of u has label 0: v can only be in one run.
		if !d.deleteChecked(u, v, 0, true) {
			return 0, false
		}
	} else {
		var ok bool
		if el, ok = d.EdgeLabel(u, v); !ok {
			return 0, false
		}
		d.deleteHalf(u, v, el)
	}
	d.deleteHalf(v, u, el)
	d.numEdges--
	return el, true
}

// pairOK reports whether u and v are distinct alive vertices (checkPair without the error).
func (d *Graph) pairOK(u, v uint32) bool { return u != v && d.Alive(u) && d.Alive(v) }

func (d *Graph) checkPair(u, v uint32) error {
	if !d.Alive(u) {
		return fmt.Errorf("vertex %d: %w", u, ErrNoVertex)
	}
	if !d.Alive(v) {
		return fmt.Errorf("vertex %d: %w", v, ErrNoVertex)
	}
	if u == v {
		return fmt.Errorf("edge %d-%d: %w", d.orig[u], d.orig[v], ErrSelfLoop)
	}
	return nil
}

func (d *Graph) insertHalf(u, v, el uint32) { d.insertChecked(u, v, el, false) }

// insertNew inserts v (edge label 0) into u's lists unless it is there; false if it is.
func (d *Graph) insertNew(u, v uint32) bool { return d.insertChecked(u, v, 0, true) }

// insertChecked inserts v into u's run (label of v, el); with check, nothing is done (false)
// when v is in that run already.
func (d *Graph) insertChecked(u, v, el uint32, check bool) bool {
	runs := d.adj[u]
	vl := d.vs[v].label
	i, ok := d.runIndex(u, vl, el)
	j := 0
	if ok {
		var found bool
		if j, found = slices.BinarySearch(runs[i].Neighbors, v); found && check {
			return false
		}
	} else {
		// A new run reuses the list of the last run deleted from u (kept past the runs' end by
		// deleteChecked), so that an edge inserted and deleted again allocates nothing.
		var spare []uint32
		if len(runs) < cap(runs) {
			spare = runs[:len(runs)+1][len(runs)].Neighbors[:0]
		}
		runs = slices.Insert(runs, i, Run{VertexLabel: vl, EdgeLabel: el, Neighbors: spare})
		d.adj[u] = runs
		if el != 0 || vl >= 63 {
			d.vs[u].mask |= slowMask
		} else {
			d.vs[u].mask |= 1 << vl
		}
	}
	runs[i].Neighbors = slices.Insert(runs[i].Neighbors, j, v)
	d.vs[u].degree++
	return true
}

func (d *Graph) deleteHalf(u, v, el uint32) { d.deleteChecked(u, v, el, false) }

// deleteChecked removes v from u's run (label of v, el); with check, nothing is done (false)
// when v is not there.
func (d *Graph) deleteChecked(u, v, el uint32, check bool) bool {
	runs := d.adj[u]
	i, ok := d.runIndex(u, d.vs[v].label, el)
	if check && !ok {
		return false
	}
	nb := runs[i].Neighbors
	j, found := slices.BinarySearch(nb, v)
	if check && !found {
		return false
	}
	nb = slices.Delete(nb, j, j+1)
	if len(nb) == 0 {
		runs = slices.Delete(runs, i, i+1)
		if cap(nb) > maxSpareList {
			nb = nil // a long emptied list is let go, not kept for good
		}
		runs[:len(runs)+1][len(runs)].Neighbors = nb // for the next new run (insertChecked)
		d.adj[u] = runs
		if d.vs[u].mask&slowMask == 0 {
			d.vs[u].mask &^= 1 << d.vs[v].label
		}
	} else {
		runs[i].Neighbors = nb
	}
	d.vs[u].degree--
	return true
}

// maxSpareList is the capacity up to which a neighbour list emptied by a deletion is kept in the
// vertex's spare run slot for its next new run (so that deleting and inserting an edge again
// allocates nothing); a longer one is released.
const maxSpareList = 64

// Compact returns the capacity that deletions left unused (runs and lists shrunk to fit when
// more than half empty) and makes the dense ids of deleted vertices available for new ones (after
// Compact, a deleted vertex added again may get another dense id). Call it between batches from
// time to time; it takes time linear in the graph.
func (d *Graph) Compact() {
	for v := range d.adj {
		runs := d.adj[v]
		if cap(runs) > 2*len(runs)+4 {
			runs = slices.Clip(slices.Clone(runs))
			d.adj[v] = runs
		} else {
			clear(runs[len(runs):cap(runs)]) // spare lists parked by deletions
		}
		for i := range runs {
			nb := runs[i].Neighbors
			if cap(nb) > 2*len(nb)+4 {
				runs[i].Neighbors = slices.Clip(slices.Clone(nb))
			}
		}
		d.vs[v].mask = maskOf(runs)
	}
	if d.dead == 0 {
		return
	}
	for v := range d.vs {
		if d.vs[v].alive {
			continue
		}
		if w, ok := d.lookupAny(d.orig[v]); ok && w == uint32(v) {
			d.unmapID(d.orig[v])
			d.free = append(d.free, uint32(v))
		}
	}
	d.dead = 0
}

// Snapshot builds an immutable graph.Graph of the alive vertices and edges, keeping original ids
// (write it with formats.WriteSnapshot, or count it with a static engine).
func (d *Graph) Snapshot() (*graph.Graph, error) {
	b := graph.NewBuilder(graph.BuilderOptions{})
	vs := slices.Clone(d.all)
	slices.SortFunc(vs, func(a, b uint32) int {
		switch {
		case d.orig[a] < d.orig[b]:
			return -1
		case d.orig[a] > d.orig[b]:
			return 1
		}
		return 0
	})
	for _, v := range vs {
		if err := b.SetVertexLabel(d.orig[v], d.vs[v].label); err != nil {
			return nil, err
		}
	}
	for _, v := range vs {
		for _, r := range d.adj[v] {
			for _, w := range r.Neighbors {
				if d.orig[w] > d.orig[v] {
					if err := b.AddEdge(d.orig[v], d.orig[w], r.EdgeLabel); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return b.Build()
}

// Validate checks the invariants (sorted runs and lists, symmetric edges with equal labels,
// degrees, indexes); for tests.
func (d *Graph) Validate() error {
	var half uint64
	alive := 0
	for v := range d.adj {
		u := uint32(v)
		if !d.vs[v].alive {
			if len(d.adj[v]) != 0 {
				return fmt.Errorf("deleted vertex %d has runs", v)
			}
			continue
		}
		alive++
		if w, ok := d.Lookup(d.orig[v]); !ok || w != u {
			return fmt.Errorf("vertex %d: original id %d does not map back", v, d.orig[v])
		}
		if d.byLabel[d.vs[v].label][d.posLabel[v]] != u || d.all[d.posAll[v]] != u {
			return fmt.Errorf("vertex %d: label index broken", v)
		}
		if m := maskOf(d.adj[v]); d.vs[v].mask != m && d.vs[v].mask&slowMask == 0 {
			return fmt.Errorf("vertex %d: run mask %x, runs give %x", v, d.vs[v].mask, m)
		}
		deg := 0
		for i, r := range d.adj[v] {
			if len(r.Neighbors) == 0 {
				return fmt.Errorf("vertex %d: empty run", v)
			}
			if i > 0 {
				p := d.adj[v][i-1]
				if p.VertexLabel > r.VertexLabel || (p.VertexLabel == r.VertexLabel && p.EdgeLabel >= r.EdgeLabel) {
					return fmt.Errorf("vertex %d: runs not sorted", v)
				}
			}
			for j, w := range r.Neighbors {
				if j > 0 && r.Neighbors[j-1] >= w {
					return fmt.Errorf("vertex %d: run not strictly increasing", v)
				}
				if !d.Alive(w) || w == u || d.vs[w].label != r.VertexLabel {
					return fmt.Errorf("vertex %d: bad neighbour %d", v, w)
				}
				if !d.HasEdgeLabelled(w, u, r.EdgeLabel) {
					return fmt.Errorf("edge %d-%d not symmetric", v, w)
				}
			}
			deg += len(r.Neighbors)
		}
		if deg != int(d.vs[v].degree) {
			return fmt.Errorf("vertex %d: degree %d, lists hold %d", v, d.vs[v].degree, deg)
		}
		half += uint64(deg)
	}
	if alive != len(d.all) {
		return fmt.Errorf("%d alive vertices, index holds %d", alive, len(d.all))
	}
	if half != 2*d.numEdges {
		return fmt.Errorf("%d edges counted, %d half-edges", d.numEdges, half)
	}
	return nil
}
