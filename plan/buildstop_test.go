package plan

import (
	"context"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/ctxtest"
	"github.com/submatch/submatch/pattern"
)

// TestBuildContextStops: a plan built with a context that ends at each of its checks in turn is
// the context's error, until one that lasts, with which it is a live context's plan (the same
// candidates and order): the refinement's parallel pass (2^15 candidates of a vertex with three
// pattern neighbours, above parallelRefineChecks), stopped between its words, never yields a
// plan refined in part.
func TestBuildContextStops(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 15, EdgeFactor: 8, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(a)-(c), (b)-(e)")
	if err != nil {
		t.Fatal(err)
	}
	want, err := BuildContext(context.Background(), g, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := ctxtest.UntilLasting(t, 1<<20, func(ctx context.Context) error {
		pl, err := BuildContext(ctx, g, p, Options{})
		if err == nil && (pl.Describe() != want.Describe() || !slices.EqualFunc(pl.CandidateBits, want.CandidateBits, slices.Equal)) {
			t.Errorf("another plan than a live context's")
		}
		return err
	}); n == 0 {
		t.Error("the build never looked at its context")
	}
}
