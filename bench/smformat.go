package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// smSource is what the t/v/e writer needs of a graph or a pattern.
type smSource interface {
	numVertices() int
	numEdges() uint64
	vertexLabel(v int) uint32
	degree(v int) int
	// edgesAbove calls f for every edge v-w with w > v.
	edgesAbove(v int, f func(w int, label uint32))
	edgeLabelled() bool
}

// WriteGraphSM writes g in the `t N M` / `v id label degree` / `e u v [label]` text format of
// SubgraphMatching, RapidMatch and gMatch. Vertices are written with their dense ids (the format
// needs ids 0..N-1); edge labels are written only when the graph has some.
func WriteGraphSM(w io.Writer, g *graph.Graph) error { return writeSM(w, graphSource{g}) }

// WritePatternSM writes p in the same format. Every label of p must be exact: the format has no
// wildcard.
func WritePatternSM(w io.Writer, p *pattern.Pattern) error {
	for u := 0; u < p.NumVertices(); u++ {
		if p.VertexLabel(u).Any {
			return fmt.Errorf("pattern vertex %s has a wildcard label, which the t/v/e format cannot express", p.Name(u))
		}
	}
	for _, e := range p.Edges() {
		if e.Label.Any {
			return fmt.Errorf("pattern edge %s-%s has a wildcard label, which the t/v/e format cannot express", p.Name(e.U), p.Name(e.V))
		}
	}
	return writeSM(w, patternSource{p})
}

// WriteSMFile writes a graph (*graph.Graph) or a pattern (*pattern.Pattern) to a new file at path.
func WriteSMFile(path string, x any) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	switch x := x.(type) {
	case *graph.Graph:
		return WriteGraphSM(f, x)
	case *pattern.Pattern:
		return WritePatternSM(f, x)
	}
	return fmt.Errorf("WriteSMFile: cannot write a %T", x)
}

func writeSM(w io.Writer, s smSource) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var buf []byte
	line := func(tag byte, nums ...uint64) {
		buf = append(buf[:0], tag)
		for _, x := range nums {
			buf = append(buf, ' ')
			buf = strconv.AppendUint(buf, x, 10)
		}
		buf = append(buf, '\n')
		bw.Write(buf) // a write error sticks in bw and is returned by Flush
	}
	n := s.numVertices()
	line('t', uint64(n), s.numEdges())
	for v := 0; v < n; v++ {
		line('v', uint64(v), uint64(s.vertexLabel(v)), uint64(s.degree(v)))
	}
	labelled := s.edgeLabelled()
	for v := 0; v < n; v++ {
		s.edgesAbove(v, func(w int, label uint32) {
			if labelled {
				line('e', uint64(v), uint64(w), uint64(label))
			} else {
				line('e', uint64(v), uint64(w))
			}
		})
	}
	return bw.Flush()
}

type graphSource struct{ g *graph.Graph }

func (s graphSource) numVertices() int         { return s.g.NumVertices() }
func (s graphSource) numEdges() uint64         { return s.g.NumEdges() }
func (s graphSource) vertexLabel(v int) uint32 { return s.g.VertexLabel(uint32(v)) }
func (s graphSource) degree(v int) int         { return s.g.Degree(uint32(v)) }
func (s graphSource) edgeLabelled() bool       { return s.g.HasEdgeLabels() }

func (s graphSource) edgesAbove(v int, f func(int, uint32)) {
	labels := s.g.NeighborEdgeLabels(uint32(v))
	for i, w := range s.g.Neighbors(uint32(v)) {
		if int(w) <= v {
			continue
		}
		var l uint32
		if labels != nil {
			l = labels[i]
		}
		f(int(w), l)
	}
}

type patternSource struct{ p *pattern.Pattern }

func (s patternSource) numVertices() int         { return s.p.NumVertices() }
func (s patternSource) numEdges() uint64         { return uint64(s.p.NumEdges()) }
func (s patternSource) vertexLabel(v int) uint32 { return s.p.VertexLabel(v).Value }
func (s patternSource) degree(v int) int         { return s.p.Degree(v) }

func (s patternSource) edgeLabelled() bool {
	for _, e := range s.p.Edges() {
		if e.Label.Value != 0 {
			return true
		}
	}
	return false
}

func (s patternSource) edgesAbove(v int, f func(int, uint32)) {
	for w := v + 1; w < s.p.NumVertices(); w++ {
		if l, ok := s.p.EdgeLabel(v, w); ok {
			f(w, l.Value)
		}
	}
}
