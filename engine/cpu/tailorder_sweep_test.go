package cpu

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/proptest"
)

// symmetricShape draws a pattern with many automorphisms whose maximal independent sets are
// large (the tail orders' targets): complete bipartite graphs, cycles, wheels, books, the prism,
// the octahedron, the cube and K6 less a perfect matching. Vertices are wildcards or labelled
// (a labelled subset restricts the automorphisms to those that keep labels), edges carry labels
// now and then, and an isolated vertex or a second component joins some of them.
func symmetricShape(r *rand.Rand, vl, el int) string {
	var pairs [][2]int
	var k int
	switch r.IntN(8) {
	case 0: // K_{a,b}
		a, b := 2+r.IntN(2), 2+r.IntN(3)
		k = a + b
		for i := range a {
			for j := range b {
				pairs = append(pairs, [2]int{i, a + j})
			}
		}
	case 1: // a cycle
		k = 5 + r.IntN(3)
		for i := range k {
			pairs = append(pairs, [2]int{i, (i + 1) % k})
		}
	case 2: // a wheel
		c := 4 + r.IntN(3)
		k = c + 1
		for i := range c {
			pairs = append(pairs, [2]int{i, (i + 1) % c}, [2]int{i, c})
		}
	case 3: // a book: an edge and common neighbours
		k = 2 + 2 + r.IntN(3)
		pairs = append(pairs, [2]int{0, 1})
		for i := 2; i < k; i++ {
			pairs = append(pairs, [2]int{0, i}, [2]int{1, i})
		}
	case 4: // the prism
		k = 6
		pairs = [][2]int{{0, 1}, {1, 2}, {0, 2}, {3, 4}, {4, 5}, {3, 5}, {0, 3}, {1, 4}, {2, 5}}
	case 5: // the octahedron
		k = 6
		for i := range 6 {
			for j := i + 1; j < 6; j++ {
				if j != i+3 {
					pairs = append(pairs, [2]int{i, j})
				}
			}
		}
	case 6: // the cube
		k = 8
		for i := range 8 {
			for b := 1; b < 8; b <<= 1 {
				if i < i^b {
					pairs = append(pairs, [2]int{i, i ^ b})
				}
			}
		}
	default: // K6 less a perfect matching, one matched pair joined again
		k = 6
		for i := range 6 {
			for j := i + 1; j < 6; j++ {
				if j != i+3 || (i == 0 && r.IntN(2) == 0) {
					pairs = append(pairs, [2]int{i, j})
				}
			}
		}
	}
	names := make([]string, k)
	labelled := r.IntN(3)
	for i := range names {
		names[i] = fmt.Sprintf("(v%d)", i)
		if (labelled == 1 && i%2 == 0) || (labelled == 2 && r.IntN(3) == 0) {
			names[i] = fmt.Sprintf("(v%d:%d)", i, r.IntN(vl))
		}
	}
	var edges []string
	for _, e := range pairs {
		edge := "-"
		if r.IntN(7) == 0 {
			edge = fmt.Sprintf("-[:%d]-", r.IntN(el))
		}
		edges = append(edges, names[e[0]]+edge+names[e[1]])
	}
	switch r.IntN(6) {
	case 0:
		edges = append(edges, "(z)")
	case 1:
		edges = append(edges, fmt.Sprintf("(z:%d)", r.IntN(vl)))
	case 2:
		edges = append(edges, "(y1)-(y2)")
	}
	return strings.Join(edges, ", ")
}

// tailSweepSettings are the engine settings TestTailOrderEveryCandidate counts under: threads,
// a memory limit that leaves no candidate space, hub rows for every vertex, edge supports
// wherever they apply, the last-level sum off.
var tailSweepSettings = []struct {
	name    string
	threads int
	memory  uint64
	set     func() func()
}{
	{"threads 1", 1, 0, func() func() { return func() {} }},
	{"threads 2", 2, 0, func() func() { return func() {} }},
	{"threads 1, 64 KiB", 1, 64 << 10, func() func() { return func() {} }},
	{"threads 2, hub rows", 2, 0, func() func() { return EveryVertexAHub(true) }},
	{"threads 1, edge supports", 1, 0, func() func() { return Supports(1, false) }},
	{"threads 1, no last-level sum", 1, 0, func() func() { return LastSum(false) }},
}

// TestTailOrderEveryCandidate counts symmetric patterns (symmetricShape) with every tail order
// a count may choose (tailOrderMode 1, its pick stepped through the candidates; unique counts
// through their embeddings plan and |Aut|) under tailSweepSettings, against the oracle (100
// seeds with SUBMATCH_LONG, 8 by default), and that many distinct candidate plans ran.
func TestTailOrderEveryCandidate(t *testing.T) {
	defer func(m, u int) { tailOrderMode, uniqueByEmbeddingsMode = m, u }(tailOrderMode, uniqueByEmbeddingsMode)
	tailOrderMode, uniqueByEmbeddingsMode = 1, 1
	seeds, _ := proptest.Seeds(t, 100, 8)
	ctx := context.Background()
	ran := 0
	var ost proptest.OracleStats
	shape := proptest.Shaped{Stream: 23, Vertices: [2]int{8, 4}, VertexLabels: 2, EdgeLabels: 2, Patterns: 2,
		Semantics: []engine.Semantics{{}, {Unique: true}}, Draw: symmetricShape}
	for c := range shape.Cases(t, seeds, &ost) {
		for _, st := range tailSweepSettings {
			prob := &engine.Problem{Data: c.G, Pattern: c.P, Semantics: c.Sem, Threads: st.threads, MemoryLimit: st.memory}
			restore := st.set()
			pl, err := buildPlan(ctx, prob, false)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for pick := range uint64(40) {
				tailOrderPick.Store(pick)
				key := choosePlan(ctx, prob, pl).plan.Describe()
				if seen[key] {
					continue
				}
				seen[key] = true
				tailOrderPick.Store(pick)
				res, err := Engine{}.CountPlan(ctx, prob, pl, 0)
				ran++
				if err != nil || res.Partial || res.Count != c.Want {
					t.Fatalf("seed %d, %+v, %s, pick %d: Count = %d (partial %v, err %v), oracle %d\n%s\nplan:\n%s",
						c.Seed, c.Sem, st.name, pick, res.Count, res.Partial, err, c.Want, c.Recipe, key)
				}
			}
			restore()
		}
	}
	skipped := ost.Skipped
	t.Logf("%d counts of candidate plans checked, %d problems skipped as too big for the oracle", ran, skipped)
	if len(seeds) >= 8 && ran < 4*len(seeds) {
		t.Errorf("only %d candidate plans ran over %d seeds", ran, len(seeds))
	}
}
