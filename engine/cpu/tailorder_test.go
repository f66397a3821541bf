package cpu

import (
	"math/bits"
	"slices"
	"testing"

	"github.com/submatch/submatch/pattern"
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
