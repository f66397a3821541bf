package cpu

import (
	"context"
	"errors"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/pattern"
)

// TestMemoryLimit: a limit below what the search needs is a clear ErrMemory; a limit that leaves
// no room for the candidate space still gives the right count (the search then intersects the
// graph's label runs).
func TestMemoryLimit(t *testing.T) {
	g := gridGraph(t, 30)
	p, err := pattern.Parse("(a)-(b)-(c)-(a), (c)-(d)")
	if err != nil {
		t.Fatal(err)
	}
	prob := &engine.Problem{Data: g, Pattern: p, Threads: 2}
	want, err := Engine{}.Count(context.Background(), prob)
	if err != nil {
		t.Fatal(err)
	}
	prob.MemoryLimit = 1000
	if _, err := (Engine{}).Count(context.Background(), prob); !errors.Is(err, engine.ErrMemory) {
		t.Fatalf("tiny limit: err = %v, want ErrMemory", err)
	}
	prob.MemoryLimit = requiredMemory(prob) + 4 // room for nothing optional
	got, err := Engine{}.Count(context.Background(), prob)
	if err != nil || got.Count != want.Count {
		t.Fatalf("tight limit: %d (%v), want %d", got.Count, err, want.Count)
	}
	if pl, _ := buildPlan(context.Background(), prob, false); pl.Space != nil {
		t.Error("tight limit still built a candidate space")
	}
}
