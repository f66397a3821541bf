package sgsi_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// randomLeafPattern draws a pattern with tails, closing vertices and leaves: a random core (a
// cycle or a small dense graph, sometimes two components), then pendant paths, leaves and
// vertices joined to two or three core vertices, paths of two closed on a core vertex, labels from few values (and wildcards) so that
// collisions are common.
func randomLeafPattern(r *rand.Rand, vlabels, elabels int) string {
	var edges []string
	n := 0
	lab := make([]string, 0, 16)
	newV := func() int {
		switch x := r.IntN(vlabels + 2); {
		case x == vlabels+1:
			lab = append(lab, ":*")
		case x == vlabels:
			lab = append(lab, "")
		default:
			lab = append(lab, fmt.Sprintf(":%d", x))
		}
		n++
		return n - 1
	}
	name := func(v int) string { return fmt.Sprintf("v%d", v) }
	edge := func(a, b int) {
		el := ""
		if elabels > 0 && r.IntN(3) == 0 {
			el = fmt.Sprintf("[:%d]", r.IntN(elabels))
		}
		edges = append(edges, fmt.Sprintf("(%s)-%s-(%s)", name(a), el, name(b)))
	}
	comps := 1
	if r.IntN(4) == 0 {
		comps = 2
	}
	var core []int
	for range comps {
		k := 2 + r.IntN(3)
		first := n
		for i := range k {
			v := newV()
			core = append(core, v)
			if i > 0 {
				edge(v-1, v)
			}
		}
		if k > 2 {
			edge(first, first+k-1)
		}
		if k == 4 && r.IntN(2) == 0 {
			edge(first, first+2)
		}
	}
	extra := 1 + r.IntN(4)
	for range extra {
		if n >= 10 {
			break
		}
		u := core[r.IntN(len(core))]
		switch r.IntN(6) {
		case 0: // leaf
			edge(u, newV())
		case 1: // tail u - a - b, sometimes of labels of its own (counted as a tail)
			a, b := newV(), newV()
			if r.IntN(2) == 0 {
				lab[a], lab[b] = fmt.Sprintf(":%d", vlabels+r.IntN(2)), fmt.Sprintf(":%d", vlabels+r.IntN(2))
			}
			edge(u, a)
			edge(a, b)
		case 2: // closing vertex on 2 or 3 core vertices
			c := newV()
			edge(u, c)
			w := core[r.IntN(len(core))]
			if w != u {
				edge(w, c)
			}
			if x := core[r.IntN(len(core))]; x != u && x != w && r.IntN(2) == 0 {
				edge(x, c)
			}
		case 4: // closing vertices of the same parents (K_{2,k}: symmetric, ordered by restrictions)
			w := core[r.IntN(len(core))]
			for range 2 + r.IntN(2) {
				if w == u {
					break
				}
				c := newV()
				lab[c] = lab[u]
				edge(u, c)
				edge(w, c)
			}
		case 5: // path u - a - b closed on a core vertex w (b a closing vertex: a tail whose b
			// has other parents), sometimes of labels of its own
			a, b := newV(), newV()
			if r.IntN(3) > 0 {
				lab[a], lab[b] = fmt.Sprintf(":%d", vlabels+r.IntN(2)), fmt.Sprintf(":%d", vlabels+r.IntN(2))
			}
			edge(u, a)
			edge(a, b)
			edge(b, core[r.IntN(len(core))])
		case 3: // longer pendant path
			a := newV()
			edge(u, a)
			b := newV()
			edge(a, b)
			edge(b, newV())
		}
	}
	return labelledPattern(edges, lab)
}

// labelledPattern joins edges between vertices named v0, v1, ... and writes vertex v's label
// lab[v] on its first mention.
func labelledPattern(edges, lab []string) string {
	s := strings.Join(edges, ", ")
	for v := len(lab) - 1; v >= 0; v-- {
		s = strings.Replace(s, fmt.Sprintf("(v%d)", v), fmt.Sprintf("(v%d%s)", v, lab[v]), 1)
	}
	return s
}

// randomCase draws case seed of stream: a pattern by draw (1 to 3 vertex labels, 0 to 2 edge
// labels) and a random graph of n to n+spread-1 vertices, edge probability p to p+dp, of the
// pattern's labels and two more.
func randomCase(t *testing.T, seed, stream uint64, draw func(*rand.Rand, int, int) string, n, spread int, p, dp float64) (string, *pattern.Pattern, *graph.Graph) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, stream))
	vl, el := 1+r.IntN(3), r.IntN(3)
	src := draw(r, vl, el)
	pat, err := pattern.Parse(src)
	if err != nil {
		t.Fatalf("seed %d: %s: %v", seed, src, err)
	}
	return src, pat, gen.RandomGraph(seed, n+r.IntN(spread), p+dp*r.Float64(), vl+2, el)
}

// TestLeafStepRandom compares sgsi's host emulation with the brute-force oracle on random
// patterns with leaves, tails and closing vertices, on random graphs of few labels.
func TestLeafStepRandom(t *testing.T) {
	ctx := context.Background()
	rounds := testenv.Sweep(30, 2000)
	counted, tails := 0, 0
	for seed := range uint64(rounds) {
		src, p, g := randomCase(t, seed, 16, randomLeafPattern, 10, 8, 0.25, 0.2)
		for _, sem := range []engine.Semantics{{}, {Unique: true}, {Induced: true}, {Induced: true, Unique: true}} {
			want, ok := oracle.CountWithin(g, p, sem, 1<<18)
			if !ok {
				continue
			}
			for i, opts := range []sgsi.Options{{PaperOrder: true}, {}, {HostBytes: 2500}, {PaperOrder: true, Refine: true, HostBytes: 4000}} {
				opts.Host = true
				res, st, err := sgsi.Engine{Options: opts}.CountStats(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: sem})
				if len(st.PerStep) > st.Steps {
					counted++
					for _, u := range st.Order[st.Steps+1:] {
						if slices.ContainsFunc(st.Order[st.Steps+1:], func(w int) bool { return p.Adjacent(u, w) }) {
							tails++
							break
						}
					}
				}
				if errors.Is(err, engine.ErrMemory) && opts.HostBytes > 0 {
					continue
				}
				if err != nil || res.Count != want {
					t.Errorf("seed %d: %s, %v, options %d: sgsi %d (%v), oracle %d", seed, src, sem, i, res.Count, err, want)
				}
			}
		}
	}
	t.Logf("%d counts with a leaf step, %d with tails", counted, tails)
	if counted == 0 || tails == 0 {
		t.Errorf("%d counts with a leaf step, %d with tails", counted, tails)
	}
}

// closingTailPatterns end in paths u - a - b whose b is a closing vertex (other joined
// neighbours besides a): the leaf step counts them as tails with b's other parents (leafTail's
// ws); a triangle u - a - b - u, edge labels, a and b of one label, and joined vertices of b's
// label that are not b's other parents' neighbours (the correction Σ_{r ∈ R∩C(b)∩I}).
var closingTailPatterns = []string{
	"(v0:1), (v0)-(v1), (v1)-(v2:1), (v2)-(v3:0), (v0)-(v4:2), (v0)-(v5:3), (v4)-(v5)",
	"(v0:0), (v0)-(v1:2), (v1)-(v2:0), (v0)-(v3:2), (v2)-[:0]-(v3), (v2)-(v4:4), (v4)-[:0]-(v5:4)",
	"(v0:0), (v0)-(v1), (v0)-(v2), (v1)-(v2), (v2)-(v3:0), (v3)-(v4:0), (v2)-(v5:0), (v1)-[:0]-(v6:3), (v2)-(v7:3), (v6)-(v7)",
	"(v0), (v0)-(v1:2), (v0)-(v2:0), (v1)-(v2), (v0)-(v3:0), (v2)-(v3), (v1)-(v4:2), (v0)-(v5:3), (v0)-(v6:4), (v5)-(v6)",
	"(v0:0), (v0)-(v1), (v1)-[:1]-(v2:1), (v0)-(v3:4), (v1)-(v4:4), (v3)-(v4), (v0)-(v5), (v5)-[:0]-(v6:1)",
	"(v0:0), (v0)-(v1), (v0)-(v2), (v1)-(v2), (v2)-(v3:0), (v3)-(v4:3), (v0)-(v4), (v1)-(v6:1), (v2)-(v7:3), (v6)-(v7), (v0)-(l:2)",
	"(v0:0), (v0)-(v1), (v0)-(v2), (v1)-(v2), (v0)-(v4:3), (v1)-(v4), (v1)-(v6:1), (v2)-(v7:3), (v6)-(v7), (v0)-(l:2)",
}

// TestLeafStepClosingTails compares sgsi's host emulation with the brute-force oracle (the cpu
// engine where it would enumerate too many) on closingTailPatterns over random graphs of five
// vertex labels, under every convention and several options, with and without every order of
// late vertices weighed (chooseLate), and checks that some counts had
// a tail whose b has other parents (two adjacent counted vertices of degree 2 or more).
func TestLeafStepClosingTails(t *testing.T) {
	closed := 0
	for pi, src := range closingTailPatterns {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(testenv.Sweep(3, 12)) {
			g := gen.RandomGraph(seed+uint64(10*pi), 18+int(seed%3)*4, 0.3, 5, 2)
			for _, sem := range []engine.Semantics{{}, {Unique: true}, {Induced: true}} {
				want := leafWant(t, g, p, sem)
				options := []sgsi.Options{{}, {PaperOrder: true}, {HostBytes: 3000}}
				for _, late := range []bool{false, true} { // (true: every order with late vertices weighed)
					restore := func() {}
					if late {
						restore = sgsi.SetLateMinRows(0)
					}
					checkLeafCounts(t, fmt.Sprintf("%s, seed %d, late %v", src, seed, late), g, p, sem, want, options, func(st sgsi.Stats) {
						counted := st.Order[min(len(st.Order), st.Steps+1):]
						if len(st.PerStep) > st.Steps && slices.ContainsFunc(counted, func(a int) bool {
							return p.Degree(a) > 1 && slices.ContainsFunc(counted, func(b int) bool { return p.Adjacent(a, b) && p.Degree(b) > 1 })
						}) {
							closed++
						}
					})
					restore()
				}
			}
		}
	}
	t.Logf("%d counts with a tail closed on joined vertices", closed)
	if closed == 0 {
		t.Error("no count had a tail closed on joined vertices")
	}
}
