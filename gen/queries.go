package gen

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// Density selects how many of the edges among a walk's vertices a random-walk query keeps, after
// the SubgraphMatching study (Sun and Luo, SIGMOD'20), which calls a query dense when its average
// degree is at least 3 and sparse otherwise.
type Density int

const (
	// Dense keeps every edge among the walked vertices (the induced subgraph). Several walks are
	// tried and the densest kept, so the query is dense (average degree >= 3) when the data
	// graph allows it.
	Dense Density = iota
	// Sparse keeps the edges the walk discovered its vertices by (a spanning tree) plus random
	// other induced edges while the average degree stays below 3.
	Sparse
)

// String names the density as the command line spells it.
func (d Density) String() string {
	if d == Sparse {
		return "sparse"
	}
	return "dense"
}

// ParseDensity reads "dense" or "sparse".
func ParseDensity(s string) (Density, error) {
	switch s {
	case "dense", "":
		return Dense, nil
	case "sparse":
		return Sparse, nil
	}
	return 0, fmt.Errorf("unknown query density %q (want dense or sparse)", s)
}

// QueryOptions tunes RandomWalk.
type QueryOptions struct {
	// Density: Dense (default) or Sparse.
	Density Density
	// Attempts is the number of walks tried for a Dense query (default 8): the densest wins.
	// A Sparse query keeps the first walk that reaches size vertices.
	Attempts int
}

// Query is a sampled query with the embedding that proves it occurs in the data graph.
type Query struct {
	Pattern *pattern.Pattern
	// Embedding[u] is the data vertex pattern vertex u was sampled from: the identity embedding.
	Embedding []uint32
}

// ErrNoWalk is returned when no random walk reaches the requested number of distinct vertices
// (the data graph has no connected component that large, or walks keep failing to leave one).
var ErrNoWalk = errors.New("no random walk reached enough distinct vertices")

// walkRestarts bounds the walks started per attempt before RandomWalk gives up.
const walkRestarts = 64

// QuerySeed derives the seed of the index-th query of a given size from a base seed, so that a
// set of queries (the benchmark suite's, or "submatch gen queries") can be regenerated one by one.
func QuerySeed(base uint64, size, index int) uint64 {
	return rmatMix(rmatMix(base^uint64(size)<<32) ^ uint64(index))
}

// RandomWalkQuery samples a connected query of size vertices from g by a random walk; see
// RandomWalk. It returns the pattern only.
func RandomWalkQuery(g *graph.Graph, size int, seed uint64, opts QueryOptions) (*pattern.Pattern, error) {
	q, err := RandomWalk(g, size, seed, opts)
	return q.Pattern, err
}

// RandomWalk samples a connected query of size vertices (1..pattern.MaxVertices) from g: a random
// walk from a random vertex collects size distinct vertices; the query has their exact vertex
// labels and, depending on opts.Density, all or part of the edges among them, with their exact
// edge labels. Pattern vertex i is the i-th distinct vertex the walk reached.
//
// The walked vertices themselves are an embedding (returned in Query.Embedding), so the query has
// at least one match under the default and unique conventions, and under the induced convention
// too when Dense. The result depends only on g, size, seed and opts.
func RandomWalk(g *graph.Graph, size int, seed uint64, opts QueryOptions) (Query, error) {
	if size < 1 || size > pattern.MaxVertices {
		return Query{}, fmt.Errorf("query size %d is outside 1..%d", size, pattern.MaxVertices)
	}
	if g.NumVertices() == 0 {
		return Query{}, fmt.Errorf("data graph is empty")
	}
	attempts := opts.Attempts
	if attempts <= 0 {
		attempts = 8
	}
	if opts.Density == Sparse {
		attempts = 1
	}
	rng := rand.New(rand.NewPCG(seed, 0x51ed2701a3c9b4e5))
	var best Query
	for a := 0; a < attempts; a++ {
		verts, tree, ok := walk(g, size, rng)
		if !ok {
			if best.Pattern != nil {
				break
			}
			return Query{}, fmt.Errorf("query of %d vertices: %w", size, ErrNoWalk)
		}
		q, err := buildQuery(g, verts, tree, opts.Density, rng)
		if err != nil {
			return Query{}, err
		}
		if best.Pattern == nil || q.Pattern.NumEdges() > best.Pattern.NumEdges() {
			best = q
		}
		if 2*best.Pattern.NumEdges() >= 3*size {
			break // dense enough
		}
	}
	return best, nil
}

// walk collects size distinct vertices by a random walk, restarting from a new random vertex when
// a walk takes too many steps. tree[i] (i >= 1) is the index of the vertex from which vertex i was
// first reached.
func walk(g *graph.Graph, size int, rng *rand.Rand) (verts []uint32, tree []int, ok bool) {
	n := g.NumVertices()
	maxSteps := 100 * size
	index := make(map[uint32]int, size)
	for range walkRestarts {
		verts, tree = verts[:0], tree[:0]
		clear(index)
		cur := uint32(rng.IntN(n))
		if size > 1 && g.Degree(cur) == 0 {
			continue
		}
		verts, tree = append(verts, cur), append(tree, -1)
		index[cur] = 0
		for step := 0; len(verts) < size && step < maxSteps; step++ {
			nbrs := g.Neighbors(cur)
			next := nbrs[rng.IntN(len(nbrs))]
			if _, seen := index[next]; !seen {
				index[next] = len(verts)
				verts = append(verts, next)
				tree = append(tree, index[cur])
			}
			cur = next
		}
		if len(verts) == size {
			return verts, tree, true
		}
	}
	return nil, nil, false
}

// buildQuery turns the walked vertices into a pattern with the induced edges (Dense) or the walk's
// tree plus random extra edges while the average degree stays below 3 (Sparse).
func buildQuery(g *graph.Graph, verts []uint32, tree []int, density Density, rng *rand.Rand) (Query, error) {
	size := len(verts)
	labels := make([]pattern.Label, size)
	for i, v := range verts {
		labels[i] = pattern.Exact(g.VertexLabel(v))
	}
	var treeEdges, others []pattern.Edge
	for i := 0; i < size; i++ {
		for j := i + 1; j < size; j++ {
			el, ok := g.HasEdge(verts[i], verts[j])
			if !ok {
				continue
			}
			e := pattern.Edge{U: i, V: j, Label: pattern.Exact(el)}
			if tree[j] == i {
				treeEdges = append(treeEdges, e)
			} else {
				others = append(others, e)
			}
		}
	}
	edges := append(treeEdges, others...)
	if density == Sparse {
		// Keep the tree (average degree below 2) and add random other edges while the average
		// degree 2|E|/|V| stays below 3.
		rng.Shuffle(len(others), func(a, b int) { others[a], others[b] = others[b], others[a] })
		extra := max(0, min(len(others), (3*size-1)/2-len(treeEdges)))
		edges = append(treeEdges[:len(treeEdges):len(treeEdges)], others[:extra]...)
	}
	p, err := pattern.New(labels, edges, nil)
	if err != nil {
		return Query{}, fmt.Errorf("random-walk query: %w", err)
	}
	return Query{Pattern: p, Embedding: append([]uint32(nil), verts...)}, nil
}
