package core

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"

	"github.com/submatch/submatch/pattern"
)

// A Program is a GENEVA plan lowered to what the kernels execute: a list of steps over a table
// of partial embeddings whose column c holds the data vertex (new id) of query vertex Columns[c].
// Extension steps append columns, elimination steps drop rows; the last step's rows are the
// matches, or, when the last step is a Counting step (a plan with counted vertices), its count
// per row summed is the number of matches (such a program can only count).
type Program struct {
	Steps []Step
	// Columns[c] is the query vertex of table column c.
	Columns []int
	// Empty is set when some edge label of the query has no ELP: nothing matches.
	Empty bool
}

// Part names the partition a step searches: an ELP index, or UnionPart for every edge.
type Part = int

// UnionPart is the partition of all edges (wildcard edge labels, induced non-adjacency tests).
const UnionPart Part = -1

// NewVertex is one column an extension step appends.
type NewVertex struct {
	// Vertex is the query vertex.
	Vertex int
	// Source is the column of the matched neighbour whose row in Part gives the candidates, or
	// -1: the candidates are the query vertex's candidate list (an initial vertex).
	Source int
	Part   Part
	// Label is the vertex label constraint (the range of the row searched).
	Label pattern.Label
}

// ColumnPair is a constraint between two columns.
type ColumnPair struct {
	A, B int
	Part Part // for edge checks
}

// Step is one kernel launch over a table chunk.
type Step struct {
	Kind PhaseKind
	// Pattern is the Fig. 1 pattern of the phase the step comes from (extension steps).
	Pattern int
	// Width is the number of columns of the input table.
	Width int
	// New lists the columns an extension step appends (columns Width, Width+1, ...).
	New []NewVertex
	// Edges are the edges an elimination step checks (A, B adjacent in Part); an extension
	// step compiled with CompileOptions.Fuse checks those whose later column it appends.
	Edges []ColumnPair
	// Less lists symmetry restrictions (value of column A < value of column B) whose later column
	// this step appends.
	Less []ColumnPair
	// NonAdjacent lists induced-semantics pairs (A, B not adjacent at all) whose later column this
	// step appends.
	NonAdjacent []ColumnPair
	// Classes are what a Counting step counts per input row: the product of their counts.
	Classes []CountClass
}

// OutWidth is the width of the step's output table.
func (s *Step) OutWidth() int { return s.Width + len(s.New) }

// CompileOptions select the lowering.
type CompileOptions struct {
	Induced bool
	Unique  bool
	// SingleVertex splits every extension phase into single-vertex steps (pattern 0): the
	// paper's SV-match variant.
	SingleVertex bool
	// PaperOrder plans with the paper's structural GENMATCHORDER instead of its cost-aware
	// variant (MatchOrderEstimated).
	PaperOrder bool
	// Fuse checks each elimination edge in the extension step that appends its later column
	// (with the restrictions and induced pairs) instead of in a separate elimination step, so
	// that rows failing it are never written. The paper keeps elimination phases separate.
	Fuse bool
	// CountTail plans with PlanCounting (Prepare): closing vertices are counted by a final
	// Counting step instead of matched. Only for counts (the program cannot list); ignored for
	// induced counts.
	CountTail bool
}

// Compile lowers a GENEVA plan for q to a Program. elp maps an edge label to its ELP index (-1:
// no such edge in the data graph).
func Compile(q *pattern.Pattern, pl *Plan, elp func(label uint32) int, o CompileOptions) *Program {
	prog := &Program{}
	col := make([]int, q.NumVertices())
	for i := range col {
		col[i] = -1
	}
	part := func(l pattern.Label) Part {
		if l.Any {
			return UnionPart
		}
		e := elp(l.Value)
		if e < 0 {
			prog.Empty = true
			return 0
		}
		return e
	}
	// emit appends a step, its new columns, and the pairwise constraints whose later vertex is
	// among them.
	placedBy := make([]int, q.NumVertices()) // column -> index of the step that appends it
	emit := func(s Step) {
		s.Width = len(prog.Columns)
		var added uint32
		for _, nv := range s.New {
			placedBy[len(prog.Columns)] = len(prog.Steps)
			col[nv.Vertex] = len(prog.Columns)
			prog.Columns = append(prog.Columns, nv.Vertex)
			added |= 1 << nv.Vertex
		}
		if o.Unique {
			for _, r := range pl.Restrictions {
				if added&(1<<r.Less|1<<r.Greater) != 0 && col[r.Less] >= 0 && col[r.Greater] >= 0 {
					s.Less = append(s.Less, ColumnPair{A: col[r.Less], B: col[r.Greater]})
				}
			}
		}
		if o.Induced {
			for nb := added; nb != 0; nb &= nb - 1 {
				u := bits.TrailingZeros32(nb)
				for w := range q.NumVertices() {
					if w == u || col[w] < 0 || q.Adjacent(u, w) || added&(1<<w) != 0 && w < u {
						continue
					}
					s.NonAdjacent = append(s.NonAdjacent, ColumnPair{A: col[w], B: col[u], Part: UnionPart})
				}
			}
		}
		prog.Steps = append(prog.Steps, s)
	}
	for _, ph := range pl.Phases {
		switch ph.Kind {
		case Elimination:
			s := Step{Kind: Elimination}
			for _, e := range ph.Edges {
				c := ColumnPair{A: col[e.U], B: col[e.V], Part: part(e.Label)}
				if o.Fuse {
					at := &prog.Steps[placedBy[max(c.A, c.B)]]
					at.Edges = append(at.Edges, c)
					continue
				}
				s.Edges = append(s.Edges, c)
			}
			if len(s.Edges) > 0 {
				emit(s)
			}
		case Extension:
			if ph.Initial {
				emit(Step{Kind: Extension, Pattern: Pattern0, New: []NewVertex{{Vertex: ph.Vertices[0], Source: -1, Label: q.VertexLabel(ph.Vertices[0])}}})
			}
			if len(ph.Edges) == 0 {
				continue
			}
			var news []NewVertex
			for _, e := range ph.Edges {
				news = append(news, NewVertex{Vertex: e.V, Source: col[e.U], Part: part(e.Label), Label: q.VertexLabel(e.V)})
			}
			if o.SingleVertex {
				for _, nv := range news {
					emit(Step{Kind: Extension, Pattern: Pattern0, New: []NewVertex{nv}})
				}
			} else {
				emit(Step{Kind: Extension, Pattern: ph.Pattern, New: news})
			}
		}
	}
	if len(pl.Counted) > 0 {
		s := Step{Kind: Counting}
		for _, cc := range pl.Counted {
			s.Classes = append(s.Classes, lowerClass(q, cc, col, part))
		}
		// Cheapest first (a class counted as zero ends the row): one set with one parent is a
		// row length, the others scan rows.
		slices.SortStableFunc(s.Classes, func(a, b CountClass) int {
			return cmp.Compare(classCost(&a), classCost(&b))
		})
		emit(s)
	}
	return prog
}

// classCost orders a Counting step's classes: 0 for one set with one parent, else the number of
// (set, parent) pairs.
func classCost(c *CountClass) int {
	if len(c.Sets) == 1 && len(c.Sets[0].Parents) == 1 {
		return 0
	}
	n := 0
	for _, s := range c.Sets {
		n += len(s.Parents)
	}
	return n
}

// String describes a step for --explain and test failures.
func (s *Step) String() string {
	if s.Kind == Counting {
		return fmt.Sprintf("count width %d classes %v", s.Width, s.Classes)
	}
	if s.Kind == Elimination {
		return fmt.Sprintf("eliminate width %d edges %v", s.Width, s.Edges)
	}
	return fmt.Sprintf("extend width %d pattern %d new %v edges %v less %v nonadj %v", s.Width, s.Pattern, s.New, s.Edges, s.Less, s.NonAdjacent)
}
