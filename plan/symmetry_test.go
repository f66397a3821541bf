package plan

import (
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
)

// allAutomorphisms enumerates Aut(p) by brute force over permutations (tiny patterns only).
func allAutomorphisms(p *pattern.Pattern) [][]int {
	n := p.NumVertices()
	var out [][]int
	perm := make([]int, n)
	used := make([]bool, n)
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			for u := 0; u < n; u++ {
				for v := 0; v < n; v++ {
					l1, e1 := p.EdgeLabel(u, v)
					l2, e2 := p.EdgeLabel(perm[u], perm[v])
					if e1 != e2 || l1 != l2 {
						return
					}
				}
				if p.VertexLabel(u) != p.VertexLabel(perm[u]) {
					return
				}
			}
			out = append(out, append([]int(nil), perm...))
			return
		}
		for x := 0; x < n; x++ {
			if !used[x] {
				used[x], perm[i] = true, x
				rec(i + 1)
				used[x] = false
			}
		}
	}
	rec(0)
	return out
}

// TestRestrictionsKeepOneAutomorphism: embeddings of a pattern into itself are its
// automorphisms, which form one orbit, so exactly one of them may satisfy the restrictions.
func TestRestrictionsKeepOneAutomorphism(t *testing.T) {
	for _, src := range []string{
		"(a)", "(a), (b)", "(a), (b), (c:1)", "(a)-(b)", "(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a)",
		"(a)-(b)-(c)-(d)-(a)-(c), (b)-(d)", "(c)-(x), (c)-(y), (c)-(z)", "(a)-(b)-(c)-(d)",
		"(a:1)-(b)-(c:1)-(d)-(a)", "(a)-[:1]-(b)-(c)-(a)", "(a)-(b)-(c)-(a), (d)-(e)-(f)-(d)",
		"(a)-(b)-(c)-(d)-(e)-(f)-(a)", "(a)-(b), (c)-(d), (e)",
	} {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		auts := allAutomorphisms(p)
		if got := AutomorphismCount(p); got != uint64(len(auts)) {
			t.Errorf("%s: AutomorphismCount %d, brute force %d", src, got, len(auts))
		}
		order := make([]int, p.NumVertices())
		for i := range order {
			order[i] = i
		}
		rs := SymmetryRestrictions(p, order)
		kept := 0
		for _, s := range auts {
			ok := true
			for _, r := range rs {
				if s[r.Less] >= s[r.Greater] {
					ok = false
				}
			}
			if ok {
				kept++
			}
		}
		if kept != 1 {
			t.Errorf("%s: %d automorphisms satisfy the restrictions %v, want 1", src, kept, rs)
		}
	}
}

// TestPrefixRestrictions: where breaking every automorphism would enumerate a vertex the plan
// counts (STMatch's q14: b's restriction against a), the default plan keeps the restrictions
// among the vertices enumerated first and multiplies by their orbits' product, a proper divisor
// of |Aut(p)|; no restriction then involves a counted vertex.
func TestPrefixRestrictions(t *testing.T) {
	p, err := pattern.Parse("(a)-(b), (a)-(c), (a)-(d), (a)-(e), (b)-(c), (b)-(d), (b)-(e), (c)-(d), (c)-(e), (c)-(f), (d)-(e), (d)-(f), (e)-(f)")
	if err != nil {
		t.Fatal(err)
	}
	aut := AutomorphismCount(p)
	partial := false
	for seed := uint64(1); seed <= 6; seed++ {
		g := gen.RandomGraph(seed, 14, 0.5, 1, 1)
		pl := Build(g, p, Options{MultiplyAutomorphisms: true, PrefixSymmetry: true})
		if pl.Multiplier == 1 || pl.Multiplier == aut {
			continue
		}
		partial = true
		if aut%pl.Multiplier != 0 {
			t.Errorf("seed %d: multiplier %d does not divide |Aut| %d", seed, pl.Multiplier, aut)
		}
		for _, r := range pl.Restrictions {
			for _, lg := range pl.Groups {
				if slices.Contains(lg.Vertices, r.Less) || slices.Contains(lg.Vertices, r.Greater) {
					t.Errorf("seed %d: restriction %v on a counted vertex", seed, r)
				}
			}
		}
	}
	if !partial {
		t.Error("no plan broke part of the symmetry")
	}
}
