package pbe_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// starPattern is the star of k leaves, its centre c.
func starPattern(t *testing.T, k int) *pattern.Pattern {
	t.Helper()
	var arms []string
	for i := range k {
		arms = append(arms, fmt.Sprintf("(c)-(x%d)", i))
	}
	p, err := pattern.Parse(strings.Join(arms, ", "))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// starGraph is a hub joined to leaves vertices, those joined in a path (so parts cut the hub's
// edges).
func starGraph(t *testing.T, leaves int) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(graph.BuilderOptions{})
	for i := 1; i <= leaves; i++ {
		if err := b.AddEdge(0, int64(i), 0); err != nil {
			t.Fatal(err)
		}
		if i > 1 {
			if err := b.AddEdge(int64(i-1), int64(i), 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestHugeAutomorphismGroup: an embedding count multiplies the inter stage's matches by
// |Aut(p)|, which for a star of 21 leaves (21!) does not fit a uint64: with a match that is
// engine.ErrOverflow, as from the cpu engine, and without one the count is exact. |Aut(p)| must
// come from the stabiliser chain, not by enumerating the group (21! steps: the count never
// returned), in both the shared and the unshared inter stage.
func TestHugeAutomorphismGroup(t *testing.T) {
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p := starPattern(t, 21)
	for _, leaves := range []int{21, 24, 12} {
		g := starGraph(t, leaves)
		prob := &engine.Problem{Data: g, Pattern: p, Threads: 2}
		want, wantErr := cpu.Count(ctx, prob)
		if (wantErr != nil) != (leaves >= 21) {
			t.Fatalf("%d leaves: cpu %d, %v", leaves, want.Count, wantErr)
		}
		for _, unshared := range []bool{false, true} {
			e := &pbe.Engine{Budget: tightBudget(g), Unshared: unshared}
			res, st, err := e.CountStats(ctx, prob)
			if st.Parts < 2 {
				t.Fatalf("%d leaves: %d parts", leaves, st.Parts)
			}
			if wantErr != nil {
				if !errorsIs(err, engine.ErrOverflow) {
					t.Errorf("%d leaves, unshared %v: pbe %d, %v; want ErrOverflow", leaves, unshared, res.Count, err)
				}
				continue
			}
			if err != nil || res.Count != want.Count {
				t.Errorf("%d leaves, unshared %v: pbe %d, %v; cpu %d", leaves, unshared, res.Count, err, want.Count)
			}
		}
	}
}
