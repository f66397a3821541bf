package sgsi_test

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
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
	"github.com/submatch/submatch/plan"
)

// randomChainPattern draws a pattern with paths of two inner vertices or more: a small core (a
// triangle, a square, a square with a chord), then one to three of pendant paths u - a_1 - ...
// - a_k - b (k of 2 to 4, b a leaf), paths closed on a second core vertex (b a closing vertex)
// and leaves (mostly one of a core label: closing vertices are counted with leaves only). The core's labels are among vlabels values, the others' also wildcards
// (collisions among the tail's vertices and with the row's), and a path's vertices often have
// the graph's two other labels (a chain: nothing else counted may share them), one repeated
// along the path or both in turn.
func randomChainPattern(r *rand.Rand, vlabels, elabels int) string {
	label := func() string {
		switch x := r.IntN(vlabels + 2); {
		case x == vlabels+1:
			return ":*"
		case x == vlabels:
			return ""
		default:
			return fmt.Sprintf(":%d", x)
		}
	}
	d := &patternDraw{r: r, elabels: elabels}
	newV, edge := d.vertex, d.edge
	k := 3 + r.IntN(2)
	for i := range k { // (labelled: the core's degrees put it first in the order, its paths after)
		newV(fmt.Sprintf(":%d", r.IntN(vlabels)))
		if i > 0 {
			edge(i-1, i)
		}
	}
	edge(0, k-1)
	if k == 4 && r.IntN(2) == 0 {
		edge(0, 2)
	}
	for range 1 + r.IntN(3) {
		u := r.IntN(k)
		own := r.IntN(3)
		pathLabel := func(i int) string {
			switch own {
			case 0:
				return label()
			case 1: // one label of its own for the whole path: its vertices may repeat
				return fmt.Sprintf(":%d", vlabels+u%2)
			}
			return fmt.Sprintf(":%d", vlabels+(u+i)%2)
		}
		switch r.IntN(4) {
		case 0: // a leaf
			edge(u, newV(label()))
		case 1: // a closed path of 2 or 3 inner vertices and b back to another core vertex
			prev := u
			n := 3 + r.IntN(2)
			for i := range n {
				v := newV(pathLabel(i))
				edge(prev, v)
				prev = v
			}
			w := (u + 1 + r.IntN(k-1)) % k
			edge(prev, w)
		default: // a pendant path of 2 to 4 inner vertices and a leaf
			prev := u
			for i := range 3 + r.IntN(3) {
				v := newV(pathLabel(i))
				edge(prev, v)
				prev = v
			}
		}
		if len(d.lab) > 12 {
			break
		}
	}
	if r.IntN(4) > 0 { // a leaf of a core label: the leaf step runs, closing vertices counted
		edge(r.IntN(k), newV(fmt.Sprintf(":%d", r.IntN(vlabels))))
	}
	return d.String()
}

// leafWant is the count of p on g under sem: the brute-force oracle's, or the cpu engine's
// where the oracle would enumerate more than 2^21 matches.
func leafWant(t *testing.T, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics) uint64 {
	t.Helper()
	if want, ok := oracle.CountWithin(g, p, sem, 1<<21); ok {
		return want
	}
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	res, err := cpu.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: sem})
	if err != nil {
		t.Fatal(err)
	}
	return res.Count
}

// checkLeafCounts counts p on g under sem with the host emulation and each of options against
// want (an engine.ErrMemory skipped where an option sets HostBytes), naming the case by what,
// and calls seen with each count's Stats.
func checkLeafCounts(t *testing.T, what string, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, want uint64, options []sgsi.Options, seen func(sgsi.Stats)) {
	t.Helper()
	for i, opts := range options {
		opts.Host = true
		res, st, err := sgsi.Engine{Options: opts}.CountStats(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: sem})
		if errors.Is(err, engine.ErrMemory) && opts.HostBytes > 0 {
			continue
		}
		if err != nil || res.Count != want {
			t.Errorf("%s, %v, options %d: sgsi %d (%v), want %d (order %v, %d steps)", what, sem, i, res.Count, err, want, st.Order, st.Steps)
			continue
		}
		seen(st)
	}
}

// chainKind reports whether the counted vertices (order[steps+1:]) hold a vertex of degree 2
// both of whose neighbours are counted (a chain's inner vertex past the first), and whether
// such a path of counted vertices has a joined neighbour at both ends (a chain closed on ws).
func chainKind(p *pattern.Pattern, order []int, steps int) (chain, closed bool) {
	counted := maskOf(order[min(len(order), steps+1):])
	for m := counted; m != 0; m &= m - 1 {
		a := bits.TrailingZeros32(m)
		if p.Degree(a) != 2 || p.NeighborMask(a)&^counted != 0 {
			continue
		}
		chain = true
		ends := 0
		for n := p.NeighborMask(a); n != 0; n &= n - 1 {
			prev, x := a, bits.TrailingZeros32(n)
			for p.Degree(x) == 2 && p.NeighborMask(x)&^counted == 0 {
				prev, x = x, bits.TrailingZeros32(p.NeighborMask(x)&^(1<<prev))
			}
			if p.NeighborMask(x)&^counted != 0 {
				ends++
			}
		}
		closed = closed || ends == 2
	}
	return chain, closed
}

// TestLeafStepChains compares sgsi's host emulation with the brute-force oracle (the cpu
// engine where it would enumerate too many) on random patterns with paths of two inner
// vertices or more (randomChainPattern) over random labelled graphs, under every convention
// and several options (both orders, refined candidates, a small --memory that leaves the
// memos out, every tail cut at 0, 1 and 2 inner vertices instead of weighed), and checks that
// some counts had a chain.
func TestLeafStepChains(t *testing.T) {
	chains, closed := 0, 0
	for seed := range uint64(testenv.Sweep(25, 400)) {
		src, p, g := randomCase(t, seed, 21, randomChainPattern, 12, 10, 0.2, 0.15)
		for _, sem := range []engine.Semantics{{}, {Unique: true}, {Induced: true}, {Induced: true, Unique: true}} {
			options := []sgsi.Options{{}, {PaperOrder: true}, {HostBytes: 3000}, {Refine: true},
				sgsi.WithTailReach(sgsi.Options{}, 1), sgsi.WithTailReach(sgsi.Options{}, 2), sgsi.WithTailReach(sgsi.Options{}, 3)}
			if sem.Induced {
				options = options[:2] // (every vertex joined)
			}
			checkLeafCounts(t, fmt.Sprintf("seed %d: %s", seed, src), g, p, sem, leafWant(t, g, p, sem), options, func(st sgsi.Stats) {
				if c, cl := chainKind(p, st.Order, st.Steps); len(st.PerStep) > st.Steps && c {
					chains++
					if cl {
						closed++
					}
				}
			})
		}
	}
	t.Logf("%d counts with a chain, %d of them closed on a joined vertex (TestLeafStepChainShapes has more)", chains, closed)
	if chains == 0 {
		t.Error("no count had a chain")
	}
}

// maskOf is the bit set of vertices vs.
func maskOf(vs []int) uint32 {
	var m uint32
	for _, v := range vs {
		m |= 1 << v
	}
	return m
}

// TestWeighTails: a tail's inner vertex whose join prunes most rows (a label of 4 vertices in
// 400) stays joined, the tail's b then a leaf of it; of a common label, it is counted (the
// join would keep most rows). The counts equal the oracle's.
func TestWeighTails(t *testing.T) {
	const n = 400
	b := graph.NewBuilder(graph.BuilderOptions{})
	r := rand.New(rand.NewPCG(5, 21))
	for v := range int64(n) {
		l := uint32(0)
		switch {
		case v < 4:
			l = 1
		case v < n/2:
			l = 2
		}
		if err := b.SetVertexLabel(v, l); err != nil {
			t.Fatal(err)
		}
		for w := range v {
			if r.Float64() < 0.06 {
				if err := b.AddEdge(v, w, 0); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		src    string
		joined bool // whether x stays joined
	}{
		{"(a:0)-(b:0)-(c:0)-(a), (a)-(x:1)-(y:2), (b)-(l:0)", true},
		{"(a:0)-(b:0)-(c:0)-(a), (a)-(x:2)-(y:1), (b)-(l:0)", false},
		{"(a:0)-(b:0)-(c:0)-(a), (a)-(x:1)-(z:2)-(y:2), (b)-(l:0)", true},
	} {
		p, err := pattern.Parse(c.src)
		if err != nil {
			t.Fatal(err)
		}
		want := leafWant(t, g, p, engine.Semantics{})
		res, st, err := sgsi.Engine{Options: sgsi.Options{Host: true}}.CountStats(context.Background(), &engine.Problem{Data: g, Pattern: p})
		if err != nil || res.Count != want {
			t.Errorf("%s: sgsi %d (%v), want %d", c.src, res.Count, err, want)
			continue
		}
		x := -1
		for u := range p.NumVertices() {
			if p.Name(u) == "x" {
				x = u
			}
		}
		if joined := slices.Contains(st.Order[:st.Steps+1], x); joined != c.joined {
			t.Errorf("%s: x joined %v, want %v (order %v, %d steps; rows %v)", c.src, joined, c.joined, st.Order, st.Steps, st.PerStep)
		}
	}
}

// chainPatterns have chains whose vertices may repeat the row's or each other's: one label
// throughout (the path's vertices and the row's), labels in turn, wildcards, edge labels,
// chains closed on a second core vertex (a leaf of a label of its own: closing vertices are
// counted with leaves only), two chains on one core.
var chainPatterns = []string{
	"(v0:0)-(v1:0)-(v2:0)-(v0), (v0)-(a:0)-(c:0)-(b:0)",
	"(v0:0)-(v1:1)-(v2:0)-(v0), (v0)-(a:1)-(c:0)-(d:1)-(b:0)",
	"(v0:0)-(v1:0)-(v2:0)-(v0), (v0)-(a:*)-(c:*)-(d:0)-(b:*)",
	"(v0:0)-(v1:1)-(v2:0)-(v0), (v0)-[:1]-(a:1)-(c:1)-[:0]-(b:1)",
	"(v0:0)-(v1:1)-(v2:0)-(v3:1)-(v0), (v0)-(v2), (v0)-(a:0)-(c:1)-(b:0)-(v1), (v2)-(l:2)",
	"(v0:0)-(v1:1)-(v2:0)-(v3:1)-(v0), (v0)-(v2), (v0)-(a:1)-(c:1)-(d:1)-(b:1)-(v2), (v3)-(l:2)",
	"(v0:0)-(v1:0)-(v2:0)-(v3:0)-(v0), (v1)-(v3), (v0)-(a:1)-(c:1)-(b:1)-(v2), (v1)-(l:2)",
	"(v0:0)-(v1:1)-(v2:0)-(v0), (v0)-(a:2)-(c:2)-(b:2), (v1)-(x:1)-(y:1)-(z:1)",
	// Labels of their own (no vertex may repeat another: the walks memoised, the tail's count
	// by u's vertex too).
	"(v0:0)-(v1:1)-(v2:0)-(v0), (v0)-(a:2)-(c:3)-(b:4)",
	"(v0:0)-(v1:1)-(v2:0)-(v0), (v0)-(a:0)-(c:3)-(b:4)",
	"(v0:0)-(v1:1)-(v2:0)-(v0), (v0)-(a:3)-(c:4)-(d:3)-(b:5)",
	"(v0:0)-(v1:1)-(v2:0)-(v0), (v0)-(a:2)-(c:3)-(d:4)-(b:5), (v1)-(l:1)",
	"(v0:0)-(v1:1)-(v2:0)-(v3:1)-(v0), (v0)-(v2), (v0)-(a:2)-(c:3)-(b:4)-(v1), (v2)-(l:5)",
	"(v0:0)-(v1:1)-(v2:0)-(v3:1)-(v0), (v0)-(v2), (v0)-(a:2)-(c:3)-(b:4)-(v1), (v2)-(l:5), (v1)-(x:1)",
}

// TestLeafStepChainShapes compares sgsi's host emulation with the brute-force oracle on
// chainPatterns over random graphs of three vertex labels (six for labels of their own), under
// every convention, the tails weighed and cut at one inner vertex or at none, and checks that some counts had a chain closed on a joined vertex.
func TestLeafStepChainShapes(t *testing.T) {
	chains, closed := 0, 0
	for pi, src := range chainPatterns {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(testenv.Sweep(2, 20)) {
			g := gen.RandomGraph(seed+uint64(10*pi), 14+int(seed%3)*3, 0.3, 3, 2)
			if strings.Contains(src, ":3") { // (labels of their own: more vertices, of more labels)
				g = gen.RandomGraph(seed+uint64(10*pi), 36+int(seed%3)*4, 0.3, 6, 2)
			}
			for _, sem := range []engine.Semantics{{}, {Unique: true}, {Induced: true}} {
				options := []sgsi.Options{{}, {PaperOrder: true}, sgsi.WithTailReach(sgsi.Options{}, 2), sgsi.WithTailReach(sgsi.Options{}, 9), {HostBytes: 3000}}
				if sem.Induced {
					options = options[:1] // (every vertex joined)
				}
				checkLeafCounts(t, fmt.Sprintf("%s, seed %d", src, seed), g, p, sem, leafWant(t, g, p, sem), options, func(st sgsi.Stats) {
					if c, cl := chainKind(p, st.Order, st.Steps); c && len(st.PerStep) > st.Steps {
						chains++
						if cl {
							closed++
						}
					}
				})
			}
		}
	}
	t.Logf("%d counts with a chain, %d closed", chains, closed)
	if closed == 0 {
		t.Errorf("%d counts with a chain, none closed", chains)
	}
}

// pairPatterns have two pendant tails on one vertex whose labels may coincide (the leaf
// step's pairs): one label for both a's, for both b's, an a's label the other's b's, edge
// labels telling identical labels apart, a third tail of the same labels, tails the
// restrictions order (identical: joined), a pair beside a leaf and a chain of other labels,
// wildcards (joined).
var pairPatterns = []string{
	"(v0:0)-(v1:0)-(v2:0)-(v0), (v0)-(a1:1)-(b1:2), (v0)-(a2:1)-(b2:3)",
	"(v0:0)-(v1:0)-(v2:0)-(v0), (v0)-(a1:1)-(b1:2), (v0)-(a2:3)-(b2:2)",
	"(v0:0)-(v1:0)-(v2:0)-(v0), (v0)-(a1:1)-(b1:2), (v0)-(a2:2)-(b2:1)",
	"(v0:0)-(v1:0)-(v2:0)-(v0), (v0)-(a1:1)-(b1:1), (v0)-(a2:1)-(b2:2)",
	"(v0:0)-(v1:0)-(v2:0)-(v0), (v0)-[:0]-(a1:1)-(b1:2), (v0)-[:1]-(a2:1)-(b2:2)",
	"(v0:0)-(v1:0)-(v2:0)-(v0), (v0)-(a1:1)-[:0]-(b1:1), (v0)-(a2:1)-[:1]-(b2:1)",
	"(v0:0)-(v1:0)-(v2:0)-(v0), (v0)-(a1:1)-(b1:2), (v0)-(a2:1)-(b2:2)",
	"(v0:0)-(v1:0)-(v2:0)-(v0), (v0)-(a1:1)-(b1:2), (v0)-(a2:1)-(b2:3), (v0)-(a3:1)-(b3:3)",
	"(v0:0)-(v1:0)-(v2:0)-(v3:0)-(v0), (v1)-(a1:1)-(b1:2), (v1)-(a2:2)-(b2:3), (v2)-(l:0), (v3)-(x:4)-(y:5)-(z:4)",
	"(v0:0)-(v1:0)-(v2:0)-(v0), (v0)-(a1:*)-(b1:2), (v0)-(a2:1)-(b2:3)",
}

// hasPair reports whether the counted vertices (order[steps+1:]) hold two pendant tails
// u - a - b on one joined u whose labels may coincide.
func hasPair(p *pattern.Pattern, order []int, steps int) bool {
	counted := maskOf(order[min(len(order), steps+1):])
	for _, u := range order[:min(len(order), steps+1)] {
		var tails [][2]int
		for m := p.NeighborMask(u) & counted; m != 0; m &= m - 1 {
			a := bits.TrailingZeros32(m)
			b := bits.TrailingZeros32(p.NeighborMask(a) &^ (1 << u))
			if p.Degree(a) == 2 && p.Degree(b) == 1 && counted>>b&1 != 0 {
				tails = append(tails, [2]int{a, b})
			}
		}
		for i, t := range tails {
			for _, o := range tails[i+1:] {
				for _, x := range t {
					for _, y := range o {
						if plan.LabelsMayCollide(p.VertexLabel(x), p.VertexLabel(y)) {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

// TestLeafStepPairs compares sgsi's host emulation with the brute-force oracle (the cpu engine
// where it would enumerate too many) on pairPatterns over dense random graphs of four vertex
// labels (and two edge labels for the patterns that have some), under every convention, the
// tails weighed, cut at none and at their reach, and checks that some counts had a pair and
// that the counts are not all zero.
func TestLeafStepPairs(t *testing.T) {
	pairs, nonzero := 0, 0
	for pi, src := range pairPatterns {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(testenv.Sweep(3, 20)) {
			el := 0
			if strings.Contains(src, "[:") {
				el = 2
			}
			g := gen.RandomGraph(seed+uint64(10*pi), 18+int(seed%3)*4, 0.45, 4, el)
			for _, sem := range []engine.Semantics{{}, {Unique: true}, {Induced: true}} {
				want := leafWant(t, g, p, sem)
				options := []sgsi.Options{{}, {PaperOrder: true}, sgsi.WithTailReach(sgsi.Options{}, 1), sgsi.WithTailReach(sgsi.Options{}, 9), {HostBytes: 3000}}
				if sem.Induced {
					options = options[:1] // (every vertex joined)
				}
				checkLeafCounts(t, fmt.Sprintf("%s, seed %d", src, seed), g, p, sem, want, options, func(st sgsi.Stats) {
					if len(st.PerStep) > st.Steps && hasPair(p, st.Order, st.Steps) {
						pairs++
						if want > 0 {
							nonzero++
						}
					}
				})
			}
		}
	}
	t.Logf("%d counts with a pair, %d of them not zero", pairs, nonzero)
	if nonzero == 0 {
		t.Errorf("%d counts with a pair of tails, none with matches", pairs)
	}
}
