package plan

import (
	"context"
	"math/bits"
	"slices"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/par"
	"github.com/submatch/submatch/pattern"
)

// Clique describes a pattern that a clique counter can handle: k pairwise adjacent vertices
// that all carry the same vertex label constraint, joined by edges that all carry the same edge
// label constraint. Its automorphisms are all k! permutations, so every convention reduces to
// the number of k-vertex cliques of the data graph among the matching vertices and edges:
// unique counts are that number, embeddings (induced or not: a clique has no non-edge) are
// that number times k!.
//
// Counters orient each clique by vertex id (smallest first) and search only "upward"
// neighbours. The graph builder numbers vertices by ascending degree, so these lists are short
// even on skewed graphs.
type Clique struct {
	K int
	Labels
}

// Labels are the data vertices and edges that a pattern of uniform labels may take
// (UniformLabels): those of VertexLabel and EdgeLabel in the graph its counters walk, Graph.
type Labels struct {
	// The label of the data vertices and of the data edges that may take part (a wildcard is
	// resolved to the graph's only label, or is 0 where AnyVertex or AnyEdge says so).
	VertexLabel, EdgeLabel uint32
	// AnyVertex says that the pattern's vertices are wildcards on a graph of several vertex
	// labels, and AnyEdge that its edges are on a graph with edge labels: every data vertex (edge)
	// takes part, its label ignored. The counters then walk the data graph with those labels
	// forgotten (Graph), where the matching neighbours of a vertex are again one sorted run.
	AnyVertex, AnyEdge bool
}

// Graph is the graph the counters of l walk for the data graph g: g itself, or with
// AnyVertex or AnyEdge g without those labels (graph.Graph.WithoutLabels: a copy of its
// lists, GraphBytes), where the matching neighbours of every vertex are one sorted run
// (graph.Graph.NeighborsWith(v, l.VertexLabel, l.EdgeLabel)). Graph of that graph is itself.
func (l Labels) Graph(g *graph.Graph) *graph.Graph {
	return g.WithoutLabels(l.AnyVertex, l.AnyEdge)
}

// GraphContext is Graph stopping when ctx ends, with ctx's error (the copy of a large graph's
// lists takes seconds: graph.Graph.WithoutLabelsContext).
func (l Labels) GraphContext(ctx context.Context, g *graph.Graph) (*graph.Graph, error) {
	return g.WithoutLabelsContext(ctx, l.AnyVertex, l.AnyEdge)
}

// GraphBytes is the memory that Graph(g) takes beside g (0 when it is g).
func (l Labels) GraphBytes(g *graph.Graph) uint64 {
	return g.WithoutLabelsBytes(l.AnyVertex, l.AnyEdge)
}

// MinCliqueSize is the smallest clique AsClique takes, for the GPU clique kernel and auto's
// choice: the GPU engines search triangles, one intersection per edge. The CPU engine and pbe's
// inter stage take triangles to the clique counter too (CliqueOf with 3: on one thread it
// counted R-MAT's triangles in 2.5-3.7 times less CPU time than the CPU engine's search,
// docs/benchmarks.md, branch cputri).
const MinCliqueSize = 4

// AsClique returns the clique form of p for counting in g, when p is a clique of at least
// MinCliqueSize vertices with uniform labels (UniformLabels). Otherwise it returns false and
// engines use their general plan.
func AsClique(g *graph.Graph, p *pattern.Pattern) (Clique, bool) {
	return CliqueOf(g, p, MinCliqueSize)
}

// CliqueOf is AsClique for cliques of at least minK vertices (pbe's inter stage counts
// triangles with a clique counter too).
func CliqueOf(g *graph.Graph, p *pattern.Pattern, minK int) (Clique, bool) {
	k := p.NumVertices()
	if k < max(minK, 2) || p.NumEdges() != k*(k-1)/2 {
		return Clique{}, false
	}
	labels, ok := UniformLabels(g, p)
	if !ok {
		return Clique{}, false
	}
	return Clique{K: k, Labels: labels}, true
}

// UniformLabels returns the labels of p, whose vertices all carry one label constraint and
// whose edges (at least one) all carry another, resolved against g so that the neighbours of a
// data vertex that may match form one sorted run of the graph the counters walk (Labels.Graph):
// a wildcard is the graph's only label of that kind, or, on a graph of several, every label
// (AnyVertex, AnyEdge). False when the labels are not uniform.
func UniformLabels(g *graph.Graph, p *pattern.Pattern) (Labels, bool) {
	edges := p.Edges()
	if len(edges) == 0 {
		return Labels{}, false
	}
	vl := p.VertexLabel(0)
	for u := 1; u < p.NumVertices(); u++ {
		if p.VertexLabel(u) != vl {
			return Labels{}, false
		}
	}
	el := edges[0].Label
	for _, e := range edges {
		if e.Label != el {
			return Labels{}, false
		}
	}
	l := Labels{VertexLabel: vl.Value, EdgeLabel: el.Value}
	if el.Any {
		l.EdgeLabel, l.AnyEdge = 0, g.HasEdgeLabels()
	}
	if vl.Any && g.NumVertices() > 0 {
		label, uniform := g.UniformVertexLabel()
		if uniform {
			l.VertexLabel = label // (one run per vertex, as it is)
		} else {
			l.VertexLabel, l.AnyVertex = 0, true
		}
	}
	return l, true
}

// Embeddings returns what cliques k-cliques count as: cliques itself for unique counts, else
// cliques x k! (every ordering of a clique is an embedding, induced or not); false when that
// does not fit in a uint64.
func (c Clique) Embeddings(cliques uint64, unique bool) (uint64, bool) {
	if unique {
		return cliques, true
	}
	for f := uint64(2); f <= uint64(c.K); f++ {
		hi, lo := bits.Mul64(cliques, f)
		if hi != 0 {
			return 0, false
		}
		cliques = lo
	}
	return cliques, true
}

// Oriented is the data graph as a clique counter walks it: for every member vertex, its clique
// neighbours with greater ids (the orientation every clique is counted in), found once.
type Oriented struct {
	neighbors []uint32
	offsets   []uint64
	from, to  []uint32 // per vertex: its upward run, relative to its adjacency list's start
}

// Orient finds every vertex's upward clique neighbours in g (in c.Graph(g), which it builds
// unless g is that graph already), on threads goroutines. It takes 8 bytes per data vertex
// (and c.GraphBytes(g)).
func (c Clique) Orient(g *graph.Graph, threads int) *Oriented {
	g = c.Graph(g)
	raw := g.Raw()
	n := g.NumVertices()
	o := &Oriented{neighbors: raw.Neighbors, offsets: raw.Offsets, from: make([]uint32, n), to: make([]uint32, n)}
	par.For(n, threads, func(v int) {
		if g.VertexLabel(uint32(v)) != c.VertexLabel {
			return // from = to = 0: no upward neighbours
		}
		lo, hi := g.RunWith(uint32(v), c.VertexLabel, c.EdgeLabel)
		run := raw.Neighbors[raw.Offsets[v]+lo : raw.Offsets[v]+hi]
		i, _ := slices.BinarySearch(run, uint32(v)+1)
		o.from[v], o.to[v] = uint32(lo)+uint32(i), uint32(hi)
	})
	return o
}

// NumVertices is the number of data vertices.
func (o *Oriented) NumVertices() int { return len(o.from) }

// CSR returns the arrays o reads, for a copy elsewhere (the GPU) without building another: the
// data graph's CSR (vertex v's neighbours are neighbors[offsets[v]:offsets[v+1]]) and, per
// vertex, the run of them above it: Above(v) is neighbors[offsets[v]+from[v] : offsets[v]+to[v]].
// The slices are o's own: read only.
func (o *Oriented) CSR() (offsets []uint64, neighbors, from, to []uint32) {
	return o.offsets, o.neighbors, o.from, o.to
}

// Above returns v's clique neighbours with greater ids, sorted.
func (o *Oriented) Above(v uint32) []uint32 {
	base := o.offsets[v]
	return o.neighbors[base+uint64(o.from[v]) : base+uint64(o.to[v])]
}

// upwardSample is the number of vertices UpwardSquares reads on a graph of more vertices.
const upwardSample = 1 << 16

// UpwardSquares is Σ_v |N+(v)|², the squared upward degrees (neighbours with greater ids, as
// the clique counter orients them: Orient) summed over g's vertices, labels ignored: the work of
// laying out and scanning every root's upward neighbourhood, which the clique counter's time
// follows (4-cliques on R-MAT scales 16-20 with edge factor 27: 0.90-1.0e-8 CPU seconds a unit
// on the 2-core machine, where the edges varied from 1.1e-6 to 2.2e-6 seconds each). It is the
// work of a clique of wildcards, whatever g's labels (AnyVertex, AnyEdge), and bounds that of a
// clique of one label. Exact up to upwardSample vertices; above, estimated from that many
// vertices drawn at a fixed stride (ids are in degree order, so a stride samples every degree),
// a binary search in each of a vertex's runs (a list is sorted by id only within its runs).
func UpwardSquares(g *graph.Graph) float64 {
	n := g.NumVertices()
	step := max(1, n/upwardSample)
	var sum float64
	for v := 0; v < n; v += step {
		up := 0
		for r := range g.Runs(uint32(v)) {
			run := g.RunNeighbors(uint32(v), r)
			i, _ := slices.BinarySearch(run, uint32(v)+1)
			up += len(run) - i
		}
		sum += float64(up) * float64(up)
	}
	return sum * float64(n) / float64((n+step-1)/step)
}
