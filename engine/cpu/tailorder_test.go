package cpu

import (
	"math/bits"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestTailSets checks the independent sets tailSets offers on STMatch's dense patterns and its
// orders: q22 (a triangle joined to the 4-cycle d-f-e-g) offers its two pairs of opposite
// vertices, q20 its two largest independent sets, q17 (two vertices counted by default, none
// larger) and the clique nothing; each order enumerates the rest connected, then the set.
func TestTailSets(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		counted   int
		want      [][]string
	}{
		{"q22", "(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (a)-(g), (b)-(c), (b)-(d), (b)-(e), (b)-(f), (b)-(g), (c)-(d), (c)-(e), (c)-(f), (c)-(g), (d)-(f), (d)-(g), (e)-(f), (e)-(g)", 0,
			[][]string{{"d", "e"}, {"f", "g"}}},
		{"q20", "(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (a)-(g), (b)-(c), (b)-(d), (b)-(e), (b)-(f), (b)-(g), (c)-(e), (c)-(f), (c)-(g), (d)-(e), (d)-(f), (d)-(g), (e)-(f)", 1,
			[][]string{{"c", "d"}, {"e", "g"}, {"f", "g"}}},
		{"q17", "(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (a)-(g), (b)-(c), (b)-(d), (b)-(e), (b)-(f), (b)-(g), (c)-(d), (c)-(e), (c)-(f), (c)-(g), (e)-(f), (e)-(g), (f)-(g)", 2, nil},
		{"K5", "(a)-(b), (a)-(c), (a)-(d), (a)-(e), (b)-(c), (b)-(d), (b)-(e), (c)-(d), (c)-(e), (d)-(e)", 0, nil},
		{"star and isolated", "(a)-(b), (a)-(c), (a)-(d), (a)-(e), (x)", 0, nil}, // the leaves' complement {a} is one vertex, connected: offered below
	} {
		p, err := pattern.Parse(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		cands := make([][]uint32, p.NumVertices())
		var got [][]string
		for _, s := range tailSets(p, tc.counted) {
			var names []string
			for r := s; r != 0; r &= r - 1 {
				names = append(names, p.Name(bits.TrailingZeros32(r)))
			}
			slices.Sort(names)
			got = append(got, names)
			for _, order := range tailOrders(p, cands, s) {
				if tailSet(p, order) != s {
					t.Errorf("%s: order %v: tailSet %b, want %b", tc.name, order, tailSet(p, order), s)
				}
				if len(order) != p.NumVertices() {
					t.Fatalf("%s: order %v is not of every vertex", tc.name, order)
				}
				var placed uint32
				for _, u := range order {
					inSet := s&(1<<u) != 0
					if !inSet && p.Degree(u) > 0 && placed&s != 0 {
						t.Errorf("%s: order %v does not end with the set %v", tc.name, order, names)
					}
					if placed != 0 && !inSet && p.Degree(u) > 0 && p.NeighborMask(u)&placed == 0 {
						t.Errorf("%s: order %v: %s has no neighbour before it", tc.name, order, p.Name(u))
					}
					placed |= 1 << u
				}
			}
		}
		slices.SortFunc(got, slices.Compare)
		if tc.name == "star and isolated" {
			if len(got) != 1 || !slices.Equal(got[0], []string{"b", "c", "d", "e"}) {
				t.Errorf("%s: sets %v, want [[b c d e]]", tc.name, got)
			}
			continue
		}
		if !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("%s: sets %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestTailOrderSearchAllocatesNothing is TestSearchAllocatesNothing for the plans of tail orders
// (every order tailOrders gives for every set of STMatch's q19, q20 and q22, with the default
// symmetry rule and with all symmetry broken) on a dense random graph: their last-level sums,
// pair tables and twin groups allocate nothing once the worker's buffers are warm.
func TestTailOrderSearchAllocatesNothing(t *testing.T) {
	g := gen.RandomGraph(7, 20, 0.5, 1, 1)
	sums := 0
	for _, src := range []string{
		"(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (b)-(c), (b)-(d), (b)-(e), (b)-(f), (c)-(d), (c)-(e), (c)-(g), (d)-(f), (d)-(g), (e)-(f), (e)-(g), (f)-(g)",
		"(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (a)-(g), (b)-(c), (b)-(d), (b)-(e), (b)-(f), (b)-(g), (c)-(e), (c)-(f), (c)-(g), (d)-(e), (d)-(f), (d)-(g), (e)-(f)",
		"(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (a)-(g), (b)-(c), (b)-(d), (b)-(e), (b)-(f), (b)-(g), (c)-(d), (c)-(e), (c)-(f), (c)-(g), (d)-(f), (d)-(g), (e)-(f), (e)-(g)",
	} {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		base := plan.Build(g, p, plan.Options{MultiplyAutomorphisms: true, PrefixSymmetry: true})
		for _, s := range tailSets(p, 1) {
			for _, order := range tailOrders(p, base.Candidates, s) {
				for _, broken := range []bool{false, true} {
					opts := plan.Options{MultiplyAutomorphisms: true, PrefixSymmetry: true, Order: order}
					if broken {
						opts.Symmetry, opts.GroupWindows = plan.SymmetryBreak, true
					}
					pl := plan.Build(g, p, opts)
					if pl.Empty {
						continue
					}
					var stop atomic.Bool
					w := newWorker(g, pl, &stop)
					if w.lastSum != nil {
						sums++
					}
					allocs := searchAllocs(w, pl, 2)
					if allocs != 0 {
						t.Errorf("%s order %v broken=%v: %.1f allocations per pass, want 0", src, order, broken, allocs)
					}
				}
			}
		}
	}
	if sums == 0 {
		t.Error("no tail order's plan took the last-level sum")
	}
}
