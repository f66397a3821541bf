package dynamic_test

import (
	"fmt"

	"github.com/submatch/submatch/graph/dynamic"
)

// BuildParts takes the edges as several parsers left them, one part each.
func ExampleBuildParts() {
	orig := []int64{10, 20, 30}
	labels := []uint32{0, 1, 1}
	src := [][]uint32{{0, 0}, {1}}
	dst := [][]uint32{{1, 2}, {2}}
	g, err := dynamic.BuildParts(orig, labels, src, dst)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range g.Runs(0) {
		fmt.Println("label", r.VertexLabel, "neighbours", r.Neighbors)
	}
	fmt.Println(g.NumVertices(), "vertices,", g.NumEdges(), "edges")
	// Output:
	// label 1 neighbours [1 2]
	// 3 vertices, 3 edges
}

// Filtered keeps the edges whose endpoints' labels a filter admits: here those between labels
// 0 and 1, not 1-1.
func ExampleGraph_Filtered() {
	g, err := dynamic.Build([]int64{10, 20, 30}, []uint32{0, 1, 1}, []uint32{0, 0, 1}, []uint32{1, 2, 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	f := g.Filtered(func(a, b uint32) bool { return a != b })
	fmt.Println(g.NumEdges(), "edges,", f.NumEdges(), "kept;", f.NumVertices(), "vertices")
	// Output:
	// 3 edges, 2 kept; 3 vertices
}

// InsertEdge and RemoveEdge are AddEdge and DeleteEdge for a hot loop that needs no error:
// false where those fail (an edge already present, a missing one, a self-loop), the graph
// unchanged.
func ExampleGraph_InsertEdge() {
	g, err := dynamic.Build([]int64{10, 20, 30}, []uint32{0, 1, 1}, []uint32{0}, []uint32{1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.InsertEdge(0, 2, 5), g.InsertEdge(0, 1, 0), g.InsertEdge(1, 1, 0))
	l, ok := g.RemoveEdge(2, 0)
	fmt.Println(l, ok)
	_, ok = g.RemoveEdge(2, 0)
	fmt.Println(ok, g.NumEdges())
	// Output:
	// true false false
	// 5 true
	// false 1
}
