package partition

import (
	"context"
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
		if n := ctxtest.UntilLasting(t, 1<<20, func(ctx context.Context) error {
			pt, err := Partition(ctx, g, opts)
			if err == nil && (!slices.Equal(pt.Of, want.Of) || !slices.Equal(pt.Bytes, want.Bytes)) {
				t.Errorf("%v: other parts than a live context's", m)
			}
			return err
		}); n == 0 {
			t.Errorf("%v never looked at its context", m)
		}
	}
}
