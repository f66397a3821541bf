package plan

import (
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
)

// symmetricPatterns are patterns with large or labelled automorphism groups.
var symmetricPatterns = []string{
	"(a)-(b)", "(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a)", "(a)-(b)-(c)-(d)-(a)-(c), (b)-(d)",
	"(c)-(x), (c)-(y), (c)-(z), (c)-(w)", "(a)-(x), (a)-(y), (a)-(z), (b)-(x), (b)-(y), (b)-(z)",
	"(a)-(b)-(c)-(d)-(e)-(a)-(c)-(e)-(b)-(d)-(a)", "(a)-(b)-(c)-(d)-(e)-(a), (a)-(c), (b)-(d)",
	"(a:1)-(b)-(c:1)-(d)-(a)", "(a)-[:1]-(b)-(c)-(a)", "(a:*)-(b:*)-(c)-(a)", "(a)-[:*]-(b)-(c)-(a)",
	"(a)-(b)-(c)-(a), (d)-(e)-(f)-(d)", "(a)-(b), (c)-(d)", "(a)-(b)-(c)-(d)-(e)-(f)-(a)",
	"(a:1)-(b:2)-(c:3)-(a)",
}

// TestEdgeOrbitsBruteForce: EdgeOrbits partitions the edges into the orbits of Aut(p) (brute
// force over every vertex permutation), with the right orientation flag; AutomorphismGroup is
// the brute-force group; and StabilizerRestrictions keep exactly one member of every orbit of
// the pointwise stabiliser of a representative's ends acting on injective maps (checked on
// every permutation of the pattern's vertices as a map). Patterns: symmetric ones and random
// ones (labels, wildcards, edge labels, several components).
func TestEdgeOrbitsBruteForce(t *testing.T) {
	var ps []*pattern.Pattern
	for _, src := range symmetricPatterns {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	for seed := uint64(0); seed < 200; seed++ {
		n := 2 + int(seed%5)
		ps = append(ps, gen.RandomPattern(seed, n, gen.PatternOptions{EdgeProb: []float64{0.3, 0.7, 1}[seed%3],
			VertexLabels: int(1 + seed%3/2), EdgeLabels: int(1 + seed%5/4), Wildcard: 0.15 * float64(seed%2),
			Components: int(seed % 4 / 3 * 2)}))
	}
	nontrivial := 0
	for _, p := range ps {
		auts := allAutomorphisms(p)
		group := AutomorphismGroup(p, 1<<14)
		sortPerms := func(ps [][]int) { slices.SortFunc(ps, slices.Compare) }
		sortPerms(group)
		sortPerms(auts)
		if !slices.EqualFunc(group, auts, slices.Equal) {
			t.Fatalf("%v: AutomorphismGroup %v, brute force %v", p, group, auts)
		}
		edges := p.Edges()
		index := func(u, v int) (int, bool) {
			for i, e := range edges {
				if e.U == u && e.V == v {
					return i, true
				}
				if e.U == v && e.V == u {
					return i, false
				}
			}
			t.Fatalf("%v: no edge %d-%d", p, u, v)
			return 0, false
		}
		seen := make([]bool, len(edges))
		for _, o := range EdgeOrbits(p) {
			if e := edges[o.Edges[0]]; e.U != o.U || e.V != o.V {
				t.Fatalf("%v: orbit %+v does not start with its representative", p, o)
			}
			// The brute-force orbit of the oriented edge (U, V).
			var want []int
			oriented, reversible := 0, false
			seenOriented := map[[2]int]bool{}
			for _, s := range auts {
				x, y := s[o.U], s[o.V]
				if !seenOriented[[2]int{x, y}] {
					seenOriented[[2]int{x, y}] = true
					oriented++
				}
				if x == o.V && y == o.U {
					reversible = true
				}
				i, _ := index(x, y)
				if !slices.Contains(want, i) {
					want = append(want, i)
				}
			}
			got := slices.Sorted(slices.Values(o.Edges))
			slices.Sort(want)
			if !slices.Equal(got, want) || o.Reversible != reversible || o.OrientedSize() != oriented {
				t.Fatalf("%v: orbit %+v (oriented size %d), brute force edges %v, reversible %v, oriented size %d",
					p, o, o.OrientedSize(), want, reversible, oriented)
			}
			for _, i := range got {
				if seen[i] {
					t.Fatalf("%v: edge %d in two orbits", p, i)
				}
				seen[i] = true
			}
			if len(got) > 1 || reversible {
				nontrivial++
			}
			checkStabilizerRestrictions(t, p, auts, o.U, o.V)
		}
		if slices.Contains(seen, false) {
			t.Fatalf("%v: an edge in no orbit", p)
		}
	}
	if nontrivial < 20 {
		t.Fatalf("only %d orbits of more than one oriented edge", nontrivial)
	}
}

// checkStabilizerRestrictions checks that StabilizerRestrictions(p, {u, v}, order) keep exactly
// one member of every orbit of the automorphisms fixing u and v, acting on the bijections of
// p's vertices onto 0..n-1 (m∘σ), for the identity order and its reverse.
func checkStabilizerRestrictions(t *testing.T, p *pattern.Pattern, auts [][]int, u, v int) {
	t.Helper()
	var stab [][]int
	for _, s := range auts {
		if s[u] == u && s[v] == v {
			stab = append(stab, s)
		}
	}
	n := p.NumVertices()
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	for range 2 {
		rs := StabilizerRestrictions(p, []int{u, v}, order)
		for _, r := range rs {
			if r.Less == u || r.Less == v || r.Greater == u || r.Greater == v {
				t.Fatalf("%v: restriction %v on a fixed vertex (%d, %d)", p, r, u, v)
			}
		}
		m := make([]int, n)
		for _, perm := range allPerms(n) {
			kept := 0
			for _, s := range stab {
				ok := true
				for i := range m {
					m[i] = perm[s[i]]
				}
				for _, r := range rs {
					if m[r.Less] >= m[r.Greater] {
						ok = false
					}
				}
				if ok {
					kept++
				}
			}
			if kept != 1 {
				t.Fatalf("%v: restrictions %v for the stabiliser of %d, %d keep %d of the orbit of %v", p, rs, u, v, kept, perm)
			}
		}
		slices.Reverse(order)
	}
}

// allPerms lists every permutation of 0..n-1.
func allPerms(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, q := range allPerms(n - 1) {
		for i := 0; i <= len(q); i++ {
			r := slices.Insert(slices.Clone(q), i, n-1)
			out = append(out, r)
		}
	}
	return out
}
