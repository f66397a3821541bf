package graph

import (
	"context"
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
	h, _ := g.WithoutLabelsContext(context.Background(), vertexLabels, edgeLabels) // (no error without an end)
	return h
}

// WithoutLabelsContext is WithoutLabels stopping when ctx ends (between ranges of 256 vertices:
// a count's --timeout on a large graph, whose copy takes seconds), with ctx's error and no graph.
func (g *Graph) WithoutLabelsContext(ctx context.Context, vertexLabels, edgeLabels bool) (*Graph, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dropVertex := vertexLabels && g.hasVertexLabels()
	dropEdge := edgeLabels && g.edgeLabels != nil
	if !dropVertex && !dropEdge {
		return g, nil
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
	// Pass 1: every list reordered by (kept label, id), and its runs counted.
	const chunk = 256
	workers := par.Workers(n, 0, chunk)
	bufs := make([]reorderBuffers, workers)
	par.Ranges(n, workers, chunk, func(w, lo, hi int) bool {
		for v := uint32(lo); v < uint32(hi); v++ {
			h.runOffsets[v+1] = g.reorder(h, v, !dropVertex, &bufs[w])
		}
		return ctx.Err() == nil
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
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
		return ctx.Err() == nil
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return h, nil
}

// reorder writes v's list into h's arrays ordered by (the label of its run in g that h keeps,
// id), with the edge labels where h keeps them, and returns the number of distinct labels kept
// (h's runs of v): the vertex labels (keepVertex), else the edge labels where h has them, else
// none (one run). It sorts in h's arrays (WithoutLabelsBytes accounts no buffer of the list's
// length): g's runs of one vertex label are adjacent, each sorted by id; those of one edge label
// are gathered first by a counting sort over the vertex's distinct edge labels (buf, the
// worker's buffers, as long as a vertex's runs).
func (g *Graph) reorder(h *Graph, v uint32, keepVertex bool, buf *reorderBuffers) uint64 {
	runs := g.Runs(v)
	lo, hi := g.offsets[v], g.offsets[v+1]
	if len(runs) == 0 {
		return 0
	}
	if len(runs) == 1 || h.edgeLabels == nil {
		copy(h.neighbors[lo:hi], g.neighbors[lo:hi])
		if h.edgeLabels != nil {
			copy(h.edgeLabels[lo:hi], g.edgeLabels[lo:hi])
		}
	}
	switch {
	case len(runs) == 1:
		return 1 // (already sorted by id)
	case keepVertex:
		// The runs of each vertex label, one after the other in g, merged by a sort.
		var distinct uint64
		for i := 0; i < len(runs); {
			j := i + 1
			for j < len(runs) && runs[j].VertexLabel == runs[i].VertexLabel {
				j++
			}
			if j > i+1 {
				slices.Sort(h.neighbors[runs[i].Start:g.runEnd(v, runs, j-1)])
			}
			distinct++
			i = j
		}
		return distinct
	case h.edgeLabels == nil:
		slices.Sort(h.neighbors[lo:hi]) // every label forgotten: one run
		return 1
	}
	// Edge labels kept: the runs placed by edge label (a counting sort over the vertex's
	// distinct edge labels), and each label's entries, its runs one after the other, sorted.
	labels := buf.labels[:0]
	for _, r := range runs {
		labels = append(labels, r.EdgeLabel)
	}
	slices.Sort(labels)
	labels = slices.Compact(labels)
	at := slices.Grow(buf.at[:0], len(labels)+1)[:len(labels)+1]
	clear(at)
	for i, r := range runs {
		k, _ := slices.BinarySearch(labels, r.EdgeLabel)
		at[k+1] += g.runEnd(v, runs, i) - r.Start
	}
	for k := range labels {
		at[k+1] += at[k]
	}
	for i, r := range runs {
		k, _ := slices.BinarySearch(labels, r.EdgeLabel)
		from := g.neighbors[r.Start:g.runEnd(v, runs, i)]
		to := lo + at[k]
		copy(h.neighbors[to:], from)
		for x := range uint64(len(from)) {
			h.edgeLabels[to+x] = r.EdgeLabel
		}
		at[k] += uint64(len(from))
	}
	start := lo
	for k := range labels {
		slices.Sort(h.neighbors[start : lo+at[k]])
		start = lo + at[k]
	}
	buf.labels, buf.at = labels, at
	return uint64(len(labels))
}

// reorderBuffers is a worker's buffers for reorder's lists whose edge labels h keeps: the distinct
// edge labels of a vertex's runs and where each one's entries go (a vertex's runs at most).
type reorderBuffers struct {
	labels []uint32
	at     []uint64
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
