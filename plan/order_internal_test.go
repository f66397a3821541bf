package plan

import (
	"context"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
)

// TestDistinctUpToAut: the orders distinctUpToAut drops run the searches of orders it keeps when
// every vertex is enumerated (for both symmetry choices: the same signatures; with leaf groups
// they may not, and the search does not drop them), and it drops some wherever the pattern has
// automorphisms.
func TestDistinctUpToAut(t *testing.T) {
	g := gen.RandomGraphM(4, 200, 1500, 2, 1)
	for _, src := range []string{
		"(a)-(b)-(c)-(d)-(a), (a)-(c)",
		"(a)-(b)-(c)-(d)-(e)-(a)",
		"(a:0)-(b:1)-(c:0)-(d:1)-(a), (b)-(e:0)",
		// STMatch's q20 and q14.
		"(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (a)-(g), (b)-(c), (b)-(d), (b)-(e), (b)-(f), (b)-(g), (c)-(e), (c)-(f), (c)-(g), (d)-(e), (d)-(f), (d)-(g), (e)-(f)",
		"(a)-(b), (a)-(c), (a)-(d), (a)-(e), (b)-(c), (b)-(d), (b)-(e), (c)-(d), (c)-(e), (c)-(f), (d)-(e), (d)-(f), (e)-(f)",
	} {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		aut := autGroup(p, maxSearchGroup)
		var orders [][]int
		candidateOrders(p, func(o []int) bool { orders = append(orders, o); return true })
		kept := distinctUpToAut(orders, aut)
		if len(aut) > 1 && len(kept) == len(orders) {
			t.Errorf("%s: |Aut| %d, and all %d orders kept", src, len(aut), len(orders))
		}
		{
			const enumerate = true
			opts := Options{Enumerate: enumerate, MultiplyAutomorphisms: true}
			base, err := BuildContext(context.Background(), g, p, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, sym := range []symChoice{symOn, symOff} {
				sig := func(o []int) string {
					tp := &Plan{Pattern: p, Candidates: base.Candidates, CandidateBits: base.CandidateBits, Empty: base.Empty}
					order, postponed := givenOrder(p, o, !enumerate)
					tp.arrangeMemo(order, postponed, opts, sym, aut)
					return tp.signature()
				}
				have := map[string]bool{}
				for _, o := range kept {
					have[sig(o)] = true
				}
				for _, o := range orders {
					if !have[sig(o)] {
						t.Errorf("%s (enumerate %v, sym %d): order %v dropped, and no kept order has its signature", src, enumerate, sym, o)
					}
				}
			}
		}
		t.Logf("%s: |Aut| %d, %d orders, %d kept", src, len(aut), len(orders), len(kept))
	}
}
