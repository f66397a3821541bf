package pbe

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/partition"
)

// TestInterLastSeedsAgainstOracle counts the inter stage of patterns whose leaf-seed programs
// count the last position alone after the seeds (countLastSeeds, branch pbetail: every candidate
// of the last step counted once with the seeds below its threshold): PBE's tailed triangle, paths
// of 3-5 vertices (the last step not adjacent to the root, so a candidate may be a seed, and a
// placed vertex may be a seed below the cut), a diamond and a house with a tail, and labelled
// ones where the last step's label is the seed's, on unlabelled and labelled random graphs and
// small R-MAT graphs, each cut three ways (consecutive ranges, every vertex in a random part of
// 2-4, and odd against even ids), in every convention, against the oracle's matches that span
// parts and the same plan enumerated (no counted tail, every seed on its own), on 1 and 3
// threads. The programs must include leaf-seed programs counting the last step alone, with it
// adjacent to the root and not, or the test checks nothing of countLastSeeds.
func TestInterLastSeedsAgainstOracle(t *testing.T) {
	unlabelled := []string{
		"(a)-(b)-(c)-(a), (a)-(d)",
		"(a)-(b)-(c)",
		"(a)-(b)-(c)-(d)",
		"(a)-(b)-(c)-(d)-(e)",
		"(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(x)",
		"(a)-(b)-(c)-(d)-(a), (e)-(a), (e)-(b), (c)-(x)",
	}
	labelled := []string{
		"(h:1)-[:0]-(a:0), (h)-[:0]-(b:2)-[:0]-(c:0)-[:0]-(h)",
		"(a:0)-[:0]-(b:0)-[:0]-(c:1)-[:0]-(d:0)",
		"(a:0)-[:0]-(b:1)-[:0]-(c:0)-[:0]-(d:1)-[:0]-(e:0)",
	}
	var lastSeeds, unrooted, ran, found int
	for seed := range uint64(6) {
		var g *graph.Graph
		srcs := unlabelled
		switch seed % 3 {
		case 0:
			g = gen.RandomGraph(seed, 13+int(seed), 0.45, 1, 1)
		case 1:
			var err error
			if g, err = gen.RMAT(gen.RMATOptions{Scale: 6, EdgeFactor: 4, Seed: seed}); err != nil {
				t.Fatal(err)
			}
		default:
			g, srcs = gen.RandomGraph(seed, 14, 0.5, 3, 1), labelled
		}
		for _, cut := range lastSeedsCuts(t, g, seed) {
			for c := range oracleCases(t, g, cut.of, srcs) {
				ip, err := interPlanFor(context.Background(), c.prob, true, true)
				if err != nil {
					t.Fatal(err)
				}
				for _, pr := range ip.programs {
					if tail, leafSeed := pr.counted(true); leafSeed && tail == len(pr.steps)-1 {
						lastSeeds++
						if !slices.ContainsFunc(pr.steps[tail].back, func(b backEdge) bool { return b.pos == 0 }) {
							unrooted++
						}
					}
				}
				what := fmt.Sprintf("seed %d %s %v, %s", seed, c.src, c.prob.Semantics, cut.name)
				sameAsOracle(t, what, g, cut.of, ip, c.want, 1, 3)
				ran++
				if c.want > 0 {
					found++
				}
			}
		}
	}
	if lastSeeds == 0 || unrooted == 0 || found < ran/2 {
		t.Fatalf("%d leaf-seed programs counting the last step alone (%d of it not adjacent to the root); %d of %d runs found matches", lastSeeds, unrooted, found, ran)
	}
	t.Logf("%d runs (%d with matches); %d leaf-seed programs counting the last step alone, %d of it not adjacent to the root", ran, found, lastSeeds, unrooted)
}

// lastSeedsCut is a named assignment of g's vertices to parts.
type lastSeedsCut struct {
	name string
	of   []uint32
}

// lastSeedsCuts cuts g three ways: consecutive ranges (the partitioner's Ranges at a third of
// the graph, or at the least budget a vertex's halo fits), every vertex in a random part of 2-4,
// and odd against even ids.
func lastSeedsCuts(t *testing.T, g *graph.Graph, seed uint64) []lastSeedsCut {
	t.Helper()
	budget := max(partition.GraphBytes(g)/3, MinBudget(g), 64) // (a third: below a dense vertex's halo)
	pt, err := partition.Partition(context.Background(), g, partition.Options{Budget: budget, Method: partition.Ranges})
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	ranges := fmt.Sprintf("ranges (%d parts)", len(pt.Parts))
	if len(pt.Parts) < 2 { // (a vertex's halo is the whole graph: the lower and upper halves)
		for v := range pt.Of {
			pt.Of[v] = uint32(2 * v / len(pt.Of))
		}
		ranges = "halves"
	}
	r := rand.New(rand.NewPCG(seed, 31))
	parts := 2 + r.IntN(3)
	random, parity := make([]uint32, g.NumVertices()), make([]uint32, g.NumVertices())
	for v := range random {
		random[v], parity[v] = uint32(r.IntN(parts)), uint32(v%2)
	}
	return []lastSeedsCut{
		{ranges, pt.Of},
		{fmt.Sprintf("random (%d parts)", parts), random},
		{"odd and even", parity},
	}
}

// lastSeedsCutsOrSingles is lastSeedsCuts and a fourth cut, every vertex a part of its own.
func lastSeedsCutsOrSingles(t *testing.T, g *graph.Graph, seed uint64) []lastSeedsCut {
	t.Helper()
	singles := make([]uint32, g.NumVertices())
	for v := range singles {
		singles[v] = uint32(v)
	}
	return append(lastSeedsCuts(t, g, seed), lastSeedsCut{"parts of one vertex", singles})
}
