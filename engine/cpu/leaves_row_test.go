package cpu

import (
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestCountByRow compares countByRow with the count from the materialised set (materialise and
// classCount) on random assignments of the levels, where used vertices lie in the group's set:
// a 4-clique with a vertex on three of its vertices, the fourth (labelled) enumerated first, the
// group's memo turned off so that both counts apply, with hub rows for every vertex; and K2,3
// under the plan that breaks all symmetry with group windows, whose group (the two vertices of
// the larger side counted on the smaller) lies above the first vertex of its side (countByRow
// once ignored that window: 3 times the count on a random graph).
func TestCountByRow(t *testing.T) {
	defer EveryVertexAHub(true)()
	cases := []struct {
		src  string
		opts plan.Options
	}{
		{"(a:1)-(b), (a)-(c), (a)-(x), (b)-(c), (b)-(x), (c)-(x), (b)-(d), (c)-(d), (x)-(d)", plan.Options{MultiplyAutomorphisms: true}},
		{"(a)-(c), (a)-(d), (a)-(e), (b)-(c), (b)-(d), (b)-(e)", plan.Options{MultiplyAutomorphisms: true, Symmetry: plan.SymmetryBreak, GroupWindows: true}},
	}
	compared, withUsed, windowed := 0, 0, 0
	for _, c := range cases {
		p, err := pattern.Parse(c.src)
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(1); seed <= 8; seed++ {
			g := gen.RandomGraph(seed, 12, 0.7, 2, 1)
			pl := plan.Build(g, p, c.opts)
			if len(pl.Classes) != 1 || len(pl.Classes[0].Groups) != 1 {
				continue
			}
			lc := newLC(g, pl)
			lc.hubs = buildHubRows(g, 1<<20).view()
			for gi := range lc.memoised {
				lc.memoised[gi] = false
			}
			for ci := range lc.memo {
				lc.memo[ci].bit = -1
			}
			gi := pl.Classes[0].Groups[0]
			m := make([]uint32, len(pl.Levels))
			mi := make([]int, len(pl.Levels))
			for r := range 200 {
				for j := range m {
					m[j] = uint32((int(seed)*7 + r*13 + j*5) % g.NumVertices())
				}
				byRow, ok, done := lc.countByRow(gi, m, mi)
				if !done {
					continue
				}
				lc.materialise(m, mi)
				want, ok2 := lc.classCount(0, pl.Classes[0].Groups, m, mi)
				if byRow != want || ok != ok2 {
					t.Fatalf("%s, seed %d, m %v: countByRow %d (%v), materialised %d (%v)\n%s", c.src, seed, m, byRow, ok, want, ok2, pl.Describe())
				}
				compared++
				if lc.usedBy(gi, m, mi) > 0 {
					withUsed++
				}
				if pl.Groups[gi].Bounded() && want > 0 {
					windowed++
				}
			}
		}
	}
	if compared == 0 || withUsed == 0 || windowed == 0 {
		t.Errorf("%d assignments compared, %d with used vertices in the set, %d with a window", compared, withUsed, windowed)
	}
}
