package temporal

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestExtremeTimes: timestamps at both ends of int64 and windows up to math.MaxInt64, where a
// window's end t+delta and a span t_last-t_first overflow int64. The brute force (bruteMatches,
// bruteGrid) is run on the same events with times ranked (a rank per distinct time, in order),
// which keeps the order and the ties, with each window delta turned into the exact condition on
// ranks it stands for: so it never computes with the extreme values themselves.
func TestExtremeTimes(t *testing.T) {
	times := []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, math.MaxInt64 - 1, math.MaxInt64}
	deltas := []int64{0, 1, 2, math.MaxInt64 - 1, math.MaxInt64}
	pats := []string{"a->b, b->c, c->a", "a->b, b->a", "a->b, c->d", "a->b, a->c, a->d"}
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 17))
		b := NewBuilder()
		type ev struct{ u, v, t int64 }
		var evs []ev
		for range 10 + r.IntN(6) {
			u, v := r.Int64N(5), r.Int64N(5)
			if u == v {
				v = (u + 1) % 5
			}
			e := ev{u, v, times[r.IntN(len(times))]}
			evs = append(evs, e)
			b.Add(e.u, e.v, e.t)
		}
		g := b.Build()
		rb := NewBuilder()
		for _, e := range evs {
			rb.Add(e.u, e.v, rankOf(times, e.t))
		}
		rg := rb.Build()
		for _, delta := range deltas {
			// The exact window on the original times, read through the ranks.
			inWindow := func(a, z int64) bool { return z >= a && uint64(z-a) <= uint64(delta) }
			for _, strict := range []bool{false, true} {
				o := Options{Delta: delta, Strict: strict, Threads: 1}
				for _, s := range pats {
					p, err := Parse(s)
					if err != nil {
						t.Fatal(err)
					}
					got, err := Count(context.Background(), g, p, o)
					if err != nil {
						t.Fatal(err)
					}
					want := bruteWindow(rg, p, strict, func(a, z int64) bool { return inWindow(times[a], times[z]) })
					if got != want {
						t.Errorf("seed %d delta %d strict %v %q: Count %d, brute force %d", seed, delta, strict, s, got, want)
					}
				}
				grid, err := Grid(context.Background(), g, o)
				if err != nil {
					t.Fatal(err)
				}
				for i := range 6 {
					for j := range 6 {
						p, _ := Parse(GridMotifs[i][j])
						want := bruteWindow(rg, p, strict, func(a, z int64) bool { return inWindow(times[a], times[z]) })
						if grid[i][j] != want {
							t.Errorf("seed %d delta %d strict %v: Grid %s %d, brute force %d", seed, delta, strict, GridMotifs[i][j], grid[i][j], want)
						}
					}
				}
			}
		}
	}
}

// rankOf is the index of x in the sorted list xs.
func rankOf(xs []int64, x int64) int64 {
	for i, y := range xs {
		if y == x {
			return int64(i)
		}
	}
	panic("not listed")
}

// bruteWindow counts every sequence of len(p.Edges) events in event order whose first and last
// times satisfy window: it tries all index tuples and checks the window, the order, injectivity
// and the edges.
func bruteWindow(g *Graph, p *Pattern, strict bool, window func(first, last int64) bool) uint64 {
	m := len(p.Edges)
	sel := make([]int, m)
	var count uint64
	var rec func(j int)
	rec = func(j int) {
		if j == m {
			if !window(g.Events[sel[0]].Time, g.Events[sel[m-1]].Time) {
				return
			}
			vm := make([]int64, p.K())
			for i := range vm {
				vm[i] = -1
			}
			for i, x := range sel {
				e := g.Events[x]
				if i > 0 && strict && g.Events[sel[i-1]].Time >= e.Time {
					return
				}
				for q, dv := range [2]uint32{e.Src, e.Dst} {
					pv := p.Edges[i][q]
					if vm[pv] >= 0 && vm[pv] != int64(dv) {
						return
					}
					vm[pv] = int64(dv)
				}
			}
			seen := map[int64]bool{}
			for _, v := range vm {
				if seen[v] {
					return
				}
				seen[v] = true
			}
			count++
			return
		}
		start := 0
		if j > 0 {
			start = sel[j-1] + 1
		}
		for x := start; x < len(g.Events); x++ {
			sel[j] = x
			rec(j + 1)
		}
	}
	rec(0)
	return count
}
