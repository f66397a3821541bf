package pbe

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/internal/shapes"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
)

// TestInterShapesOfWildcards: patterns of wildcards (cliques of 3-6 vertices, diamonds, paws,
// 4-paths, 4-cycles, houses, tailed 4-cycles) on random graphs of 2-8 vertex labels and 1-3 edge
// labels, cut into 2-4 parts at random, are counted as shapes over every vertex and edge (the
// graph without its labels, plan.Labels.Graph), wherever the same shape is on a plain graph
// (induced paws, houses and tailed 4-cycles are not; induced diamonds, 4-paths and 4-cycles are,
// the edges' labels forgotten too), and their spanning counts equal the oracle's in every
// convention. Whole counts on the partitioner's parts equal the CPU engine's (checkWholeCount).
func TestInterShapesOfWildcards(t *testing.T) {
	ctx := context.Background()
	pats := map[string]*pattern.Pattern{
		"diamond":        diamondPattern(t, "", ""),
		"paw":            pawPattern(t, "", ""),
		"4-path":         uniformPattern(t, "", "", []string{"a", "b", "c", "d"}),
		"4-cycle":        uniformPattern(t, "", "", []string{"a", "b", "c", "d", "a"}),
		"house":          uniformPattern(t, "", "", []string{"a", "b", "c", "d", "a"}, []string{"a", "e", "b"}),
		"tailed 4-cycle": uniformPattern(t, "", "", []string{"a", "b", "c", "d", "a"}, []string{"a", "e"}),
	}
	for k := 3; k <= 6; k++ {
		pats[fmt.Sprintf("%d-clique", k)] = proptest.Clique(t, k, "", "")
	}
	notInduced := map[string]bool{"paw": true, "house": true, "tailed 4-cycle": true}
	seeds, _ := proptest.Seeds(t, 40, 10)
	checked := 0
	for _, seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, 31))
		g := gen.RandomGraph(seed, 12+int(seed%8), 0.4+0.05*float64(seed%5), 2+int(seed%7), 1+int(seed/3%3))
		of := make([]uint32, g.NumVertices())
		parts := 2 + rng.IntN(3)
		for v := range of {
			of[v] = uint32(rng.IntN(parts))
		}
		for name, p := range pats {
			for _, sem := range proptest.AllSemantics {
				prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem}
				sh, ok := shapes.Of(prob, 0)
				if ok == (sem.Induced && notInduced[name]) {
					t.Fatalf("seed %d: %s %v: a shape %v", seed, name, sem, ok)
				}
				if !ok {
					continue
				}
				if _, uniform := g.UniformVertexLabel(); uniform == sh.Labels().AnyVertex || g.HasEdgeLabels() != sh.Labels().AnyEdge {
					t.Fatalf("seed %d: %s: labels %+v on a graph of one vertex label %v, edge labels %v", seed, name, sh.Labels(), uniform, g.HasEdgeLabels())
				}
				want, ok := oracleSpanning(g, p, sem, of)
				if !ok {
					continue
				}
				for _, threads := range []int{1, 3} {
					sh.Threads = threads
					if got, err := sh.Count(ctx, prob, of); err != nil || got != want {
						t.Fatalf("seed %d, %d parts, %s %v, %d threads: %d spanning, oracle %d (%v)", seed, parts, name, sem, threads, got, want, err)
					}
				}
				if want > 0 {
					checked++
				}
				checkWholeCount(t, g, p, sem, true, fmt.Sprintf("seed %d, %s", seed, name))
			}
		}
	}
	if checked < len(seeds) {
		t.Fatalf("%d cases had spanning instances: the oracle checks little", checked)
	}
}
