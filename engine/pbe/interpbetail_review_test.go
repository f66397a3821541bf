package pbe

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/internal/shapes"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
)

// TestInterRandomPatternsAgainstOracle (review of branch pbetail) counts the inter stage of
// random connected patterns of 3-5 vertices (spanning trees, so often leaves, plus random extra
// edges) with random vertex and edge labels, some of them wildcards, on random graphs and small
// R-MAT graphs of 1-3 vertex labels and 1-3 edge labels, cut (lastSeedsCuts) at random into 2-4 parts,
// into parts of one vertex each, odd against even ids, or consecutive ranges, in every convention,
// against the oracle's matches that span parts (shared and not, 1 and 3 threads): the fixed
// pattern lists of TestInterLastSeedsAgainstOracle have no wildcards and one edge label. On
// the same graph and cut, a tailed triangle of random uniform labels (a wildcard for either
// kind at times) is counted as a shape against the oracle, and the whole pbe count against
// it. The runs must include leaf-seed programs counting the last position alone
// (countLastSeeds), with it adjacent to the root and not, steps with runOthers, wildcard
// patterns on labelled graphs, and spanning tailed triangles counted as the shape.
func TestInterRandomPatternsAgainstOracle(t *testing.T) {
	seeds, _ := proptest.Seeds(t, 3000, 300)
	ctx := context.Background()
	var ran, found, lastRooted, lastUnrooted, runOthers, wildLabelled, paws, pawsFound, engineShapes int
	for _, seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 31))
		vls, els := 1+r.IntN(3), 1+r.IntN(3)
		g := gen.RandomGraph(seed, 8+r.IntN(9), 0.25+0.4*r.Float64(), vls, els)
		if seed%3 == 2 {
			var err error
			if g, err = gen.RMAT(gen.RMATOptions{Scale: 5 + r.IntN(2), EdgeFactor: 2 + r.IntN(4), VertexLabels: vls, EdgeLabels: els, Seed: seed}); err != nil {
				t.Fatal(err)
			}
		}
		// lastSeedsCuts' three cuts, or every vertex a part of its own.
		cuts := lastSeedsCutsOrSingles(t, g, seed)
		c := cuts[r.IntN(len(cuts))]
		of, cut := c.of, c.name
		p := gen.RandomPattern(seed, 3+r.IntN(3), gen.PatternOptions{EdgeProb: 0.5 * r.Float64(), VertexLabels: vls, EdgeLabels: els, Wildcard: 0.3 * r.Float64()})
		wild := slices.ContainsFunc(p.Edges(), func(e pattern.Edge) bool { return e.Label.Any })
		for u := range p.NumVertices() {
			wild = wild || p.VertexLabel(u).Any
		}
		for _, sem := range proptest.AllSemantics {
			want, ok := interOracle(g, p, sem, of)
			if !ok {
				continue
			}
			prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem}
			what := fmt.Sprintf("seed %d: %s on %d vertices (%d vertex labels, %d edge labels), %s", seed, p, g.NumVertices(), vls, els, cut)
			checkInterCounts(t, prob, of, want, []int{1, 3}, what, func(ip *interPlan) {
				for _, pr := range ip.programs {
					if tail, leafSeed := pr.counted(true); leafSeed && tail == len(pr.steps)-1 {
						if slices.ContainsFunc(pr.steps[tail].back, func(b backEdge) bool { return b.pos == 0 }) {
							lastRooted++
						} else {
							lastUnrooted++
						}
					}
					for _, st := range pr.steps {
						if len(st.runOthers) > 0 {
							runOthers++
						}
					}
				}
			})
			if sh, ok := shapes.Of(prob, 0); ok {
				if got, err := sh.Count(ctx, prob, of); err != nil || got != want {
					t.Fatalf("%s %v: the %s shape counts %d, oracle %d (%v)", what, sem, sh.Name(), got, want, err)
				}
			}
			ran++
			if want > 0 {
				found++
				if wild && (g.HasEdgeLabels() || vls > 1) {
					wildLabelled++
				}
			}
		}
		// A tailed triangle of uniform labels: the shape and the whole count.
		vl, el := "", ""
		if r.IntN(4) > 0 {
			vl = strconv.Itoa(r.IntN(vls))
		}
		if r.IntN(4) > 0 {
			el = strconv.Itoa(r.IntN(els))
		}
		paw := pawPattern(t, vl, el)
		for _, sem := range []engine.Semantics{{}, {Unique: true}} {
			prob := &engine.Problem{Data: g, Pattern: paw, Semantics: sem, Threads: 2}
			want, ok := interOracle(g, paw, sem, of)
			sh, isShape := shapes.Of(prob, 0)
			if !ok || !isShape {
				continue
			}
			paws++
			if want > 0 {
				pawsFound++
			}
			if got, err := sh.Count(ctx, prob, of); err != nil || got != want {
				t.Fatalf("seed %d: %s %v on %d vertices (%d vertex labels, %d edge labels), %s: the shape counts %d, oracle %d (%v)",
					seed, paw, sem, g.NumVertices(), vls, els, cut, got, want, err)
			}
			res, st, err := (&Engine{Budget: max(64, MinBudget(g))}).CountStats(ctx, prob)
			if whole := oracle.Count(g, paw, sem); err != nil || res.Count != whole {
				t.Fatalf("seed %d: %s %v: pbe counts %d (%d parts, shape %q), oracle %d (%v)", seed, paw, sem, res.Count, st.Parts, st.InterShape, whole, err)
			}
			if st.InterShape == "tailed-triangle" {
				engineShapes++
			}
		}
	}
	t.Logf("%d runs (%d with matches, %d of wildcard patterns on labelled graphs); leaf-seed programs counting the last step alone: %d rooted, %d not; %d steps with runOthers; %d tailed triangles as shapes (%d with matches, %d in the whole count)",
		ran, found, wildLabelled, lastRooted, lastUnrooted, runOthers, paws, pawsFound, engineShapes)
	if len(seeds) >= 20 && (found < ran/3 || lastRooted == 0 || lastUnrooted == 0 || runOthers == 0 || wildLabelled == 0 || pawsFound == 0 || engineShapes == 0) {
		t.Fatal("the random cases miss a path they are meant to check")
	}
}
