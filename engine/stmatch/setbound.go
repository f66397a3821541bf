package stmatch

import (
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// setBounds bounds the sets of graph-mode levels (flatPlan.Graph) by the data graph's labels: a
// level whose backward edge goes to level j holds only neighbours of level j's data vertex
// through that edge, and (its candidate list tested, fCheckCand, or every vertex carrying the
// label) only vertices of the level's label. So its set never exceeds the most such neighbours
// any vertex of level j's label has. Without it every level's buffer took the graph's maximum
// degree; on a power-law graph with many labels that maximum is far above any labelled one.
// The bounds are computed once per (parent label, label, edge label) for a plan.
type setBounds struct {
	g         *graph.Graph
	maxDegree uint64
	memo      map[[3]pattern.Label]uint64
}

func newSetBounds(g *graph.Graph) *setBounds {
	return &setBounds{g: g, maxDegree: uint64(g.MaxDegree()), memo: map[[3]pattern.Label]uint64{}}
}

// bound returns the most neighbours of vertex label to (Any: every label) through edges of
// label edge (Any: every edge) that a data vertex of label from (Any: every vertex) has. A graph
// without edge labels has label 0 on every edge (as labelledCSR's lists).
func (b *setBounds) bound(from, to, edge pattern.Label) uint64 {
	if to.Any && edge.Any && from.Any {
		return b.maxDegree
	}
	key := [3]pattern.Label{from, to, edge}
	if c, ok := b.memo[key]; ok {
		return c
	}
	var most uint64
	if from.Any {
		for v := range uint32(b.g.NumVertices()) {
			most = max(most, b.neighbours(v, to, edge))
		}
	} else {
		for _, v := range b.g.VerticesWithLabel(from.Value) {
			most = max(most, b.neighbours(v, to, edge))
		}
	}
	b.memo[key] = most
	return most
}

// neighbours counts v's neighbours of vertex label to through edges of label edge from v's run
// index (runs are keyed by (vertex label, edge label)), without reading the adjacency itself.
func (b *setBounds) neighbours(v uint32, to, edge pattern.Label) uint64 {
	g := b.g
	switch {
	case to.Any && edge.Any:
		return uint64(g.Degree(v))
	case to.Any:
		var c uint64
		for r, run := range g.Runs(v) {
			if run.EdgeLabel == edge.Value {
				c += uint64(len(g.RunNeighbors(v, r)))
			}
		}
		return c
	case edge.Any:
		var c uint64
		lo, hi := g.RunsWithVertexLabel(v, to.Value)
		for r := lo; r < hi; r++ {
			c += uint64(len(g.RunNeighbors(v, r)))
		}
		return c
	default:
		lo, hi := g.RunWith(v, to.Value, edge.Value)
		return hi - lo
	}
}
