// Package gen owns deterministic generators: random labelled graphs and patterns for tests, R-MAT
// graphs and random-walk queries for benchmarks.
package gen

import (
	"math/rand/v2"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// newRand returns the generator every function here draws from: PCG seeded by seed, so the same
// arguments always give the same output.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// drawLabel draws a label uniformly from 0..k-1 (0 when k <= 1).
func drawLabel(r *rand.Rand, k int) uint32 {
	if k <= 1 {
		return 0
	}
	return uint32(r.IntN(k))
}

// RandomGraph returns an Erdős–Rényi graph G(n, p): every one of the n(n-1)/2 vertex pairs is an
// edge with probability p. Vertex labels are uniform in 0..vertexLabels-1 and edge labels uniform
// in 0..edgeLabels-1 (a count <= 1 gives all-zero labels).
func RandomGraph(seed uint64, n int, p float64, vertexLabels, edgeLabels int) *graph.Graph {
	r := newRand(seed)
	b := newLabelledBuilder(r, n, vertexLabels)
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if r.Float64() < p {
				mustAdd(b, u, v, drawLabel(r, edgeLabels))
			}
		}
	}
	return mustBuild(b)
}

// RandomGraphM returns a graph G(n, m) with exactly m distinct edges chosen uniformly (m is capped
// at n(n-1)/2); labels as in RandomGraph.
func RandomGraphM(seed uint64, n, m int, vertexLabels, edgeLabels int) *graph.Graph {
	r := newRand(seed)
	b := newLabelledBuilder(r, n, vertexLabels)
	m = min(m, n*(n-1)/2)
	seen := make(map[[2]int]bool, m)
	for len(seen) < m {
		u, v := r.IntN(n), r.IntN(n)
		if u == v {
			continue
		}
		if u > v {
			u, v = v, u
		}
		if seen[[2]int{u, v}] {
			continue
		}
		seen[[2]int{u, v}] = true
		mustAdd(b, u, v, drawLabel(r, edgeLabels))
	}
	return mustBuild(b)
}

func newLabelledBuilder(r *rand.Rand, n, vertexLabels int) *graph.Builder {
	b := graph.NewBuilder(graph.BuilderOptions{})
	for v := 0; v < n; v++ {
		if err := b.SetVertexLabel(int64(v), drawLabel(r, vertexLabels)); err != nil {
			panic(err)
		}
	}
	return b
}

func mustAdd(b *graph.Builder, u, v int, label uint32) {
	if err := b.AddEdge(int64(u), int64(v), label); err != nil {
		panic(err)
	}
}

func mustBuild(b *graph.Builder) *graph.Graph {
	g, err := b.Build()
	if err != nil {
		panic(err) // unreachable: no self-loops, each pair added once
	}
	return g
}

// PatternOptions shapes RandomPattern.
type PatternOptions struct {
	// Components is the number of connected components (<= 1: connected; capped at n).
	Components int
	// EdgeProb is the probability of each edge beyond a random spanning tree of each component.
	EdgeProb float64
	// VertexLabels and EdgeLabels: exact labels are drawn uniformly from 0..k-1 (k <= 1: 0).
	VertexLabels, EdgeLabels int
	// Wildcard is the probability that a vertex or edge label is a wildcard instead.
	Wildcard float64
}

// RandomPattern returns a random pattern of n vertices (1..pattern.MaxVertices): opts.Components
// components, each a random spanning tree plus extra edges, with vertex indices shuffled so that
// components interleave.
func RandomPattern(seed uint64, n int, opts PatternOptions) *pattern.Pattern {
	r := newRand(seed)
	k := max(1, min(opts.Components, n))
	// comp[i] is the component of the i-th vertex; the first k vertices seed the k components.
	comp := make([]int, n)
	for i := range comp {
		if i < k {
			comp[i] = i
		} else {
			comp[i] = r.IntN(k)
		}
	}
	perm := r.Perm(n) // vertex i of the construction is pattern vertex perm[i]
	labels := make([]pattern.Label, n)
	for i := range labels {
		labels[i] = randomConstraint(r, opts.VertexLabels, opts.Wildcard)
	}
	var edges []pattern.Edge
	for i := 1; i < n; i++ {
		// Spanning tree: join i to a random earlier vertex of its component, if any.
		var earlier []int
		for j := 0; j < i; j++ {
			if comp[j] == comp[i] {
				earlier = append(earlier, j)
			}
		}
		treeJ := -1
		if len(earlier) > 0 {
			j := earlier[r.IntN(len(earlier))]
			treeJ = j
			edges = append(edges, pattern.Edge{U: perm[j], V: perm[i], Label: randomConstraint(r, opts.EdgeLabels, opts.Wildcard)})
		}
		for j := 0; j < i; j++ {
			if j != treeJ && comp[j] == comp[i] && r.Float64() < opts.EdgeProb {
				edges = append(edges, pattern.Edge{U: perm[j], V: perm[i], Label: randomConstraint(r, opts.EdgeLabels, opts.Wildcard)})
			}
		}
	}
	p, err := pattern.New(labels, edges, nil)
	if err != nil {
		panic(err)
	}
	return p
}

func randomConstraint(r *rand.Rand, k int, wildcard float64) pattern.Label {
	if r.Float64() < wildcard {
		return pattern.Wildcard
	}
	return pattern.Exact(drawLabel(r, k))
}

// SampleOptions shapes SamplePattern.
type SampleOptions struct {
	// Components is the number of connected components (<= 1: connected), sampled on disjoint
	// sets of data vertices.
	Components int
	// Induced keeps every data edge among the sampled vertices of a component. Otherwise the
	// pattern keeps the edges the walk discovered vertices by, plus each other edge among the
	// sampled vertices with probability KeepEdge.
	Induced  bool
	KeepEdge float64
	// Wildcard is the probability that a vertex or edge label becomes a wildcard instead of the
	// data label.
	Wildcard float64
}

// SamplePattern samples a pattern of n vertices that has at least one match in g (an embedding;
// induced too when opts.Induced and there is one component): each component is grown by a random
// walk (repeatedly stepping from a random sampled vertex to a random neighbour) from a random
// data vertex, then given the data labels (some turned into wildcards). The
// pattern's vertex indices are shuffled. It returns false when the walks could not find n
// vertices (g too small or too sparse).
func SamplePattern(seed uint64, g *graph.Graph, n int, opts SampleOptions) (*pattern.Pattern, bool) {
	r := newRand(seed)
	N := g.NumVertices()
	k := max(1, min(opts.Components, n))
	if n < 1 || n > pattern.MaxVertices || N < n {
		return nil, false
	}
	// Component sizes: at least 1 each, the rest spread at random.
	sizes := make([]int, k)
	for i := range sizes {
		sizes[i] = 1
	}
	for i := k; i < n; i++ {
		sizes[r.IntN(k)]++
	}
	used := map[uint32]bool{}
	var verts []uint32   // sampled data vertices, in order of discovery
	var tree [][2]uint32 // edges by which vertices were discovered
	var compOf []int
	for c, size := range sizes {
		ok := false
		for attempt := 0; attempt < 20 && !ok; attempt++ {
			start := uint32(r.IntN(N))
			if used[start] {
				continue
			}
			part := []uint32{start}
			in := map[uint32]bool{start: true}
			var partTree [][2]uint32
			for steps := 0; len(part) < size && steps < 50*size; steps++ {
				v := part[r.IntN(len(part))]
				nb := g.Neighbors(v)
				if len(nb) == 0 {
					continue
				}
				w := nb[r.IntN(len(nb))]
				if in[w] || used[w] {
					continue
				}
				in[w] = true
				part = append(part, w)
				partTree = append(partTree, [2]uint32{v, w})
			}
			if len(part) == size {
				ok = true
				for _, v := range part {
					used[v] = true
					verts = append(verts, v)
					compOf = append(compOf, c)
				}
				tree = append(tree, partTree...)
			}
		}
		if !ok {
			return nil, false
		}
	}
	perm := r.Perm(n)
	index := map[uint32]int{}
	for i, v := range verts {
		index[v] = perm[i]
	}
	labels := make([]pattern.Label, n)
	for i, v := range verts {
		labels[perm[i]] = sampledConstraint(r, g.VertexLabel(v), opts.Wildcard)
	}
	isTree := map[[2]uint32]bool{}
	for _, e := range tree {
		isTree[e] = true
		isTree[[2]uint32{e[1], e[0]}] = true
	}
	var edges []pattern.Edge
	for i, v := range verts {
		for j := i + 1; j < len(verts); j++ {
			w := verts[j]
			if compOf[i] != compOf[j] {
				continue
			}
			l, adjacent := g.HasEdge(v, w)
			if !adjacent {
				continue
			}
			if opts.Induced || isTree[[2]uint32{v, w}] || r.Float64() < opts.KeepEdge {
				edges = append(edges, pattern.Edge{U: index[v], V: index[w], Label: sampledConstraint(r, l, opts.Wildcard)})
			}
		}
	}
	p, err := pattern.New(labels, edges, nil)
	if err != nil {
		panic(err)
	}
	return p, true
}

func sampledConstraint(r *rand.Rand, label uint32, wildcard float64) pattern.Label {
	if r.Float64() < wildcard {
		return pattern.Wildcard
	}
	return pattern.Exact(label)
}
