package sgsi_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// reuseLeafPattern draws a pattern made for the leaf step's reuse and memos (branch leafrate):
// a core of 2 to 5 vertices (sometimes a second component, sometimes a bare path) with closed
// tails (u - a - b, b joined to one or two core vertices, u among them: a triangle), two
// tails on one u or one w, vertices of two or three core parents (several of one label: a
// class of several groups), leaves and plain tails (and mostly a leaf: closing vertices are
// counted only beside one), labels from few values and few wildcards.
func reuseLeafPattern(r *rand.Rand, vlabels, elabels int) string {
	var edges []string
	var lab []string
	label := func() string {
		switch x := r.IntN(8); { // (few wildcards: they share a collision class with everything)
		case x == 0:
			return ":*"
		case x == 1:
			return ""
		default:
			return fmt.Sprintf(":%d", r.IntN(vlabels))
		}
	}
	newV := func() int { lab = append(lab, label()); return len(lab) - 1 }
	seen := map[[2]int]bool{}
	edge := func(a, b int) {
		if a == b || seen[[2]int{a, b}] || seen[[2]int{b, a}] {
			return
		}
		seen[[2]int{a, b}] = true
		el := ""
		if elabels > 0 && r.IntN(3) == 0 {
			el = fmt.Sprintf("[:%d]", r.IntN(elabels))
		}
		edges = append(edges, fmt.Sprintf("(v%d)-%s-(v%d)", a, el, b))
	}
	var core []int
	for c := range 1 + r.IntN(4)/3 {
		k := 2 + r.IntN(4)
		if c > 0 {
			k = 2 + r.IntN(2)
		}
		first := len(lab)
		for i := range k {
			v := newV()
			core = append(core, v)
			if i > 0 {
				edge(v-1, v)
			}
		}
		if k > 2 && r.IntN(3) > 0 {
			edge(first, first+k-1)
		}
		if k >= 4 && r.IntN(2) == 0 {
			edge(first, first+2)
		}
	}
	pick := func() int { return core[r.IntN(len(core))] }
	for range 1 + r.IntN(4) {
		if len(lab) >= 11 {
			break
		}
		u := pick()
		switch r.IntN(7) {
		case 0, 1: // closed tail u - a - b, b on one or two core vertices (u: a triangle)
			a, b := newV(), newV()
			if r.IntN(3) > 0 { // labels of their own
				lab[a], lab[b] = fmt.Sprintf(":%d", vlabels), fmt.Sprintf(":%d", vlabels+r.IntN(2))
			}
			edge(u, a)
			edge(a, b)
			edge(b, pick())
			if r.IntN(3) == 0 {
				edge(b, pick())
			}
		case 2: // two closed tails sharing u and w (symmetric when labels agree)
			w := pick()
			l := label()
			for range 2 {
				a, b := newV(), newV()
				if r.IntN(2) == 0 {
					lab[a], lab[b] = l, l
				}
				edge(u, a)
				edge(a, b)
				edge(b, w)
			}
		case 3: // vertices of 2 or 3 core parents, often of one label (one class)
			w, x := pick(), pick()
			l := label()
			for range 1 + r.IntN(3) {
				c := newV()
				if r.IntN(3) > 0 {
					lab[c] = l
				}
				edge(u, c)
				edge(w, c)
				if r.IntN(2) == 0 {
					edge(x, c)
				}
			}
		case 4: // leaves
			for range 1 + r.IntN(2) {
				edge(u, newV())
			}
		case 5: // plain tail
			a, b := newV(), newV()
			edge(u, a)
			edge(a, b)
		case 6: // tail whose b is a parent of another counted vertex: u - a - b - c, c on u
			a, b, c := newV(), newV(), newV()
			edge(u, a)
			edge(a, b)
			edge(b, c)
			edge(c, pick())
		}
	}
	if r.IntN(4) > 0 { // a leaf: closing vertices are counted only beside leaves
		l := newV()
		edge(pick(), l)
	}
	return labelledPattern(edges, lab)
}

// TestLeafReuseRandom compares sgsi's host emulation with the brute-force oracle on
// reuseLeafPattern's patterns over small random graphs of few labels (data vertices of one
// label collide often): every convention, both join orders, small tables (many per count:
// the leaf step's state kept from table to table), --memory small enough to refuse the
// memos, two runners (deal.go) and one thread or four.
func TestLeafReuseRandom(t *testing.T) {
	ctx := context.Background()
	rounds := testenv.Sweep(120, 5000)
	closed := 0 // counts with a tail whose b has other joined neighbours
	for seed := range uint64(rounds) {
		r := rand.New(rand.NewPCG(seed, 18))
		vl, el := 1+r.IntN(2), r.IntN(3)
		src := reuseLeafPattern(r, vl, el)
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatalf("seed %d: %s: %v", seed, src, err)
		}
		g := gen.RandomGraph(seed, 9+r.IntN(9), 0.3+0.3*r.Float64(), vl+2, el)
		for _, sem := range []engine.Semantics{{}, {Unique: true}, {Induced: true}} {
			want, ok := oracle.CountWithin(g, p, sem, 1<<19)
			if !ok {
				continue
			}
			type run struct {
				opts sgsi.Options
				prob engine.Problem
			}
			for i, c := range []run{{}, {opts: sgsi.Options{PaperOrder: true}}, {opts: sgsi.Options{HostBytes: 3000, BlockRows: 4}},
				{prob: engine.Problem{MemoryLimit: 600 << 10}}, {prob: engine.Problem{GPUs: []int{0, 1}}},
				{opts: sgsi.Options{PaperOrder: true, Refine: true}, prob: engine.Problem{Threads: 4}}} {
				c.opts.Host = true
				if c.opts.HostBytes == 0 {
					c.opts.HostBytes = 4 << 20 // (the default 256 MiB region is allocated per count)
				}
				prob := c.prob
				prob.Data, prob.Pattern, prob.Semantics = g, p, sem
				res, st, err := sgsi.Engine{Options: c.opts}.CountStats(ctx, &prob)
				if counted := st.Order[min(len(st.Order), st.Steps+1):]; len(st.PerStep) > st.Steps && slices.ContainsFunc(counted, func(a int) bool {
					return p.Degree(a) > 1 && slices.ContainsFunc(counted, func(b int) bool { return p.Adjacent(a, b) && p.Degree(b) > 1 })
				}) {
					closed++
				}
				if errors.Is(err, engine.ErrMemory) {
					continue
				}
				if err != nil || res.Count != want {
					t.Errorf("seed %d: %s, %v, run %d: sgsi %d (%v), oracle %d", seed, src, sem, i, res.Count, err, want)
				}
			}
		}
	}
	t.Logf("%d counts with a closed tail", closed)
	if closed == 0 {
		t.Error("no count had a closed tail")
	}
}

// TestLeafReuseThreads compares sgsi's host emulation with the cpu engine where the last
// table has enough rows for several goroutines of the leaf step (each with its own reused
// factors and memos, kept from table to table): closed tails, a class of several groups and
// groups of several parents on a denser random graph of two labels, four threads, in core and
// in small tables.
func TestLeafReuseThreads(t *testing.T) {
	ctx := context.Background()
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	srcs := []string{
		// a tail no row vertex collides with (W memoised), a class of two groups
		"(v0:0)-(v1:0)-(v2:0)-(v0), (v1)-(a:1)-(b:1)-(v2), (v0)-(x:0), (v0)-(c:0)-(v1)",
		// a tail whose a and b collide with joined vertices, a group of two parents and two
		// vertices in a class with a leaf (a class memo)
		"(v0:0)-(v1:1)-(v2:0)-(v0), (v0)-(a:1)-(b:0)-(v2), (v1)-(c:2)-(v2), (v1)-(d:2)-(v2), (v1)-(l:2)",
	}
	for si, src := range srcs {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		g := gen.RandomGraph(uint64(si), 240+60*si, 0.35, 2+si, 0) // (over 2 × 2^14 rows at the leaf step)
		for _, sem := range []engine.Semantics{{}, {Unique: true}} {
			res, err := cpu.Count(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: sem})
			if err != nil {
				t.Fatal(err)
			}
			runs := []sgsi.Options{{HostBytes: 64 << 20}, {HostBytes: 1 << 20}}
			if testenv.Long() {
				runs = append(runs, sgsi.Options{HostBytes: 1 << 20, PaperOrder: true}) // (9e6 rows for the first)
			}
			for i, opts := range runs {
				opts.Host = true
				got, st, err := sgsi.Engine{Options: opts}.CountStats(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 4})
				if err != nil || got.Count != res.Count {
					t.Errorf("%s, %v, options %d: sgsi %d (%v), cpu %d", src, sem, i, got.Count, err, res.Count)
				}
				if n := len(st.PerStep); n > st.Steps {
					t.Logf("%s, %v, options %d: %d rows reach the leaf step", src, sem, i, st.PerStep[st.Steps].Rows)
				}
			}
		}
	}
}
