package main

import (
	"context"
	"errors"
	"math/bits"
	"slices"
	"sync"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/par"
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

// triangleBlock is how many vertices one task of countTriangles takes.
const triangleBlock = 256

// countTriangles counts the triangles of g (labels ignored) and its wedges, on all cores: each
// triangle is counted once, at its lowest vertex, by intersecting upward neighbour lists (dense
// ids ascend with degree, so upward lists are short: the degree-ordered algorithm). It stops with
// ctx's error when ctx is cancelled, and reports overflow as errOverflow.
func countTriangles(ctx context.Context, g *graph.Graph) (triangles, wedges uint64, err error) {
	up := upwardLists(g)
	n := g.NumVertices()
	blocks := (n + triangleBlock - 1) / triangleBlock
	var (
		mu       sync.Mutex
		overflow bool
	)
	// Each task marks up(v) in a bitset of n bits (one per running task, from a pool) and counts
	// the marked members of up(x) for every x in up(v): no merge, no branch per comparison.
	marks := sync.Pool{New: func() any { b := make([]uint64, (n+63)/64); return &b }}
	par.For(blocks, 0, func(b int) {
		if ctx.Err() != nil {
			return
		}
		bp := marks.Get().(*[]uint64)
		defer marks.Put(bp)
		mark := *bp
		var t, w uint64
		var carry, c uint64
		for v := b * triangleBlock; v < min((b+1)*triangleBlock, n); v++ {
			d := uint64(g.Degree(uint32(v))) // < 2^32, so d(d-1) fits
			w, c = bits.Add64(w, d*(d-min(d, 1))/2, 0)
			carry |= c
			nv := up(uint32(v))
			for _, x := range nv {
				mark[x>>6] |= 1 << (x & 63)
			}
			for _, x := range nv {
				var k uint64
				for _, y := range up(x) {
					k += mark[y>>6] >> (y & 63) & 1
				}
				t, c = bits.Add64(t, k, 0)
				carry |= c
			}
			for _, x := range nv {
				mark[x>>6] = 0
			}
		}
		mu.Lock()
		triangles, c = bits.Add64(triangles, t, 0)
		carry |= c
		wedges, c = bits.Add64(wedges, w, 0)
		carry |= c
		overflow = overflow || carry != 0
		mu.Unlock()
	})
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	if overflow {
		return 0, 0, errOverflow
	}
	return triangles, wedges, nil
}

// upwardLists returns a function giving the neighbours w > v of v, sorted. An unlabelled graph's
// lists are one run each, already sorted by id: a suffix of each list is used in place; otherwise
// the upward lists are copied and sorted (parallel).
func upwardLists(g *graph.Graph) func(v uint32) []uint32 {
	if _, uniform := g.UniformVertexLabel(); uniform && !g.HasEdgeLabels() {
		// Where each list's upward part starts, found once (not once per intersection).
		start := make([]uint32, g.NumVertices())
		par.For(len(start), 0, func(i int) {
			j, _ := slices.BinarySearch(g.Neighbors(uint32(i)), uint32(i)+1)
			start[i] = uint32(j)
		})
		return func(v uint32) []uint32 { return g.Neighbors(v)[start[v]:] }
	}
	n := g.NumVertices()
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
	return func(v uint32) []uint32 { return lists[offsets[v]:offsets[v+1]] }
}
