package plan

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
)

// TestRebuildMatchesBuild: a plan rebuilt from another plan's candidates (any options) equals the
// plan built from scratch with the new options, candidate space included, and shares the base's
// space indexes wherever it needs the same one.
func TestRebuildMatchesBuild(t *testing.T) {
	variants := []Options{
		{},
		{Enumerate: true},
		{Induced: true},
		{Unique: true, MultiplyAutomorphisms: true},
		{MultiplyAutomorphisms: true},
		{Enumerate: true, SpaceLimit: -1},
		{Unique: true, SpaceLimit: 40},
	}
	var cases, shared int
	for seed := uint64(1); seed <= 30; seed++ {
		vl, el := int(seed%3), 1+int(seed%2)
		g := gen.RandomGraphM(seed, 60+int(seed%4)*20, 300+int(seed%5)*80, vl, el)
		p := gen.RandomPattern(seed*7, 2+int(seed%6), gen.PatternOptions{EdgeProb: 0.5, VertexLabels: vl, EdgeLabels: el, Wildcard: 0.3, Components: 1 + int(seed%5)/4})
		for i, from := range variants {
			base := Build(g, p, from)
			for j, to := range variants {
				want := Build(g, p, to)
				got, err := Rebuild(context.Background(), g, base, to)
				if err != nil {
					t.Fatal(err)
				}
				if diff := planDiff(want, got); diff != "" {
					t.Fatalf("seed %d %s: rebuilt from variant %d as variant %d: %s", seed, p, i, j, diff)
				}
				for k, idx := range got.Space {
					if base.Space[k] == idx {
						shared++
					}
				}
				cases++
			}
		}
	}
	t.Logf("%d rebuilds, %d space indexes shared with the base", cases, shared)
	if shared == 0 {
		t.Error("no space index was reused")
	}
}

// planDiff says how two plans differ ("" when they do not): everything but the identity of
// their space indexes.
func planDiff(a, b *Plan) string {
	for _, f := range []struct {
		name string
		x, y any
	}{
		{"candidates", a.Candidates, b.Candidates},
		{"levels", a.Levels, b.Levels},
		{"restrictions", a.Restrictions, b.Restrictions},
		{"groups", a.Groups, b.Groups},
		{"classes", a.Classes, b.Classes},
		{"empty", a.Empty, b.Empty},
		{"multiplier", a.Multiplier, b.Multiplier},
	} {
		if !reflect.DeepEqual(f.x, f.y) {
			return fmt.Sprintf("%s: %v, %v", f.name, f.x, f.y)
		}
	}
	if (a.Space == nil) != (b.Space == nil) || len(a.Space) != len(b.Space) {
		return fmt.Sprintf("space of %d and %d indexes (nil %v, %v)", len(a.Space), len(b.Space), a.Space == nil, b.Space == nil)
	}
	for k, x := range a.Space {
		y := b.Space[k]
		if y == nil {
			return fmt.Sprintf("space index %v missing", k)
		}
		xo, xv := x.Arrays()
		yo, yv := y.Arrays()
		if !slices.Equal(xo, yo) || !slices.Equal(xv, yv) {
			return fmt.Sprintf("space index %v differs", k)
		}
	}
	return ""
}
