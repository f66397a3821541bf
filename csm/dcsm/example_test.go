package dcsm_test

import (
	"context"
	"fmt"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/csm/dcsm"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

// Per-update deltas of a triangle: each update is matched against the graph as the updates
// before it left it (here with the host emulation; csm.Lookup("dcsm") runs it on the GPU).
func ExampleOpenEmulated() {
	g := dynamic.New()
	tri, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	m, err := dcsm.OpenEmulated(g, []*pattern.Pattern{tri}, csm.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	stream := []updates.Update{
		{Kind: updates.InsertEdge, U: 1, V: 2, Line: 1},
		{Kind: updates.InsertEdge, U: 2, V: 3, Line: 2},
		{Kind: updates.InsertEdge, U: 1, V: 3, Line: 3},
		{Kind: updates.DeleteEdge, U: 1, V: 2, Line: 4},
		{Kind: updates.InsertEdge, U: 1, V: 2, Line: 5},
	}
	err = m.ApplyEach(context.Background(), stream, func(u updates.Update, res *csm.Result) error {
		fmt.Printf("%s\t+%d -%d\n", u, res.Deltas[0].Created, res.Deltas[0].Destroyed)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// e 1 2 0	+0 -0
	// e 2 3 0	+0 -0
	// e 1 3 0	+6 -0
	// -e 1 2	+0 -6
	// e 1 2 0	+6 -0
}

// Per-update signed matches of a path with the ends' labels fixed: every update's matches come
// before the update (with the host emulation; on the GPU the engine counts only for now).
func ExampleMatcher_ApplyEachMatches() {
	g := dynamic.New()
	p, _ := pattern.Parse("(a:0)-(b)-(c:1)")
	m, err := dcsm.OpenEmulated(g, []*pattern.Pattern{p}, csm.Options{Semantics: engine.Semantics{Unique: true}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	stream := []updates.Update{
		{Kind: updates.InsertVertex, U: 1, Label: 0, HasLabel: true, Line: 1},
		{Kind: updates.InsertVertex, U: 3, Label: 1, HasLabel: true, Line: 2},
		{Kind: updates.InsertEdge, U: 1, V: 2, Line: 3},
		{Kind: updates.InsertEdge, U: 2, V: 3, Line: 4},
		{Kind: updates.DeleteVertex, U: 2, Line: 5},
	}
	err = m.ApplyEachMatches(context.Background(), stream, func(sm csm.SignedMatch) bool {
		fmt.Printf("  %+d %v\n", sm.Sign, sm.Vertices)
		return true
	}, func(u updates.Update, res *csm.Result) error {
		fmt.Printf("%s\t+%d -%d\n", u, res.Deltas[0].Created, res.Deltas[0].Destroyed)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// v 1 0	+0 -0
	// v 3 1	+0 -0
	// e 1 2 0	+0 -0
	//   +1 [1 2 3]
	// e 2 3 0	+1 -0
	//   -1 [1 2 3]
	// -e 2 1 0	+0 -1
	// -e 2 3 0	+0 -0
	// -v 2	+0 -0
}
