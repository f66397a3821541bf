package csm

import (
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/pattern"
)

// The delta program as plain data, for engines that lower the CPU engine's terms into their own
// form (the GPU engines of package csm/gcsm): the same items, terms, matching orders and checks
// that the CPU engine runs, so every engine counts by the same rule.

// PairItemSpec is a pattern pair that constrains its data pair: an edge with a label, or under
// induced semantics a non-edge.
type PairItemSpec struct {
	A, B      int
	Adjacent  bool
	EdgeLabel pattern.Label
}

// Valid reports whether a data pair in state s meets the item.
func (it PairItemSpec) Valid(s PairState) bool { return pairValid(it.Adjacent, it.EdgeLabel, s) }

// EdgeCheckSpec requires an edge with a label to the data vertex of an earlier level.
type EdgeCheckSpec struct {
	Pos   int
	Label pattern.Label
}

// OtherPairSpec requires the pair with an earlier level's vertex to meet pair item Item in the
// other graph (when the pair changed in the batch).
type OtherPairSpec struct {
	Pos, Item int
}

// LevelSpec is one level of a term's matching order with its checks against earlier levels.
type LevelSpec struct {
	Vertex  int           // the pattern vertex
	Label   pattern.Label // its label constraint
	Parents []EdgeCheckSpec
	// NonAdj (induced): earlier positions it must not be adjacent to; Inj: earlier positions
	// whose data vertex it may equal (labels that may collide, never parents); Above / Below:
	// earlier positions whose data vertex must be smaller / larger (symmetry restrictions).
	NonAdj, Inj, Above, Below []int
	// OtherVertex: the vertex item must hold in the other graph too.
	OtherVertex bool
	OtherPairs  []OtherPairSpec
}

// TermSpec is the search anchored at one item: a vertex item (Vertex >= 0, one anchor level) or
// a pair item (Pair >= 0, two anchor levels: the pair's A then B).
type TermSpec struct {
	Vertex, Pair int
	Levels       []LevelSpec
}

// ProgramSpec is a pattern's delta program: its pair items and its terms (one per vertex item,
// then one per pair item).
type ProgramSpec struct {
	Pairs []PairItemSpec
	Terms []TermSpec
}

// Program returns the delta program the CPU engine runs for p under sem.
func Program(p *pattern.Pattern, sem engine.Semantics) ProgramSpec {
	pr := newProgram(p, sem)
	var out ProgramSpec
	for _, it := range pr.pairs {
		out.Pairs = append(out.Pairs, PairItemSpec{A: it.a, B: it.b, Adjacent: it.adj, EdgeLabel: it.el})
	}
	itemIndex := func(it *pairItem) int {
		for i := range pr.pairs {
			if &pr.pairs[i] == it {
				return i
			}
		}
		return -1
	}
	for _, t := range pr.terms {
		ts := TermSpec{Vertex: t.vertex, Pair: t.pair}
		for _, lv := range t.levels {
			ls := LevelSpec{Vertex: lv.w, Label: lv.vl, OtherVertex: lv.otherV,
				NonAdj: lv.nonAdj, Inj: lv.inj, Above: lv.above, Below: lv.below}
			for _, pe := range lv.parents {
				ls.Parents = append(ls.Parents, EdgeCheckSpec{Pos: pe.pos, Label: pe.el})
			}
			for _, oc := range lv.otherP {
				ls.OtherPairs = append(ls.OtherPairs, OtherPairSpec{Pos: oc.pos, Item: itemIndex(oc.it)})
			}
			ts.Levels = append(ts.Levels, ls)
		}
		out.Terms = append(out.Terms, ts)
	}
	return out
}
