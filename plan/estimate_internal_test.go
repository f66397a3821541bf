package plan

import (
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// TestCountLastOracle checks the last level's nodes a probe counts below every candidate of the
// level before it (countLast) against a brute force over every data vertex: for each candidate
// c of that level, the vertices that pass the last level's label and candidate filter, its edges
// to the earlier levels' data vertices, injectivity, induced non-adjacency and its window, with
// c in place. Random graphs and patterns, with symmetry windows, labels and induced plans; the
// probes' paths are the estimator's own.
func TestCountLastOracle(t *testing.T) {
	shapes := []string{
		"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(d)",                                     // STMatch's q4 and q10: c < d below a, b
		"(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (b)-(c), (b)-(d), (c)-(f), (d)-(e)", // q13
		"(a)-(b)-(c)-(d)-(a)",
		"(a)-(b), (a)-(c), (a)-(d)",
	}
	var pats []*pattern.Pattern
	for _, s := range shapes {
		p, err := pattern.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		pats = append(pats, p)
	}
	for seed := uint64(1); seed <= 12; seed++ {
		pats = append(pats, gen.RandomPattern(seed*5, 3+int(seed%4), gen.PatternOptions{
			EdgeProb: 0.35, VertexLabels: 1 + int(seed%2), Wildcard: 0.3}))
	}
	checked := 0
	for k, p := range pats {
		g := gen.RandomGraphM(uint64(k+1), 60, 500, 1+k%2, 1)
		for _, opts := range []Options{{MultiplyAutomorphisms: true, Enumerate: true}, {Unique: true}, {Induced: true}, {SpaceLimit: -1}} {
			pl := Build(g, p, opts)
			if pl.Empty || !lastLevelExact(pl) {
				continue
			}
			e := newEstimator(g, pl, uint64(k+7))
			levels := make([]float64, len(pl.Levels))
			var matches, work, cost float64
			var gc [3]float64
			for range 200 {
				e.lastNodes = -1
				e.probe(levels, &matches, &work, &cost, &gc)
				if e.lastNodes < 0 {
					continue // the probe ended above the last level
				}
				if want := e.prevWeight * bruteLast(g, pl, e.m, e.prevSet); e.lastNodes != want {
					t.Fatalf("%s %+v: counted %v last-level nodes, brute force %v", p, opts, e.lastNodes, want)
				}
				checked++
			}
		}
	}
	if checked < 500 {
		t.Fatalf("only %d probes reached a last level counted for every candidate", checked)
	}
}

// bruteLast counts, over every c in prev (candidates of level p, the last but one), the data
// vertices the last level admits with m[p] = c (LevelAdmitsBrute).
func bruteLast(g *graph.Graph, pl *Plan, m []uint32, prev []uint32) float64 {
	last := len(pl.Levels) - 1
	l := &pl.Levels[last]
	mm := append([]uint32(nil), m...)
	n := 0
	for _, c := range prev {
		mm[last-1] = c
		for x := uint32(0); x < uint32(g.NumVertices()); x++ {
			if LevelAdmitsBrute(g, pl, l, mm, x) {
				n++
			}
		}
	}
	return float64(n)
}

// LevelAdmitsBrute reports whether level l of pl admits data vertex x given the earlier levels'
// data vertices m, each condition tested directly (a test oracle, for plan_test too): its
// candidate filter and label, its edges to the earlier levels with their labels, injectivity,
// induced non-adjacency and its symmetry window.
func LevelAdmitsBrute(g *graph.Graph, pl *Plan, l *Level, m []uint32, x uint32) bool {
	if !pl.CandidateBits[l.Vertex].Has(x) || !l.VertexLabel.Matches(g.VertexLabel(x)) {
		return false
	}
	for _, be := range l.Backward {
		el, ok := g.HasEdge(m[be.Level], x)
		if !ok || !be.EdgeLabel.Matches(el) || !be.VertexLabel.Matches(g.VertexLabel(x)) {
			return false
		}
	}
	for _, j := range l.Collide {
		if m[j] == x {
			return false
		}
	}
	for _, j := range l.NonAdjacent {
		if _, ok := g.HasEdge(m[j], x); ok {
			return false
		}
	}
	for _, j := range l.Lower {
		if x <= m[j] {
			return false
		}
	}
	for _, j := range l.Upper {
		if x >= m[j] {
			return false
		}
	}
	return true
}
