package graph

import (
	"math/rand/v2"
	"testing"
)

// TestRulesRangeSums: each range's sum from checkRulesRange (the rules per run, then its hashes
// in signedHashes) is the sum over the range's entries (v, w, label) of +hash(v, w, label) when
// v < w and -hash(w, v, label) when v > w, taken entry by entry; the ranges of a symmetric
// graph sum to 0, with edge labels and without, with vertex labels and without.
func TestRulesRangeSums(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 300
	for _, c := range []struct{ vertexLabels, edgeLabels uint32 }{{1, 1}, {4, 1}, {1, 3}, {5, 4}} {
		labels := map[int64]uint32{}
		for v := range int64(n) {
			labels[v] = r.Uint32N(c.vertexLabels)
		}
		var edges []edge
		seen := map[[2]int64]bool{}
		for range 6000 {
			u, v := r.Int64N(n), r.Int64N(n)
			if e := [2]int64{min(u, v), max(u, v)}; u != v && !seen[e] {
				seen[e] = true
				edges = append(edges, edge{e[0], e[1], r.Uint32N(c.edgeLabels)})
			}
		}
		g := build(t, labels, edges)
		cuts := g.entryRanges(1000, checkRange)
		if len(cuts) < 4 {
			t.Fatalf("%d ranges: too few", len(cuts)-1)
		}
		var total uint64
		for k := 0; k+1 < len(cuts); k++ {
			sum, err := g.checkRulesRange(cuts[k], cuts[k+1])
			if err != nil {
				t.Fatalf("labels %v: range %d: %v", c, k, err)
			}
			var want uint64
			for v := cuts[k]; v < cuts[k+1]; v++ {
				for i := g.offsets[v]; i < g.offsets[v+1]; i++ {
					w, term := g.neighbors[i], labelTerm(g.edgeLabelAt(i))
					if uint32(v) < w {
						want += mixEntry(uint64(v)<<32|uint64(w), symmetryKey, term)
					} else {
						want -= mixEntry(uint64(w)<<32|uint64(v), symmetryKey, term)
					}
				}
			}
			if sum != want {
				t.Fatalf("labels %v: range %d sums to %#x, entry by entry %#x", c, k, sum, want)
			}
			total += sum
		}
		if total != 0 {
			t.Fatalf("labels %v: the ranges of a symmetric graph sum to %#x", c, total)
		}
	}
}
