package pbe

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/engine/internal/shapes"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
)

// pathWedgePatterns are the shapes of branch pbehouse with every vertex labelled vl and every
// edge el ("": a wildcard): a path of 4 vertices, a 4-cycle, a house (the cycle a-b-c-d, the
// roof e on a-b) and a tailed 4-cycle (e on a), each with the name Stats.InterShape gives it.
func pathWedgePatterns(t *testing.T, vl, el string) []struct {
	name string
	p    *pattern.Pattern
} {
	return []struct {
		name string
		p    *pattern.Pattern
	}{
		{"4-path", uniformPattern(t, vl, el, []string{"a", "b", "c", "d"})},
		{"4-cycle", uniformPattern(t, vl, el, []string{"a", "b", "c", "d", "a"})},
		{"house", uniformPattern(t, vl, el, []string{"a", "b", "c", "d", "a"}, []string{"a", "e", "b"})},
		{"tailed-4-cycle", uniformPattern(t, vl, el, []string{"a", "b", "c", "d", "a"}, []string{"a", "e"})},
	}
}

// TestInterPathWedgeShapesExactlyOnce: on small dense graphs (a 5-clique, 6-8 vertices at
// random), under a spread sample of the assignments of their vertices to up to three parts
// (every one on the 5-clique), the shape counts of paths of 4 vertices, 4-cycles, houses and
// tailed 4-cycles in the non-induced conventions, and of induced 4-paths and 4-cycles, equal the
// oracle's matches that meet two parts or more, on 1 and 3 threads (induced houses and tailed
// 4-cycles are no shape). A count that takes an instance within a part, or one twice (a house's
// roof among its cycle's vertices), fails.
func TestInterPathWedgeShapesExactlyOnce(t *testing.T) {
	ctx := context.Background()
	graphs := []*graph.Graph{gen.RandomGraph(1, 5, 1, 1, 1), gen.RandomGraph(2, 6, 0.8, 1, 1), gen.RandomGraph(3, 7, 0.7, 1, 1), gen.RandomGraph(4, 8, 0.55, 1, 1)}
	nonzero := map[string]int{}
	for gi, g := range graphs {
		n := g.NumVertices()
		for _, pc := range pathWedgePatterns(t, "", "") {
			for _, sem := range proptest.AllSemantics {
				prob := &engine.Problem{Data: g, Pattern: pc.p, Semantics: sem}
				sh, ok := shapes.Of(prob, 0)
				if ok != (!sem.Induced || inducedShape(pc.name)) || ok && sh.Name() != pc.name {
					t.Fatalf("%s %v: a shape %v (%q)", pc.p, sem, ok, sh.Name())
				}
				if !ok {
					continue
				}
				matches, ok := oracle.ListWithin(g, pc.p, sem, proptest.OracleBudget)
				if !ok {
					t.Fatalf("graph %d, %s %v: the oracle gave up", gi, pc.p, sem)
				}
				of := make([]uint32, n)
				assignments := 1
				for range n {
					assignments *= 3
				}
				for a := 0; a < assignments; a += 1 + assignments/300 {
					for v, x := 0, a; v < n; v, x = v+1, x/3 {
						of[v] = uint32(x % 3)
					}
					var want uint64
					for _, m := range matches {
						if spans(of, m) {
							want++
						}
					}
					for _, threads := range []int{1, 3} {
						sh.Threads = threads
						if got, err := sh.Count(ctx, prob, of); err != nil || got != want {
							t.Fatalf("graph %d, parts %v, %s %v, %d threads: %d spanning, oracle %d (%v)", gi, of, pc.p, sem, threads, got, want, err)
						}
					}
					if want > 0 {
						nonzero[pc.name]++
					}
				}
			}
		}
	}
	for _, pc := range pathWedgePatterns(t, "", "") {
		if nonzero[pc.name] < 100 {
			t.Fatalf("%s: only %d cases had spanning instances", pc.name, nonzero[pc.name])
		}
	}
}

// TestInterPathWedgeShapesAgainstOracle: on random graphs and small R-MAT graphs with 1-2
// labels of each kind, paths of 4 vertices, 4-cycles, houses and tailed 4-cycles of uniform
// labels (a wildcard for either kind at times) cut at random into 2-4 parts, in ranges, odd
// against even ids, or a part a vertex, are counted as shapes (induced: 4-paths and 4-cycles
// on graphs without edge labels) equal to the oracle's matches that span parts, on 1 and 3 threads; and the whole pbe count, by the
// multilevel, grow and ranges partitioners at a third and a sixth of the graph, equals the
// oracle's, with the shape named in Stats and its inter count the seeded search's (noShapes).
func TestInterPathWedgeShapesAgainstOracle(t *testing.T) {
	ctx := context.Background()
	seeds, _ := proptest.Seeds(t, 400, 80)
	found, labelled, whole := map[string]int{}, map[string]int{}, map[string]int{}
	for _, seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 77))
		vls, els := 1+r.IntN(2), 1+r.IntN(2)
		g := gen.RandomGraph(seed, 10+r.IntN(8), 0.3+0.4*r.Float64(), vls, els)
		if seed%3 == 2 {
			var err error
			if g, err = gen.RMAT(gen.RMATOptions{Scale: 5, EdgeFactor: 3 + r.IntN(3), VertexLabels: vls, EdgeLabels: els, Seed: seed}); err != nil {
				t.Fatal(err)
			}
		}
		cuts := lastSeedsCutsOrSingles(t, g, seed)
		c := cuts[int(seed)%len(cuts)]
		vl, el := "", ""
		if vls > 1 || r.IntN(2) == 0 {
			vl = strconv.Itoa(r.IntN(vls))
		}
		if els > 1 || r.IntN(2) == 0 {
			el = strconv.Itoa(r.IntN(els))
		}
		for _, pc := range pathWedgePatterns(t, vl, el) {
			for _, sem := range proptest.AllSemantics {
				prob := &engine.Problem{Data: g, Pattern: pc.p, Semantics: sem, Threads: 2}
				what := fmt.Sprintf("seed %d: %s %v on %d vertices (%d vertex labels, %d edge labels), %s", seed, pc.p, sem, g.NumVertices(), vls, els, c.name)
				sh, isShape := shapes.Of(prob, 0)
				_, oneLabel := g.UniformVertexLabel()
				wildLabels := vl == "" && !oneLabel || el == "" && g.HasEdgeLabels() // (no uniform run: not a shape)
				shapeWanted := !wildLabels && (!sem.Induced || inducedShape(pc.name) && !g.HasEdgeLabels())
				if isShape != shapeWanted || isShape && sh.Name() != pc.name {
					t.Fatalf("%s: a shape %v (%q)", what, isShape, sh.Name())
				}
				if !isShape {
					continue
				}
				want, ok := interOracle(g, pc.p, sem, c.of)
				if !ok {
					continue
				}
				for _, threads := range []int{1, 3} {
					sh.Threads = threads
					if got, err := sh.Count(ctx, prob, c.of); err != nil || got != want {
						t.Fatalf("%s, %d threads: the shape counts %d, oracle %d (%v)", what, threads, got, want, err)
					}
				}
				if want > 0 {
					found[pc.name]++
					if !oneLabel || g.HasEdgeLabels() {
						labelled[pc.name]++
					}
				}
				all := oracle.Count(g, pc.p, sem)
				for i, m := range []partition.Method{partition.Multilevel, partition.Grow, partition.Ranges} {
					budget := max(partition.GraphBytes(g)/uint64(3+3*(i%2)), MinBudget(g), 64)
					res, st, err := (&Engine{Budget: budget, Partitioner: m}).CountStats(ctx, prob)
					_, ref, err2 := (&Engine{Budget: budget, Partitioner: m, noShapes: true}).CountStats(ctx, prob)
					if err != nil || err2 != nil || res.Count != all || st.InterMatches != ref.InterMatches || st.Parts > 1 && st.InterShape != pc.name {
						t.Fatalf("%s, partitioner %v at %d bytes: pbe %d (inter %d by %q, %d parts), oracle %d, the seeded search's inter %d (%v, %v)",
							what, m, budget, res.Count, st.InterMatches, st.InterShape, st.Parts, all, ref.InterMatches, err, err2)
					}
					if st.Parts > 1 && st.InterMatches > 0 {
						whole[pc.name]++
					}
				}
			}
		}
	}
	t.Logf("spanning instances found %v (labelled %v), whole counts by the shape with inter matches %v", found, labelled, whole)
	for _, pc := range pathWedgePatterns(t, "", "") {
		if len(seeds) >= 20 && (found[pc.name] < len(seeds)/4 || labelled[pc.name] == 0 || whole[pc.name] == 0) {
			t.Fatalf("%s: %d cases with spanning instances, %d labelled, %d whole counts: the oracle checks little", pc.name, found[pc.name], labelled[pc.name], whole[pc.name])
		}
	}
}

// TestPathWedgeShapePrices: the prediction prices 4-paths as the edges' pass
// (ShapePassSlowdown), 4-cycles at ShapeWedgeSlowdown, houses and tailed 4-cycles at
// ShapeHouseSlowdown times its price, not as the seeded search; induced 4-paths and 4-cycles as
// the passes their sums take and the clique counter's 4-cliques; induced houses and tailed
// 4-cycles, which search, are no shape.
func TestPathWedgeShapePrices(t *testing.T) {
	g := gen.RandomGraphM(5, 200, 1200, 1, 1)
	pass := cpu.SupportPassSeconds(g, 2)
	for i, pc := range pathWedgePatterns(t, "", "") {
		for _, induced := range []bool{false, true} {
			w := &engine.Workload{Problem: &engine.Problem{Data: g, Pattern: pc.p, Threads: 2, Semantics: engine.Semantics{Induced: induced}}, Threads: 2}
			s, ok := shapeSeconds(w)
			want := []float64{ShapePassSlowdown, ShapeWedgeSlowdown, ShapeHouseSlowdown, ShapeHouseSlowdown}[i] * pass
			if induced {
				want = []float64{3*ShapePassSlowdown + ShapeWedgeSlowdown, ShapePassSlowdown + ShapeWedgeSlowdown, 0, 0}[i]*pass +
					ShapeCliqueSlowdown*cpu.CliqueSeconds(4, w.UpwardSquares(), 2)
			}
			if ok != (!induced || inducedShape(pc.name)) || ok && (math.Abs(s-want) > 1e-12*want || s <= 0) {
				t.Errorf("%s (induced %v): priced as a shape %v, %v s, want %v", pc.name, induced, ok, s, want)
			}
		}
	}
}

// TestWedgeShapeOf: the wedge shapes are told from the patterns of the same degrees: K2,3 (a
// house's degrees, its two hubs apart), a triangle with a tail of two (a tailed 4-cycle's, the
// leaf on a vertex of degree 2), two triangles (six vertices of degree 2), a 5-cycle.
func TestWedgeShapeOf(t *testing.T) {
	for q, want := range map[string]shapes.Wedge{
		"(a)-(b)-(c)-(d)-(a)":                        shapes.WedgeCycle,
		"(a)-(b)-(c)-(d)-(a), (a)-(e)-(b)":           shapes.WedgeHouse,
		"(a)-(b)-(c)-(d)-(a), (b)-(e)":               shapes.WedgeTailedCycle,
		"(a)-(c)-(b)-(d)-(a), (a)-(e)-(b)":           shapes.NoWedge, // K2,3
		"(a)-(b)-(c)-(a), (a)-(d)-(e)":               shapes.NoWedge,
		"(a)-(b)-(c)-(a), (d)-(e)-(f)-(d)":           shapes.NoWedge,
		"(a)-(b)-(c)-(d)-(e)-(a)":                    shapes.NoWedge,
		"(a)-(b)-(c)-(d)-(a), (a)-(c)":               shapes.NoWedge, // a diamond: a shape of the edges' pass
		"(a)-(b)-(c)-(d)-(a), (a)-(e), (c)-(f)":      shapes.NoWedge,
		"(a)-(b)-(c)-(d)-(a), (a)-(e)-(b), (c)-(e)":  shapes.NoWedge,
		"(a)-(b)-(c)-(d)-(a), (a)-(e), (b)-(e)-(c)":  shapes.NoWedge,
		"(a)-(b)-(c)-(d)-(a), (a)-(e), (e)-(b)-(d)":  shapes.NoWedge,
		"(a)-(b)-(c)-(d)-(a), (e)-(a), (e)-(b), (f)": shapes.NoWedge,
	} {
		p, err := pattern.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		if got := shapes.WedgeOf(p); got != want {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
}

// inducedShape says that the shape of pathWedgePatterns named name is one in induced counts too
// (inducedFour).
func inducedShape(name string) bool { return name == "4-path" || name == "4-cycle" }
