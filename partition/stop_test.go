package partition

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/ctxtest"
)

// TestGrowStops: the breadth-first partitioner with a context that ends at each of its checks in
// turn returns the context's error, until one that lasts, with which its parts are those of a
// live context: on an R-MAT graph of 2^14 vertices, whose giant component one start's search
// takes through many parts (growParts checks every 4,096 queue entries too, not only every 1,024
// starts), stopping in that search never leaves a partition made in part.
func TestGrowStops(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 14, EdgeFactor: 8, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Budget: GraphBytes(g) / 8, Method: Grow, Passes: -1}
	want, err := Partition(context.Background(), g, opts)
	if err != nil {
		t.Fatal(err)
	}
	for n := range ctxtest.Checks(1 << 20) {
		pt, err := Partition(ctxtest.Countdown(n), g, opts)
		if err == nil {
			if n == 0 || !slices.Equal(pt.Of, want.Of) {
				t.Errorf("after %d checks: other parts than a live context's (or no check)", n)
			}
			return
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("ended at check %d: error %v", n+1, err)
		}
	}
	t.Fatal("no context lasted")
}
