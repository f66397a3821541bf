package pbe

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/engine/internal/shapes"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
)

// wedgeNearMisses are patterns of 4-6 vertices whose degrees resemble the shapes of branch
// pbehouse but which are none of them (K2,3, a triangle with a tail of two, a bull, a 5-cycle,
// a path of 5, a 4-cycle with two pendants, a star), every vertex labelled vl, every edge el:
// shapeOf must take none of them for a 4-path or a wedge shape.
func wedgeNearMisses(t *testing.T, vl, el string) []*pattern.Pattern {
	return []*pattern.Pattern{
		uniformPattern(t, vl, el, []string{"a", "c", "b", "d", "a"}, []string{"a", "e", "b"}), // K2,3
		uniformPattern(t, vl, el, []string{"a", "b", "c", "a"}, []string{"a", "d", "e"}),      // triangle, tail of two
		uniformPattern(t, vl, el, []string{"a", "b", "c", "a"}, []string{"a", "d"}, []string{"b", "e"}),
		uniformPattern(t, vl, el, []string{"a", "b", "c", "d", "e", "a"}),
		uniformPattern(t, vl, el, []string{"a", "b", "c", "d", "e"}),
		uniformPattern(t, vl, el, []string{"a", "b", "c", "d", "a"}, []string{"a", "e"}, []string{"c", "f"}),
		uniformPattern(t, vl, el, []string{"a", "b"}, []string{"a", "c"}, []string{"a", "d"}),
	}
}

// reviewCut is a random assignment of n vertices to parts: 2-5 parts or a part a vertex, with
// ids spread so that some parts are empty, and at times one vertex alone in a part of its own.
func reviewCut(r *rand.Rand, n int) []uint32 {
	of := make([]uint32, n)
	k := 2 + r.IntN(4)
	spread := uint32(1 + r.IntN(3)) // (2, 3: empty parts between)
	for v := range of {
		of[v] = spread * uint32(r.IntN(k))
		if k == 5 {
			of[v] = uint32(v) // a part a vertex
		}
	}
	if n > 0 && r.IntN(3) == 0 {
		of[r.IntN(n)] = 1000 // one vertex alone
	}
	return of
}

// withHubs is g with h of its vertices joined to every other vertex (the vertices with
// neighbours in every part: their in-part degrees, deg - ext, are small against deg), labels
// kept, the hubs' new edges labelled at random among els.
func withHubs(r *rand.Rand, g *graph.Graph, h, els int) (*graph.Graph, error) {
	n := g.NumVertices()
	b := graph.NewBuilder(graph.BuilderOptions{})
	for v := range n {
		if _, err := b.Vertex(int64(v)); err != nil {
			return nil, err
		}
		if err := b.SetVertexLabel(int64(v), g.VertexLabel(uint32(v))); err != nil {
			return nil, err
		}
	}
	adjacent := map[[2]int]bool{}
	add := func(v, w int, el uint32) error {
		if adjacent[[2]int{min(v, w), max(v, w)}] {
			return nil
		}
		adjacent[[2]int{min(v, w), max(v, w)}] = true
		return b.AddEdge(int64(v), int64(w), el)
	}
	for v := range n {
		ls := g.NeighborEdgeLabels(uint32(v))
		for i, w := range g.Neighbors(uint32(v)) {
			var el uint32
			if ls != nil {
				el = ls[i]
			}
			if err := add(v, int(w), el); err != nil {
				return nil, err
			}
		}
	}
	for k := range h {
		hub := r.IntN(n)
		for w := range n {
			if w != hub && (k == 0 || r.IntN(4) > 0) {
				if err := add(hub, w, uint32(r.IntN(els))); err != nil {
					return nil, err
				}
			}
		}
	}
	return b.Build()
}

// TestWedgeShapesRandomReview (review rev34 of pbehouse): on random graphs of 9-16 vertices
// with 1-2 labels of each kind and 0-2 hubs (vertices with neighbours in every part), under
// random cuts (2-4 parts with empty part ids between them, a part a vertex, a vertex alone),
// the 4-path, 4-cycle, house and tailed 4-cycle shapes of uniform labels (wildcards at times)
// count the oracle's spanning matches in every convention on 1 and 2 threads; patterns of
// like degrees that are none of them (K2,3, a triangle with a tail of two, a bull, ...) are no
// wedge shape; and the whole pbe count of all of them, at small budgets by three partitioners,
// equals the CPU engine's.
func TestWedgeShapesRandomReview(t *testing.T) {
	ctx := context.Background()
	seeds, _ := proptest.Seeds(t, 300, 100)
	counted, whole := map[string]int{}, map[string]int{}
	for _, seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 34))
		vls, els := 1+r.IntN(2), 1+r.IntN(2)
		g := gen.RandomGraph(seed, 9+r.IntN(8), 0.25+0.35*r.Float64(), vls, els)
		if h := r.IntN(3); h > 0 {
			var err error
			if g, err = withHubs(r, g, h, els); err != nil {
				t.Fatal(err)
			}
		}
		vl, el := "", ""
		if vls > 1 || r.IntN(2) == 0 {
			vl = strconv.Itoa(r.IntN(vls))
		}
		if els > 1 || r.IntN(2) == 0 {
			el = strconv.Itoa(r.IntN(els))
		}
		of := reviewCut(r, g.NumVertices())
		var pats []*pattern.Pattern
		for _, pc := range pathWedgePatterns(t, vl, el) {
			pats = append(pats, pc.p)
		}
		misses := wedgeNearMisses(t, vl, el)
		pats = append(pats, misses...)
		for i, p := range pats {
			miss := i >= 4
			for _, sem := range proptest.AllSemantics {
				prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 2}
				what := fmt.Sprintf("seed %d: %s %v on %d vertices (%d vertex labels, %d edge labels), parts %v", seed, p, sem, g.NumVertices(), vls, els, of)
				sh, isShape := shapes.Of(prob, 0)
				if miss && isShape && (sh.Work().Wedge != shapes.NoWedge || sh.Name() == "4-path") {
					t.Fatalf("%s: taken for a %s", what, sh.Name())
				}
				if isShape {
					want, ok := interOracle(g, p, sem, of)
					if !ok {
						t.Fatalf("%s: the oracle gave up", what)
					}
					for _, threads := range []int{1, 2} {
						sh.Threads = threads
						if got, err := sh.Count(ctx, prob, of); err != nil || got != want {
							t.Fatalf("%s, %d threads: the %s shape counts %d, oracle %d (%v)", what, threads, sh.Name(), got, want, err)
						}
					}
					if want > 0 {
						counted[sh.Name()]++
					}
				}
				ref, err := cpu.Engine{}.Count(ctx, prob)
				if err != nil {
					t.Fatal(err)
				}
				m := []partition.Method{partition.Multilevel, partition.Grow, partition.Ranges}[r.IntN(3)]
				budget := max(partition.GraphBytes(g)/uint64(2+r.IntN(6)), MinBudget(g), 64)
				res, st, err := (&Engine{Budget: budget, Partitioner: m}).CountStats(ctx, prob)
				if err != nil || res.Count != ref.Count {
					t.Fatalf("%s, partitioner %v at %d bytes: pbe %d (inter %d by %q, %d parts), the CPU engine %d (%v)",
						what, m, budget, res.Count, st.InterMatches, st.InterShape, st.Parts, ref.Count, err)
				}
				if st.InterShape != "" && st.InterMatches > 0 {
					whole[st.InterShape]++
				}
			}
		}
	}
	t.Logf("shapes counted with spanning instances: %v; whole counts by a shape with inter matches: %v", counted, whole)
	if len(seeds) >= 20 {
		for _, name := range []string{"4-path", "4-cycle", "house", "tailed-4-cycle"} {
			if counted[name] < len(seeds)/4 || whole[name] == 0 {
				t.Fatalf("%s: %d cases with spanning instances, %d whole counts: the oracle checks little", name, counted[name], whole[name])
			}
		}
	}
}

// TestWedgeShapesCancelled (review rev34): the wedge shapes' and the induced identities' inter
// stage under a cancelled context ends with the context's error, and the count is partial.
func TestWedgeShapesCancelled(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 9, EdgeFactor: 8, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	of := make([]uint32, g.NumVertices())
	for v := range of {
		of[v] = uint32(v % 3)
	}
	for _, pc := range pathWedgePatterns(t, "", "") {
		for _, sem := range proptest.AllSemantics {
			e := &Engine{Budget: partition.GraphBytes(g) / 4, Partitioner: partition.Grow}
			prob := &engine.Problem{Data: g, Pattern: pc.p, Semantics: sem, Threads: 2}
			sh, ok := e.shapeFor(prob, &Stats{})
			if !ok {
				continue
			}
			cctx, cancel := context.WithCancel(context.Background())
			cancel()
			if err := e.interByShape(cctx, prob, of, sh, &Stats{}); !errors.Is(err, context.Canceled) {
				t.Errorf("%s %v: %v", pc.name, sem, err)
			}
			if res, _, err := e.CountStats(cctx, prob); err == nil || !res.Partial {
				t.Errorf("%s %v: cancelled count %d, partial %v (%v)", pc.name, sem, res.Count, res.Partial, err)
			}
		}
	}
}
