package dcsm

import (
	"fmt"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/csm/internal/gpucsm"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/pattern"
)

// The executor's table: the pair terms of every pattern's delta program (csm.Program, the CPU
// engine's), lowered into fixed-size records of uint32 words that the kernel (kernels/dcsm.cu,
// whose #defines repeat these constants) and the host emulation (emu.go) read alike. An update
// changes one element, so only the checks against the current graph matter: the other-graph
// checks of the CPU terms hold trivially (no other element changed), and a vertex operation
// changes the matches of a connected pattern of two or more vertices only through its edges.

// MaxPatternVertices is the largest pattern the executor takes.
const MaxPatternVertices = 8

const (
	termHeader = 4
	levelWords = 32
	termWords  = termHeader + MaxPatternVertices*levelWords

	tN = 0 // levels (pattern vertices)

	lVLAny  = 0  // vertex label is a wildcard
	lVL     = 1  // vertex label
	lNPar   = 2  // parents (earlier pattern neighbours)
	lNonAdj = 3  // mask of earlier positions it must not be adjacent to (induced)
	lInj    = 4  // mask of earlier positions it must differ from
	lAbove  = 5  // mask of earlier positions whose vertex must be smaller
	lBelow  = 6  // mask of earlier positions whose vertex must be larger
	lPPos   = 7  // [7] parent positions
	lPELAny = 14 // [7] parent edge label is a wildcard
	lPEL    = 21 // [7] parent edge label
)

var levelLayout = gpucsm.Level{VLAny: lVLAny, VL: lVL, NPar: lNPar, NonAdj: lNonAdj, Inj: lInj, Above: lAbove, Below: lBelow,
	PPos: lPPos, PELAny: lPELAny, PEL: lPEL}

// pairTerm is one pair item of a pattern and its term: the host checks the anchors (levels 0
// and 1), the executor searches the rest.
type pairTerm struct {
	item     csm.PairItemSpec
	index    uint32        // the term's record in the table
	la, lb   pattern.Label // the anchors' vertex labels
	above    bool          // level 0's vertex must be smaller than level 1's
	below    bool          // ... larger
	parents2 uint32        // mask of the anchors that are parents of the third level (0: none)
}

// patternProg is one pattern as the engine runs it.
type patternProg struct {
	n     int
	label pattern.Label // n == 1: the vertex's label
	pairs []pairTerm
}

// table is the lowered terms of a set of patterns.
type table struct {
	words []uint32
	pats  []patternProg
	// order is, per term record, the pattern vertex of each level (a listed match's words are
	// in level order; a signed match is in pattern vertex order).
	order [][]uint8
	// The endpoint labels an edge must have to be read by some search (the CPU engine's label
	// filter, csm's Relevant): anyPair (a wildcard anchor label, or one of 64 or more), else bit
	// l1 of pairLabels[l0]. An edge no pair term's anchors match is in no match and never read
	// (the keys of a vertex's block are sorted by label, and every level reads the labels of
	// its pattern pairs); its label pair is fixed while it exists (a vertex changes its label
	// only once deleted with its edges), so the multi-version graph leaves it out.
	anyPair    bool
	pairLabels [64]uint64
	// The pair terms an edge anchors, by its endpoints' labels (book, terms), when the table
	// has at most 64 pair terms (else refs is nil): refs lists them in table order, and
	// byLabels[lx*anchorLabels+ly] has bit i of word o set when refs[i]'s anchors' labels
	// match the edge in orientation o (pairTerm.orient), for labels below anchorLabels.
	refs     []termRef
	byLabels [][2]uint64
}

// anchorLabels bounds the labels of table.byLabels.
const anchorLabels = 16

// termRef is a pair term and its pattern.
type termRef struct {
	p  int
	pt *pairTerm
}

// orient returns the orientations in which an edge with endpoint labels lx, ly passes the
// anchors' label checks: bit 0, x at level 0 and y at level 1; bit 1, the reverse.
func (pt *pairTerm) orient(lx, ly uint32) uint8 {
	var o uint8
	if pt.la.Matches(lx) && pt.lb.Matches(ly) {
		o |= 1
	}
	if pt.la.Matches(ly) && pt.lb.Matches(lx) {
		o |= 2
	}
	return o
}

// terms returns the pair terms (refs, at most 64) an edge with endpoint labels lx, ly anchors,
// with their orientations: bit i of word o for refs[i] in orientation o (pairTerm.orient).
func (t *table) terms(lx, ly uint32) [2]uint64 {
	if lx < anchorLabels && ly < anchorLabels {
		return t.byLabels[lx*anchorLabels+ly]
	}
	return t.masks(lx, ly)
}

// masks computes terms's answer.
func (t *table) masks(lx, ly uint32) [2]uint64 {
	var m [2]uint64
	for i, r := range t.refs {
		o := r.pt.orient(lx, ly)
		m[0] |= uint64(o&1) << i
		m[1] |= uint64(o>>1) << i
	}
	return m
}

// index fills refs and byLabels (at most 64 pair terms).
func (t *table) index() {
	for p := range t.pats {
		for j := range t.pats[p].pairs {
			t.refs = append(t.refs, termRef{p, &t.pats[p].pairs[j]})
		}
	}
	if len(t.refs) > 64 {
		t.refs = nil
		return
	}
	t.byLabels = make([][2]uint64, anchorLabels*anchorLabels)
	for lx := range uint32(anchorLabels) {
		for ly := range uint32(anchorLabels) {
			t.byLabels[lx*anchorLabels+ly] = t.masks(lx, ly)
		}
	}
}

// relevant reports whether an edge between vertices labelled l0 and l1 can be read by a search.
func (t *table) relevant(l0, l1 uint32) bool {
	return t.anyPair || l0 < 64 && l1 < 64 && t.pairLabels[l0]&(1<<l1) != 0
}

// addPairLabels adds the anchor labels of a pair term to the filter (both orientations).
func (t *table) addPairLabels(la, lb pattern.Label) {
	if la.Any || lb.Any || la.Value >= 64 || lb.Value >= 64 {
		t.anyPair = true
		return
	}
	t.pairLabels[la.Value] |= 1 << lb.Value
	t.pairLabels[lb.Value] |= 1 << la.Value
}

// lower builds the table, refusing patterns the executor does not take: more than
// MaxPatternVertices vertices, or disconnected (a level with no parent would scan every vertex).
func lower(patterns []*pattern.Pattern, sem engine.Semantics) (*table, error) {
	t := &table{}
	for pi, p := range patterns {
		n := p.NumVertices()
		if n > MaxPatternVertices {
			return nil, fmt.Errorf("dcsm: pattern %d has %d vertices; the GPU engine takes at most %d (use --engine cpu)", pi+1, n, MaxPatternVertices)
		}
		pp := patternProg{n: n}
		if n == 1 {
			pp.label = p.VertexLabel(0)
		}
		prog := csm.Program(p, sem)
		for i, it := range prog.Pairs {
			term := prog.Terms[n+i]
			if term.Pair != i || term.Levels[0].Vertex != it.A || term.Levels[1].Vertex != it.B {
				return nil, fmt.Errorf("dcsm: internal error: pattern %d, term %d is not pair item %d's", pi+1, n+i, i)
			}
			rec := make([]uint32, termWords)
			rec[tN] = uint32(n)
			for k, lv := range term.Levels {
				if k >= 2 && len(lv.Parents) == 0 {
					return nil, fmt.Errorf("dcsm: pattern %d is disconnected (level %d has no earlier neighbour); the GPU engine takes connected patterns (use --engine cpu)", pi+1, k)
				}
				levelLayout.Put(rec[termHeader+k*levelWords:termHeader+(k+1)*levelWords], lv)
			}
			l1 := term.Levels[1]
			pt := pairTerm{item: it, index: uint32(len(t.words) / termWords),
				la: term.Levels[0].Label, lb: l1.Label, above: gpucsm.Mask(l1.Above)&1 != 0, below: gpucsm.Mask(l1.Below)&1 != 0}
			if n > 2 {
				for _, pe := range term.Levels[2].Parents {
					pt.parents2 |= 1 << pe.Pos
				}
			}
			pp.pairs = append(pp.pairs, pt)
			t.addPairLabels(pt.la, pt.lb)
			t.words = append(t.words, rec...)
			ord := make([]uint8, n)
			for k, lv := range term.Levels {
				ord[k] = uint8(lv.Vertex)
			}
			t.order = append(t.order, ord)
		}
		if n >= 2 && len(prog.Pairs) == 0 {
			return nil, fmt.Errorf("dcsm: pattern %d is disconnected (no edge); the GPU engine takes connected patterns (use --engine cpu)", pi+1)
		}
		if n >= 2 {
			// Every vertex must be reachable: an edgeless vertex would appear as a level with no
			// parent in every term, checked above only when some pair term exists.
			for v := range n {
				if p.Degree(v) == 0 {
					return nil, fmt.Errorf("dcsm: pattern %d is disconnected (vertex %d has no edge); the GPU engine takes connected patterns (use --engine cpu)", pi+1, v)
				}
			}
		}
		t.pats = append(t.pats, pp)
	}
	t.index()
	return t, nil
}
