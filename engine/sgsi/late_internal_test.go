package sgsi

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	_ "github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
)

// TestChooseLate: on a labelled R-MAT graph (zipf labels) two 12-vertex random walks whose
// core order joins vertices that a later choice would leave closing (issue 21, q20/q_12_1's
// kind) are counted with chooseLate weighing every order (lateMinRows 0) and with the core
// order as it comes (lateMinRows +Inf, what a count below the bound keeps). Both counts equal
// the cpu engine's; with the choice the order puts some 2-core vertex last that the core
// order joins, and the joins write at most a quarter of the rows they write without it
// (measured: 1,091,531 -> 38,327 and 514,953 -> 10,846 rows).
func TestChooseLate(t *testing.T) {
	defer func(m float64) { lateMinRows = m }(lateMinRows)
	ctx := context.Background()
	g, err := gen.RMAT(gen.RMATOptions{Scale: 10, EdgeFactor: 16, VertexLabels: 50, LabelDistribution: gen.ZipfLabels, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{8, 9} {
		p, err := gen.RandomWalkQuery(g, 12, gen.QuerySeed(1, 12, i), gen.QueryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		prob := &engine.Problem{Data: g, Pattern: p}
		want, err := cpu.Count(ctx, prob)
		if err != nil {
			t.Fatal(err)
		}
		var rows [2]uint64
		var joined [2][]int
		for k, bound := range []float64{math.Inf(1), 0} {
			lateMinRows = bound
			res, st, err := Engine{Options: Options{Host: true}}.CountStats(ctx, prob)
			if err != nil || res.Count != want.Count {
				t.Fatalf("walk %d, lateMinRows %g: sgsi %d (%v), cpu %d", i, bound, res.Count, err, want.Count)
			}
			for _, s := range st.PerStep[:st.Steps] {
				rows[k] += s.Out
			}
			joined[k] = st.Order[:st.Steps+1]
		}
		t.Logf("walk %d: joins %v write %d rows, %v with chooseLate %d", i, joined[0], rows[0], joined[1], rows[1])
		if 4*rows[1] > rows[0] {
			t.Errorf("walk %d: the joins wrote %d rows with chooseLate, %d without: want at most a quarter", i, rows[1], rows[0])
		}
		if !slices.ContainsFunc(joined[0], func(u int) bool { return !slices.Contains(joined[1], u) }) {
			t.Errorf("walk %d: chooseLate joins %v, every vertex the core order joins (%v)", i, joined[1], joined[0])
		}
	}
}

// TestLateSets: the sets lateSets lists for a 4-cycle with a chord (0-1-2-3-0, 0-2) and a
// triangle: each pairwise non-adjacent, the rest connected.
func TestLateSets(t *testing.T) {
	p := mustPattern(t, "(a)-(b)-(c)-(d)-(a), (a)-(c)")
	got := lateSets(p, 0b1111, 2)
	// a, b, c, d alone (each leaves a connected rest), and {b, d} (a-c stays).
	want := []uint32{0b0001, 0b0010, 0b0100, 0b1000, 0b1010}
	if !slices.Equal(got, want) {
		t.Errorf("4-cycle with a chord: %04b, want %04b", got, want)
	}
	if got := lateSets(mustPattern(t, "(a)-(b)-(c)-(a)"), 0b111, 2); len(got) != 3 {
		t.Errorf("triangle: %03b, want the three vertices alone", got)
	}
}

func mustPattern(t *testing.T, src string) *pattern.Pattern {
	t.Helper()
	p, err := pattern.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
