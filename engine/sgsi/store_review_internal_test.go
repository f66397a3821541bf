package sgsi

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
)

// referenceLabelGraph is the label graph of k built the plain way: every vertex's neighbours
// taken one by one (edge label, neighbour label and side checked per neighbour), sorted.
func referenceLabelGraph(g *graph.Graph, k lgKey) ([]uint64, []uint32) {
	n := g.NumVertices()
	off := make([]uint64, n+1)
	var nbrs []uint32
	for v := range uint32(n) {
		var l []uint32
		for i, r := range g.Runs(v) {
			if k.edge != anyEdge && uint64(r.EdgeLabel) != k.edge {
				continue
			}
			for _, u := range g.RunNeighbors(v, i) {
				if k.vl != anyLabel && g.VertexLabel(u) != k.vl ||
					k.dir == upperSide && u <= v || k.dir == lowerSide && u >= v {
					continue
				}
				l = append(l, u)
			}
		}
		slices.Sort(l)
		nbrs = append(nbrs, l...)
		off[v+1] = uint64(len(nbrs))
	}
	return off, nbrs
}

// TestLabelGraphsRandomReview: on random graphs of 0 to ~20,000 vertices (several 8,192-vertex
// chunks), with 1-4 vertex and 1-3 edge labels, every label graph (each vertex label, one absent
// from the graph, anyLabel; each edge label, an absent one, anyEdge; every side) built on 1-5
// goroutines, by the runs and by scatter (scatterShare 0, 2 and unbounded), equals the plain
// reference (in either form: sparseShare 0, the default or +Inf), and entries agrees with its
// length.
func TestLabelGraphsRandomReview(t *testing.T) {
	defer func(s uint64, sp float64) { scatterShare, sparseShare = s, sp }(scatterShare, sparseShare)
	seeds := 40
	if testing.Short() {
		seeds = 16
	}
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 3636))
		vls, els := 1+rng.IntN(4), 1+rng.IntN(3)
		var g *graph.Graph
		switch seed % 4 {
		case 0: // several chunks, the last one partial
			n := 8192 + rng.IntN(12000)
			g = gen.RandomGraphM(seed, n, n*(1+rng.IntN(3)), vls, els)
		case 1:
			g = gen.RandomGraph(seed, int(seed%3), 0.5, vls, els) // 0-1 vertices, perhaps an edge
		default:
			g = gen.RandomGraph(seed, 1+rng.IntN(60), 0.05+0.6*rng.Float64(), vls, els)
		}
		var keys []lgKey
		for _, dir := range []uint8{bothSides, upperSide, lowerSide} {
			for vl := range uint32(vls + 1) {
				keys = append(keys, lgKey{anyEdge, vl, dir})
				keys = append(keys, lgKey{uint64(rng.IntN(els + 1)), vl, dir})
			}
			keys = append(keys, lgKey{anyEdge, anyLabel, dir}, lgKey{uint64(rng.IntN(els)), anyLabel, dir})
		}
		for _, k := range keys {
			wantOff, wantNbrs := referenceLabelGraph(g, k)
			for _, share := range []uint64{0, 2, 1 << 40} {
				scatterShare = share
				sparseShare = []float64{0, 1.0 / 32, math.Inf(1)}[rng.IntN(3)] // (dense, either, sparse)
				workers := 1 + rng.IntN(5)
				s := newStore(g, workers)
				lg, _, err := s.build(k, workers, nil)
				what := fmt.Sprintf("seed %d (%d vertices, %d vertex / %d edge labels), key %+v, scatterShare %d, sparseShare %g, %d goroutines",
					seed, g.NumVertices(), vls, els, k, share, sparseShare, workers)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if !slices.Equal(lg.denseOffsets(), wantOff) || !slices.Equal(lg.nbrs, wantNbrs) {
					t.Fatalf("%s: label graph differs from the reference (%d entries, want %d)", what, len(lg.nbrs), len(wantNbrs))
				}
				if e := s.entries(k, workers); e != uint64(len(wantNbrs)) {
					t.Fatalf("%s: entries %d, want %d", what, e, len(wantNbrs))
				}
				if k.vl == anyLabel && k.dir == bothSides {
					if e := s.edgeEntries(k.edge, workers); e != uint64(len(wantNbrs)) {
						t.Fatalf("%s: edgeEntries %d, want %d", what, e, len(wantNbrs))
					}
				}
			}
		}
	}
}
