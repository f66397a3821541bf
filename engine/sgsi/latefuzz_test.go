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
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// labelledHubGraph is a random graph of n vertices, edge probability p, labels out of vl and
// edge labels out of el (0: none), with hubs adjacent to all but a few of the others: rows of
// the leaf step then hold the same vertices a tail's a and b take (its collisions).
func labelledHubGraph(seed uint64, n int, p float64, vl, el, hubs int) *graph.Graph {
	r := rand.New(rand.NewPCG(seed, 33))
	b := graph.NewBuilder(graph.BuilderOptions{})
	for v := range n {
		if err := b.SetVertexLabel(int64(v), uint32(r.IntN(vl))); err != nil {
			panic(err)
		}
	}
	lab := func() uint32 {
		if el == 0 {
			return 0
		}
		return uint32(r.IntN(el))
	}
	hub := make([]bool, n)
	for range hubs {
		hub[r.IntN(n)] = true
	}
	for u := range n {
		for v := u + 1; v < n; v++ {
			q := p
			if hub[u] || hub[v] {
				q = 0.9
			}
			if r.Float64() < q {
				if err := b.AddEdge(int64(u), int64(v), lab()); err != nil {
					panic(err)
				}
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	return g
}

// TestLeafStepLateHubs compares sgsi's host emulation with the brute-force oracle (the cpu
// engine where it would enumerate too many) on random patterns with closed tails
// (randomLeafPattern, closingTailPatterns) over random graphs with hubs, every order with late
// vertices weighed (SetLateMinRows(0)), under every convention, in core and out of core (the
// leaf step's table sorted by a closed tail's memo columns), on 1 and 3 threads: the closed
// tails' W memoised with rows that collide with a and b.
func TestLeafStepLateHubs(t *testing.T) {
	defer sgsi.SetLateMinRows(0)()
	ctx := context.Background()
	rounds := testenv.Sweep(12, 150)
	var closed, outOfCore int
	for seed := range uint64(rounds) {
		r := rand.New(rand.NewPCG(seed, 3333))
		vl, el := 1+r.IntN(3), r.IntN(3)
		src := randomLeafPattern(r, vl, el)
		if seed%2 == 0 {
			src = closingTailPatterns[int(seed/2)%len(closingTailPatterns)]
			vl = 5
		}
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatalf("seed %d: %s: %v", seed, src, err)
		}
		g := labelledHubGraph(seed, 16+r.IntN(10), 0.2+0.2*r.Float64(), vl+r.IntN(2), el, 1+r.IntN(3))
		for _, sem := range []engine.Semantics{{}, {Unique: true}, {Induced: true}, {Induced: true, Unique: true}} {
			want := leafWant(t, g, p, sem)
			gb := sgsi.GraphBytes(g)
			for i, opts := range []sgsi.Options{{}, {HostBytes: gb / 2}, {HostBytes: gb + gb/2}, {Refine: true, HostBytes: gb}} {
				opts.Host = true
				var order []int // (the plan is the same on any number of threads)
				for _, threads := range []int{1, 3} {
					res, st, err := sgsi.Engine{Options: opts}.CountStats(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: threads})
					if errors.Is(err, engine.ErrMemory) && opts.HostBytes > 0 {
						continue
					}
					what := fmt.Sprintf("seed %d: %s, %v, options %d, %d threads", seed, src, sem, i, threads)
					if err != nil || res.Count != want {
						t.Errorf("%s: sgsi %d (%v), want %d (order %v, %d steps)", what, res.Count, err, want, st.Order, st.Steps)
						continue
					}
					if order == nil {
						order = st.Order
					} else if !slices.Equal(order, st.Order) {
						t.Errorf("%s: order %v, %v on 1 thread", what, st.Order, order)
					}
					counted := st.Order[min(len(st.Order), st.Steps+1):]
					if len(st.PerStep) > st.Steps && slices.ContainsFunc(counted, func(a int) bool {
						return p.Degree(a) > 1 && slices.ContainsFunc(counted, func(b int) bool { return p.Adjacent(a, b) && p.Degree(b) > 1 })
					}) {
						closed++
						if !st.InCore {
							outOfCore++
						}
					}
				}
			}
		}
	}
	t.Logf("%d counts with a closed tail, %d of them out of core", closed, outOfCore)
	if closed == 0 || outOfCore == 0 {
		t.Errorf("%d counts with a closed tail, %d of them out of core", closed, outOfCore)
	}
}

// TestLeafStepTightMemory counts closingTailPatterns out of core (the leaf step's table sorted
// by a closed tail's memo columns, leafOrder) under a --memory (Problem.MemoryLimit) from half
// the graph's layout to ten times it, by a third at a time (a half in short mode), every order with late vertices weighed: each
// count is the oracle's or stops with engine.ErrMemory, on 1 and 3 threads.
func TestLeafStepTightMemory(t *testing.T) {
	defer sgsi.SetLateMinRows(0)()
	ctx := context.Background()
	var counted, refused int
	for i, src := range closingTailPatterns {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		g := labelledHubGraph(uint64(100+i), 40, 0.25, 5, 2, 2)
		want := leafWant(t, g, p, engine.Semantics{})
		gb := sgsi.GraphBytes(g)
		step := uint64(3)
		if testing.Short() {
			step = 2
		}
		for limit := gb / 2; limit < 10*gb; limit += limit / step {
			for _, threads := range []int{1, 3} {
				opts := sgsi.Options{Host: true, HostBytes: gb / 2}
				res, _, err := sgsi.Engine{Options: opts}.CountStats(ctx, &engine.Problem{Data: g, Pattern: p, Threads: threads, MemoryLimit: limit})
				switch {
				case errors.Is(err, engine.ErrMemory):
					refused++
				case err != nil || res.Count != want:
					t.Errorf("%s: --memory %d, %d threads: sgsi %d (%v), want %d", src, limit, threads, res.Count, err, want)
				default:
					counted++
				}
			}
		}
	}
	t.Logf("%d counts exact, %d refused for --memory", counted, refused)
	if counted == 0 {
		t.Error("no count within --memory")
	}
}

// TestLeafStepPriced: a count that weighs its plan (every order with late vertices weighed)
// prices its leaf step's rows by their work (Stats.Weighed: recounts and list entries beyond one
// unit a row), and the estimated entries are within 16x of those the step read (its PerStep
// Items), on closingTailPatterns over graphs with hubs.
func TestLeafStepPriced(t *testing.T) {
	defer sgsi.SetLateMinRows(0)()
	ctx := context.Background()
	priced := 0
	for i, src := range closingTailPatterns {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		g := labelledHubGraph(uint64(200+i), 60, 0.3, 5, 2, 2)
		res, st, err := sgsi.Engine{Options: sgsi.Options{Host: true}}.CountStats(ctx, &engine.Problem{Data: g, Pattern: p, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		if want := leafWant(t, g, p, engine.Semantics{}); res.Count != want {
			t.Errorf("%s: sgsi %d, want %d", src, res.Count, want)
		}
		w := st.Weighed
		if len(st.PerStep) <= st.Steps || w.LeafRows < 1 {
			continue // (no leaf step, or none estimated)
		}
		read := float64(st.PerStep[st.Steps].Items)
		t.Logf("%s: weighed %+v; the leaf step read %.0f entries in %d rows", src, w, read, st.PerStep[st.Steps].Rows)
		if w.Work < w.Rows+w.LeafRows+w.LeafLookups || w.LeafLookups < 1 {
			t.Errorf("%s: weighed %+v: the leaf step's rows not priced by their work", src, w)
		}
		if read > 0 && (w.LeafEntries > 16*read || 16*w.LeafEntries < read) {
			t.Errorf("%s: the leaf step read %.0f entries, %.0f estimated", src, read, w.LeafEntries)
		}
		priced++
	}
	if priced == 0 {
		t.Error("no count priced a leaf step")
	}
}
