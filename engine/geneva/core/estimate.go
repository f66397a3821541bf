package core

import (
	"math"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// Estimates are the statistics the cost-aware GENMATCHORDER chooses phases with: how many
// candidates each query vertex has and, for each query edge (u, v), how many candidates of v a
// candidate of u has as neighbours on average (the branching factor of matching v from u).
type Estimates struct {
	Candidates []float64
	// Branch[u][v] is the mean number of neighbours in C(v), over an edge with the query edge's
	// label, of a vertex of C(u); zero where u and v are not adjacent in the query.
	Branch [][]float64
}

// estimateSample bounds the candidates of u whose neighbourhoods are scanned per query edge, so
// that estimating costs O(query edges x sample x degree) however large the data graph.
const estimateSample = 2048

// Estimate measures the Estimates of q on g from the planner's candidate sets (sorted lists and
// the same sets as bits), scanning an evenly spaced sample of each candidate list.
func Estimate(g *graph.Graph, q *pattern.Pattern, cands [][]uint32, bits []plan.Bitset) *Estimates {
	n := q.NumVertices()
	est := &Estimates{Candidates: make([]float64, n), Branch: make([][]float64, n)}
	for u := range n {
		est.Candidates[u] = float64(len(cands[u]))
		est.Branch[u] = make([]float64, n)
	}
	for _, e := range q.Edges() {
		est.Branch[e.U][e.V] = branch(g, cands[e.U], bits[e.V], e.Label)
		est.Branch[e.V][e.U] = branch(g, cands[e.V], bits[e.U], e.Label)
	}
	return est
}

// branch is the mean, over a sample of from, of the neighbours in to joined by an edge labelled l.
func branch(g *graph.Graph, from []uint32, to plan.Bitset, l pattern.Label) float64 {
	if len(from) == 0 || !l.Any && !g.HasEdgeLabels() && l.Value != 0 {
		return 0
	}
	step := max(1, len(from)/estimateSample)
	total, sampled := 0, 0
	for i := 0; i < len(from); i += step {
		x := from[i]
		nbrs := g.Neighbors(x)
		var labels []uint32
		if !l.Any && g.HasEdgeLabels() {
			labels = g.NeighborEdgeLabels(x)
		}
		for j, y := range nbrs {
			if to.Has(y) && (labels == nil || labels[j] == l.Value) {
				total++
			}
		}
		sampled++
	}
	return float64(total) / float64(sampled)
}

// logGrowth is the estimated log of the factor by which phase ph multiplies the embeddings
// (matched: the vertices matched before it), per vertex it matches: an initial phase starts from
// its source's candidates, every new vertex multiplies by its branching factor from its source
// and by the chance of each other query edge to a vertex already placed.
func (est *Estimates) logGrowth(q *pattern.Pattern, matched uint32, ph *Phase) float64 {
	f := 0.0
	placed := matched
	k := 0
	if ph.Initial {
		src := ph.Vertices[0]
		f += safeLog(est.Candidates[src])
		placed |= 1 << src
		k++
	}
	for _, e := range ph.Edges {
		u := e.V
		f += safeLog(est.Branch[e.U][u])
		for w := range q.NumVertices() {
			if w == e.U || placed&(1<<w) == 0 || !q.Adjacent(u, w) {
				continue
			}
			f += safeLog(est.Branch[w][u] / max(est.Candidates[u], 1))
		}
		placed |= 1 << u
		k++
	}
	return f / float64(max(k, 1))
}

func safeLog(x float64) float64 { return math.Log(max(x, 1e-300)) }
