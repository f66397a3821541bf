package pbe_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
)

// sharedPatterns have large automorphism groups (cliques, cycles, stars, K2,3, dense symmetric
// ones), labelled symmetric ones, wildcards, edge labels, disconnected ones and an asymmetric one.
var sharedPatterns = []string{
	"(a)-(b)", "(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a)-(c), (b)-(d)", "(a)-(b)-(c)-(d)-(a)",
	"(a)-(b)-(c)-(d)-(e)-(a)", "(c)-(x), (c)-(y), (c)-(z)",
	"(a)-(x), (a)-(y), (a)-(z), (b)-(x), (b)-(y), (b)-(z)",
	"(a)-(b)-(c)-(d)-(e)-(a), (a)-(c), (b)-(d), (c)-(e)", "(a)-(b)-(c)-(d)-(a)-(c), (b)-(d), (e)-(a), (e)-(b)",
	"(a:1)-(b)-(c:1)-(d)-(a)", "(a)-[:1]-(b)-(c)-(a)", "(a:1)-[:1]-(b:1)-(c)-(d)-(a), (b)-(d)",
	"(a:*)-(b:*)-(c)-(a)", "(a)-[:*]-(b)-(c)-[:*]-(d)-(a)", "(c:*)-(x), (c)-(y:*), (c)-(z:*)",
	"(a)-(b)-(c)-(a), (d)-(e)", "(a)-(b), (c)-(d)", "(a:1)-(b:0)-(c:1)-(d:0)-(b), (a)-[:1]-(d)",
}

// matchSet lists e's matches of prob, each in the canonical member of its orbit for a unique
// listing, sorted; it fails the test on duplicates.
func matchSet(t *testing.T, e engine.Engine, prob *engine.Problem, what string) [][]uint32 {
	t.Helper()
	got, err := engine.CollectMatches(context.Background(), e, prob, 0)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if prob.Semantics.Unique {
		auts := oracle.Automorphisms(prob.Pattern)
		for i, m := range got {
			got[i] = oracle.Canonical(auts, m)
		}
	}
	slices.SortFunc(got, slices.Compare)
	for i := 1; i < len(got); i++ {
		if slices.Equal(got[i-1], got[i]) {
			t.Fatalf("%s: %v twice", what, got[i])
		}
	}
	return got
}

// TestSharedExecution checks the inter stage with shared execution (the default) against the
// one without (Engine.Unshared) and the cpu engine, counting and listing, in every convention,
// on symmetric patterns over random graphs (one label, and two vertex and two edge labels) cut
// into many parts.
func TestSharedExecution(t *testing.T) {
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	graphs := []*graph.Graph{gen.RandomGraphM(1, 120, 700, 1, 1), gen.RandomGraphM(2, 150, 1100, 2, 2)}
	if testing.Short() {
		graphs = graphs[1:]
	}
	inter, listed := 0, 0
	for gi, g := range graphs {
		gb := partition.GraphBytes(g)
		for _, src := range sharedPatterns {
			p, err := pattern.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			for _, sem := range proptest.AllSemantics {
				prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 2}
				want, err := cpu.Count(ctx, prob)
				if err != nil {
					t.Fatal(err)
				}
				var cpuList [][]uint32
				list := want.Count <= 20_000
				if list {
					cpuList = matchSet(t, cpu, prob, "cpu")
				}
				for bi, b := range []uint64{max(gb/4, tightBudget(g)), tightBudget(g)} {
					for _, unshared := range []bool{false, true} {
						e := &pbe.Engine{Budget: b, Unshared: unshared}
						if bi == 1 {
							e.Partitioner = partition.Ranges
						}
						how := fmt.Sprintf("graph %d, %s %v, budget %d (%v), unshared %v", gi, src, sem, b, e.Partitioner, unshared)
						res, st, err := e.CountStats(ctx, prob)
						if err != nil || res.Count != want.Count || st.Parts < 2 {
							t.Fatalf("%s: pbe %d (%d parts, intra %d, inter %d, err %v), cpu %d", how, res.Count, st.Parts,
								st.IntraMatches, st.InterMatches, err, want.Count)
						}
						if st.InterMatches > 0 {
							inter++
						}
						if list {
							if got := matchSet(t, e, prob, how); !slices.EqualFunc(got, cpuList, slices.Equal) {
								t.Fatalf("%s: pbe lists %d matches, cpu %d", how, len(got), len(cpuList))
							}
							listed++
						}
					}
				}
			}
		}
	}
	if inter < 50 || listed < 50 {
		t.Fatalf("%d runs with inter-partition matches, %d listed", inter, listed)
	}
}
