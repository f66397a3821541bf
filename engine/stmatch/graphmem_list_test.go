package stmatch

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// TestOutOfCoreListingPieceCap: with the graph in host or managed memory, a listing caps its
// level buffers within --gpu-memory as a count does (budgetPieceCap), so that its match buffer
// (at least one last-level piece, listRows) fits a budget far below the graph; at the default
// cap (256 KiB a level) a listing within 256 KiB could not hold one.
func TestOutOfCoreListingPieceCap(t *testing.T) {
	// A random graph with a hub of 20,000 neighbours: its sets outgrow a small budget's cap.
	b := graph.NewBuilder(graph.BuilderOptions{})
	r := rand.New(rand.NewPCG(5, 6))
	for v := 1; v <= 20000; v++ {
		if err := b.AddEdge(0, int64(v), 0); err != nil {
			t.Fatal(err)
		}
		if err := b.AddEdge(int64(v), int64(1+r.IntN(20000)), 0); err != nil && !errors.Is(err, graph.ErrSelfLoop) {
			t.Fatal(err)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(a), (a)-(c)")
	if err != nil {
		t.Fatal(err)
	}
	const limit = 256 << 10
	for _, place := range []gpu.Placement{gpu.OnHost, gpu.OnManaged} {
		o := Options{Graph: place, NoLeaves: true} // as Matches builds its plan
		pl, err := buildPlan(context.Background(), g, p, engine.Semantics{}, o, nil)
		if err != nil {
			t.Fatal(err)
		}
		count, list := o.flatOptionsWithin(false, limit, len(pl.Levels)), o.flatOptionsWithin(true, limit, len(pl.Levels))
		if want := budgetPieceCap(limit, len(pl.Levels)); count.pieceCap != want || list.pieceCap != want {
			t.Errorf("%v: piece cap %d counting, %d listing, want %d", place, count.pieceCap, list.pieceCap, want)
		}
		fp, err := flattenOn(g, pl, list)
		if err != nil {
			t.Fatal(err)
		}
		if least := fp.Cap[fp.L-1] * uint64(4*fp.L); least > limit/4 {
			t.Errorf("%v: the listing's match buffer needs at least %d bytes of the %d", place, least, limit)
		}
	}
	if o := (Options{}); o.flatOptionsWithin(true, limit, 4).pieceCap != defaultPieceCap {
		t.Errorf("device memory: piece cap %d, want the default", o.flatOptionsWithin(true, limit, 4).pieceCap)
	}
}
