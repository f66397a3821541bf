package core

import (
	"slices"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/plan"
)

// Inputs is what the step kernels read besides the tables, all in new ids.
type Inputs struct {
	PCSR *PCSR
	// Union is the partition of all edges, present when a step needs it.
	Union *Partition
	// Candidates[u] is query vertex u's candidate set as a bitmap over new ids (64 per word).
	Candidates [][]uint64
	// Lists[u] is query vertex u's candidates, increasing, for the vertices a step takes from
	// their candidate list (Source -1); nil for the others.
	Lists [][]uint32

	unionMax uint64 // longest row of Union
}

// NewInputs renames the candidate sets of a CPU plan (over g's ids) to new ids and builds the
// union partition when prog needs it.
func NewInputs(g *graph.Graph, pc *PCSR, cands []plan.Bitset, prog *Program) *Inputs {
	in := &Inputs{PCSR: pc, Candidates: make([][]uint64, len(cands)), Lists: make([][]uint32, len(cands))}
	n := len(pc.OldToNew)
	needList := make([]bool, len(cands))
	needUnion := false
	for i := range prog.Steps {
		s := &prog.Steps[i]
		needUnion = needUnion || len(s.NonAdjacent) > 0
		for _, nv := range s.New {
			needList[nv.Vertex] = needList[nv.Vertex] || nv.Source < 0
			needUnion = needUnion || nv.Source >= 0 && nv.Part == UnionPart
		}
		for _, e := range s.Edges {
			needUnion = needUnion || e.Part == UnionPart
		}
		for _, c := range s.Classes {
			for _, set := range c.Sets {
				for _, p := range set.Parents {
					needUnion = needUnion || p.Part == UnionPart
				}
			}
		}
	}
	if needUnion {
		in.Union = pc.Union(g)
		for r := range len(in.Union.Offsets) - 1 {
			in.unionMax = max(in.unionMax, in.Union.Offsets[r+1]-in.Union.Offsets[r])
		}
	}
	for u, c := range cands {
		bm := make([]uint64, (n+63)/64)
		for v := range n {
			if c.Has(uint32(v)) {
				w := pc.OldToNew[v]
				bm[w>>6] |= 1 << (w & 63)
			}
		}
		in.Candidates[u] = bm
		if needList[u] {
			for w := range n {
				if bm[w>>6]&(1<<(w&63)) != 0 {
					in.Lists[u] = append(in.Lists[u], uint32(w))
				}
			}
		}
	}
	return in
}

// Partition returns the partition a step names.
func (in *Inputs) Partition(p Part) *Partition {
	if p == UnionPart {
		return in.Union
	}
	return &in.PCSR.Parts[p]
}

// MaxLen bounds the candidates of nv from one row (Executor.MaxLen).
func (in *Inputs) MaxLen(nv NewVertex) uint64 {
	switch {
	case nv.Source < 0:
		return uint64(len(in.Lists[nv.Vertex]))
	case nv.Part == UnionPart:
		return in.unionMax
	}
	return uint64(in.PCSR.MaxDegree[nv.Part])
}

// candidates returns the data vertices nv may take in a row whose matched vertices are row.
func (in *Inputs) candidates(nv NewVertex, row []uint32) []uint32 {
	if nv.Source < 0 {
		return in.Lists[nv.Vertex]
	}
	p := in.Partition(nv.Part)
	r, ok := p.Row(row[nv.Source])
	if !ok {
		return nil
	}
	list := p.Neighbors[p.Offsets[r]:p.Offsets[r+1]]
	if nv.Label.Any {
		return list
	}
	return LabelRange(list, in.PCSR.VertexLabels, nv.Label.Value)
}

// admissible reports whether the full row (input columns then the step's new ones) satisfies
// the step's per-row checks: candidate sets, injectivity of the new columns, symmetry
// restrictions and induced non-adjacency. This is the reference the kernels follow.
func (in *Inputs) admissible(s *Step, row []uint32) bool {
	for j, nv := range s.New {
		c := s.Width + j
		v := row[c]
		if in.Candidates[nv.Vertex][v>>6]&(1<<(v&63)) == 0 || slices.Contains(row[:c], v) {
			return false
		}
	}
	for _, r := range s.Less {
		if row[r.A] >= row[r.B] {
			return false
		}
	}
	for _, na := range s.NonAdjacent {
		if in.Union.HasEdge(row[na.A], row[na.B], in.PCSR.VertexLabels) {
			return false
		}
	}
	return in.edgesPresent(s, row)
}

// edgesPresent reports whether row has every edge step s checks (an elimination step keeps
// it; a fused extension step may write it).
func (in *Inputs) edgesPresent(s *Step, row []uint32) bool {
	for _, e := range s.Edges {
		if !in.Partition(e.Part).HasEdge(row[e.A], row[e.B], in.PCSR.VertexLabels) {
			return false
		}
	}
	return true
}
