package sgsi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// forceSparse makes every labelled key scattered and every scattered key sparse until the
// returned func restores the knobs.
func forceSparse() (restore func()) {
	share, piece, sp := scatterShare, scatterPiece, sparseShare
	scatterShare, sparseShare = 1<<40, math.Inf(1)
	return func() { scatterShare, scatterPiece, sparseShare = share, piece, sp }
}

// starsGraph is a graph of stars for the sparse build's pair blocks: hub i (label 1) joined to
// leaves[i] vertices of label 0, by edge label i%2, each leaf a star's alone, plus one vertex
// without an edge. Key (e, 1, both) then gives each leaf of a star of edge label e one entry: a
// star of 256 leaves fills a block exactly, scattered in pieces of one hub.
func starsGraph(t *testing.T, leaves []int) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(graph.BuilderOptions{})
	id := int64(0)
	for i, l := range leaves {
		hub := id
		id++
		if err := b.SetVertexLabel(hub, 1); err != nil {
			t.Fatal(err)
		}
		for range l {
			if err := b.SetVertexLabel(id, 0); err != nil {
				t.Fatal(err)
			}
			if err := b.AddEdge(hub, id, uint32(i%2)); err != nil {
				t.Fatal(err)
			}
			id++
		}
	}
	if err := b.SetVertexLabel(id, 0); err != nil {
		t.Fatal(err)
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestSparseEdgeCasesReview (review rev39): the sparse form reads as the dense one (compareForms)
// for every key, side and 1-5 goroutines, on a graph of one vertex (no entries), of one edge
// (the last vertex's list, vertices beyond the last ref), of a vertex label absent from the graph,
// and of stars whose entries fill the pair blocks of one goroutine exactly (255, 256, 257, 512
// and 513 pairs a star, pieces of one star or of all), so that a block flushed on filling and
// again at the end loses or repeats no pair.
func TestSparseEdgeCasesReview(t *testing.T) {
	defer forceSparse()()
	type graphCase struct {
		name string
		g    *graph.Graph
	}
	one := graph.NewBuilder(graph.BuilderOptions{})
	if err := one.SetVertexLabel(0, 0); err != nil {
		t.Fatal(err)
	}
	g1, err := one.Build()
	if err != nil {
		t.Fatal(err)
	}
	edge := graph.NewBuilder(graph.BuilderOptions{})
	if err := edge.AddEdge(0, 1, 0); err != nil {
		t.Fatal(err)
	}
	g2, err := edge.Build()
	if err != nil {
		t.Fatal(err)
	}
	cases := []graphCase{{"one vertex", g1}, {"one edge", g2},
		{"stars", starsGraph(t, []int{256, 255, 257, 256, 512, 513, 1})}, {"one star", starsGraph(t, []int{256})}}
	rng := rand.New(rand.NewPCG(39, 39))
	built := 0
	for _, c := range cases {
		for _, piece := range []uint64{1, 1 << 14} {
			scatterPiece = piece
			for _, e := range []uint64{0, 1, 2, anyEdge} {
				for vl := range uint32(3) {
					for dir := range uint8(3) {
						k := lgKey{e, vl, dir}
						for workers := 1; workers <= 5; workers += 2 {
							what := fmt.Sprintf("%s, key %v, pieces of %d, %d goroutines", c.name, k, piece, workers)
							dense := buildForm(t, c.g, k, workers, false)
							sp := buildForm(t, c.g, k, workers, true)
							compareForms(t, what, dense, sp, rng)
							built++
						}
					}
				}
			}
		}
	}
	t.Logf("%d sparse label graphs compared", built)
}

// TestSparseCountsReview (review rev39): with every labelled key scattered and built sparse,
// sgsi's counts on its host emulation equal the brute-force oracle's in every convention, for
// random patterns with matches (exact and wildcard labels, two components at times) on small
// random graphs with hubs and 1-4 edge labels, and on TestLongLists's hub graphs: in core, out of
// core (TestLongLists's regions and segment caches of 3 and 10 words: lists cut into parts, so
// head, tail and prev; gathered and windowed refs), on 1 to 3 threads, dealt to two and three
// emulated devices; its listings too where the counts are small. It fails when no sparse label
// graph is built, no list is cut or no segment gathered. Then sparseRefusal (a graph's first
// pattern, embeddings): under a growing --memory, the refused counts leave every label graph
// held whole.
func TestSparseCountsReview(t *testing.T) {
	defer forceSparse()()
	seeds := proptest.SeedsUpTo(testenv.Sweep[uint64](4, 100)) // (seeds 0-3 take every path it asks for)
	ctx := context.Background()
	runs, sparseBuilds, denseBuilds, refusals := 0, 0, 0, 0
	var parts, gathered, windows uint64
	for _, seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, 3939))
		g, vls, els := hubGraph(seed, 150+int(seed%4)*50, 1+int(seed%3)), 2, 2 // (TestLongLists's: lists past a segment, windows)
		if seed%2 == 0 {
			g, vls, els = hubbedGraph(t, rng, 5+rng.IntN(30), 0.05+0.3*rng.Float64())
		}
		for pi, tries := 0, 0; pi < 3 && tries < 30; tries++ {
			p := reviewPattern(t, rng, vls, els)
			if n, ok := oracle.CountWithin(g, p, engine.Semantics{}, 1_000_000); !ok || n == 0 {
				continue // (sgsi builds no label graph for a pattern without candidates)
			}
			pi++
			for _, sem := range proptest.AllSemantics {
				want, ok := oracle.CountWithin(g, p, sem, 1_000_000)
				if !ok {
					continue
				}
				for ci, c := range []struct {
					threads       int
					region, cache uint64
					gpus          []int
				}{{1, 0, 0, nil}, {3, 1 << 20, 12, nil}, {1, 2400, 0, nil}, {2, 3 * 1600, 40, []int{0, 0, 0}}, {3, 0, 0, []int{0, 0}}} {
					scatterPiece = []uint64{1, 1 << 14}[ci%2]
					h, err := graph.FromRaw(g.Raw()) // (a fresh store a count)
					if err != nil {
						t.Fatal(err)
					}
					prob := &engine.Problem{Data: h, Pattern: p, Semantics: sem, Threads: c.threads, GPUs: c.gpus}
					e := Engine{Options: Options{Host: true, HostBytes: c.region, MaxCache: c.cache, BlockRows: 8}}
					res, st, err := e.CountStats(ctx, prob)
					how := fmt.Sprintf("seed %d pattern %d %v %s, %d threads, region %d cache %d, GPUs %v", seed, pi, p, sem, c.threads, c.region, c.cache, c.gpus)
					if err != nil || res.Partial || res.Count != want {
						t.Fatalf("%s: sgsi %d (partial %v, err %v), oracle %d", how, res.Count, res.Partial, err, want)
					}
					for _, b := range st.LabelBuilds {
						if b.Sparse {
							sparseBuilds++
						} else {
							denseBuilds++
						}
					}
					runs++
					parts, gathered, windows = parts+st.Parts, gathered+st.Gathered, windows+st.Windows
					if want <= 2000 && ci%2 == 1 {
						if msg := proptest.CompareLists(ctx, e, proptest.Case{Seed: seed, G: h, P: p}, prob); msg != "" {
							t.Fatalf("%s: %s", how, msg)
						}
					}
				}
				if pi == 1 && sem == (engine.Semantics{}) {
					refusals += sparseRefusal(t, ctx, g, p, sem, want)
				}
			}
		}
	}
	t.Logf("%d counts, %d sparse and %d dense label graphs built, %d counts refused at a label graph; %d segments in parts, %d gathered, %d windows",
		runs, sparseBuilds, denseBuilds, refusals, parts, gathered, windows)
	if runs == 0 || sparseBuilds == 0 || refusals == 0 || parts == 0 || gathered == 0 {
		t.Errorf("%d counts, %d sparse builds, %d refusals, %d parts, %d gathered: the test checks less than it says", runs, sparseBuilds, refusals, parts, gathered)
	}
}

// sparseRefusal counts p on one fresh copy of g under a --memory growing from its signatures'
// bytes by an eighth a count until the count succeeds (the label graphs built by refused counts
// stay in the store for the next): every count is exact or fails with engine.ErrMemory, and after
// each, every sparse label graph the store holds reads as its dense form built anew (a refused
// build holds nothing, half built or empty). It returns the counts refused at a label graph.
func sparseRefusal(t *testing.T, ctx context.Context, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, want uint64) int {
	t.Helper()
	h, err := graph.FromRaw(g.Raw())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(h.NumVertices()), 1))
	refused := 0
	for limit := 16 * uint64(g.NumVertices()); ; limit += max(limit/8, 16) {
		prob := &engine.Problem{Data: h, Pattern: p, Semantics: sem, MemoryLimit: limit}
		res, err := Engine{Options: Options{Host: true}}.Count(ctx, prob)
		how := fmt.Sprintf("pattern %v %s, --memory %d", p, sem, limit)
		if err != nil && !errors.Is(err, engine.ErrMemory) || err == nil && (res.Partial || res.Count != want) {
			t.Fatalf("%s: sgsi %d (partial %v, err %v), oracle %d", how, res.Count, res.Partial, err, want)
		}
		s := storeFor(h, 1)
		for k, lg := range s.labels {
			dense := buildForm(t, h, k, 1, false)
			if lg.offsets == nil {
				compareForms(t, fmt.Sprintf("%s, key %v", how, k), dense, lg, rng)
			}
		}
		if err == nil {
			return refused
		}
		if strings.Contains(err.Error(), "a label graph") {
			refused++
		}
	}
}
