package graph

import (
	"slices"

	"github.com/submatch/submatch/internal/par"
)

// inducedChunk is how many consecutive kept vertices one goroutine of InducedByVertexLabels
// takes at a time.
const inducedChunk = 4096

// LabelledShare counts the vertices of g whose label is in labels (sorted ascending) and the
// adjacency entries among them (twice the edges of the subgraph they induce). It reads the labels
// and the run index only (the runs are keyed by the neighbour's label), on all cores.
func (g *Graph) LabelledShare(labels []uint32) (vertices int, entries uint64) {
	n := g.NumVertices()
	workers := par.Workers(n, 0, inducedChunk)
	vs, es := make([]int, workers), make([]uint64, workers)
	par.Ranges(n, workers, inducedChunk, func(w, lo, hi int) bool {
		for v := uint32(lo); v < uint32(hi); v++ {
			if !hasLabel(labels, g.vertexLabels[v]) {
				continue
			}
			vs[w]++
			es[w] += g.keptEntries(v, labels)
		}
		return true
	})
	for w := range vs {
		vertices += vs[w]
		entries += es[w]
	}
	return vertices, entries
}

func hasLabel(labels []uint32, l uint32) bool {
	_, ok := slices.BinarySearch(labels, l)
	return ok
}

// keptEntries is the number of v's neighbours whose label is in labels.
func (g *Graph) keptEntries(v uint32, labels []uint32) uint64 {
	runs := g.Runs(v)
	var c uint64
	for i, r := range runs {
		if hasLabel(labels, r.VertexLabel) {
			c += g.runEnd(v, runs, i) - r.Start
		}
	}
	return c
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
	var kept []uint32
	for v := range uint32(n) {
		if hasLabel(labels, g.vertexLabels[v]) {
			newID[v] = uint32(len(kept))
			kept = append(kept, v)
		}
	}
	k := len(kept)
	// Pass 1: every kept vertex's kept entries and runs.
	offsets := make([]uint64, k+1)
	runOffsets := make([]uint64, k+1)
	par.Ranges(k, 0, inducedChunk, func(_, lo, hi int) bool {
		for i := lo; i < hi; i++ {
			v := kept[i]
			var r uint64
			for _, run := range g.Runs(v) {
				if hasLabel(labels, run.VertexLabel) {
					r++
				}
			}
			offsets[i+1], runOffsets[i+1] = g.keptEntries(v, labels), r
		}
		return true
	})
	for i := range k {
		offsets[i+1] += offsets[i]
		runOffsets[i+1] += runOffsets[i]
	}
	h := &Graph{
		vertexLabels: make([]uint32, k), offsets: offsets, neighbors: make([]uint32, offsets[k]),
		runOffsets: runOffsets, runs: make([]Run, runOffsets[k]), originalIDs: make([]int64, k),
	}
	if g.edgeLabels != nil {
		h.edgeLabels = make([]uint32, offsets[k])
	}
	// Pass 2: copy the kept runs, renumbered.
	par.Ranges(k, 0, inducedChunk, func(_, lo, hi int) bool {
		for i := lo; i < hi; i++ {
			v := kept[i]
			h.vertexLabels[i], h.originalIDs[i] = g.vertexLabels[v], int64(v)
			at, ri := offsets[i], runOffsets[i]
			runs := g.Runs(v)
			for j, run := range runs {
				if !hasLabel(labels, run.VertexLabel) {
					continue
				}
				end := g.runEnd(v, runs, j)
				h.runs[ri] = Run{VertexLabel: run.VertexLabel, EdgeLabel: run.EdgeLabel, Start: at}
				ri++
				for x := run.Start; x < end; x++ {
					h.neighbors[at] = newID[g.neighbors[x]]
					if h.edgeLabels != nil {
						h.edgeLabels[at] = g.edgeLabels[x]
					}
					at++
				}
			}
		}
		return true
	})
	if h.edgeLabels != nil && !slices.ContainsFunc(h.edgeLabels, func(l uint32) bool { return l != 0 }) {
		h.edgeLabels = nil // every kept edge has label 0: the same convention as the builder's
	}
	return h
}
