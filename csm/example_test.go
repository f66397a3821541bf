package csm_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

// Example watches triangles in a path 1-2-3 while a stream closes and reopens one.
func Example() {
	b := graph.NewBuilder(graph.BuilderOptions{})
	b.AddEdge(1, 2, 0)
	b.AddEdge(2, 3, 0)
	g, _ := b.Build()
	tri, _ := pattern.Parse("(a)-(b)-(c)-(a)")

	m, _ := csm.Open(dynamic.FromGraph(g), []*pattern.Pattern{tri},
		csm.Options{Semantics: engine.Semantics{Unique: true}})

	stream := "e 1 3\n-e 2 3\n"
	ctx := context.Background()
	var res csm.Result
	for u, err := range updates.Read(strings.NewReader(stream), "example", updates.Options{}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		for sm, err := range csm.Matches(ctx, m, []updates.Update{u}, &res) {
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Printf("%s: %+d %v\n", u, sm.Sign, sm.Vertices)
		}
		fmt.Printf("%s: +%d -%d\n", u, res.Deltas[0].Created, res.Deltas[0].Destroyed)
	}
	// Output:
	// e 1 3 0: +1 [1 3 2]
	// e 1 3 0: +1 -0
	// -e 2 3: -1 [1 3 2]
	// -e 2 3: +0 -1
}
