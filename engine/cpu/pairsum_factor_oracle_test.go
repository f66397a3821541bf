package cpu_test

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/internal/proptest"
)

// factorPattern draws a pattern near the pair sum's factor group (factorGroup in pairsum.go):
// a random graph on four or five vertices (most often a 4-cycle and few chords) and a vertex h adjacent to all of them (most often),
// with one to three pendant vertices, most on h, some labelled or on a labelled edge, now and
// then an isolated vertex; vertex labels (up to vl) and edge labels (up to el) here and there,
// some equal to the pendants'.
func factorPattern(r *rand.Rand, vl, el int) string {
	vlabel := func(name string, p float64) string {
		if r.Float64() < p {
			return fmt.Sprintf("(%s:%d)", name, r.IntN(vl))
		}
		return "(" + name + ")"
	}
	edge := func(a, b string, p float64) string { return randomEdge(r, a, b, p, el) }
	k := 4 + r.IntN(2)
	names := make([]string, k)
	labelled := map[string]string{}
	for i := range names {
		names[i] = fmt.Sprintf("v%d", i)
		labelled[names[i]] = vlabel(names[i], 0.15)
	}
	labelled["h"] = vlabel("h", 0.1)
	var edges []string
	rim := r.IntN(4) != 0 // a 4-cycle v0-v1-v2-v3 (a wheel about h: the pair sum's shape)
	density := 0.3 + 0.4*r.Float64()
	if rim {
		density = 0.07
	}
	for i := range k {
		for j := i + 1; j < k; j++ {
			if rim && j < 4 && (j == i+1 || (i == 0 && j == 3)) || r.Float64() < density {
				edges = append(edges, edge(labelled[names[i]], labelled[names[j]], 0.1))
			}
		}
	}
	skip := -1
	if r.IntN(6) == 0 {
		skip = r.IntN(k) // h not adjacent to every base vertex: no factor
	}
	for i := range k {
		if i != skip {
			edges = append(edges, edge(labelled["h"], labelled[names[i]], 0.1))
		}
	}
	for i := range 1 + r.IntN(3) {
		parent := labelled["h"]
		if r.IntN(5) == 0 {
			parent = labelled[names[r.IntN(k)]]
		}
		edges = append(edges, edge(parent, vlabel(fmt.Sprintf("f%d", i), 0.2), 0.15))
	}
	if r.IntN(8) == 0 {
		edges = append(edges, vlabel("x", 0.3))
	}
	return strings.Join(edges, ", ")
}

// randomEdge returns the edge a-b of a pattern, with one of el edge labels with probability p.
func randomEdge(r *rand.Rand, a, b string, p float64, el int) string {
	if r.Float64() < p {
		return fmt.Sprintf("%s-[:%d]-%s", a, r.IntN(el), b)
	}
	return a + "-" + b
}

// randomCases yields, for each seed, a dense random graph (8-12 vertices, 1-3 vertex labels,
// 1-2 edge labels) with three patterns drawn by draw under every convention, with the oracle's
// count (proptest.Shaped); hits counts the (problem, convention) pairs for which hit holds (the
// path a sweep aims at is taken).
func randomCases(t *testing.T, seeds []uint64, draw func(r *rand.Rand, vl, el int) string, ost *proptest.OracleStats, hit func(*engine.Problem) bool, hits *int) iter.Seq[proptest.Oracled] {
	shape := proptest.Shaped{Stream: 11, Vertices: [2]int{8, 5}, VertexLabels: 3, EdgeLabels: 2, Patterns: 3, Draw: draw}
	return func(yield func(proptest.Oracled) bool) {
		for c := range shape.Cases(t, seeds, ost) {
			if hit(&engine.Problem{Data: c.G, Pattern: c.P, Semantics: c.Sem, Threads: 1}) {
				*hits++
			}
			if !yield(c) {
				return
			}
		}
	}
}

// TestOraclePairSumFactorRandom checks random patterns near the pair sum's factor group
// (factorPattern) against the oracle under every convention and setting (300 seeds with
// SUBMATCH_LONG, 16 by default), and that some of their plans take the factor.
func TestOraclePairSumFactorRandom(t *testing.T) {
	seeds, repeat := proptest.Seeds(t, 300, 16)
	var ost proptest.OracleStats
	factor := 0
	checkOracle(t, randomCases(t, seeds, factorPattern, &ost, cpu.PairSumFactor, &factor), len(seeds), repeat, &ost, "TestOraclePairSumFactorRandom")
	t.Logf("%d (problem, convention) pairs took the factor group", factor)
	if len(seeds) >= 16 && factor == 0 {
		t.Error("no plan took the pair sum's factor group")
	}
}
