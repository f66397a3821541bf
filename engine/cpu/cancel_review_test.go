package cpu

import (
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/proptest"
)

// TestWildcardCountCancelledCopiesNothingReview (review rev37): a count of wildcards on a
// labelled graph (the triangle, the 4-clique and every shape), its context ended, returns the
// context's error and a partial result without copying the graph's lists first: before the fix
// the copy without labels (graph.WithoutLabels, not stoppable) and the shape passes' first
// ranges of hubs ran to their end, 3-13 s on R-MAT 21 with 4 labels of each kind.
func TestWildcardCountCancelledCopiesNothingReview(t *testing.T) {
	withShapes(t)
	g, err := gen.RMAT(gen.RMATOptions{Scale: 13, EdgeFactor: 16, Seed: 5, VertexLabels: 3, EdgeLabels: 3})
	if err != nil {
		t.Fatal(err)
	}
	copyBytes := g.WithoutLabelsBytes(true, true)
	triangle := [][2]int{{0, 1}, {1, 2}, {2, 0}}
	patterns := append([][][2]int{triangle}, shapeEdgeLists()...)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, edges := range patterns {
		p := proptest.EdgesPattern(t, edges, -1, -1)
		for _, sem := range []engine.Semantics{{}, {Induced: true}} {
			prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 2}
			_, shape := shapeFor(prob)
			_, clique := asClique(prob)
			if !shape && !clique {
				continue // (the general search's)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			res, err := Engine{}.Count(ctx, prob)
			runtime.ReadMemStats(&after)
			if allocated := after.TotalAlloc - before.TotalAlloc; allocated >= copyBytes/4 {
				t.Errorf("%v %v: cancelled, the count allocated %d bytes (the copy without labels takes %d)", edges, sem, allocated, copyBytes)
			}
			if !errors.Is(err, context.Canceled) || !res.Partial {
				t.Errorf("%v %v: cancelled, %+v (%v); want a partial result and context.Canceled", edges, sem, res, err)
			}
		}
	}
}

// shapeEdgeLists are reviewPatterns' edge lists.
func shapeEdgeLists() [][][2]int {
	var lists [][][2]int
	for _, s := range reviewPatterns {
		lists = append(lists, s.edges)
	}
	return lists
}
