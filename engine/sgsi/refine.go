package sgsi

import (
	"math/bits"
	"slices"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/par"
	"github.com/submatch/submatch/pattern"
)

// refineBlock is how many data vertices (a multiple of 32) one task of refineCandidates takes.
const refineBlock = 1 << 14

// refineCandidates is one round of neighbourhood refinement on the host copy of the candidate
// bitsets (Options.Refine, --sgsi-refine; the cpu plan's filter does the same): it removes v
// from C(u) when, for some query neighbour w of u, no neighbour of v lies in C(w) as the
// signature filter left it. Every vertex of a match keeps its candidacy (its image of w is such a
// neighbour, whatever the edge label and the convention), so counts stay exact; signatures
// alone let through the vertices whose (edge, neighbour label) pairs merely collide in their 48
// groups (issue 21: 2-20x the cpu plan's candidates under 1,000 zipf labels). bitsHost holds
// bitWords words per query vertex and is changed in place; it returns the candidates removed.
func refineCandidates(g *graph.Graph, p *pattern.Pattern, bitsHost []uint32, bitWords uint64, workers int) uint64 {
	n := p.NumVertices()
	old := slices.Clone(bitsHost)
	row := func(u int) []uint32 { return old[uint64(u)*bitWords : uint64(u+1)*bitWords] }
	blocks := int((uint64(g.NumVertices()) + refineBlock - 1) / refineBlock)
	removed := make([]uint64, n*blocks)
	par.For(n*blocks, workers, func(t int) {
		u, b := t/blocks, t%blocks
		own := bitsHost[uint64(u)*bitWords : uint64(u+1)*bitWords]
		lo := b * refineBlock / 32
		hi := min(lo+refineBlock/32, len(own))
		for wi := lo; wi < hi; wi++ {
			for x := own[wi]; x != 0; x &= x - 1 {
				v := uint32(wi*32 + bits.TrailingZeros32(x))
				for m := p.NeighborMask(u); m != 0; m &= m - 1 {
					if !anyIn(g.Neighbors(v), row(bits.TrailingZeros32(m))) {
						own[wi] &^= 1 << (v % 32)
						removed[t]++
						break
					}
				}
			}
		}
	})
	total := uint64(0)
	for _, r := range removed {
		total += r
	}
	return total
}

// anyIn reports whether some vertex of list is set in bitset.
func anyIn(list, bitset []uint32) bool {
	for _, x := range list {
		if bitset[x/32]>>(x%32)&1 != 0 {
			return true
		}
	}
	return false
}
