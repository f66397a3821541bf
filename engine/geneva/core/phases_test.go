package core

import (
	"fmt"
	"math/bits"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
)

// checkPlan verifies the invariants of a GENEVA plan: every query vertex matched exactly once,
// every query edge checked exactly once (as a tree edge of an extension or in an elimination),
// phases reading only vertices matched earlier, one edge label per phase, each extension's
// shape agreeing with its Fig. 1 pattern, and patterns 5-7 only once the core is matched.
func checkPlan(t *testing.T, q *pattern.Pattern, pl *Plan) {
	t.Helper()
	n := q.NumVertices()
	var matched uint32
	checked := map[[2]int]int{}
	core := twoCore(q)
	for i, ph := range pl.Phases {
		for _, e := range ph.Edges {
			if !q.Adjacent(e.U, e.V) {
				t.Fatalf("phase %d: %d-%d is no query edge", i, e.U, e.V)
			}
			if l, _ := q.EdgeLabel(e.U, e.V); l != ph.EdgeLabel || e.Label != l {
				t.Fatalf("phase %d: edge %d-%d label %v, phase label %v", i, e.U, e.V, l, ph.EdgeLabel)
			}
			checked[edgeKey(e.U, e.V)]++
		}
		switch ph.Kind {
		case Elimination:
			if len(ph.Edges) == 0 || len(ph.Vertices) != 0 {
				t.Fatalf("phase %d: elimination with %d edges, %d vertices", i, len(ph.Edges), len(ph.Vertices))
			}
			for _, e := range ph.Edges {
				if matched&(1<<e.U) == 0 || matched&(1<<e.V) == 0 {
					t.Fatalf("phase %d: eliminates %d-%d before both are matched", i, e.U, e.V)
				}
			}
		case Extension:
			news := ph.Vertices
			if ph.Initial {
				if len(ph.Vertices) == 0 || matched&(1<<ph.Vertices[0]) != 0 {
					t.Fatalf("phase %d: initial phase without a fresh source", i)
				}
				matched |= 1 << ph.Vertices[0]
				news = ph.Vertices[1:]
			}
			if len(ph.Edges) != len(news) {
				t.Fatalf("phase %d: %d tree edges for %d new vertices", i, len(ph.Edges), len(news))
			}
			sources := map[int][]pattern.Label{}
			var order []int
			for j, e := range ph.Edges {
				if e.V != news[j] || matched&(1<<e.U) == 0 {
					t.Fatalf("phase %d: tree edge %d-%d does not come from a matched source", i, e.U, e.V)
				}
				if _, ok := sources[e.U]; !ok {
					order = append(order, e.U)
				}
				sources[e.U] = append(sources[e.U], q.VertexLabel(e.V))
			}
			if ph.Pattern > Pattern4 && core&^matched != 0 {
				t.Fatalf("phase %d: pattern %d before the core is matched", i, ph.Pattern)
			}
			if got := shape(sources, order); len(ph.Edges) > 0 && got != ph.Pattern {
				t.Fatalf("phase %d: shape is pattern %d, phase says %d", i, got, ph.Pattern)
			}
			for _, u := range news {
				if matched&(1<<u) != 0 {
					t.Fatalf("phase %d: vertex %d matched twice", i, u)
				}
				matched |= 1 << u
			}
		}
	}
	if matched != uint32(1)<<n-1 {
		t.Fatalf("matched %b of %d vertices", matched, n)
	}
	for _, e := range q.Edges() {
		if c := checked[edgeKey(e.U, e.V)]; c != 1 {
			t.Fatalf("edge %d-%d checked %d times", e.U, e.V, c)
		}
	}
	if len(pl.Order) != n {
		t.Fatalf("order %v for %d vertices", pl.Order, n)
	}
}

// shape classifies an extension by Fig. 1 independently of the planner: per source, the vertex
// labels of its new vertices.
func shape(sources map[int][]pattern.Label, order []int) int {
	distinct := func(ls []pattern.Label) int {
		var seen []pattern.Label
		for _, l := range ls {
			found := false
			for _, s := range seen {
				found = found || s == l
			}
			if !found {
				seen = append(seen, l)
			}
		}
		return len(seen)
	}
	total := 0
	for _, ls := range sources {
		total += len(ls)
	}
	switch {
	case len(order) == 1 && total == 1:
		return Pattern0
	case len(order) == 1 && total == 2 && distinct(sources[order[0]]) == 1:
		return Pattern1
	case len(order) == 1 && total == 2:
		return Pattern3
	case len(order) == 2 && total == 2 && sources[order[0]][0] == sources[order[1]][0]:
		return Pattern2
	case len(order) == 2 && total == 2:
		return Pattern4
	case len(order) == 1 && distinct(sources[order[0]]) == 1:
		return Pattern5
	case len(order) == 1 && distinct(sources[order[0]]) == 2:
		return Pattern6
	case len(order) == 2 && distinct(sources[order[0]]) == 1 && distinct(sources[order[1]]) == 1:
		return Pattern7
	}
	return -1
}

func TestMatchOrderProperties(t *testing.T) {
	var used [8]int
	defer func() { t.Logf("extension phases by pattern: %v", used) }()
	for seed := uint64(0); seed < 400; seed++ {
		n := 1 + int(seed%12)
		opts := gen.PatternOptions{
			Components:   1 + int(seed%7)/5,
			EdgeProb:     []float64{0, 0.1, 0.3, 0.6}[seed%4],
			VertexLabels: 1 + int(seed%3),
			EdgeLabels:   1 + int(seed/3%3),
			Wildcard:     []float64{0, 0.2}[seed/5%2],
		}
		q := gen.RandomPattern(seed, n, opts)
		t.Run(fmt.Sprintf("%d_%s", seed, q), func(t *testing.T) {
			pl := MatchOrder(q)
			checkPlan(t, q, pl)
			for _, ph := range pl.Phases {
				if ph.Kind == Extension {
					used[ph.Pattern]++
				}
			}
		})
	}
}

func mustParse(t *testing.T, s string) *pattern.Pattern {
	t.Helper()
	q, err := pattern.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestMatchOrderExamples pins the plans of small queries.
func TestMatchOrderExamples(t *testing.T) {
	for _, c := range []struct {
		name, q string
		want    string // phase kinds and patterns: "E1" extension with pattern 1, "X" elimination
	}{
		// A triangle: the initial phase matches all three with pattern 1, one edge left to check.
		{"triangle", "(a)-(b)-(c)-(a)", "E1 X"},
		// Labels 1, 1, 2: from c both neighbours have label 1, pattern 1 (which outranks 3).
		{"triangle-labels", "(a:1)-(b:1)-(c:2)-(a)", "E1 X"},
		// A 4-cycle: pattern 1 from one vertex, pattern 0 for the opposite one, one edge checked.
		{"square", "(a)-(b)-(c)-(d)-(a)", "E1 E0 X"},
		// A star of four leaves of one label: one pattern-5 phase.
		{"star", "(c)-(a), (c)-(b), (c)-(d), (c)-(e)", "E5"},
		// A triangle with a three-leaf tree on one corner: core first (1 + elimination), then the
		// tree with pattern 5.
		{"triangle-tree", "(a)-(b)-(c)-(a), (c)-(x), (c)-(y), (c)-(z)", "E1 X E5"},
		// Two edge labels on a triangle: the initial phase can only take one label.
		{"triangle-elabels", "(a)-[:1]-(b)-[:1]-(c)-[:2]-(a)", "E1 X"},
		// Leaves on two corners of a triangle (two on a, one on b): one pattern-7 phase for all.
		{"triangle-two-sources", "(a)-(b)-(c)-(a), (a)-(x), (a)-(y), (b)-(z)", "E1 X E7"},
		// An isolated vertex is a component of its own.
		{"isolated", "(a)-(b), (c)", "E0 E0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := mustParse(t, c.q)
			pl := MatchOrder(q)
			checkPlan(t, q, pl)
			got := ""
			for i, ph := range pl.Phases {
				if i > 0 {
					got += " "
				}
				if ph.Kind == Elimination {
					got += "X"
				} else {
					got += fmt.Sprintf("E%d", ph.Pattern)
				}
			}
			if got != c.want {
				t.Errorf("phases %q, want %q", got, c.want)
			}
		})
	}
}

// TestTwoCoreAndCycle checks the helpers on a triangle with a pendant path.
func TestTwoCoreAndCycle(t *testing.T) {
	q := mustParse(t, "(a)-(b)-(c)-(a), (c)-(d)-(e)")
	core := twoCore(q)
	if bits.OnesCount32(core) != 3 || smallestCycle(q, core, nil) != core {
		t.Errorf("core %b, cycle %b", core, smallestCycle(q, core, nil))
	}
	if smallestCycle(q, 0, nil) != 0 {
		t.Error("cycle in an empty core")
	}
}
