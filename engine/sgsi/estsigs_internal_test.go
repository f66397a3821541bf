package sgsi

import (
	"context"
	"reflect"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
)

// TestEstimatorReadsSignatures: an estimator that reads the store's signature table (useSigs,
// as a count's does) admits exactly the vertices that one computing each vertex's signature
// admits, for every query vertex of 8- to 12-vertex walks on a labelled R-MAT graph, and
// chooses the same plan (late vertices, tails' reach) with the same estimate.
func TestEstimatorReadsSignatures(t *testing.T) {
	defer func(m float64) { lateMinRows = m }(lateMinRows)
	lateMinRows = 0 // (every late set weighed)
	ctx := context.Background()
	g, err := gen.RMAT(gen.RMATOptions{Scale: 10, EdgeFactor: 16, VertexLabels: 20, LabelDistribution: gen.ZipfLabels, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	s := newStore(g, 0)
	for _, size := range []int{8, 10, 12} {
		for i := range 3 {
			p, err := gen.RandomWalkQuery(g, size, gen.QuerySeed(1, size, i), gen.QueryOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var plans [2]string
			var rows [2]joinRows
			for k := range 2 {
				e := newJoinEstimator(g, compileQuery(p), joinSeed)
				if k == 1 {
					e.useSigs(s)
					if e.sigs == nil {
						t.Fatal("useSigs: the store's table not taken")
					}
					for u := range e.q.n {
						for v := range uint32(g.NumVertices()) {
							if got, want := e.admits(u, v), e.q.admits(g, u, v); got != want {
								t.Fatalf("walk %d/%d: u %d, v %d: admits %v from the table, %v computed", size, i, u, v, got, want)
							}
						}
					}
				}
				q := e.q
				sizes, roots, err := e.candidates(ctx)
				if err != nil {
					t.Fatal(err)
				}
				replan := func() {
					q.plan(sizes, e.edgeFreq, g.HasEdgeLabels(), false, false, true, true, true)
				}
				replan()
				stop := func() error { return engine.PredictionStopped(ctx, "sgsi") }
				if err := e.chooseLate(stop, sizes, roots, replan); err != nil {
					t.Fatal(err)
				}
				if err := e.weighTails(stop, sizes, roots, replan); err != nil {
					t.Fatal(err)
				}
				plans[k] = planKey(q)
				if rows[k], _, err = e.probe(stop, sizes, roots); err != nil {
					t.Fatal(err)
				}
			}
			if plans[0] != plans[1] || !reflect.DeepEqual(rows[0], rows[1]) {
				t.Errorf("walk %d/%d: plan %s, %+v computing signatures; %s, %+v from the table", size, i, plans[0], rows[0], plans[1], rows[1])
			}
		}
	}
}
