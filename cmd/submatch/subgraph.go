package main

import (
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// matchedSubgraph collects the data subgraph that list's matches cover (list --subgraph): every
// matched vertex, and the data edge each pattern edge maps onto, with the data graph's ids, names
// and labels.
type matchedSubgraph struct {
	g    *graph.Graph
	p    *pattern.Pattern
	b    *graph.Builder
	seen map[uint32]bool // data vertices added
}

func newMatchedSubgraph(g *graph.Graph, p *pattern.Pattern) *matchedSubgraph {
	return &matchedSubgraph{g: g, p: p, b: graph.NewBuilder(graph.BuilderOptions{}), seen: map[uint32]bool{}}
}

// add records one match (m[u] is the data vertex of pattern vertex u).
func (s *matchedSubgraph) add(m []uint32) error {
	for _, v := range m {
		if s.seen[v] {
			continue
		}
		s.seen[v] = true
		id := s.g.OriginalID(v)
		if err := s.b.SetVertexLabel(id, s.g.VertexLabel(v)); err != nil {
			return err
		}
		if s.g.HasVertexNames() {
			if err := s.b.SetVertexName(id, s.g.VertexName(v)); err != nil {
				return err
			}
		}
	}
	for _, e := range s.p.Edges() {
		a, c := m[e.U], m[e.V]
		label, _ := s.g.HasEdge(a, c)
		if err := s.b.AddEdge(s.g.OriginalID(a), s.g.OriginalID(c), label); err != nil {
			return err
		}
	}
	return nil
}

// write writes the subgraph to path in the format its extension names.
func (s *matchedSubgraph) write(path string) error {
	sub, err := s.b.Build()
	if err != nil {
		return err
	}
	return formats.WriteFile(path, sub, "")
}
