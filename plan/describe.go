package plan

import (
	"fmt"
	"strings"
)

// Describe renders the plan for people: the enumeration order with candidate counts and the
// edges each level intersects, the postponed groups, the restrictions and the candidate space.
func (pl *Plan) Describe() string {
	p := pl.Pattern
	var b strings.Builder
	if pl.Empty {
		b.WriteString("some pattern vertex has no candidate: no match\n")
	}
	for i, l := range pl.Levels {
		fmt.Fprintf(&b, "level %d: %s (label %s, %d candidates)", i, p.Name(l.Vertex), l.VertexLabel, len(pl.Candidates[l.Vertex]))
		if len(l.Backward) > 0 {
			var from []string
			for _, be := range l.Backward {
				from = append(from, p.Name(pl.Levels[be.Level].Vertex))
			}
			fmt.Fprintf(&b, " adjacent to %s", strings.Join(from, ", "))
		}
		if l.Reuse >= 0 {
			fmt.Fprintf(&b, ", reusing level %d's set", l.Reuse)
		}
		b.WriteString("\n")
	}
	for _, g := range pl.Groups {
		var names, parents []string
		for _, u := range g.Vertices {
			names = append(names, p.Name(u))
		}
		for _, pe := range g.Parents {
			parents = append(parents, p.Name(pl.Levels[pe.Level].Vertex))
		}
		how := "common neighbours of " + strings.Join(parents, ", ")
		if len(parents) == 0 {
			how = "any candidate"
		}
		for _, j := range g.Lower {
			how += ", above " + p.Name(pl.Levels[j].Vertex)
		}
		for _, j := range g.Upper {
			how += ", below " + p.Name(pl.Levels[j].Vertex)
		}
		fmt.Fprintf(&b, "counted, not enumerated: %s (%s)\n", strings.Join(names, ", "), how)
	}
	if len(pl.Restrictions) > 0 {
		var rs []string
		for _, r := range pl.Restrictions {
			rs = append(rs, p.Name(r.Less)+"<"+p.Name(r.Greater))
		}
		fmt.Fprintf(&b, "symmetry restrictions: %s\n", strings.Join(rs, " "))
	}
	if pl.Multiplier > 1 {
		ident := make([]int, p.NumVertices())
		for u := range ident {
			ident[u] = u
		}
		if aut, ok := automorphismsFromRestrictions(SymmetryRestrictions(p, ident)); !ok || aut == pl.Multiplier {
			fmt.Fprintf(&b, "each match found stands for %d embeddings (|Aut| of the pattern)\n", pl.Multiplier)
		} else {
			fmt.Fprintf(&b, "each match found stands for %d embeddings (of |Aut| = %d, the restrictions break the automorphisms that move the first enumerated vertices)\n", pl.Multiplier, aut)
		}
	}
	if pl.Space != nil {
		entries := 0
		distinct := map[*EdgeIndex]bool{}
		for _, e := range pl.Space {
			if !distinct[e] {
				distinct[e] = true
				entries += e.Entries()
			}
		}
		fmt.Fprintf(&b, "candidate space: %d edge indexes (%d distinct), %d entries\n", len(pl.Space), len(distinct), entries)
	} else {
		b.WriteString("candidate space: none (intersecting label runs of the graph)\n")
	}
	return b.String()
}
