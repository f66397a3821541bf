package plan

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/submatch/submatch/internal/ctxtest"
	"github.com/submatch/submatch/pattern"
)

// hypercube is the d-dimensional cube's pattern (2^d vertices, |Aut| = 2^d·d!).
func hypercube(t *testing.T, d int) *pattern.Pattern {
	t.Helper()
	var es []string
	for v := range 1 << d {
		for b := range d {
			if w := v ^ 1<<b; w > v {
				es = append(es, fmt.Sprintf("(v%d)-(v%d)", v, w))
			}
		}
	}
	p, err := pattern.Parse(strings.Join(es, ", "))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAutomorphismGroupContext: the group of the 4-cube (384 automorphisms) with a context
// that ends at each of the search's checks in turn (1,024 nodes apart): ctx's error, until one
// that lasts, with which it is AutomorphismGroup's; a limit below the group still gives nil.
func TestAutomorphismGroupContext(t *testing.T) {
	p := hypercube(t, 4)
	want := AutomorphismGroup(p, 1<<14)
	if len(want) != 384 {
		t.Fatalf("%d automorphisms of the 4-cube, want 384", len(want))
	}
	if aut, err := AutomorphismGroupContext(context.Background(), p, 100); aut != nil || err != nil {
		t.Errorf("limit 100: %d automorphisms, error %v", len(aut), err)
	}
	if n := ctxtest.UntilLasting(t, 1<<20, func(ctx context.Context) error {
		aut, err := AutomorphismGroupContext(ctx, p, 1<<14)
		if (err == nil) != (aut != nil) || err == nil && !slices.EqualFunc(aut, want, slices.Equal) {
			t.Errorf("%d automorphisms (error %v), want %d", len(aut), err, len(want))
		}
		return err
	}); n == 0 {
		t.Error("the search never looked at its context")
	}
}
