package partition

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/ctxtest"
)

// TestPartitionStops: each partitioner with a context that ends at each of its checks in turn
// returns the context's error, until one that lasts, with which its parts are those of a live
// context: on an R-MAT graph of 2^14 vertices, whose giant component one start's search takes
// through many parts (growParts checks by adjacency entries read, not only every 1,024 starts),
// stopping in a search, a refinement pass or a scan of the parts' bytes (partBytes, measure: they
// stop between chunks) never leaves a partition made in part.
func TestPartitionStops(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 14, EdgeFactor: 8, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Method{Grow, Ranges, Multilevel} {
		opts := Options{Budget: GraphBytes(g) / 8, Method: m, Cuts: 1}
		want, err := Partition(context.Background(), g, opts)
		if err != nil {
			t.Fatal(err)
		}
		lasted := false
		for n := range ctxtest.Checks(1 << 20) {
			pt, err := Partition(ctxtest.Countdown(n), g, opts)
			if err == nil {
				if n == 0 || !slices.Equal(pt.Of, want.Of) || !slices.Equal(pt.Bytes, want.Bytes) {
					t.Errorf("%v after %d checks: other parts than a live context's (or no check)", m, n)
				}
				lasted = true
				break
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%v ended at check %d: error %v", m, n+1, err)
			}
		}
		if !lasted {
			t.Errorf("%v: no context lasted", m)
		}
	}
}
