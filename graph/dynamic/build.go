package dynamic

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
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
	back := make([]uint32, off[n])
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	var next sync.Mutex
	cursor := 0
	const chunk = 4096
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				lo := cursor
				cursor += chunk
				next.Unlock()
				if lo >= n {
					return
				}
				for v := lo; v < min(lo+chunk, n); v++ {
					d.buildVertex(v, keys[off[v]:off[v+1]], back[off[v]:off[v+1]])
				}
			}
		}()
	}
	wg.Wait()
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

// buildVertex sorts v's keys, drops duplicates and cuts the runs (subslices of back with capped
// capacity, so that an insertion reallocates one run only).
func (d *Graph) buildVertex(v int, keys []uint64, back []uint32) {
	if len(keys) == 0 {
		return
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	var runs []Run
	start := 0
	for i, k := range keys {
		back[i] = uint32(k)
		if i > 0 && k>>32 != keys[i-1]>>32 {
			runs = append(runs, Run{VertexLabel: uint32(keys[i-1] >> 32), Neighbors: back[start:i:i]})
			start = i
		}
	}
	runs = append(runs, Run{VertexLabel: uint32(keys[len(keys)-1] >> 32), Neighbors: back[start:len(keys):len(keys)]})
	d.adj[v] = runs
	d.mask[v] = maskOf(runs)
	d.degree[v] = uint32(len(keys))
}
