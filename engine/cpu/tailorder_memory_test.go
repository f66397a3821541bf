package cpu

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestTailOrderMemoryBound: under a memory limit, the candidate spaces held at once while a count
// chooses its plan (the default plan, the symmetry-breaking one, the tail-order candidates and
// the winner) stay within what the limit leaves beside the search's needs, and the counts of
// every candidate taken in turn are still right. Before the candidates were screened without
// spaces, each held its own.
func TestTailOrderMemoryBound(t *testing.T) {
	defer TailOrder(1)()
	defer SymmetryBreak(1)()
	ctx := context.Background()
	g := gen.RandomGraph(11, 100, 0.08, 1, 1)
	// STMatch's q22: a triangle joined to a 4-cycle, tail orders of both pairs of opposite vertices.
	p, err := pattern.Parse("(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (a)-(g), (b)-(c), (b)-(d), (b)-(e), (b)-(f), (b)-(g), (c)-(d), (c)-(e), (c)-(f), (c)-(g), (d)-(f), (d)-(g), (e)-(f), (e)-(g)")
	if err != nil {
		t.Fatal(err)
	}
	prob := &engine.Problem{Data: g, Pattern: p, Threads: 1}
	want, err := Engine{}.Count(ctx, prob)
	if err != nil {
		t.Fatal(err)
	}
	free, err := buildPlan(ctx, prob, false)
	if err != nil {
		t.Fatal(err)
	}
	// The smallest limit that leaves room for the default plan's candidate space (its bound
	// counts every neighbour of the parents' candidates, 8 bytes each).
	lo, hi := requiredMemory(prob), requiredMemory(prob)+16*spaceBytes(free)
	for lo+1 < hi {
		prob.MemoryLimit = (lo + hi) / 2
		if pl, err := buildPlan(ctx, prob, false); err == nil && pl.Space != nil {
			hi = prob.MemoryLimit
		} else {
			lo = prob.MemoryLimit
		}
	}
	prob.MemoryLimit = hi
	budget := prob.MemoryLimit - requiredMemory(prob)
	var peak uint64
	spaceHeld = func(live ...*plan.Plan) { peak = max(peak, spaceBytes(live...)) }
	defer func() { spaceHeld = nil }()
	used := tailOrderUsed.Load()
	for range 6 {
		pl, err := buildPlan(ctx, prob, false)
		if err != nil {
			t.Fatal(err)
		}
		if pl.Space == nil {
			t.Fatal("the limit left no room for the default plan's candidate space")
		}
		peak = spaceBytes(pl)
		got, err := Engine{}.CountPlan(ctx, prob, pl, 0)
		if err != nil || got.Count != want.Count {
			t.Fatalf("count %d (%v), want %d", got.Count, err, want.Count)
		}
		if peak > budget {
			t.Errorf("candidate spaces held at once: %d bytes, the limit leaves %d", peak, budget)
		}
	}
	if tailOrderUsed.Load() == used {
		t.Error("no count took a tail order")
	}
}
