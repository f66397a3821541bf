package cpu_test

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/pattern"
)

// TestClosingVertexCounts covers patterns whose last vertices close cycles over the same
// parents (4-cycles, K2,3, a 4-cycle with a labelled chord end), which the engine counts from
// cached common-neighbour sizes, on graphs dense enough for the cache to be hit.
func TestClosingVertexCounts(t *testing.T) {
	e, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 6; seed++ {
		g := gen.RandomGraph(seed, 18, 0.45, 1+int(seed%2), 1+int(seed%3))
		for _, src := range []string{
			"(a)-(b)-(c)-(d)-(a)",
			"(a)-(x)-(b), (a)-(y)-(b), (a)-(z)-(b)",
			"(a:0)-(b)-(c:0)-(d)-(a), (b)-[:1]-(e:1)",
			"(a)-(b)-(c)-(a), (c)-(d)-(e)-(c)",
		} {
			p, err := pattern.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			want := oracle.Count(g, p, engine.Semantics{})
			for _, threads := range []int{1, 2} {
				got, err := e.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Threads: threads})
				if err != nil || got.Count != want {
					t.Errorf("seed %d %s threads %d: %d (%v), oracle %d", seed, src, threads, got.Count, err, want)
				}
			}
		}
	}
}
