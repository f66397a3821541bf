package cpu

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/plan"
)

// reviewPatterns are the patterns the CPU engine counts apart (review rev35): the shapes and
// cliques of 4 and 5 vertices, as edge lists.
var reviewPatterns = []struct {
	name  string
	edges [][2]int
}{
	{"diamond", [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}}},
	{"tailed-triangle", [][2]int{{0, 1}, {1, 2}, {2, 0}, {0, 3}}},
	{"4-path", [][2]int{{0, 1}, {1, 2}, {2, 3}}},
	{"4-cycle", [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}}},
	{"house", [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 4}, {4, 1}}},
	{"tailed-4-cycle", [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {1, 4}}},
	{"4-clique", [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}},
	{"5-clique", [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 2}, {1, 3}, {1, 4}, {2, 3}, {2, 4}, {3, 4}}},
}

// TestShapesAndCliquesRandomReview (review rev35 of wildshape and cpushapes): the CPU engine's
// counts of the shapes and of 4- and 5-cliques, their vertices and edges each a wildcard or an
// exact label, on random graphs of up to 11 vertices (empty ones, isolated vertices, one vertex
// label other than 0, several, edge labels or none), in every convention, through Count,
// CountChecked and CountPlan, on 1 to 3 threads and under random memory limits, against the
// brute-force oracle; listing (Matches) lists the oracle's matches and takes no counter.
func TestShapesAndCliquesRandomReview(t *testing.T) {
	withShapes(t)
	ctx := context.Background()
	trials := 300
	if testing.Short() {
		trials = 80
	}
	rng := rand.New(rand.NewPCG(35, 612))
	counted := 0
	for trial := range trials {
		g, l := proptest.LabelledGraph(t, rng)
		for _, s := range reviewPatterns {
			vl, el := l.PatternLabels(rng)
			p := proptest.EdgesPattern(t, s.edges, vl, el)
			for _, sem := range proptest.AllSemantics {
				what := fmt.Sprintf("trial %d (n=%d, %d vertex labels from %d, %d edge labels from %d): %s (%d, %d) %v",
					trial, g.NumVertices(), l.Vertex, l.Base, l.Edge, l.EdgeBase, s.name, vl, el, sem)
				want := oracle.Count(g, p, sem)
				prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 1 + rng.IntN(3)}
				_, clique := plan.AsClique(g, p)
				_, shape := shapeFor(prob)
				if strings.HasSuffix(s.name, "clique") != clique || clique && shape {
					t.Fatalf("%s: a clique %v, a shape %v", what, clique, shape)
				}
				counted++
				used := shapeCountsUsed.Load()
				if got, err := (Engine{}).Count(ctx, prob); err != nil || got.Count != want || got.Partial {
					t.Fatalf("%s: Count %+v (%v), oracle %d", what, got, err, want)
				}
				if took := shapeCountsUsed.Load() - used; took != 0 != shape {
					t.Fatalf("%s: a shape %v, the counter taken %d times", what, shape, took)
				}
				used = shapeCountsUsed.Load()
				if got, err := (Engine{}).CountChecked(ctx, prob, func() error { return nil }); err != nil || got.Count != want {
					t.Fatalf("%s: CountChecked %+v (%v), oracle %d", what, got, err, want)
				}
				if took := shapeCountsUsed.Load() - used; took != 0 != shape {
					t.Fatalf("%s: a shape %v, CountChecked took the counter %d times", what, shape, took)
				}
				opts, err := PlanOptions(prob, false)
				if err != nil {
					t.Fatal(err)
				}
				pl, err := plan.BuildContext(ctx, g, p, opts)
				if err != nil {
					t.Fatal(err)
				}
				if got, err := (Engine{}).CountPlan(ctx, prob, pl, 0); err != nil || got.Count != want {
					t.Fatalf("%s: CountPlan %+v (%v), oracle %d", what, got, err, want)
				}
				// Under a memory limit: a shape within it, and the count exact, or ErrMemory (a
				// clique beyond it, whose copy of the lists without its labels is counted).
				q := *prob
				q.MemoryLimit = uint64(1 + rng.IntN(4096))
				if sh, ok := shapeFor(&q); ok && sh.Bytes > q.MemoryLimit {
					t.Fatalf("%s, --memory %d: the shape takes %d bytes", what, q.MemoryLimit, sh.Bytes)
				}
				got, err := (Engine{}).Count(ctx, &q)
				if err == nil && got.Count != want || err != nil && !errors.Is(err, engine.ErrMemory) {
					t.Fatalf("%s, --memory %d: Count %+v (%v), oracle %d", what, q.MemoryLimit, got, err, want)
				}
				if c, ok := plan.AsClique(g, p); ok && err == nil && 8*uint64(g.NumVertices())+c.GraphBytes(g) >= q.MemoryLimit {
					t.Fatalf("%s, --memory %d: counted, where the orientation and the copy take %d bytes", what, q.MemoryLimit, 8*uint64(g.NumVertices())+c.GraphBytes(g))
				}
				// Listing: the oracle's matches, no counter.
				if sem.Unique || trial%4 != 0 {
					continue
				}
				used = shapeCountsUsed.Load()
				var listed uint64
				for m, err := range (Engine{}).Matches(ctx, prob) {
					if err != nil {
						t.Fatalf("%s: Matches: %v", what, err)
					}
					if !oracle.Valid(g, p, sem, m) {
						t.Fatalf("%s: Matches listed %v, not a match", what, m)
					}
					listed++
				}
				if listed != want || shapeCountsUsed.Load() != used {
					t.Fatalf("%s: Matches listed %d (the counter taken %d times), oracle %d", what, listed, shapeCountsUsed.Load()-used, want)
				}
			}
		}
	}
	t.Logf("%d counts checked against the oracle", counted)
}
