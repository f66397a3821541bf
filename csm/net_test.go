package csm

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

// TestNetSingleEdge: on random single edge updates (both orders of the endpoints, valid and
// invalid), the fast path's dense ids (SingleEdge, and the anchors AnchorPairs gives from them)
// are those of Pairs[0]'s original ids looked up, before and after Apply; the graph stays valid,
// and Compute+Apply leaves the same graph as ComputeApply on a twin.
func TestNetSingleEdge(t *testing.T) {
	g0 := gen.RandomGraph(7, 40, 0.15, 3, 2)
	g, twin := dynamic.FromGraph(g0), dynamic.FromGraph(g0)
	n, m := NewNet(g), NewNet(twin)
	r := rand.New(rand.NewPCG(7, 8))
	var res, res2 Result
	singles := 0
	for i := range 3000 {
		u := updates.Update{Kind: updates.InsertEdge, U: r.Int64N(42), V: r.Int64N(42), Label: uint32(r.IntN(2)), Line: i + 1}
		if r.IntN(2) == 0 {
			u.Kind = updates.DeleteEdge
			u.HasLabel = r.IntN(3) == 0
		}
		batch := []updates.Update{u}
		if err := n.Compute(batch, true, &res); err != nil {
			t.Fatal(err)
		}
		x, y, ok := n.SingleEdge()
		check := func(when string) {
			c := n.Pairs[0]
			wx, _ := g.Lookup(c.U)
			wy, _ := g.Lookup(c.V)
			if x != wx || y != wy {
				t.Fatalf("update %d %s: SingleEdge %d,%d, lookups %d,%d", i, when, x, y, wx, wy)
			}
			for _, created := range []bool{false, true} {
				k := 0
				for a := range n.AnchorPairs(g, created) {
					k++
					cur, oth := phaseStates(c.Old, c.New, created)
					if a.U != wx || a.V != wy || a.Cur != cur || a.Other != oth {
						t.Fatalf("update %d %s: anchor %+v, want %d,%d %+v %+v", i, when, a, wx, wy, cur, oth)
					}
				}
				if k != 1 {
					t.Fatalf("update %d: %d anchors", i, k)
				}
			}
		}
		if ok {
			singles++
			if res.Applied != 1 || len(n.Pairs) != 1 {
				t.Fatalf("update %d: fast path with %d applied, %d pairs", i, res.Applied, len(n.Pairs))
			}
			check("before Apply")
		}
		if err := n.Apply(); err != nil {
			t.Fatal(err)
		}
		if ok {
			check("after Apply")
		}
		if err := m.ComputeApply(batch, true, &res2); err != nil {
			t.Fatal(err)
		}
		if res.Applied != res2.Applied || res.Skipped != res2.Skipped {
			t.Fatalf("update %d: Compute+Apply applied %d skipped %d, ComputeApply %d %d", i, res.Applied, res.Skipped, res2.Applied, res2.Skipped)
		}
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	a, err := g.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := twin.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if a.NumEdges() != b.NumEdges() || a.NumEdges() == g0.NumEdges() || singles < 500 {
		t.Fatalf("edges %d and %d (started with %d), %d fast-path updates", a.NumEdges(), b.NumEdges(), g0.NumEdges(), singles)
	}
}

// TestNetZeroAllocs: once warm, validating and applying one edge update with Net (Compute then
// Apply, and ComputeApply) allocates nothing.
func TestNetZeroAllocs(t *testing.T) {
	g := dynamic.FromGraph(gen.RandomGraph(3, 200, 0.05, 2, 1))
	n := NewNet(g)
	u, v := missingEdge(g, 200)
	ins := []updates.Update{{Kind: updates.InsertEdge, U: u, V: v}}
	del := []updates.Update{{Kind: updates.DeleteEdge, U: u, V: v}}
	var res Result
	step := func() {
		for _, b := range [][]updates.Update{ins, del} { // Compute then Apply
			if err := n.Compute(b, false, &res); err != nil {
				t.Fatal(err)
			}
			if _, _, ok := n.SingleEdge(); !ok {
				t.Fatal("no fast path")
			}
			if err := n.Apply(); err != nil {
				t.Fatal(err)
			}
		}
		for _, b := range [][]updates.Update{ins, del} {
			if err := n.ComputeApply(b, false, &res); err != nil || res.Applied != 1 {
				t.Fatalf("ComputeApply: %v, %d applied", err, res.Applied)
			}
		}
	}
	zeroAllocs(t, g, "four updates", step)
}

// TestUnanchoredZeroAllocs: the CPU engine's path for an edge update no pattern pair anchors
// (the dense ids looked up once, the change checked by the graph itself) applies the update,
// refuses an invalid one, and allocates nothing once warm.
func TestUnanchoredZeroAllocs(t *testing.T) {
	g := dynamic.FromGraph(gen.RandomGraph(3, 100, 0.05, 2, 1)) // labels 0 and 1
	p, err := pattern.Parse("(a:5)-(b:5)-(c:6)")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Open(g, []*pattern.Pattern{p}, Options{Threads: 1, SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	u, v := missingEdge(g, 100)
	ctx := context.Background()
	ins := []updates.Update{{Kind: updates.InsertEdge, U: u, V: v, Label: 1}}
	del := []updates.Update{{Kind: updates.DeleteEdge, U: v, V: u, Label: 1, HasLabel: true}}
	wrong := []updates.Update{{Kind: updates.DeleteEdge, U: v, V: u, Label: 0, HasLabel: true}}
	var res Result
	edges := g.NumEdges()
	if err := m.Apply(ctx, ins, nil, &res); err != nil || res.Applied != 1 || g.NumEdges() != edges+1 {
		t.Fatalf("insert: %v, %d applied, %d edges (had %d)", err, res.Applied, g.NumEdges(), edges)
	}
	if err := m.Apply(ctx, ins, nil, &res); err != nil || res.Skipped != 1 || g.NumEdges() != edges+1 {
		t.Fatalf("duplicate insert: %v, %d skipped, %d edges", err, res.Skipped, g.NumEdges())
	}
	if err := m.Apply(ctx, wrong, nil, &res); err != nil || res.Skipped != 1 || g.NumEdges() != edges+1 {
		t.Fatalf("delete with another label: %v, %d skipped, %d edges", err, res.Skipped, g.NumEdges())
	}
	if err := m.Apply(ctx, del, nil, &res); err != nil || res.Applied != 1 || g.NumEdges() != edges {
		t.Fatalf("delete: %v, %d applied, %d edges (had %d)", err, res.Applied, g.NumEdges(), edges)
	}
	step := func() {
		for _, b := range [][]updates.Update{ins, del} {
			if err := m.Apply(ctx, b, nil, &res); err != nil || res.Applied != 1 {
				t.Fatalf("%v, %d applied", err, res.Applied)
			}
		}
	}
	zeroAllocs(t, g, "insert+delete", step)
}

// missingEdge returns the last pair (larger id first) of the ids 0..n-1 that is not an edge of g
// (-1, -1 when every pair is).
func missingEdge(g *dynamic.Graph, n int64) (u, v int64) {
	u, v = -1, -1
	for a := range n {
		for b := a + 1; b < n; b++ {
			x, _ := g.Lookup(a)
			y, _ := g.Lookup(b)
			if _, ok := g.EdgeLabel(x, y); !ok {
				u, v = b, a
			}
		}
	}
	return u, v
}

// zeroAllocs warms step up, fails the test if it then allocates, and validates g.
func zeroAllocs(t *testing.T, g *dynamic.Graph, what string, step func()) {
	t.Helper()
	for range 10 {
		step()
	}
	if a := testing.AllocsPerRun(100, step); a != 0 {
		t.Errorf("%.1f allocations per %s", a, what)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
}
