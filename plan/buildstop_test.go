package plan

import (
	"context"
	"errors"
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
	for n := range ctxtest.Checks(1 << 20) {
		pl, err := BuildContext(ctxtest.Countdown(n), g, p, Options{})
		if err == nil {
			if n == 0 || pl.Describe() != want.Describe() || !slices.EqualFunc(pl.CandidateBits, want.CandidateBits, slices.Equal) {
				t.Errorf("after %d checks: another plan than a live context's", n)
			}
			return
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("ended at check %d: error %v", n+1, err)
		}
	}
	t.Fatal("no context lasted")
}
