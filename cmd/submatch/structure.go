package main

import (
	"context"
	"errors"
	"math/bits"
	"slices"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/par"
	"github.com/submatch/submatch/internal/triangles"
)

// structureStats are the whole-graph measures of stats: connected components, triangles and the
// global clustering coefficient (labels are ignored).
type structureStats struct {
	Components           uint64  `json:"components"`              // isolated vertices count as components
	LargestComponent     uint64  `json:"largest_component"`       // vertices
	LargestComponentEdge uint64  `json:"largest_component_edges"` // edges
	Triangles            uint64  `json:"triangles"`
	Wedges               uint64  `json:"wedges"`            // paths of two edges (connected triples)
	GlobalClustering     float64 `json:"global_clustering"` // 3 x triangles / wedges (transitivity)
	TrianglesMS          float64 `json:"triangles_ms"`
}

var errOverflow = errors.New("count overflows uint64")

// components returns the number of connected components, the largest one's vertices and edges
// (union-find with path halving over each edge once).
func components(g *graph.Graph) (count, largest, largestEdges uint64) {
	n := g.NumVertices()
	parent := make([]uint32, n)
	for v := range parent {
		parent[v] = uint32(v)
	}
	find := func(v uint32) uint32 {
		for parent[v] != v {
			parent[v] = parent[parent[v]]
			v = parent[v]
		}
		return v
	}
	for v := range uint32(n) {
		for _, w := range g.Neighbors(v) {
			if w > v {
				if a, b := find(v), find(w); a != b {
					parent[max(a, b)] = min(a, b)
				}
			}
		}
	}
	size := make([]uint64, n)  // vertices, by root
	edges := make([]uint64, n) // edge ends, by root
	for v := range uint32(n) {
		r := find(v)
		if r == v {
			count++
		}
		size[r]++
		edges[r] += uint64(g.Degree(v))
	}
	for r := range size {
		if size[r] > largest || size[r] == largest && edges[r]/2 > largestEdges {
			largest, largestEdges = size[r], edges[r]/2
		}
	}
	return count, largest, largestEdges
}

// countTriangles counts the triangles of g (labels ignored) and its wedges, on all cores: each
// triangle once, at its lowest vertex, by internal/triangles over the upward neighbour lists
// (dense ids ascend with degree, so upward lists are short: the degree-ordered algorithm). It
// stops with ctx's error when ctx is cancelled, and reports the wedges' overflow as errOverflow.
func countTriangles(ctx context.Context, g *graph.Graph) (tri, wedges uint64, err error) {
	var carry uint64
	for v := range uint32(g.NumVertices()) {
		d := uint64(g.Degree(v)) // < 2^32, so d(d-1) fits
		var c uint64
		wedges, c = bits.Add64(wedges, d*(d-min(d, 1))/2, 0)
		carry |= c
	}
	if carry != 0 {
		return 0, 0, errOverflow
	}
	if tri, err = upward(g).Total(ctx, 0); err != nil {
		return 0, 0, err
	}
	return tri, wedges, nil
}

// upward is g oriented from each edge's lower end to its higher one: v's out-list is its
// neighbours w > v, sorted. An unlabelled graph's lists are one run each, already sorted by id:
// a suffix of each list is used in place; otherwise the upward lists are copied and sorted
// (parallel).
func upward(g *graph.Graph) *triangles.Forward {
	n := g.NumVertices()
	if _, uniform := g.UniformVertexLabel(); uniform && !g.HasEdgeLabels() {
		// Where each list's upward part starts, found once (not once per intersection).
		raw := g.Raw()
		lo := make([]uint64, n)
		par.For(n, 0, func(i int) {
			j, _ := slices.BinarySearch(g.Neighbors(uint32(i)), uint32(i)+1)
			lo[i] = raw.Offsets[i] + uint64(j)
		})
		return &triangles.Forward{Adj: raw.Neighbors, Lo: lo, Hi: raw.Offsets[1:]}
	}
	offsets := make([]uint64, n+1)
	for v := range uint32(n) {
		var k uint64
		for _, w := range g.Neighbors(v) {
			if w > v {
				k++
			}
		}
		offsets[v+1] = offsets[v] + k
	}
	lists := make([]uint32, offsets[n])
	par.For(n, 0, func(i int) {
		v := uint32(i)
		out := lists[offsets[v]:offsets[v]:offsets[v+1]]
		for _, w := range g.Neighbors(v) {
			if w > v {
				out = append(out, w)
			}
		}
		slices.Sort(out)
	})
	return &triangles.Forward{Adj: lists, Lo: offsets[:n], Hi: offsets[1:]}
}
