package dynamic

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Build makes a graph directly from arrays, without an intermediate graph.Graph: vertex v has
// original id orig[v] and label labels[v]; edge i joins src[i] and dst[i] (dense ids) with edge
// label 0. An edge given twice is kept once; a self-loop or an id out of range is an error. The
// adjacency lists are sorted on all cores. Build keeps orig and labels.
func Build(orig []int64, labels []uint32, src, dst []uint32) (*Graph, error) {
	n := len(orig)
	if len(labels) != n || len(src) != len(dst) {
		return nil, fmt.Errorf("dynamic: %d ids, %d labels, %d sources, %d destinations", n, len(labels), len(src), len(dst))
	}
	off := make([]uint64, n+1)
	for i := range src {
		u, v := src[i], dst[i]
		if int(u) >= n || int(v) >= n {
			return nil, fmt.Errorf("dynamic: edge %d-%d has an endpoint out of range", u, v)
		}
		if u == v {
			return nil, fmt.Errorf("dynamic: edge %d-%d: %w", orig[u], orig[v], ErrSelfLoop)
		}
		off[u+1]++
		off[v+1]++
	}
	for v := 1; v <= n; v++ {
		off[v] += off[v-1]
	}
	// Keys (neighbour label, neighbour id) sort into runs directly.
	keys := make([]uint64, off[n])
	fill := slices.Clone(off[:n])
	for i := range src {
		u, v := src[i], dst[i]
		keys[fill[u]] = uint64(labels[v])<<32 | uint64(v)
		fill[u]++
		keys[fill[v]] = uint64(labels[u])<<32 | uint64(u)
		fill[v]++
	}
	fill = nil
	d := New()
	d.labels = labels
	d.orig = orig
	d.alive = make([]bool, n)
	d.degree = make([]uint32, n)
	d.adj = make([][]Run, n)
	d.mask = make([]uint64, n)
	d.posLabel = make([]uint32, n)
	d.posAll = make([]uint32, n)
	// Sort and deduplicate every list and count its runs; then give each run an eighth (at least
	// one entry) of spare capacity, so that a stream's first insertions do not reallocate it.
	nruns := make([]uint32, n)
	parallelChunks(n, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			k := keys[off[v]:off[v+1]]
			slices.Sort(k)
			k = slices.Compact(k)
			d.degree[v] = uint32(len(k))
			for i := range k {
				if i == 0 || k[i]>>32 != k[i-1]>>32 {
					nruns[v]++
				}
			}
		}
	})
	space := make([]uint64, n+1)
	for v := range n {
		l := uint64(d.degree[v])
		space[v+1] = space[v] + l + l/8 + uint64(nruns[v])
	}
	back := make([]uint32, space[n])
	parallelChunks(n, func(lo, hi int) {
		total := 0
		for v := lo; v < hi; v++ {
			total += int(nruns[v])
		}
		arena := make([]Run, 0, total) // the chunk's runs in one allocation
		for v := lo; v < hi; v++ {
			start := len(arena)
			arena = cutRuns(arena, keys[off[v]:off[v]+uint64(d.degree[v])], back[space[v]:space[v+1]])
			d.adj[v] = arena[start:len(arena):len(arena)]
			d.mask[v] = maskOf(d.adj[v])
		}
	})
	var half uint64
	for v := range n {
		d.alive[v] = true
		d.mapID(orig[v], uint32(v))
		d.index(uint32(v))
		half += uint64(d.degree[v])
	}
	if len(d.ids) > 0 || d.table != nil {
		// An original id given to two vertices would have left the first unmapped.
		for v := range n {
			if w, _ := d.lookupAny(orig[v]); w != uint32(v) {
				return nil, fmt.Errorf("dynamic: original id %d given to two vertices", orig[v])
			}
		}
	}
	d.numEdges = half / 2
	return d, nil
}

// cutRuns writes the runs of the sorted, distinct keys into back, each followed by its spare
// room, and appends them to arena.
func cutRuns(arena []Run, keys []uint64, back []uint32) []Run {
	pos := 0
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j]>>32 == keys[i]>>32 {
			j++
		}
		l := j - i
		for t, k := range keys[i:j] {
			back[pos+t] = uint32(k)
		}
		c := l + l/8 + 1
		arena = append(arena, Run{VertexLabel: uint32(keys[i] >> 32), Neighbors: back[pos : pos+l : pos+c]})
		pos += c
		i = j
	}
	return arena
}

// parallelChunks runs fn over [0, n) in chunks on all cores.
func parallelChunks(n int, fn func(lo, hi int)) {
	const chunk = 4096
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(chunk) - chunk)
				if lo >= n {
					return
				}
				fn(lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
}
