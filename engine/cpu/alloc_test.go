package cpu

import (
	"sync/atomic"
	"testing"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// gridGraph is a deterministic graph with triangles, squares and leaves for engine unit tests.
func gridGraph(t testing.TB, side int) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(graph.BuilderOptions{})
	id := func(r, c int) int64 { return int64(r*side + c) }
	for r := 0; r < side; r++ {
		for c := 0; c < side; c++ {
			if err := b.SetVertexLabel(id(r, c), uint32((r+c)%3)); err != nil {
				t.Fatal(err)
			}
			if c+1 < side {
				must(t, b.AddEdge(id(r, c), id(r, c+1), 0))
			}
			if r+1 < side {
				must(t, b.AddEdge(id(r, c), id(r+1, c), 0))
			}
			if r+1 < side && c+1 < side {
				must(t, b.AddEdge(id(r, c), id(r+1, c+1), 1))
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestSearchAllocatesNothing checks that the hot loop (search from a root, intersections,
// leaf counting, wildcard unions) allocates nothing once the worker's buffers are warm.
func TestSearchAllocatesNothing(t *testing.T) {
	g := gridGraph(t, 30)
	for _, src := range []string{
		"(a)-(b)-(c)-(a)",                       // wildcard labels: merged runs
		"(a:0)-[:0]-(b:1)-[:0]-(c:2)",           // exact runs
		"(a)-(b)-(c)-(d)-(a), (a)-(x), (a)-(y)", // postponed leaves
		"(a:1)-(b)-(c:1), (b)-(d:0)",
		"(a)-(b)-(c)-(a), (a)-(x), (b)-(y), (c)-(z:2)", // several leaf groups: region DP
		"(a)-(b)-(c)-(d)-(a), (e), (f:2)",              // memoised leaf with isolated vertices
	} {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, unique := range []bool{false, true} {
			pl := plan.Build(g, p, plan.Options{Unique: unique})
			if pl.Empty {
				continue
			}
			var stop atomic.Bool
			if allocs := searchAllocs(newWorker(g, pl, &stop), pl, 5); allocs != 0 {
				t.Errorf("%s unique=%v: %.1f allocations per pass, want 0", src, unique, allocs)
			}
		}
	}
}

// searchAllocs returns the allocations per pass of worker w over every root of plan pl, averaged
// over runs passes once four passes have warmed up its buffers and let the leaf size caches grow.
func searchAllocs(w *worker, pl *plan.Plan, runs int) float64 {
	roots := pl.Candidates[pl.Levels[0].Vertex]
	for range 4 {
		for _, c := range roots {
			w.runRoot(c)
		}
	}
	return testing.AllocsPerRun(runs, func() {
		for _, c := range roots {
			w.runRoot(c)
		}
	})
}
