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
