package cpu

import (
	"context"
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// The conventions under which memoPatterns' plans postpone the memoised group.
var (
	semEmbeddings       = []engine.Semantics{{}}
	semEmbeddingsUnique = []engine.Semantics{{}, {Unique: true}}
)

// memoPatterns have a leaf group with several parents that shares its collision class with
// isolated groups only, or with one parented group whose parents are all above its deepest
// parent (two triangles sharing a vertex, STMatch's q1, and its q3); memo names that group's vertices and class the size of its class under
// the conventions sems, on memoGraph (elsewhere the plan does not postpone the group, or the
// induced convention enumerates it). The last three are not memoised: a triangle's closing
// vertex has parents of its own at every assignment (its parents are the last levels), and two
// parented groups share a class with a third.
var memoPatterns = []struct {
	src   string
	memo  string
	class int
	sems  []engine.Semantics
}{
	{"(a)-(b)-(c)-(d)-(a), (e)", "d", 2, semEmbeddings},
	{"(a)-(b)-(c)-(d)-(a), (e), (f)", "d", 2, semEmbeddings},
	{"(a)-(b)-(c)-(d)-(a), (e:0), (f:1), (g)", "d", 4, semEmbeddings},
	{"(a)-(b)-(c)-(d)-(a), (a)-(x)-(c), (e:1)", "dx", 2, semEmbeddings},
	{"(a)-[:1]-(b)-(c)-[:1]-(d)-(a), (e:1)", "d", 2, semEmbeddings},
	{"(a)-(b)-(c)-(d)-(a), (a)-(x), (c)-(x), (d)-(x), (a)-(y), (c)-(y), (d)-(y), (e)", "xy", 2, semEmbeddingsUnique},
	{"(a:0)-(b:1)-(c:2)-(d:1)-(a), (e)", "c", 2, semEmbeddingsUnique},
	{"(a:0)-(b:1)-(c:0)-(d:2)-(a), (a)-(x:1)-(c), (e:0), (f)", "d", 3, semEmbeddingsUnique},
	{"(a)-(b)-(c)-(a), (c)-(d)-(e)-(c)", "e", 2, semEmbeddings},
	{"(a)-(b), (a)-(c), (a)-(e), (b)-(c), (b)-(d), (c)-(d), (c)-(e)", "d", 2, semEmbeddingsUnique},
	{"(a)-(b)-(c), (a)-(c), (d), (e:1)", "", 0, nil},
	{"(a)-(b)-(c)-(a), (d), (e)", "", 0, nil},
	{"(a)-(b)-(c)-(d)-(a), (b)-(e), (f)", "", 0, nil},
}

func memoGraph() *graph.Graph { return gen.RandomGraph(1, 18, 0.45, 3, 2) }

// memoisedGroup returns the vertices (names) of the group that pl's leaf counter memoises, and
// the size of its class ("" and 0 for none); it fails t on inconsistent memo state.
func memoisedGroup(t *testing.T, g *graph.Graph, p *pattern.Pattern, pl *plan.Plan) (memo string, class int) {
	t.Helper()
	var lc leafCounter
	lc.init(g, pl)
	for ci, c := range pl.Classes {
		b := lc.memo[ci].bit
		if b < 0 {
			continue
		}
		if memo != "" {
			t.Errorf("%s: several memoised classes", p)
		}
		for _, u := range pl.Groups[c.Groups[b]].Vertices {
			memo += p.Name(u)
		}
		class = len(c.Groups)
		if lc.memo[ci].stride != 1<<(class-1) {
			t.Errorf("%s: stride %d for a class of %d", p, lc.memo[ci].stride, class)
		}
	}
	for gi := range pl.Groups {
		want := false
		for ci, c := range pl.Classes {
			want = want || lc.memo[ci].bit >= 0 && c.Groups[lc.memo[ci].bit] == gi
		}
		if lc.memoised[gi] != want {
			t.Errorf("%s: group %d memoised %v, want %v", p, gi, lc.memoised[gi], want)
		}
	}
	return memo, class
}

// TestMemoisedClasses checks, on the engine's own plans, which group of memoPatterns is memoised:
// its intersection sizes with the isolated groups of its class come from the size cache, and
// its membership from adjacency.
func TestMemoisedClasses(t *testing.T) {
	g := memoGraph()
	for _, tc := range memoPatterns {
		p, err := pattern.Parse(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		for _, sem := range proptest.AllSemantics {
			opts, err := PlanOptions(&engine.Problem{Data: g, Pattern: p, Semantics: sem}, false)
			if err != nil {
				t.Fatal(err)
			}
			memo, class := memoisedGroup(t, g, p, plan.Build(g, p, opts))
			wantMemo, wantClass := "", 0
			if slices.Contains(tc.sems, sem) {
				wantMemo, wantClass = tc.memo, tc.class
			}
			if memo != wantMemo || class != wantClass {
				t.Errorf("%s %v: memoised group %q in a class of %d, want %q in a class of %d",
					tc.src, sem, memo, class, wantMemo, wantClass)
			}
		}
	}
}

// TestMemoisedClassCounts compares the counts of memoPatterns with the brute-force oracle under
// every convention, on memoGraph and graphs as dense (so the cache is hit), with and without a
// candidate space, with 1 and 2 threads; each memoised pattern must be memoised on some graph.
func TestMemoisedClassCounts(t *testing.T) {
	ctx := context.Background()
	graphs := []*graph.Graph{memoGraph()}
	for seed := uint64(2); seed <= 5; seed++ {
		graphs = append(graphs, gen.RandomGraph(seed, 13, 0.5, 2+int(seed%2), 1+int(seed%3)))
	}
	for _, tc := range memoPatterns {
		p, err := pattern.Parse(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		memoised := 0
		for gi, g := range graphs {
			for _, sem := range proptest.AllSemantics {
				want := oracle.Count(g, p, sem)
				for _, threads := range []int{1, 2} {
					prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: threads}
					for _, space := range []bool{true, false} {
						prob.MemoryLimit = 0
						if !space {
							prob.MemoryLimit = requiredMemory(prob) + 4 // no candidate space
						}
						pl, err := buildPlan(ctx, prob, false)
						if err != nil {
							t.Fatal(err)
						}
						if memo, _ := memoisedGroup(t, g, p, pl); memo != "" {
							memoised++
						}
						got, err := Engine{}.CountPlan(ctx, prob, pl, 0)
						if err != nil || got.Partial || got.Count != want {
							t.Errorf("graph %d %s %v threads %d space %v: %d (partial %v, %v), oracle %d",
								gi, tc.src, sem, threads, space, got.Count, got.Partial, err, want)
						}
					}
				}
			}
		}
		if (memoised > 0) != (tc.memo != "") {
			t.Errorf("%s: memoised in %d plans", tc.src, memoised)
		}
	}
}
