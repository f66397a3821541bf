package graph

import (
	"slices"

	"github.com/submatch/submatch/internal/par"
)

// WithoutLabels returns g with its vertex labels (vertexLabels), its edge labels (edgeLabels) or
// both forgotten, every one of them 0: the same vertices, ids and edges, and each vertex's list
// reordered into the runs of the labels it keeps, each run sorted by id. With both forgotten
// every list is one run, sorted by id: the graph a pattern of wildcards sees, whose counters
// (plan.Clique) read one sorted run a vertex. It is g itself when there is nothing to forget (no
// label of that kind but 0); else a copy of the lists, WithoutLabelsBytes, built on all cores,
// which shares g's offsets, original ids and names.
func (g *Graph) WithoutLabels(vertexLabels, edgeLabels bool) *Graph {
	dropVertex := vertexLabels && g.hasVertexLabels()
	dropEdge := edgeLabels && g.edgeLabels != nil
	if !dropVertex && !dropEdge {
		return g
	}
	n := g.NumVertices()
	h := &Graph{
		vertexLabels: g.vertexLabels, offsets: g.offsets, neighbors: make([]uint32, len(g.neighbors)),
		runOffsets: make([]uint64, n+1), originalIDs: g.originalIDs, names: g.names, boundsChecked: g.boundsChecked,
	}
	if dropVertex {
		h.vertexLabels = make([]uint32, n)
	}
	if !dropEdge && g.edgeLabels != nil {
		h.edgeLabels = make([]uint32, len(g.neighbors))
	}
	// kept is the label of a run of g that h keeps: its key among v's runs in h (nil: none).
	var kept func(r Run) uint32
	switch {
	case !dropVertex:
		kept = func(r Run) uint32 { return r.VertexLabel }
	case !dropEdge && g.edgeLabels != nil:
		kept = func(r Run) uint32 { return r.EdgeLabel }
	}
	// Pass 1: every list reordered by (kept label, id), and its runs counted.
	const chunk = 256
	workers := par.Workers(n, 0, chunk)
	scratch := make([][]uint64, workers)
	par.Ranges(n, workers, chunk, func(w, lo, hi int) bool {
		for v := uint32(lo); v < uint32(hi); v++ {
			h.runOffsets[v+1] = g.reorder(h, v, kept, &scratch[w])
		}
		return true
	})
	for v := range n {
		h.runOffsets[v+1] += h.runOffsets[v]
	}
	// Pass 2: the runs, where the kept label changes.
	h.runs = make([]Run, h.runOffsets[n])
	par.Ranges(n, workers, chunk, func(_, lo, hi int) bool {
		for v := lo; v < hi; v++ {
			at := h.runOffsets[v]
			for x := h.offsets[v]; x < h.offsets[v+1]; x++ {
				var r Run
				switch {
				case !dropVertex:
					r.VertexLabel = g.vertexLabels[h.neighbors[x]]
				case h.edgeLabels != nil:
					r.EdgeLabel = h.edgeLabels[x]
				}
				if at == h.runOffsets[v] || h.runs[at-1].VertexLabel != r.VertexLabel || h.runs[at-1].EdgeLabel != r.EdgeLabel {
					r.Start = x
					h.runs[at] = r
					at++
				}
			}
		}
		return true
	})
	return h
}

// reorder writes v's list into h's arrays ordered by (kept label of its run in g, id), with the
// edge labels where h keeps them, and returns the number of distinct kept labels (h's runs of
// v; kept nil: no label kept, one run). scratch is the caller's buffer, kept between calls.
func (g *Graph) reorder(h *Graph, v uint32, kept func(Run) uint32, scratch *[]uint64) uint64 {
	runs := g.Runs(v)
	lo, hi := g.offsets[v], g.offsets[v+1]
	if len(runs) == 0 {
		return 0
	}
	if len(runs) == 1 || kept == nil {
		// One run (already sorted by id), or every label forgotten: the list sorted by id.
		copy(h.neighbors[lo:hi], g.neighbors[lo:hi])
		if h.edgeLabels != nil {
			copy(h.edgeLabels[lo:hi], g.edgeLabels[lo:hi])
		}
		if len(runs) > 1 {
			slices.Sort(h.neighbors[lo:hi])
		}
		return 1
	}
	keys := (*scratch)[:0]
	for i, r := range runs {
		label := uint64(kept(r)) << 32
		for _, w := range g.neighbors[r.Start:g.runEnd(v, runs, i)] {
			keys = append(keys, label|uint64(w))
		}
	}
	slices.Sort(keys)
	*scratch = keys
	var distinct uint64
	for i, k := range keys {
		h.neighbors[lo+uint64(i)] = uint32(k)
		if h.edgeLabels != nil {
			h.edgeLabels[lo+uint64(i)] = uint32(k >> 32)
		}
		if i == 0 || k>>32 != keys[i-1]>>32 {
			distinct++
		}
	}
	return distinct
}

// hasVertexLabels reports whether some vertex has a label other than 0.
func (g *Graph) hasVertexLabels() bool {
	label, uniform := g.UniformVertexLabel()
	return len(g.vertexLabels) > 0 && (!uniform || label != 0)
}

// WithoutLabelsBytes is the memory WithoutLabels(vertexLabels, edgeLabels) takes beside g: none
// when it is g, else 4 bytes an adjacency entry, 4 more with the edge labels kept, 4 a vertex
// with the vertex labels forgotten, 16 a run (no more than g's, one a vertex with no label kept)
// and 8 a vertex (the run index).
func (g *Graph) WithoutLabelsBytes(vertexLabels, edgeLabels bool) uint64 {
	dropVertex := vertexLabels && g.hasVertexLabels()
	dropEdge := edgeLabels && g.edgeLabels != nil
	if !dropVertex && !dropEdge {
		return 0
	}
	entries := uint64(len(g.neighbors))
	runs := uint64(len(g.runs))
	if dropVertex && (dropEdge || g.edgeLabels == nil) {
		runs = min(runs, uint64(g.NumVertices())) // (one a vertex)
	}
	bytes := 4*entries + 16*runs + 8*uint64(g.NumVertices()+1)
	if !dropEdge && g.edgeLabels != nil {
		bytes += 4 * entries
	}
	if dropVertex {
		bytes += 4 * uint64(g.NumVertices())
	}
	return bytes
}
