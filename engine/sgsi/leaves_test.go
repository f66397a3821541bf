package sgsi_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/pattern"
)

// leafPatterns have many leaves (pattern vertices of degree one): stars, leaves on one parent
// and on several, labelled leaves sharing labels, wildcard labels, edge labels, cycles and
// walks with pendant vertices; and the small shapes at the edges of the leaf step (an edge, a
// wedge: one joined vertex).
var leafPatterns = []string{
	"(a)-(b)",
	"(c)-(a), (c)-(b)",
	"(c)-(a), (c)-(b), (c)-(d), (c)-(e)",
	"(c:0)-(a:1), (c)-(b:1), (c)-(d:0), (c)-(e)",
	"(c)-(a:1), (c)-(b:1), (c)-(d:1), (c)-(e:*), (c)-(f:0)",
	"(c)-[:1]-(a), (c)-[:0]-(b), (c)-(d), (c)-[:1]-(e)",
	"(a)-(b)-(c)-(d)",
	"(a:0)-(b:0), (a)-(x:1), (a)-(y:1), (b)-(z:1), (b)-(w)",
	"(a)-(b)-(c)-(a), (a)-(x), (b)-(y), (c)-(z)",
	"(a)-(b)-(c)-(a), (a)-(x:1), (a)-(y:1), (b)-(z:1), (c)-(w:0), (c)-(v)",
	"(a)-(b)-(c)-(d)-(a), (a)-(x), (b)-(y:1), (c)-(z:1), (c)-(w), (d)-[:1]-(v)",
	"(a)-(b)-(c)-(d)-(e), (b)-(x), (b)-(y), (d)-(z)",
	"(a)-(b), (a)-(c), (b)-(d), (b)-(e), (a)-(f:*), (b)-(g:*)",
	"(a)-(b)-(c)-(a), (d)-(e), (a)-(x), (a)-(y)",
	// Tails (pendant paths) and closing vertices (every neighbour joined before them: counted
	// with the leaves, groups of several parents): paths hanging off cycles, several tails on
	// one vertex, tails and closing vertices sharing labels, wildcard labels, edge labels,
	// paths of degree-2 vertices between joined ones (issue 21's walks), symmetric closing
	// vertices (K_{2,3}: the restrictions order them) and a tail on a tail.
	"(a)-(b)-(c)-(d)-(a), (c)-(x)-(y)",
	"(a)-(b)-(c)-(a), (a)-(x1)-(y1), (a)-(x2)-(y2)",
	"(a:0)-(b:0)-(c:0)-(a), (a)-(x:1)-(y:1), (a)-(x2:1)-(y2:*), (b)-(z:1)",
	"(a)-(b)-(c)-(d)-(e)-(a), (b)-(x)-(y)-(z), (d)-(w)",
	"(a)-(p)-(q)-(r)-(b), (a)-(b), (a)-(c)-(b), (b)-(l)",
	"(a)-(b), (a)-(c), (a)-(d), (b)-(e), (c)-(e), (d)-(e), (e)-(x)",
	"(a)-[:1]-(b)-(c)-[:1]-(a), (a)-(d)-[:0]-(b), (c)-(x:*)",
	"(a:1)-(b)-(c:1)-(d)-(a), (a)-(e:*)-(c), (b)-(x:1)",
	"(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(x:*)-(y)",
	// Tails alone in their labels (counted as tails: leafTail), one with edge labels, one whose
	// vertices' label a joined vertex shares, and two tails of one label (one counted).
	"(a:0)-(b:0)-(c:0)-(a), (a)-(x:1)-(y:1)",
	"(a:0)-(b:0)-(c:0)-(d:0)-(a), (b)-[:1]-(x:1)-[:0]-(y:1)",
	"(a:1)-(b:0)-(c:1)-(a), (a)-(x:0)-(y:0), (b)-(z:1)",
	"(a:0)-(b:1)-(c:0)-(a), (a)-(x:1)-(y:1), (c)-(x2:1)-(y2:1)",
	// A component b - a - a2 - b2 of two would-be tails, each one's u the other's a (one is
	// counted: the other's u stays joined).
	"(b:0)-(a:0)-(a2:1)-(b2:1), (x)-(y)",
}

// TestLeafStep counts leafPatterns with the host emulation under every convention, the leaves
// counted (the default) and joined (Options.JoinLeaves), in SGSI's order and the core order, in
// core and in a small region, against the brute-force oracle (the cpu engine where the oracle
// would enumerate too many); it checks that no induced count or one with Options.JoinLeaves had
// a leaf step (Stats.PerStep has a step past the joins), and that some counted vertices of
// degree 2 or more (closing vertices).
func TestLeafStep(t *testing.T) {
	ctx := context.Background()
	graphs := []struct {
		name string
		g    *graph.Graph
	}{
		{"G(24, 0.2), 2 vertex labels", gen.RandomGraph(1, 24, 0.2, 2, 0)},
		{"G(20, 0.25), 2 vertex labels, 2 edge labels", gen.RandomGraph(2, 20, 0.25, 2, 2)},
		{"G(16, 0.3), unlabelled", gen.RandomGraph(3, 16, 0.3, 1, 0)},
	}
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	counted, closing, tails, big := 0, 0, 0, 0
	for _, src := range leafPatterns {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, gr := range graphs {
			for _, sem := range []engine.Semantics{{}, {Unique: true}, {Induced: true}, {Induced: true, Unique: true}} {
				want, ok := oracle.CountWithin(gr.g, p, sem, 1<<21)
				if !ok { // (too many matches to enumerate: the cpu engine's leaf groups)
					res, err := cpu.Count(ctx, &engine.Problem{Data: gr.g, Pattern: p, Semantics: sem})
					if err != nil {
						t.Fatal(err)
					}
					want = res.Count
					big++
				}
				for i, opts := range []sgsi.Options{{PaperOrder: true}, {}, {PaperOrder: true, JoinLeaves: true}, {Refine: true, HostBytes: 3000}} {
					opts.Host = true
					prob := &engine.Problem{Data: gr.g, Pattern: p, Semantics: sem}
					res, st, err := sgsi.Engine{Options: opts}.CountStats(ctx, prob)
					if errors.Is(err, engine.ErrMemory) && opts.HostBytes > 0 {
						continue
					}
					if err != nil || res.Count != want {
						t.Errorf("%s on %s, %v, options %d: sgsi %d (%v), oracle %d", src, gr.name, sem, i, res.Count, err, want)
						continue
					}
					leafStep := len(st.PerStep) > st.Steps
					if leafStep {
						counted++
						for _, u := range st.Order[st.Steps+1:] {
							if p.Degree(u) > 1 {
								closing++
								break
							}
						}
						for _, u := range st.Order[st.Steps+1:] {
							if slices.ContainsFunc(st.Order[st.Steps+1:], func(w int) bool { return p.Adjacent(u, w) }) {
								tails++
								break
							}
						}
					}
					if leafStep && (sem.Induced || opts.JoinLeaves) {
						t.Errorf("%s on %s, %v, options %d: a leaf step (%d steps, %d per step)", src, gr.name, sem, i, st.Steps, len(st.PerStep))
					}
				}
			}
		}
	}
	t.Logf("%d counts with a leaf step, %d of them counting vertices of degree 2 or more, %d tails; %d problems against the cpu engine (too many matches for the oracle)", counted, closing, tails, big)
	if counted == 0 || closing == 0 || tails == 0 {
		t.Errorf("%d counts had a leaf step, %d counted vertices of degree 2 or more, %d tails", counted, closing, tails)
	}
}

// TestLeafStepOverflow counts stars of many leaves on stars of 1,000 and 25 leaves: the leaf
// step's placements (unique: C(1000, 20)), the count times |Aut(p)| (embeddings of seven
// leaves: C(1000, 7), 1.9e17, times 7!) or the placements without restrictions (embeddings of
// 21 leaves, whose |Aut(p)| = 21! is beyond uint64: (25)_21) exceed uint64, and sgsi reports
// engine.ErrOverflow, as the cpu engine does; five leaves fit (unique: C(1000, 5)).
func TestLeafStepOverflow(t *testing.T) {
	hub := func(n int64) *graph.Graph {
		b := graph.NewBuilder(graph.BuilderOptions{})
		for v := range n {
			if err := b.AddEdge(n, v, 0); err != nil {
				t.Fatal(err)
			}
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	star := func(n int) *pattern.Pattern {
		src := ""
		for i := range n {
			if i > 0 {
				src += ", "
			}
			src += fmt.Sprintf("(c)-(l%d)", i)
		}
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	ctx := context.Background()
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	big, small := hub(1000), hub(25)
	for _, c := range []struct {
		g      *graph.Graph
		leaves int
		sem    engine.Semantics
		want   uint64 // 0: overflow
	}{{big, 20, engine.Semantics{Unique: true}, 0}, {big, 7, engine.Semantics{}, 0}, {small, 21, engine.Semantics{}, 0},
		{big, 5, engine.Semantics{Unique: true}, 8_250_291_250_200}} {
		prob := &engine.Problem{Data: c.g, Pattern: star(c.leaves), Semantics: c.sem}
		res, st, err := sgsi.Engine{Options: sgsi.Options{Host: true}}.CountStats(ctx, prob)
		if len(st.PerStep) <= st.Steps {
			t.Errorf("%d leaves, %v: no leaf step", c.leaves, c.sem)
		}
		if c.want == 0 {
			if !errors.Is(err, engine.ErrOverflow) {
				t.Errorf("%d leaves, %v: sgsi %d (%v), want ErrOverflow", c.leaves, c.sem, res.Count, err)
			}
			if res, err := cpu.Count(ctx, prob); !errors.Is(err, engine.ErrOverflow) {
				t.Errorf("%d leaves, %v: cpu %d (%v), want ErrOverflow", c.leaves, c.sem, res.Count, err)
			}
			continue
		}
		if err != nil || res.Count != c.want {
			t.Errorf("%d leaves, %v: sgsi %d (%v), want %d", c.leaves, c.sem, res.Count, err, c.want)
		}
	}
}

// TestLeafStepOverflowThenZero: rows with a zero factor count 0, whatever the other factors'
// product (over uint64 here), as the cpu engine counts. A hub (label 3) has 1,000 leaves of
// label 1, 1,000 of label 4 and one neighbour x of label 5 (itself joined to z, label 2); the
// pattern hangs 6 leaves of label 1 and 6 of label 4 on the hub (each class's placements fit a
// uint64, their product does not) and 7 leaves of label 5, whose only candidate x takes. (The
// planner orders the zero class before the others here, so this checks the early return, not
// an overflow followed by a zero.)
func TestLeafStepOverflowThenZero(t *testing.T) {
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	b := graph.NewBuilder(graph.BuilderOptions{})
	for v := range int64(2 * n) {
		if err := b.AddEdge(2*n, v, 0); err != nil {
			t.Fatal(err)
		}
		if err := b.SetVertexLabel(v, uint32(1+3*(v/n))); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range [][2]int64{{2 * n, 2*n + 1}, {2*n + 1, 2*n + 2}} {
		if err := b.AddEdge(e[0], e[1], 0); err != nil {
			t.Fatal(err)
		}
	}
	for v, l := range map[int64]uint32{2 * n: 3, 2*n + 1: 5, 2*n + 2: 2} {
		if err := b.SetVertexLabel(v, l); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	src := "(c:3)-(x:5)-(z:2)"
	for i, l := range []int{6, 6, 7} {
		for j := range l {
			src += fmt.Sprintf(", (c)-(l%d_%d:%d)", i, j, []int{1, 4, 5}[i])
		}
	}
	p, err := pattern.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, sem := range []engine.Semantics{{Unique: true}, {}} {
		prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem}
		if res, err := cpu.Count(ctx, prob); err != nil || res.Count != 0 {
			t.Fatalf("%v: cpu %d (%v), want 0", sem, res.Count, err)
		}
		res, st, err := sgsi.Engine{Options: sgsi.Options{Host: true}}.CountStats(ctx, prob)
		if err != nil || res.Count != 0 {
			t.Errorf("%v: sgsi %d (%v), want 0", sem, res.Count, err)
		}
		if len(st.PerStep) <= st.Steps {
			t.Errorf("%v: no leaf step", sem)
		}
	}
}

// BenchmarkLeafStep counts, with the host emulation on one thread, patterns whose counted
// vertices exercise each kind of the leaf step's factors (rowLeaves): leaves on several parents
// in one collision class, a tail, a chain and a pair of tails, on a labelled R-MAT graph. The
// leaf step's own time (leaf-ns/op) is reported beside the count's.
func BenchmarkLeafStep(b *testing.B) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 12, EdgeFactor: 8, Seed: 1, VertexLabels: 4})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, src string }{
		{"class", "(a:0)-(b)-(c)-(a), (a)-(x), (b)-(y)"},
		{"tail", "(a:0)-(b:1)-(c:0)-(d:1)-(a), (a)-(x:2)-(y:2)"},
		{"chain", "(v0:0)-(v1:1)-(v2:0)-(v0), (v0)-(a:2)-(c:3)-(b:2)"},
		{"pair", "(v0:0)-(v1:1)-(v2:0)-(v0), (v0)-(a1:1)-(b1:2), (v0)-(a2:1)-(b2:3)"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			p, err := pattern.Parse(bc.src)
			if err != nil {
				b.Fatal(err)
			}
			prob := &engine.Problem{Data: g, Pattern: p, Threads: 1}
			e := sgsi.Engine{Options: sgsi.Options{Host: true, HostBytes: 32 << 20}}
			var leaf int64 // ns
			for b.Loop() {
				_, st, err := e.CountStats(context.Background(), prob)
				if err != nil {
					b.Fatal(err)
				}
				if len(st.PerStep) <= st.Steps {
					b.Fatal("no leaf step")
				}
				for _, s := range st.PerStep[st.Steps:] {
					leaf += s.Time.Nanoseconds()
				}
			}
			b.ReportMetric(float64(leaf)/float64(b.N), "leaf-ns/op")
		})
	}
}
