package sgsi

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
)

// hubbedGraph is a random graph of n vertices for the scatter review tests: 1-4 vertex labels
// (the hubs' label the commonest), 1-4 edge labels (1: none) so that keys share runs, random
// edges of the given density, and 1-3 hubs joined to 30-100% of the vertices, whose lists alone
// exceed small scatter pieces; a vertex may be left without an edge. The hubs are the last ids
// at times (as the builder's ascending degrees put them) and random ones at others.
func hubbedGraph(t *testing.T, rng *rand.Rand, n int, density float64) (g *graph.Graph, vls, els int) {
	t.Helper()
	vls, els = 1+rng.IntN(4), 1+rng.IntN(4)
	b := graph.NewBuilder(graph.BuilderOptions{})
	label := func() uint32 {
		if rng.IntN(3) == 0 {
			return 0
		}
		return uint32(rng.IntN(vls))
	}
	for v := range n {
		if err := b.SetVertexLabel(int64(v), label()); err != nil {
			t.Fatal(err)
		}
	}
	edges := map[[2]int]bool{}
	add := func(u, v int) {
		if u == v || edges[[2]int{min(u, v), max(u, v)}] {
			return
		}
		edges[[2]int{min(u, v), max(u, v)}] = true
		if err := b.AddEdge(int64(u), int64(v), uint32(rng.IntN(els))); err != nil {
			t.Fatal(err)
		}
	}
	for range int(density * float64(n*(n-1)/2)) {
		add(rng.IntN(n), rng.IntN(n))
	}
	for h := range rng.IntN(4) {
		if n < 2 {
			break
		}
		hub := rng.IntN(n)
		if rng.IntN(2) == 0 {
			hub = n - 1 - h
		}
		share := 0.3 + 0.7*rng.Float64()
		for v := range n {
			if rng.Float64() < share {
				add(hub, v)
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g, vls, els
}

// TestScatterPiecesReview (review rev38) builds every label graph (each vertex label, one absent
// from the graph and anyLabel; each edge label, an absent one and anyEdge; every side) of random
// graphs with hubs, by scatter in pieces of 1, 2, 3, 5, 64 and 16,384 entries (a hub's list
// alone more than a piece, pieces that end at the label's last vertex) on 1 to 8 goroutines, and
// by the runs, and holds each against the plain reference (every neighbour checked one by one)
// and the one-goroutine build: the same offsets and sorted lists however the pieces fell; the
// build reports its entries and path. One graph of over 65,536 vertices makes costRanges deal
// several ranges, the last ending at the vertex array's end. It fails when several goroutines
// take the one goroutine's plain writes (no atomics, no sort) and when costRanges' last range
// stops a vertex short.
func TestScatterPiecesReview(t *testing.T) {
	defer func(share, piece uint64) { scatterShare, scatterPiece = share, piece }(scatterShare, scatterPiece)
	seeds, _ := proptest.Seeds(t, 200, 24)
	configs := []struct {
		workers      int
		share, piece uint64
	}{
		{1, 1 << 40, 1}, {2, 1 << 40, 1}, {3, 1 << 40, 2}, {5, 1 << 40, 3}, {8, 1 << 40, 5},
		{4, 1 << 40, 64}, {2, 1 << 40, 1 << 14}, {3, 2, 7}, {4, 0, 3},
	}
	for _, seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, 382))
		n, density := rng.IntN(70), 0.02+0.4*rng.Float64()
		if seed == 0 {
			n, density = 70_000+rng.IntN(5_000), 1.5/70_000 // (costRanges: several ranges)
		}
		g, vls, els := hubbedGraph(t, rng, n, density)
		var keys []lgKey
		for _, dir := range []uint8{bothSides, upperSide, lowerSide} {
			for _, vl := range []uint32{anyLabel, 0, uint32(rng.IntN(vls)), uint32(vls)} {
				for _, e := range []uint64{anyEdge, 0, uint64(rng.IntN(els)), uint64(els)} {
					keys = append(keys, lgKey{e, vl, dir})
				}
			}
		}
		slices.SortFunc(keys, func(a, b lgKey) int {
			return cmp.Or(cmp.Compare(a.edge, b.edge), cmp.Compare(a.vl, b.vl), cmp.Compare(a.dir, b.dir))
		})
		keys = slices.Compact(keys)
		if seed == 0 && testing.Short() {
			keys = keys[:len(keys)/3]
		}
		for _, k := range keys {
			wantOff, wantNbrs := referenceLabelGraph(g, k)
			for _, c := range configs {
				scatterShare, scatterPiece = c.share, c.piece
				s := &store{g: g, labels: map[lgKey]*labelGraph{}}
				lg, b, err := s.build(k, c.workers, nil)
				what := fmt.Sprintf("seed %d (%d vertices, %d edges, %d vertex / %d edge labels), key %v, scatterShare %d, pieces of %d entries, %d goroutines",
					seed, g.NumVertices(), g.NumEdges(), vls, els, k, c.share, c.piece, c.workers)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if !slices.Equal(lg.denseOffsets(), wantOff) || !slices.Equal(lg.nbrs, wantNbrs) {
					t.Fatalf("%s: the label graph differs from the reference (%d entries, want %d)", what, len(lg.nbrs), len(wantNbrs))
				}
				_, scattered := s.planScatter(k)
				if b.Entries != uint64(len(wantNbrs)) || b.Scattered != scattered || b.Key != k.String() {
					t.Fatalf("%s: build reported %+v, want %d entries, scattered %v", what, b, len(wantNbrs), scattered)
				}
			}
		}
	}
}

// TestScatterCountsReview (review rev38): sgsi's counts on its host emulation, with every label
// graph scattered in pieces of 1 or 16,384 entries, on 1 or 3 threads, equal the brute-force
// oracle's on random graphs with hubs and 1-4 edge labels and random patterns (exact and
// wildcard labels on vertices and edges, two components at times) in every convention; so do
// counts dealt to three emulated devices, and the stats' LabelBuilds name each label graph the
// count built once (it fails when mergeStats keeps one runner's).
func TestScatterCountsReview(t *testing.T) {
	defer func(share, piece uint64) { scatterShare, scatterPiece = share, piece }(scatterShare, scatterPiece)
	seeds, _ := proptest.Seeds(t, 100, 6)
	ctx := context.Background()
	runs := 0
	for _, seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, 383))
		g, vls, els := hubbedGraph(t, rng, 5+rng.IntN(30), 0.05+0.3*rng.Float64())
		for pi := range 3 {
			p := reviewPattern(t, rng, vls, els)
			for _, sem := range proptest.AllSemantics {
				want, ok := oracle.CountWithin(g, p, sem, 1_000_000)
				if !ok {
					continue
				}
				for _, c := range []struct {
					threads int
					piece   uint64
					gpus    []int
				}{{1, 1, nil}, {3, 1, nil}, {3, 1 << 14, nil}, {2, 2, []int{0, 0, 0}}} {
					scatterShare, scatterPiece = 1<<40, c.piece
					// A copy of g: the store (storeFor keeps the last graph's) is built anew.
					h, err := graph.FromRaw(g.Raw())
					if err != nil {
						t.Fatal(err)
					}
					prob := &engine.Problem{Data: h, Pattern: p, Semantics: sem, Threads: c.threads, GPUs: c.gpus}
					res, st, err := Engine{Options: Options{Host: true}}.CountStats(ctx, prob)
					how := fmt.Sprintf("seed %d pattern %d %v %s, %d threads, pieces of %d entries, GPUs %v", seed, pi, p, sem, c.threads, c.piece, c.gpus)
					if err != nil || res.Partial || res.Count != want {
						t.Fatalf("%s: sgsi %d (partial %v, err %v), oracle %d", how, res.Count, res.Partial, err, want)
					}
					// Stats.LabelBuilds (a dealt count's: every runner's) name each label
					// graph the count built once.
					var built, reported []string
					for k := range storeFor(h, 1).labels {
						built = append(built, k.String())
					}
					for _, b := range st.LabelBuilds {
						reported = append(reported, b.Key)
					}
					slices.Sort(built)
					slices.Sort(reported)
					if !slices.Equal(built, reported) {
						t.Fatalf("%s: the count built label graphs %v, its stats name %v", how, built, reported)
					}
					runs++
				}
			}
		}
	}
	if runs == 0 {
		t.Error("no case within the oracle's budget")
	}
}

// reviewPattern is a random pattern of 2-5 vertices for a graph of vls vertex and els edge
// labels: a random tree and extra edges (two components at times), each label exact (one at
// times absent from the graph) or a wildcard.
func reviewPattern(t *testing.T, rng *rand.Rand, vls, els int) *pattern.Pattern {
	t.Helper()
	n := 2 + rng.IntN(4)
	label := func(k int) pattern.Label {
		switch rng.IntN(12) {
		case 0, 1, 2:
			return pattern.Wildcard
		case 3:
			return pattern.Exact(uint32(k)) // (absent from the graph)
		}
		return pattern.Exact(uint32(rng.IntN(k)))
	}
	labels := make([]pattern.Label, n)
	for u := range labels {
		labels[u] = label(vls)
	}
	var edges []pattern.Edge
	cut := rng.IntN(4) == 0 && n > 2 // two components: no tree edge to vertex n-1's side
	for v := 1; v < n; v++ {
		if !(cut && v == n-1) {
			edges = append(edges, pattern.Edge{U: rng.IntN(v), V: v, Label: label(els)})
		}
	}
	for u := range n {
		for v := u + 2; v < n; v++ {
			if rng.IntN(3) == 0 && !(cut && (v == n-1)) {
				edges = append(edges, pattern.Edge{U: u, V: v, Label: label(els)})
			}
		}
	}
	return proptest.FirstLabels(t, labels, edges)
}
