package sgsi

import (
	"math/rand/v2"

	"github.com/submatch/submatch/graph"
)

// HubGraph exports hubGraph to the external tests.
var HubGraph = hubGraph

// hubGraph is a sparse random graph of n vertices with hubs adjacent to every other vertex: lists
// of n-1 entries, longer than the segment caches and row buffers of the small regions below.
func hubGraph(seed uint64, n, hubs int) *graph.Graph {
	r := rand.New(rand.NewPCG(seed, 21))
	b := graph.NewBuilder(graph.BuilderOptions{})
	for v := range n {
		if err := b.SetVertexLabel(int64(v), uint32(r.IntN(2))); err != nil {
			panic(err)
		}
	}
	seen := map[[2]int]bool{}
	add := func(u, v int) {
		if u == v || seen[[2]int{min(u, v), max(u, v)}] {
			return
		}
		seen[[2]int{min(u, v), max(u, v)}] = true
		if err := b.AddEdge(int64(u), int64(v), uint32(r.IntN(2))); err != nil {
			panic(err)
		}
	}
	for range hubs {
		hv := r.IntN(n)
		for v := range n {
			add(hv, v)
		}
	}
	for range 2 * n {
		add(r.IntN(n), r.IntN(n))
	}
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	return g
}
