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
