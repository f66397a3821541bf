package shapes

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
)

// reviewShapes are the shapes' patterns as edge lists (review rev35), with whether an induced
// count is a shape (cliques, diamonds, and inducedFour's 4-paths and 4-cycles).
var reviewShapes = []struct {
	name    string
	edges   [][2]int
	induced bool
}{
	{"3-clique", [][2]int{{0, 1}, {1, 2}, {2, 0}}, true},
	{"4-clique", [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}, true},
	{"diamond", [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}}, true},
	{"tailed-triangle", [][2]int{{0, 1}, {1, 2}, {2, 0}, {0, 3}}, false},
	{"4-path", [][2]int{{0, 1}, {1, 2}, {2, 3}}, true},
	{"4-cycle", [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}}, true},
	{"house", [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 4}, {4, 1}}, false},
	{"tailed-4-cycle", [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {1, 4}}, false},
}

// spanningOracle is the oracle's matches of p in g under sem whose vertices lie in more than
// one part of of (all of them when of is nil).
func spanningOracle(g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, of []uint32) uint64 {
	if of == nil {
		return oracle.Count(g, p, sem)
	}
	var n uint64
	for _, m := range oracle.List(g, p, sem) {
		for _, v := range m[1:] {
			if of[v] != of[m[0]] {
				n++
				break
			}
		}
	}
	return n
}

// TestShapesRandomReview (review rev35 of wildshape and cpushapes): on random graphs of up to
// 11 vertices (empty ones, isolated vertices, one vertex label other than 0, several, edge
// labels or none), every shape with its vertices and edges each a wildcard or an exact label
// (the graph's or not), in every convention: Of takes exactly the patterns it should (induced:
// cliques, diamonds, 4-paths and 4-cycles, unless an exact edge label on an edge-labelled
// graph) in bytes that hold the copy of the lists without the wildcards' labels, and Count,
// over the whole graph (of nil) and over random parts, on 1 to 3 threads and
// under random memory limits, equals the brute-force oracle.
func TestShapesRandomReview(t *testing.T) {
	ctx := context.Background()
	trials := 1500
	if testing.Short() {
		trials = 120
	}
	rng := rand.New(rand.NewPCG(35, 1206))
	checked := 0
	for trial := range trials {
		g, l := proptest.LabelledGraph(t, rng)
		n := g.NumVertices()
		var of []uint32
		if trial%2 == 1 {
			of = make([]uint32, n)
			parts := 1 + rng.IntN(4)
			for v := range of {
				of[v] = uint32(rng.IntN(parts))
			}
		}
		for _, s := range reviewShapes {
			vl, el := l.PatternLabels(rng)
			p := proptest.EdgesPattern(t, s.edges, vl, el)
			for _, sem := range proptest.AllSemantics {
				what := fmt.Sprintf("trial %d (n=%d, %d vertex labels from %d, %d edge labels from %d, parts %v): %s (%d, %d) %v",
					trial, n, l.Vertex, l.Base, l.Edge, l.EdgeBase, of != nil, s.name, vl, el, sem)
				prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 1 + rng.IntN(3)}
				sh, ok := Of(prob, 0)
				wantShape := !sem.Induced || s.induced && (s.name == "3-clique" || s.name == "4-clique" || !g.HasEdgeLabels() || el < 0)
				if ok != wantShape || ok && sh.Name() != s.name {
					t.Fatalf("%s: a shape %v (%s), want %v", what, ok, sh.Name(), wantShape)
				}
				if !ok {
					continue
				}
				if copied := sh.Labels().GraphBytes(g); sh.Bytes < copied {
					t.Fatalf("%s: the shape takes %d bytes, the copy of its labels' graph %d", what, sh.Bytes, copied)
				}
				want := spanningOracle(g, p, sem, of)
				got, err := sh.Count(ctx, prob, of)
				if err != nil || got != want {
					t.Fatalf("%s: Count %d (%v), oracle %d", what, got, err, want)
				}
				checked++
				if limit := uint64(rng.IntN(int(sh.Bytes) + 2)); limit > 0 {
					lim, ok := Of(prob, limit)
					if !ok {
						continue
					}
					if lim.Bytes > limit {
						t.Fatalf("%s: within %d bytes the shape takes %d", what, limit, lim.Bytes)
					}
					if got, err := lim.Count(ctx, prob, of); err != nil || got != want {
						t.Fatalf("%s, within %d bytes: Count %d (%v), oracle %d", what, limit, got, err, want)
					}
				}
			}
		}
	}
	t.Logf("%d counts checked against the oracle", checked)
}
