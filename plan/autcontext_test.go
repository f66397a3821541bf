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

// TestSymmetryContexts: StabilizerRestrictionsContext and EdgeOrbitsContext with a context that
// ends at each of their looks in turn: ctx's error, until one that lasts, with which they give
// what the searches without a context give (the 4-cube, a 12-cycle, a star of 9 leaves; fixed
// vertices and none).
func TestSymmetryContexts(t *testing.T) {
	star, err := pattern.Parse("(c)-(a), (c)-(b), (c)-(d), (c)-(e), (c)-(f), (c)-(g), (c)-(h), (c)-(i), (c)-(j)")
	if err != nil {
		t.Fatal(err)
	}
	var cycle []string
	for v := range 12 {
		cycle = append(cycle, fmt.Sprintf("(v%d)-(v%d)", v, (v+1)%12))
	}
	ring, err := pattern.Parse(strings.Join(cycle, ", "))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*pattern.Pattern{hypercube(t, 4), ring, star} {
		order := make([]int, p.NumVertices())
		for i := range order {
			order[i] = (i + 1) % len(order)
		}
		for _, fixed := range [][]int{nil, order[:1]} {
			want := StabilizerRestrictions(p, fixed, order)
			if n := ctxtest.UntilLasting(t, 1<<20, func(ctx context.Context) error {
				got, err := StabilizerRestrictionsContext(ctx, p, fixed, order)
				if err == nil && !slices.Equal(got, want) {
					t.Errorf("%v fixing %v: restrictions %v, want %v", p, fixed, got, want)
				}
				return err
			}); n == 0 || len(want) == 0 {
				t.Errorf("%v fixing %v: %d looks at the context, %d restrictions", p, fixed, n, len(want))
			}
		}
		want := EdgeOrbits(p)
		if n := ctxtest.UntilLasting(t, 1<<20, func(ctx context.Context) error {
			got, err := EdgeOrbitsContext(ctx, p)
			if err == nil && fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%v: edge orbits %v, want %v", p, got, want)
			}
			return err
		}); n < 2 {
			t.Errorf("%v: %d looks at the context", p, n)
		}
	}
}
