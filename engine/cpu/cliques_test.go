package cpu

import (
	"context"
	"errors"
	"fmt"
	"github.com/submatch/submatch/engine/internal/cliques"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// countGeneral counts with the general search, the clique counter turned off.
func countGeneral(t *testing.T, prob *engine.Problem) uint64 {
	t.Helper()
	countCliquesApart = false
	defer func() { countCliquesApart = true }()
	res, err := Engine{}.Count(context.Background(), prob)
	if err != nil {
		t.Fatal(err)
	}
	return res.Count
}

// TestCliqueCounter checks the clique counter against the general search (and, on the
// smaller graphs, the brute-force oracle) on random labelled graphs dense enough to hold
// cliques of up to 8 vertices (the oracle up to 5), for all conventions, with the bit matrix small enough to force
// the splitting path, one word wide, and several words wide. Triangles (the counter's marked
// upward neighbours, no matrix) are checked with the oracle on every graph, labels exact and
// wildcards.
func TestCliqueCounter(t *testing.T) {
	defer func(limit int) { cliques.MatrixLimit = limit }(cliques.MatrixLimit)
	type graphCase struct {
		name                 string
		g                    *graph.Graph
		vertexLabels, labels []string // pattern labels to try ("" = wildcard)
		edgeLabels           []string
		oracle               bool
	}
	cases := []graphCase{
		{"unlabelled n=40", gen.RandomGraph(1, 40, 0.5, 1, 1), []string{"", "0"}, []string{"", "0"}, nil, true},
		{"unlabelled n=110", gen.RandomGraph(2, 110, 0.65, 1, 1), []string{""}, []string{""}, nil, false},
		{"2 vertex labels", gen.RandomGraph(3, 60, 0.6, 2, 1), []string{"0", "1"}, []string{""}, nil, true},
		{"vertex and edge labels", gen.RandomGraph(4, 80, 0.95, 2, 2), []string{"1"}, []string{"0", "1"}, nil, true},
		// Wildcards over several labels (every vertex, every edge or both, on the graph without
		// those labels: plan.Labels.Graph).
		{"wildcards over 2 vertex and 2 edge labels", gen.RandomGraph(6, 40, 0.5, 2, 2), []string{"1", ""}, []string{"0", ""}, nil, true},
		{"wildcards over 7 vertex and 3 edge labels", gen.RandomGraph(5, 40, 0.6, 7, 3), []string{""}, []string{""}, nil, true},
	}
	maxK, limits := 8, []int{3, 64, 4096}
	if !testenv.Long() { // the README's go test: the same paths, cliques up to 7
		maxK = 7
	}
	if testing.Short() { // the race run: fewer cases, the same paths
		cases, maxK, limits = []graphCase{cases[0], cases[3], cases[4], cases[5]}, 6, []int{3, 4096}
	}
	ctx := context.Background()
	for _, gc := range cases {
		for k := minCliqueSize; k <= maxK; k++ {
			for _, vl := range gc.vertexLabels {
				for _, el := range gc.labels {
					p := proptest.Clique(t, k, vl, el)
					if _, ok := asClique(&engine.Problem{Data: gc.g, Pattern: p}); !ok {
						t.Fatalf("%s: %d-clique (%q, %q) not taken as a clique", gc.name, k, vl, el)
					}
					for _, sem := range proptest.AllSemantics {
						prob := &engine.Problem{Data: gc.g, Pattern: p, Semantics: sem, Threads: 2}
						want := countGeneral(t, prob)
						if gc.oracle && k <= 5 || k == 3 {
							if o := oracle.Count(gc.g, p, sem); o != want {
								t.Fatalf("%s, %d-clique (%q, %q), %s: general search %d, oracle %d", gc.name, k, vl, el, sem, want, o)
							}
						}
						for _, limit := range limits {
							cliques.MatrixLimit = limit
							got, err := Engine{}.Count(ctx, prob)
							if err != nil {
								t.Fatal(err)
							}
							if got.Count != want {
								t.Fatalf("%s, limit %d, %d-clique (%q, %q), %s: clique counter %d, general search %d",
									gc.name, limit, k, vl, el, sem, got.Count, want)
							}
						}
						if k == 6 && sem == (engine.Semantics{Unique: true}) {
							t.Logf("%s: unique %d-cliques (%q, %q): %d", gc.name, k, vl, el, want)
						}
					}
				}
			}
		}
	}
}

// TestNotACliqueShape: patterns the clique counter must leave to the general search.
func TestNotACliqueShape(t *testing.T) {
	oneLabel := gen.RandomGraph(1, 30, 0.5, 1, 1)
	twoLabels := gen.RandomGraph(1, 30, 0.5, 2, 1)
	edgeLabelled := gen.RandomGraph(1, 30, 0.5, 1, 2)
	cases := []struct {
		g *graph.Graph
		p string
	}{
		{oneLabel, "(a)-(b)-(c)-(a)"},                                    // a triangle: general search but the CPU engine's
		{oneLabel, "(a)-(b)-(c)-(d)-(a), (a)-(c)"},                       // one edge short
		{oneLabel, "(a:0)-(b:1)-(c:0)-(a), (a)-(d:0), (b)-(d), (c)-(d)"}, // mixed vertex labels
		{oneLabel, "(a)-[:1]-(b)-(c)-(a), (a)-(d), (b)-(d), (c)-(d)"},    // mixed edge labels
		{oneLabel, "(a)-(b)-(c)-(a), (a)-(d), (b)-(d), (c)-(d), (e)"},    // an isolated fifth vertex
	}
	for i, c := range cases {
		p, err := pattern.Parse(c.p)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := plan.AsClique(c.g, p); ok {
			t.Errorf("%s taken as a clique", c.p)
		}
		// The CPU engine counts triangles with the clique counter too, nothing else of these.
		if _, ok := asClique(&engine.Problem{Data: c.g, Pattern: p}); ok != (i == 0) {
			t.Errorf("%s taken by the CPU engine's clique counter: %v", c.p, ok)
		}
	}
	p := proptest.Clique(t, 4, "", "")
	if _, ok := plan.AsClique(twoLabels, proptest.Clique(t, 4, "1", "")); !ok {
		t.Error("a 4-clique with one exact label on a two-label graph was refused")
	}
	if _, ok := plan.AsClique(edgeLabelled, proptest.Clique(t, 4, "", "1")); !ok {
		t.Error("a 4-clique with one exact edge label on an edge-labelled graph was refused")
	}
	if c, ok := plan.AsClique(oneLabel, p); !ok || c.AnyVertex || c.AnyEdge {
		t.Errorf("an unlabelled 4-clique was refused, or taken as one over several labels: %+v, %v", c, ok)
	}
	// Wildcards over several labels: every label, on the graph without them.
	if c, ok := plan.AsClique(twoLabels, p); !ok || !c.AnyVertex || c.AnyEdge {
		t.Errorf("a 4-clique of wildcards over two vertex labels: %+v, %v", c, ok)
	}
	if c, ok := plan.AsClique(edgeLabelled, p); !ok || c.AnyVertex || !c.AnyEdge {
		t.Errorf("a 4-clique of wildcards over two edge labels: %+v, %v", c, ok)
	}
}

// TestCliqueOverflow: 21! embeddings of K21 in itself do not fit in a uint64 (20! does).
func TestCliqueOverflow(t *testing.T) {
	g := gen.RandomGraph(1, 21, 1.0, 1, 1) // complete
	for _, c := range []struct {
		sem      engine.Semantics
		want     uint64
		overflow bool
	}{
		{engine.Semantics{Unique: true}, 1, false},
		{engine.Semantics{}, 0, true},
		{engine.Semantics{Induced: true}, 0, true},
	} {
		prob := &engine.Problem{Data: g, Pattern: proptest.Clique(t, 21, "", ""), Semantics: c.sem}
		res, err := Engine{}.Count(context.Background(), prob)
		if c.overflow {
			if !errors.Is(err, engine.ErrOverflow) {
				t.Errorf("K21 in K21, %s: %d, %v; want ErrOverflow", c.sem, res.Count, err)
			}
			continue
		}
		if err != nil || res.Count != c.want {
			t.Errorf("K21 in K21, %s: %d, %v; want %d", c.sem, res.Count, err, c.want)
		}
	}
	k20 := gen.RandomGraph(1, 20, 1.0, 1, 1)
	res, err := Engine{}.Count(context.Background(), &engine.Problem{Data: k20, Pattern: proptest.Clique(t, 20, "", "")})
	if err != nil || res.Count != 2432902008176640000 {
		t.Errorf("K20 in K20: %d, %v; want 20! = 2432902008176640000", res.Count, err)
	}
}

// TestCliqueCountCancelled: a cancelled or timed-out clique count stops promptly and says it
// is partial.
func TestCliqueCountCancelled(t *testing.T) {
	g := gen.RandomGraph(5, 400, 0.6, 1, 1)
	prob := &engine.Problem{Data: g, Pattern: proptest.Clique(t, 10, "", ""), Threads: 2}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := Engine{}.Count(ctx, prob)
	proptest.CheckStopped(t, "a clique count with a 50 ms deadline", time.Since(start), 2*time.Second, res, err, context.DeadlineExceeded)
}

// TestCliqueMemoryLimit: too small a limit is ErrMemory; a limit for one worker with no matrix
// (every set split by intersections), with small matrices, or with full ones, still counts.
func TestCliqueMemoryLimit(t *testing.T) {
	g := gen.RandomGraph(1, 60, 0.5, 1, 1)
	prob := &engine.Problem{Data: g, Pattern: proptest.Clique(t, 5, "", ""), Threads: 4, MemoryLimit: 1000}
	if _, err := (Engine{}).Count(context.Background(), prob); !errors.Is(err, engine.ErrMemory) {
		t.Fatalf("tiny limit: %v, want ErrMemory", err)
	}
	want := countGeneral(t, &engine.Problem{Data: g, Pattern: prob.Pattern, Threads: 2})
	table := 8 * uint64(g.NumVertices())
	for _, matrix := range []int{0, 16, cliques.MatrixLimit} {
		prob.MemoryLimit = table + cliques.WorkerMemory(cliques.SizeOf(g), 5, matrix)
		if got, err := (Engine{}).Count(context.Background(), prob); err != nil || got.Count != want {
			t.Fatalf("one worker's memory with matrices of %d: %d, %v; want %d", matrix, got.Count, err, want)
		}
	}
	// Triangles: one bit a vertex a worker, no matrix; a byte short of it, the general search
	// takes them, as it did before (here its own buffers do not fit either: ErrMemory).
	// (A sparse graph of many vertices: the orientation table outweighs the search's buffers.)
	sparse := gen.RandomGraphM(2, 3000, 9000, 1, 1)
	tri := &engine.Problem{Data: sparse, Pattern: proptest.Clique(t, 3, "", ""), Threads: 4}
	want = countGeneral(t, tri)
	tri.MemoryLimit = 8*uint64(sparse.NumVertices()) + cliques.WorkerMemory(cliques.SizeOf(sparse), 3, cliques.MatrixLimit)
	if _, ok := asClique(tri); !ok {
		t.Fatal("triangles in one worker's memory left to the general search")
	}
	if got, err := (Engine{}).Count(context.Background(), tri); err != nil || got.Count != want {
		t.Fatalf("triangles in one worker's memory: %d, %v; want %d", got.Count, err, want)
	}
	tri.MemoryLimit--
	if _, ok := asClique(tri); ok {
		t.Fatal("triangles a byte short of one worker taken by the clique counter")
	}
	got, err := (Engine{}).Count(context.Background(), tri)
	countCliquesApart = false
	general, gerr := (Engine{}).Count(context.Background(), tri)
	countCliquesApart = true
	if got.Count != general.Count || (err == nil) != (gerr == nil) || gerr != nil && !errors.Is(err, engine.ErrMemory) {
		t.Fatalf("triangles a byte short of one worker: %d, %v; the general search %d, %v", got.Count, err, general.Count, gerr)
	}
	// A small graph needs no 4,096-member matrix: its worker fits in a few KiB.
	small := gen.RandomGraph(3, 10, 0.8, 1, 1)
	if mem := cliques.WorkerMemory(cliques.SizeOf(small), 5, cliques.MatrixLimit); mem > 4<<10 {
		t.Errorf("a worker for a 10-vertex graph is charged %d bytes", mem)
	}
}

// BenchmarkCliques counts unique cliques on one thread with the clique counter and with the
// general search (the baseline, in the same process): 4- and 5-cliques of an R-MAT graph, and
// 5- to 7-cliques of wiki-Vote when ../shared/testdata is there (STMatch's unlabelled cases).
func BenchmarkCliques(b *testing.B) {
	rmat, err := gen.RMAT(gen.RMATOptions{Scale: 12, EdgeFactor: 16, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	type benchCase struct {
		name string
		g    *graph.Graph
		k    int
	}
	cases := []benchCase{{"rmat12", rmat, 4}, {"rmat12", rmat, 5}}
	if _, err := os.Stat(filepath.Join(testenv.Dir(), "wikivote-graphpi")); err == nil {
		wv := sharedtest.WikiVote(b)
		for k := 5; k <= 7; k++ {
			cases = append(cases, benchCase{"wiki-Vote", wv, k})
		}
	}
	for _, c := range cases {
		prob := &engine.Problem{Data: c.g, Pattern: proptest.Clique(b, c.k, "", ""), Semantics: engine.Semantics{Unique: true}, Threads: 1}
		for _, apart := range []bool{true, false} {
			name := fmt.Sprintf("%s/K%d/general", c.name, c.k)
			if apart {
				name = fmt.Sprintf("%s/K%d/clique-counter", c.name, c.k)
			}
			b.Run(name, func(b *testing.B) {
				countCliquesApart = apart
				defer func() { countCliquesApart = true }()
				for b.Loop() {
					if _, err := (Engine{}).Count(context.Background(), prob); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
