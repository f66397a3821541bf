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

// ExampleChangeApplier splits the work of a stream in two, as watch's pipeline does: a Net
// validates and applies each update on the whole graph, and a matcher over a copy that holds
// only the edges its pattern's labels can use searches the change, restricted to that copy.
func ExampleChangeApplier() {
	b := graph.NewBuilder(graph.BuilderOptions{})
	for id, l := range []uint32{1: 0, 2: 0, 3: 1, 4: 2} {
		if id > 0 {
			b.SetVertexLabel(int64(id), l)
		}
	}
	b.AddEdge(1, 2, 0)
	b.AddEdge(3, 4, 0) // labels 1-2: no pattern pair has them
	g0, _ := b.Build()
	p, _ := pattern.Parse("(a:0)-(b:0)-(c:1)")

	whole := dynamic.FromGraph(g0)
	net := csm.NewNet(whole)
	probe, _ := csm.Open(whole, []*pattern.Pattern{p}, csm.Options{Threads: 1})
	relevant, ok := probe.(csm.ChangeApplier).Relevant()
	if !ok {
		fmt.Println("wildcard labels: no filter")
		return
	}
	m, _ := csm.Open(whole.Filtered(relevant), []*pattern.Pattern{p}, csm.Options{Threads: 1})
	fmt.Println("edges kept:", m.Graph().NumEdges(), "of", whole.NumEdges())

	ctx := context.Background()
	var res csm.Result
	var vs []csm.VertexChange
	var ps []csm.PairChange
	for _, u := range []updates.Update{
		{Kind: updates.InsertEdge, U: 2, V: 3, Line: 1},
		{Kind: updates.InsertEdge, U: 1, V: 4, Line: 2},
	} {
		if err := net.ComputeApply([]updates.Update{u}, false, &res); err != nil {
			fmt.Println(err)
			return
		}
		vs, ps = net.Restrict(relevant, vs[:0], ps[:0])
		net.Reset()
		if len(vs) == 0 && len(ps) == 0 {
			fmt.Printf("%s: nothing to search\n", u)
			continue
		}
		if err := m.(csm.ChangeApplier).ApplyChange(ctx, vs, ps, nil, &res); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: +%d -%d\n", u, res.Deltas[0].Created, res.Deltas[0].Destroyed)
	}
	// Output:
	// edges kept: 1 of 2
	// e 2 3 0: +1 -0
	// e 1 4 0: nothing to search
}
