package graph_test

import (
	"math"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
)

// TestLabelledShareEstimate: on labelled R-MAT graphs (zipf and uniform labels, power-law
// degrees, hubs with many more runs than the pattern has labels), LabelledShare counts the kept
// vertices and the entries among them as a scan of every neighbour does, and the estimate's
// vertices equal those; with a sample at least as large as
// every label's vertices it is exact (entries LabelledShare's, degrees the kept vertices' degrees
// summed); with 256 a label its entries and degrees are within 10% of those.
func TestLabelledShareEstimate(t *testing.T) {
	for _, c := range []struct {
		dist   gen.LabelDistribution
		nl     int
		labels []uint32
	}{
		{gen.ZipfLabels, 1000, []uint32{0, 1, 2, 5, 25, 67, 114, 741}},
		{gen.ZipfLabels, 1000, []uint32{3, 40}},
		{gen.UniformLabels, 20, []uint32{7, 8, 13}},
	} {
		g, err := gen.RMAT(gen.RMATOptions{Scale: 15, EdgeFactor: 16, VertexLabels: c.nl, LabelDistribution: c.dist, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		// The oracle: every vertex's neighbours looked at one by one (LabelledShare must agree).
		kept := func(v uint32) bool {
			_, ok := slices.BinarySearch(c.labels, g.VertexLabel(v))
			return ok
		}
		var vs int
		var es, ds uint64
		for v := range uint32(g.NumVertices()) {
			if !kept(v) {
				continue
			}
			vs++
			ds += uint64(g.Degree(v))
			for _, u := range g.Neighbors(v) {
				if kept(u) {
					es++
				}
			}
		}
		if v, e := g.LabelledShare(c.labels); v != vs || e != es {
			t.Errorf("%v %v: LabelledShare %d, %d, want %d, %d", c.dist, c.labels, v, e, vs, es)
		}
		gv, ge, gd, exact := g.LabelledShareEstimate(c.labels, g.NumVertices())
		if !exact || gv != vs || ge != es || gd != ds {
			t.Errorf("%v %v, whole sample: %d, %d, %d (exact %v), want %d, %d, %d", c.dist, c.labels, gv, ge, gd, exact, vs, es, ds)
		}
		gv, ge, gd, exact = g.LabelledShareEstimate(c.labels, 256)
		off := func(got, want uint64) float64 { return math.Abs(float64(got)/float64(want) - 1) }
		if exact || gv != vs || off(ge, es) > 0.1 || off(gd, ds) > 0.1 {
			t.Errorf("%v %v, 256 a label: %d, %d, %d (exact %v), want %d, %d (±10%%), %d (±10%%)", c.dist, c.labels, gv, ge, gd, exact, vs, es, ds)
		}
		t.Logf("%v %v: %d vertices, entries %d against %d (%+.1f%%), degrees %d against %d (%+.1f%%)", c.dist, c.labels, vs,
			ge, es, 100*(float64(ge)/float64(es)-1), gd, ds, 100*(float64(gd)/float64(ds)-1))
	}
}
