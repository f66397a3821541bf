package graph

import (
	"slices"

	"github.com/submatch/submatch/internal/par"
)

// inducedChunk is how many consecutive kept vertices one goroutine of InducedByVertexLabels
// takes at a time.
const inducedChunk = 4096

// partChunk is how many consecutive vertices of a part one goroutine of InducedPart takes at a
// time: fewer than inducedChunk, since a graph numbered by degree puts its hubs together.
const partChunk = 256

// LabelledShare counts the vertices of g whose label is in labels (sorted ascending) and the
// adjacency entries among them (twice the edges of the subgraph they induce). It reads the labels
// and the run index only (the runs are keyed by the neighbour's label), on all cores.
func (g *Graph) LabelledShare(labels []uint32) (vertices int, entries uint64) {
	s := g.InducedSize(labels)
	return s.Vertices, s.Entries
}

// SubgraphSize is the size of a subgraph of a graph (InducedByVertexLabels, SubgraphByEdgeKinds):
// its vertices, adjacency entries and runs, and the largest vertex label it may keep.
type SubgraphSize struct {
	Vertices      int
	Entries, Runs uint64
	MaxLabel      uint32
}

// Bytes is the memory a subgraph of size s takes once made (edgeLabels: g has edge labels, which
// it copies): a vertex's label (4 bytes), offset and run offset (8 each, one more of each) and
// original id (8); an entry's neighbour (4) and edge label (4); a run (16); and the label index
// VerticesWithLabel builds on first use (4 bytes a vertex, 16 a label up to MaxLabel).
func (s SubgraphSize) Bytes(edgeLabels bool) uint64 {
	k := uint64(s.Vertices)
	b := 28*k + 16 + 4*s.Entries + 16*s.Runs
	if edgeLabels {
		b += 4 * s.Entries
	}
	return b + 4*k + 16*(uint64(s.MaxLabel)+2)
}

// InducedSize is the size of the subgraph of g induced by the vertices whose label is in labels
// (sorted ascending), as LabelledShare finds it, with its runs.
func (g *Graph) InducedSize(labels []uint32) SubgraphSize {
	n := g.NumVertices()
	workers := par.Workers(n, 0, inducedChunk)
	vs, es, rs := make([]int, workers), make([]uint64, workers), make([]uint64, workers)
	par.Ranges(n, workers, inducedChunk, func(w, lo, hi int) bool {
		for v := uint32(lo); v < uint32(hi); v++ {
			if !hasLabel(labels, g.vertexLabels[v]) {
				continue
			}
			e, r := g.keptEntriesRuns(v, labels)
			vs[w]++
			es[w] += e
			rs[w] += r
		}
		return true
	})
	s := SubgraphSize{}
	if len(labels) > 0 {
		s.MaxLabel = labels[len(labels)-1]
	}
	for w := range vs {
		s.Vertices += vs[w]
		s.Entries += es[w]
		s.Runs += rs[w]
	}
	return s
}

// InducedBytes is the memory InducedByVertexLabels takes at its peak for a subgraph of size s
// (InducedSize): the subgraph's (SubgraphSize.Bytes) and, while it is made, a new id for every
// vertex of g (4 bytes) and the kept vertices' list (4 bytes each), with allocSlack.
func (g *Graph) InducedBytes(s SubgraphSize) uint64 {
	return s.Bytes(g.edgeLabels != nil) + 4*uint64(g.NumVertices()) + 4*uint64(s.Vertices) + allocSlack
}

// allocSlack is what the making of a subgraph may allocate beyond its arrays' bytes: the
// runtime's rounding of its dozen or so arrays up to their size class or page (at most 8 KiB
// each) and its workers' closures.
const allocSlack = 128 << 10

// LabelledShareEstimate estimates LabelledShare from the label index (VerticesWithLabel) and a
// sample, without a pass over the graph: the vertices exactly; the entries summed exactly over each
// label's samples/2 vertices of largest id (a graph from Build numbers its vertices by ascending
// degree: its hubs) and over samples/2 of the others spread evenly over them (ids, hence degrees,
// in order: a sample stratified by degree), those scaled to the others' number. It also estimates
// degrees, the kept vertices' whole adjacency (the runs LabelledShare and InducedByVertexLabels
// read). exact reports that no label had more than samples vertices, so that every vertex was
// read: entries and degrees are then LabelledShare's. Its work is O(len(labels) * samples) list
// lengths and run scans, after the label index's one linear pass (which the planner makes anyway).
func (g *Graph) LabelledShareEstimate(labels []uint32, samples int) (vertices int, entries, degrees uint64, exact bool) {
	var es, ds float64
	vertices, exact = g.sampleLabels(labels, samples, func(v uint32, weight float64) {
		es += weight * float64(g.keptEntries(v, labels))
		ds += weight * float64(g.offsets[v+1]-g.offsets[v])
	})
	return vertices, uint64(es + 0.5), uint64(ds + 0.5), exact
}

// sampleLabels calls add for a sample of the vertices of each label of labels, with the number
// of that label's vertices each stands for: each label's samples/2 vertices of largest id, read
// (weight 1), and samples/2 of the others, the middles of as many strata of them in id order
// (weight the stratum's size). It returns the labels' vertices in all, and whether every one was
// read (no label had more than samples vertices).
func (g *Graph) sampleLabels(labels []uint32, samples int, add func(v uint32, weight float64)) (vertices int, exact bool) {
	samples = max(samples, 2)
	exact = true
	for _, l := range labels {
		vs := g.VerticesWithLabel(l)
		vertices += len(vs)
		top := len(vs) - samples/2 // the vertices below top are sampled, the others read
		if len(vs) <= samples {
			top = 0
		} else {
			exact = false
		}
		for _, v := range vs[top:] {
			add(v, 1)
		}
		k := samples - samples/2
		for i := range min(k, top) {
			add(vs[(2*i+1)*top/(2*k)], float64(top)/float64(k)) // the middle of the i-th of k strata
		}
	}
	return vertices, exact
}

func hasLabel(labels []uint32, l uint32) bool {
	_, ok := slices.BinarySearch(labels, l)
	return ok
}

// keptEntries is the number of v's neighbours whose label is in labels (keptEntriesRuns).
func (g *Graph) keptEntries(v uint32, labels []uint32) uint64 {
	e, _ := g.keptEntriesRuns(v, labels)
	return e
}

// keptEntriesRuns is the number of v's neighbours whose label is in labels and of the runs they
// lie in: a scan of v's runs, or, where they are many times more than the labels (a hub of a
// graph with many labels), each label's runs found by binary search.
func (g *Graph) keptEntriesRuns(v uint32, labels []uint32) (entries, runs uint64) {
	rs := g.Runs(v)
	if len(rs) > 8*len(labels) {
		for _, l := range labels {
			if lo, hi := g.RunsWithVertexLabel(v, l); lo < hi {
				entries += g.runEnd(v, rs, hi-1) - rs[lo].Start
				runs += uint64(hi - lo)
			}
		}
		return entries, runs
	}
	for i, r := range rs {
		if hasLabel(labels, r.VertexLabel) {
			entries += g.runEnd(v, rs, i) - r.Start
			runs++
		}
	}
	return entries, runs
}

// runEnd is where run i of v's runs (g.Runs(v)) ends in the adjacency array.
func (g *Graph) runEnd(v uint32, runs []Run, i int) uint64 {
	if i+1 < len(runs) {
		return runs[i+1].Start
	}
	return g.offsets[v+1]
}

// InducedByVertexLabels is the subgraph of g induced by the vertices whose label is in labels
// (sorted ascending), with every edge among them and its label. Its vertices keep g's order (new
// id = rank among the kept vertices, so every run stays sorted), and its OriginalID is the
// vertex's dense id in g. It copies only the kept runs (found through the run index: the runs are
// keyed by the neighbour's label), on all cores.
func (g *Graph) InducedByVertexLabels(labels []uint32) *Graph {
	n := g.NumVertices()
	newID := make([]uint32, n) // rank among the kept vertices; valid for kept vertices only
	k := 0
	for _, l := range labels {
		k += len(g.VerticesWithLabel(l))
	}
	kept := make([]uint32, 0, k) // (InducedBytes counts it once)
	for v := range uint32(n) {
		if hasLabel(labels, g.vertexLabels[v]) {
			newID[v] = uint32(len(kept))
			kept = append(kept, v)
		}
	}
	// Pass 1: every kept vertex's kept entries and runs.
	offsets := make([]uint64, k+1)
	runOffsets := make([]uint64, k+1)
	par.Ranges(k, 0, inducedChunk, func(_, lo, hi int) bool {
		for i := lo; i < hi; i++ {
			offsets[i+1], runOffsets[i+1] = g.keptEntriesRuns(kept[i], labels)
		}
		return true
	})
	for i := range k {
		offsets[i+1] += offsets[i]
		runOffsets[i+1] += runOffsets[i]
	}
	return g.subgraphOfRuns(kept, offsets, runOffsets, newID, func(v uint32, f func(r Run, end uint64)) {
		runs := g.Runs(v)
		for j, run := range runs {
			if hasLabel(labels, run.VertexLabel) {
				f(run, g.runEnd(v, runs, j))
			}
		}
	})
}

// subgraphOfRuns is the subgraph of g on kept (g's ids, ascending), whose i-th vertex keeps the
// runs of kept[i]'s list that keptRuns gives it (in the list's order, each with its end), offsets
// and runOffsets being the kept entries and runs summed before each kept vertex. A neighbour's
// new id is its rank among the kept vertices: newID[w] where newID is set, else found by binary
// search in kept. OriginalID is the vertex's dense id in g. The runs are copied on all cores.
func (g *Graph) subgraphOfRuns(kept []uint32, offsets, runOffsets []uint64, newID []uint32, keptRuns func(v uint32, f func(r Run, end uint64))) *Graph {
	k := len(kept)
	h := &Graph{
		vertexLabels: make([]uint32, k), offsets: offsets, neighbors: make([]uint32, offsets[k]),
		runOffsets: runOffsets, runs: make([]Run, runOffsets[k]), originalIDs: make([]int64, k),
	}
	if g.edgeLabels != nil {
		h.edgeLabels = make([]uint32, offsets[k])
	}
	par.Ranges(k, 0, inducedChunk, func(_, lo, hi int) bool {
		// One copying function a range (made for each vertex, it and its cursors escaped to
		// the heap: a few dozen bytes a kept vertex, more than its copy on a sparse subgraph).
		var at, ri uint64
		copyRun := func(r Run, end uint64) {
			h.runs[ri] = Run{VertexLabel: r.VertexLabel, EdgeLabel: r.EdgeLabel, Start: at}
			ri++
			src, dst := g.neighbors[r.Start:end], h.neighbors[at:at+end-r.Start]
			if newID != nil {
				for j, w := range src {
					dst[j] = newID[w]
				}
			} else {
				for j, w := range src {
					rank, _ := slices.BinarySearch(kept, w)
					dst[j] = uint32(rank)
				}
			}
			if h.edgeLabels != nil {
				copy(h.edgeLabels[at:], g.edgeLabels[r.Start:end])
			}
			at += end - r.Start
		}
		for i := lo; i < hi; i++ {
			v := kept[i]
			h.vertexLabels[i], h.originalIDs[i] = g.vertexLabels[v], int64(v)
			at, ri = offsets[i], runOffsets[i]
			keptRuns(v, copyRun)
		}
		return true
	})
	h.dropZeroEdgeLabels()
	return h
}

// InducedPartBytes is the memory InducedPart takes at its peak for a part of k vertices whose
// lists in g hold entries entries in runs runs (upper bounds of the part's own: its subgraph keeps
// the entries among its vertices and the runs left non-empty): the subgraph's
// (SubgraphSize.Bytes, its label index up to maxLabel, the part's largest label, included) and,
// while it is made,
// every kept vertex's entries and runs (16 bytes), the renumbering's order, ids and counts (12)
// and a new id for every vertex of g (4 bytes), with the allocator's rounding (allocSlack at most).
func (g *Graph) InducedPartBytes(k int, entries, runs uint64, maxLabel uint32) uint64 {
	s := SubgraphSize{Vertices: k, Entries: entries, Runs: min(runs, entries+uint64(k)), MaxLabel: maxLabel}
	b := s.Bytes(g.edgeLabels != nil) + 28*uint64(k) + 4*uint64(g.NumVertices())
	// (The rounding is at most an eighth of an array and 8 KiB: a small part's is small.)
	return b + min(allocSlack, b/8+8<<10)
}

// InducedPart is the subgraph of g induced by vs, which must be exactly the vertices v with
// of[v] == part, each once (a part of a partitioning: of names every vertex's part). It is the
// graph Build makes when given vs's labels in vs's order and then the edges among them: vertices
// numbered by ascending degree in the subgraph, ties by position in vs; OriginalID is the
// vertex's dense id in g. It copies the kept entries run by run (each run has one vertex label
// and one edge label) and sorts each copied run by the new ids, in a counting pass and a fill
// pass on all cores, without the builder's edge list.
func (g *Graph) InducedPart(vs, of []uint32, part uint32) *Graph {
	k := len(vs)
	// Pass 1: every kept vertex's entries and non-empty runs in the subgraph.
	deg, nruns := make([]uint64, k), make([]uint64, k)
	par.Ranges(k, 0, partChunk, func(_, lo, hi int) bool {
		for i := lo; i < hi; i++ {
			v := vs[i]
			runs := g.Runs(v)
			var d, r uint64
			for j, run := range runs {
				c := uint64(0)
				for _, w := range g.neighbors[run.Start:g.runEnd(v, runs, j)] {
					if of[w] == part {
						c++
					}
				}
				d += c
				if c > 0 {
					r++
				}
			}
			deg[i], nruns[i] = d, r
		}
		return true
	})
	// order[new] = position in vs; newID is 1 + the new id for the part's vertices, else 0.
	order, rank := renumber(deg)
	newID := make([]uint32, len(g.vertexLabels))
	for i, v := range vs {
		newID[v] = rank[i] + 1
	}
	offsets, runOffsets := make([]uint64, k+1), make([]uint64, k+1)
	for j, i := range order {
		offsets[j+1] = offsets[j] + deg[i]
		runOffsets[j+1] = runOffsets[j] + nruns[i]
	}
	h := &Graph{
		vertexLabels: make([]uint32, k), offsets: offsets, neighbors: make([]uint32, offsets[k]),
		runOffsets: runOffsets, runs: make([]Run, runOffsets[k]), originalIDs: make([]int64, k),
	}
	if g.edgeLabels != nil {
		h.edgeLabels = make([]uint32, offsets[k])
	}
	// Pass 2: copy the kept entries of every run, renumbered, and sort them; in vs's order (g's
	// order when vs is sorted, as partitions' parts are: the reads are sequential).
	par.Ranges(k, 0, partChunk, func(_, lo, hi int) bool {
		for i := lo; i < hi; i++ {
			v, j := vs[i], rank[i]
			h.vertexLabels[j], h.originalIDs[j] = g.vertexLabels[v], int64(v)
			at, ri := offsets[j], runOffsets[j]
			runs := g.Runs(v)
			for x, run := range runs {
				start := at
				for _, w := range g.neighbors[run.Start:g.runEnd(v, runs, x)] {
					if id := newID[w]; id != 0 {
						h.neighbors[at] = id - 1
						at++
					}
				}
				if at == start {
					continue
				}
				slices.Sort(h.neighbors[start:at])
				if h.edgeLabels != nil {
					for y := start; y < at; y++ {
						h.edgeLabels[y] = run.EdgeLabel
					}
				}
				h.runs[ri] = Run{VertexLabel: run.VertexLabel, EdgeLabel: run.EdgeLabel, Start: start}
				ri++
			}
		}
		return true
	})
	h.dropZeroEdgeLabels()
	identity := true
	for j, id := range h.originalIDs {
		identity = identity && id == int64(j)
	}
	if identity {
		h.originalIDs = nil
	}
	return h
}

// dropZeroEdgeLabels forgets h's edge labels when every one is 0 (the builder's convention: a graph
// without edge labels has none), as a subgraph of an edge-labelled graph may keep only label 0.
func (h *Graph) dropZeroEdgeLabels() {
	if h.edgeLabels != nil && !slices.ContainsFunc(h.edgeLabels, func(l uint32) bool { return l != 0 }) {
		h.edgeLabels = nil
	}
}
