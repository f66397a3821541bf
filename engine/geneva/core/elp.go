package core

import (
	"slices"

	"github.com/submatch/submatch/graph"
)

// Partitions describes the edge-label partitions of a data graph in the graph's own vertex ids.
// ELP i holds the edges labelled Labels[i]; Labels is increasing, so ELP indices follow label
// order. A vertex belongs to an ELP when at least one of its edges carries the ELP's label; the
// set of ELPs a vertex belongs to is its share set (Section 4.2).
type Partitions struct {
	// Labels[i] is the edge label of ELP i.
	Labels []uint32
	// Vertices[i] lists the vertices of ELP i, increasing.
	Vertices [][]uint32
	// Entries[i] counts the directed adjacency entries of ELP i (twice its edges).
	Entries []uint64

	// memOff/memELP: the share set of vertex v is memELP[memOff[v]:memOff[v+1]], increasing.
	memOff []uint64
	memELP []int32
	index  map[uint32]int32 // edge label -> ELP
}

// NewPartitions computes the ELPs of g. A graph without edges has none.
func NewPartitions(g *graph.Graph) *Partitions {
	if g.NumEdges() > 0 && !g.HasEdgeLabels() {
		return unlabelledPartitions(g)
	}
	return labelledPartitions(g)
}

// unlabelledPartitions is NewPartitions for a graph whose edges all carry label 0 (no edge labels
// stored): one ELP of every vertex that has an edge, found from the degrees alone.
func unlabelledPartitions(g *graph.Graph) *Partitions {
	n := g.NumVertices()
	p := &Partitions{
		Labels:   []uint32{0},
		Vertices: make([][]uint32, 1),
		Entries:  []uint64{2 * g.NumEdges()},
		index:    map[uint32]int32{0: 0},
		memOff:   make([]uint64, n+1),
	}
	for v := range n {
		p.memOff[v+1] = p.memOff[v]
		if g.Degree(uint32(v)) > 0 {
			p.Vertices[0] = append(p.Vertices[0], uint32(v))
			p.memOff[v+1]++
		}
	}
	p.memELP = make([]int32, p.memOff[n]) // every share set is {0}
	return p
}

// labelledPartitions is NewPartitions for any graph, from the edge labels of the runs.
func labelledPartitions(g *graph.Graph) *Partitions {
	n := g.NumVertices()
	p := &Partitions{index: map[uint32]int32{}, memOff: make([]uint64, n+1)}
	// Labels first, so ELP indices follow label order.
	// Runs come by (vertex label, edge label): with few edge labels most runs repeat the label
	// of the run before, so the map is consulted only on a change.
	seen := map[uint32]bool{}
	for v := 0; v < n; v++ {
		last, any := uint32(0), false
		for _, r := range g.Runs(uint32(v)) {
			if !any || r.EdgeLabel != last {
				seen[r.EdgeLabel] = true
				last, any = r.EdgeLabel, true
			}
		}
	}
	for l := range seen {
		p.Labels = append(p.Labels, l)
	}
	slices.Sort(p.Labels)
	for i, l := range p.Labels {
		p.index[l] = int32(i)
	}
	k := len(p.Labels)
	p.Vertices = make([][]uint32, k)
	p.Entries = make([]uint64, k)
	var share []int32
	for v := 0; v < n; v++ {
		share = share[:0]
		last, e := uint32(0), int32(-1)
		for ri, r := range g.Runs(uint32(v)) {
			if e < 0 || r.EdgeLabel != last {
				last, e = r.EdgeLabel, p.index[r.EdgeLabel]
			}
			p.Entries[e] += uint64(len(g.RunNeighbors(uint32(v), ri)))
			if !slices.Contains(share, e) {
				share = append(share, e)
			}
		}
		slices.Sort(share)
		for _, e := range share {
			p.Vertices[e] = append(p.Vertices[e], uint32(v))
		}
		p.memELP = append(p.memELP, share...)
		p.memOff[v+1] = uint64(len(p.memELP))
	}
	return p
}

// Len returns the number of ELPs.
func (p *Partitions) Len() int { return len(p.Labels) }

// ShareSet returns the ELPs vertex v belongs to, increasing (aliases storage; do not modify).
func (p *Partitions) ShareSet(v uint32) []int32 { return p.memELP[p.memOff[v]:p.memOff[v+1]] }

// Index returns the ELP of edge label l, or -1 when no edge carries it.
func (p *Partitions) Index(l uint32) int {
	if e, ok := p.index[l]; ok {
		return int(e)
	}
	return -1
}

// Largest returns the ELP with the most vertices (the lowest index among ties), or -1 when there
// are no ELPs.
func (p *Partitions) Largest() int {
	best := -1
	for e, vs := range p.Vertices {
		if best < 0 || len(vs) > len(p.Vertices[best]) {
			best = e
		}
	}
	return best
}

// CountIntervals returns the number of maximal runs of consecutive ids among the vertices of
// ELP e once renamed by oldToNew (nil: the identity), i.e. the size of its interval index.
func (p *Partitions) CountIntervals(e int, oldToNew []uint32) int {
	ids := make([]uint32, len(p.Vertices[e]))
	for i, v := range p.Vertices[e] {
		if oldToNew != nil {
			v = oldToNew[v]
		}
		ids[i] = v
	}
	slices.Sort(ids)
	return countRuns(ids)
}

// countRuns counts the maximal runs of consecutive values in an increasing list.
func countRuns(ids []uint32) int {
	runs := 0
	for i, v := range ids {
		if i == 0 || ids[i-1]+1 != v {
			runs++
		}
	}
	return runs
}
