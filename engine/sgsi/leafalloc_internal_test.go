package sgsi

import (
	"context"
	"testing"

	"github.com/submatch/submatch/gen"
)

// TestRowLeavesAllocates: the leaf step's count of a row (rowLeaves, its factors in turn)
// allocates nothing once the goroutine's scratch is made, whether it recounts every factor (no
// row before) or reuses those of the row before; the rows' counts add up to leafCount's.
func TestRowLeavesAllocates(t *testing.T) {
	g := gen.RandomGraph(1, 400, 0.05, 1, 0)
	_, q, s, cands, bits, bitWords := leafSetup(t, g)
	var table []uint32 // (rows of adjacent a and b)
	for v := range uint32(10) {
		for _, w := range g.Neighbors(v) {
			table = append(table, v, w)
		}
	}
	r := &runner{ctx: context.Background(), s: s, q: q, cands: cands, bitsHost: bits, bitWords: bitWords, threads: 1}
	if err := r.leafCount(table); err != nil {
		t.Fatal(err)
	}
	if r.total == 0 {
		t.Fatal("setup: no placements")
	}
	sc := r.leafScratch[0]
	lgs := make([][]*labelGraph, len(q.leafGroups))
	for i, lg := range q.leafGroups {
		for _, pe := range lg.parents {
			lgs[i] = append(lgs[i], s.label(pe.key))
		}
	}
	k := q.joined
	for _, fresh := range []bool{true, false} {
		var sum uint64
		a := testing.AllocsPerRun(3, func() {
			sum = 0
			for x := 0; x < len(table); x += k {
				sc.hasPrev = sc.hasPrev && !fresh
				n, ok := r.rowLeaves(table[x:x+k], lgs, sc)
				if !ok {
					t.Fatal("overflow")
				}
				sum += n
			}
		})
		if a != 0 {
			t.Errorf("fresh %v: the rows' counts allocate %v times", fresh, a)
		}
		if sum != r.total {
			t.Errorf("fresh %v: the rows count %d, leafCount %d", fresh, sum, r.total)
		}
	}
}
