package csm

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

// TestZeroAllocs: once warm, applying one edge update (insert, then delete) allocates nothing.
func TestZeroAllocs(t *testing.T) {
	g := gen.RandomGraph(3, 200, 0.05, 2, 1)
	p, err := pattern.Parse("(a:0)-(b)-(c:1)-(a), (c)-(d)")
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{{Threads: 1}, {Threads: 1, Semantics: engine.Semantics{Induced: true, Unique: true}}} {
		m, err := Open(dynamic.FromGraph(g), []*pattern.Pattern{p}, opts)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		var res Result
		// Two vertices that are not adjacent.
		var u, v int64 = -1, -1
		for a := range int64(200) {
			for b := a + 1; b < 200; b++ {
				x, _ := m.Graph().Lookup(a)
				y, _ := m.Graph().Lookup(b)
				if _, ok := m.Graph().EdgeLabel(x, y); !ok && m.Graph().Degree(x) > 3 && m.Graph().Degree(y) > 3 {
					u, v = a, b
				}
			}
		}
		ins := []updates.Update{{Kind: updates.InsertEdge, U: u, V: v}}
		del := []updates.Update{{Kind: updates.DeleteEdge, U: u, V: v}}
		step := func() {
			if err := m.Apply(ctx, ins, nil, &res); err != nil {
				t.Fatal(err)
			}
			if err := m.Apply(ctx, del, nil, &res); err != nil {
				t.Fatal(err)
			}
		}
		for range 10 {
			step()
		}
		if res.Deltas[0].Destroyed == 0 {
			t.Fatalf("the update changes no match (%d-%d): pick another", u, v)
		}
		if a := testing.AllocsPerRun(100, step); a != 0 {
			t.Errorf("%.1f allocations per insert+delete", a)
		}
	}
}
