package cpu

import (
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// LastSumPatterns are patterns whose embedding plans on gen.RandomGraph(3, 14, 0.5, 2, 2) end in a level counted with
// the postponed vertex below it (lastSum): two triangles sharing a vertex (STMatch's q1) with and
// without vertex and edge labels, a diamond and a chain of triangles with a triangle hanging on
// one vertex (the key leaves out two levels), and a triangle with a path of two on its shared
// vertex. TestOracleLastSum counts them, and others where the sum does not apply, against the
// oracle.
var LastSumPatterns = []string{
	"(a)-(b)-(c)-(a), (c)-(d)-(e)-(c)",
	"(a)-[:1]-(b)-(c)-(a), (c)-(d)-[:1]-(e)-(c)",
	"(a)-(b)-(c)-(a), (c)-(d)-[:1]-(e)-(c)",
	"(a)-(b)-(c:1)-(a), (c)-(d)-(e)-(c)",
	"(a:0)-(b:0), (a)-(c:1), (b)-(c), (c)-(d:0), (c)-(e:0), (d)-(e)",
	"(a)-(b)-(c)-(d)-(a), (b)-(d), (c)-(e)-(f)-(c)",
	"(a)-(b)-(c)-(a), (b)-(c)-(d)-(b), (c)-(e)-(f)-(c)",
	"(c)-(a), (c)-(d)-(e)-(c), (a)-(b)-(c)",
}

// TestLastSumApplies checks that the plans of LastSumPatterns take the last-level sum, so that
// the oracle test exercises it.
func TestLastSumApplies(t *testing.T) {
	g := gen.RandomGraph(3, 14, 0.5, 2, 2)
	for _, src := range LastSumPatterns {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		pl := plan.Build(g, p, plan.Options{MultiplyAutomorphisms: true})
		if lastSumFor(g, pl, newLC(g, pl)) == nil {
			t.Errorf("%s: the plan does not count its last level by lastSum", src)
		}
	}
}

func newLC(g *graph.Graph, pl *plan.Plan) *leafCounter {
	lc := &leafCounter{}
	lc.init(g, pl)
	return lc
}
