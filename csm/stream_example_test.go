package csm_test

import (
	"fmt"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/graph/dynamic"
)

// A vertex deletion, update by update, is the deletions of its edges and then the deletion of
// the vertex (how watch --batch 1 and the per-update engines report it).
func ExampleIncidentDeletions() {
	b := graph.NewBuilder(graph.BuilderOptions{})
	b.AddEdge(1, 2, 0)
	b.AddEdge(1, 3, 5)
	g, _ := b.Build()
	del := updates.Update{Kind: updates.DeleteVertex, U: 1, Line: 7}
	for _, u := range csm.IncidentDeletions(dynamic.FromGraph(g), del, nil) {
		fmt.Printf("line %d: %s\n", u.Line, u)
	}
	// Output:
	// line 7: -e 1 2 0
	// line 7: -e 1 3 5
}
