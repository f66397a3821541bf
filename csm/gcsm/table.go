package gcsm

import (
	"fmt"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/csm/internal/gpucsm"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/pattern"
)

// The instruction table: every term of every pattern's delta program (csm.Program) lowered into
// fixed-size records of uint32 words, read alike by the CUDA interpreter (kernels/gcsm.cu, whose
// #defines repeat these constants) and by the host emulation (emu.go). A later GPU engine (DCSM)
// runs the same table.

// MaxPatternVertices is the largest pattern the GPU interpreter takes.
const MaxPatternVertices = 8

const (
	termHeader = 8
	levelWords = 64
	termWords  = termHeader + MaxPatternVertices*levelWords

	// term header
	tN       = 0 // levels (pattern vertices)
	tAnchors = 1 // anchor levels: 1 (vertex item) or 2 (pair item)
	tPattern = 2 // the pattern's index
	tTail    = 3 // first level of the independent tail (counted as a product), or tN: none

	// level record
	lVLAny   = 0  // vertex label is a wildcard
	lVL      = 1  // vertex label
	lNPar    = 2  // parents
	lNonAdj  = 3  // mask of earlier positions it must not be adjacent to (induced)
	lInj     = 4  // mask of earlier positions it must differ from
	lAbove   = 5  // mask of earlier positions whose vertex must be smaller
	lBelow   = 6  // mask of earlier positions whose vertex must be larger
	lOtherV  = 7  // the vertex item must hold in the other graph
	lOtherP  = 8  // mask of earlier positions whose pair must meet its item in the other graph
	lPPos    = 9  // [8] parent positions
	lPELAny  = 17 // [8] parent edge label is a wildcard
	lPEL     = 25 // [8] parent edge label
	lOPAdj   = 33 // [8] by position: the other-graph item is an edge (else a non-edge)
	lOPELAny = 41 // [8] by position: its edge label is a wildcard
	lOPEL    = 49 // [8] by position: its edge label
)

var levelLayout = gpucsm.Level{VLAny: lVLAny, VL: lVL, NPar: lNPar, NonAdj: lNonAdj, Inj: lInj, Above: lAbove, Below: lBelow,
	PPos: lPPos, PELAny: lPELAny, PEL: lPEL}

// table is the lowered programs of a set of patterns.
type table struct {
	words []uint32
	progs []csm.ProgramSpec
	first []int   // per pattern, the global index of its first term
	sizes []int   // per pattern, its number of vertices
	order [][]int // per global term, the pattern vertex of each level (a listed match's order)
}

// lower builds the table, refusing patterns the interpreter does not take (too large, or
// disconnected: a level with no parent would scan every vertex).
func lower(patterns []*pattern.Pattern, sem engine.Semantics) (*table, error) {
	t := &table{}
	for pi, p := range patterns {
		n := p.NumVertices()
		if n > MaxPatternVertices {
			return nil, fmt.Errorf("gcsm: pattern %d has %d vertices; the GPU engine takes at most %d (use --engine cpu)", pi+1, n, MaxPatternVertices)
		}
		prog := csm.Program(p, sem)
		t.progs = append(t.progs, prog)
		t.first = append(t.first, len(t.words)/termWords)
		t.sizes = append(t.sizes, n)
		for ti, term := range prog.Terms {
			ord := make([]int, len(term.Levels))
			for k, lv := range term.Levels {
				ord[k] = lv.Vertex
			}
			t.order = append(t.order, ord)
			rec := make([]uint32, termWords)
			rec[tN] = uint32(n)
			rec[tAnchors] = 2
			if term.Vertex >= 0 {
				rec[tAnchors] = 1
			}
			rec[tPattern] = uint32(pi)
			for k, lv := range term.Levels {
				if k >= int(rec[tAnchors]) && len(lv.Parents) == 0 {
					return nil, fmt.Errorf("gcsm: pattern %d is disconnected (term %d, level %d has no earlier neighbour); the GPU engine takes connected patterns (use --engine cpu)", pi+1, ti, k)
				}
				r := rec[termHeader+k*levelWords : termHeader+(k+1)*levelWords]
				levelLayout.Put(r, lv)
				r[lOtherV] = gpucsm.B2U(lv.OtherVertex)
				for _, oc := range lv.OtherPairs {
					it := prog.Pairs[oc.Item]
					r[lOtherP] |= 1 << oc.Pos
					r[lOPAdj+oc.Pos], r[lOPELAny+oc.Pos], r[lOPEL+oc.Pos] = gpucsm.B2U(it.Adjacent), gpucsm.B2U(it.EdgeLabel.Any), it.EdgeLabel.Value
				}
			}
			rec[tTail] = uint32(tail(rec))
			t.words = append(t.words, rec...)
		}
	}
	return t, nil
}

// tail returns the first level of the term's longest suffix of at least two levels none of which
// refers to another (as a parent, non-neighbour, injectivity, symmetry bound or other-graph
// pair), or the number of levels when there is none: given the earlier levels, the suffix's
// candidate sets are then independent, and its matches are the product of their sizes.
func tail(rec []uint32) int {
	n, na := int(rec[tN]), int(rec[tAnchors])
	t := n
	for s := n - 1; s >= na; s-- {
		// s may start the tail only if no later tail level refers to it
		ok := true
		for j := s + 1; j < n && ok; j++ {
			lj := rec[termHeader+j*levelWords : termHeader+(j+1)*levelWords]
			refs := lj[lNonAdj] | lj[lInj] | lj[lAbove] | lj[lBelow] | lj[lOtherP]
			for i := range int(lj[lNPar]) {
				refs |= 1 << lj[lPPos+i]
			}
			ok = refs&(1<<s) == 0
		}
		if !ok {
			break
		}
		t = s
	}
	if n-t < 2 {
		return n
	}
	return t
}
