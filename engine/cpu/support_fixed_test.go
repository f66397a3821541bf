package cpu

import (
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestSupportFixedLevel checks the level whose neighbours supportLast marks for STMatch's q10 and
// q13 (c, whose adjacency to d both groups test) and that q3, whose tests involve no level
// below the last beside it, has none.
func TestSupportFixedLevel(t *testing.T) {
	g := gen.RandomGraph(7, 40, 0.4, 1, 1)
	for _, c := range []struct {
		pattern string
		want    string // the fixed level's pattern vertex, "" for none
	}{
		{"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(d), (c)-(f), (d)-(e)", "cd"},
		{"(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (b)-(c), (b)-(d), (c)-(f), (d)-(e)", "cd"},
		{"(a)-(b), (a)-(c), (a)-(e), (b)-(c), (b)-(d), (c)-(d), (c)-(e)", ""},
	} {
		p, err := pattern.Parse(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		pl := plan.Build(g, p, plan.Options{})
		sp := supportShape(g, pl)
		if sp == nil {
			t.Fatalf("%s: no support shape", c.pattern)
		}
		got := ""
		if sp.fixed >= 0 {
			got = p.Name(pl.Levels[sp.fixed].Vertex)
		}
		last := p.Name(pl.Levels[len(pl.Levels)-1].Vertex)
		switch {
		case c.want == "" && got != "":
			t.Errorf("%s: fixed level %s, want none", c.pattern, got)
		case c.want != "" && (got+last != c.want && last+got != c.want):
			t.Errorf("%s: fixed level %s with last level %s, want the pair %s", c.pattern, got, last, c.want)
		}
	}
}
