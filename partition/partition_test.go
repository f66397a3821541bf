package partition_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/partition"
)

// check verifies pt's invariants on g independently of the partitioner: every vertex in exactly
// one part (Of and Parts agree), no part empty, every part within the budget, the halos exactly
// the outside neighbours, the bytes and edge cut as recomputed here.
func check(t *testing.T, g *graph.Graph, pt *partition.Partitioning, budget uint64) {
	t.Helper()
	n := g.NumVertices()
	seen := make([]int, n)
	for p, vs := range pt.Parts {
		if len(vs) == 0 {
			t.Fatalf("part %d empty", p)
		}
		for _, v := range vs {
			seen[v]++
			if pt.Of[v] != uint32(p) {
				t.Fatalf("vertex %d listed in part %d, Of says %d", v, p, pt.Of[v])
			}
		}
	}
	for v, c := range seen {
		if c != 1 {
			t.Fatalf("vertex %d in %d parts", v, c)
		}
	}
	var cut uint64
	for p, vs := range pt.Parts {
		halo := map[uint32]bool{}
		var bytes uint64
		for _, v := range vs {
			bytes += partition.VertexCost(g, v)
			for _, w := range g.Neighbors(v) {
				if pt.Of[w] != uint32(p) {
					halo[w] = true
					if v < w {
						cut++
					}
				}
			}
		}
		want := make([]uint32, 0, len(halo))
		for w := range halo {
			want = append(want, w)
		}
		slices.Sort(want)
		if !slices.Equal(want, pt.Halo[p]) {
			t.Fatalf("part %d: halo %v, want %v", p, pt.Halo[p], want)
		}
		bytes += uint64(len(want)) * partition.HaloBytes
		if bytes != pt.Bytes[p] {
			t.Fatalf("part %d: %d bytes reported, %d recomputed", p, pt.Bytes[p], bytes)
		}
		if budget > 0 && bytes > budget {
			t.Fatalf("part %d needs %d bytes, budget %d", p, bytes, budget)
		}
	}
	if cut != pt.EdgeCut {
		t.Fatalf("edge cut %d, recomputed %d", pt.EdgeCut, cut)
	}
}

func TestInvariants(t *testing.T) {
	seeds := testenv.Sweep(uint64(40), 400)
	ctx := context.Background()
	for seed := range seeds {
		n := 20 + int(seed%9)*60
		g := gen.RandomGraphM(seed, n, n*(1+int(seed%5)), int(seed%3), 1+int(seed%2))
		gb := partition.GraphBytes(g)
		for _, div := range []uint64{1, 2, 4, 16, 64, 1 << 20} {
			budget := gb / div
			for _, o := range []partition.Options{{Passes: -1}, {}, {Triangles: true}, {Method: partition.Grow, Passes: -1}, {Method: partition.Grow},
				{Method: partition.Ranges, Passes: -1}, {Method: partition.Ranges}} {
				o.Budget = budget
				pt, err := partition.Partition(ctx, g, o)
				if errors.Is(err, partition.ErrBudget) {
					continue // a vertex alone exceeds the budget: checked below
				}
				if err != nil {
					t.Fatal(err)
				}
				check(t, g, pt, budget)
			}
		}
	}
}

// TestTooSmall: a budget no vertex fits is ErrBudget.
func TestTooSmall(t *testing.T) {
	g := gen.RandomGraphM(1, 50, 200, 1, 1)
	if _, err := partition.Partition(context.Background(), g, partition.Options{Budget: 8}); !errors.Is(err, partition.ErrBudget) {
		t.Fatalf("err %v, want ErrBudget", err)
	}
}

// TestRefinementCuts: refinement never cuts more edges than growth (or ranges) alone (every move strictly
// lowers the cut).
func TestRefinementCuts(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(20) {
		g := gen.RandomGraphM(seed, 500, 2000, 1, 1)
		b := partition.GraphBytes(g) / 8
		for _, m := range []partition.Method{partition.Grow, partition.Ranges} {
			a, err := partition.Partition(ctx, g, partition.Options{Budget: b, Passes: -1, Method: m})
			if err != nil {
				t.Fatal(err)
			}
			r, err := partition.Partition(ctx, g, partition.Options{Budget: b, Method: m})
			if err != nil {
				t.Fatal(err)
			}
			if r.EdgeCut > a.EdgeCut {
				t.Errorf("seed %d %v: refined cut %d > unrefined cut %d", seed, m, r.EdgeCut, a.EdgeCut)
			}
		}
	}
}

// planted is a graph of k clusters of size vertices, each a random graph of inDeg average degree,
// with cross edges between clusters; vertex ids are shuffled so that no id order reveals the
// clusters. It returns the graph and the number of cross edges.
func planted(seed uint64, k, size, inDeg, cross int) (*graph.Graph, uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	n := k * size
	perm := rng.Perm(n)
	b := graph.NewBuilder(graph.BuilderOptions{DropSelfLoops: true})
	for v := range n {
		_ = b.SetVertexLabel(int64(v), 0)
	}
	add := func(u, v int) { _ = b.AddEdge(int64(perm[u]), int64(perm[v]), 0) }
	for c := range k {
		for range size * inDeg / 2 {
			add(c*size+rng.IntN(size), c*size+rng.IntN(size))
		}
	}
	for range cross {
		c, d := rng.IntN(k), rng.IntN(k)
		if c == d {
			d = (c + 1) % k
		}
		add(c*size+rng.IntN(size), d*size+rng.IntN(size))
	}
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	return g, uint64(cross)
}

// TestMultilevelFindsClusters: on graphs of 8 planted clusters (shuffled ids), the multilevel
// partitioner under a budget of a bit over a quarter of the graph cuts at most twice the planted
// cross edges, and fewer than breadth-first growth does.
func TestMultilevelFindsClusters(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(5) {
		g, cross := planted(seed, 8, 250, 12, 300)
		budget := partition.GraphBytes(g) * 3 / 10
		ml, err := partition.Partition(ctx, g, partition.Options{Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		check(t, g, ml, budget)
		gr, err := partition.Partition(ctx, g, partition.Options{Budget: budget, Method: partition.Grow})
		if err != nil {
			t.Fatal(err)
		}
		if ml.EdgeCut > 2*cross || ml.EdgeCut >= gr.EdgeCut {
			t.Errorf("seed %d: multilevel cut %d (%d parts), grow %d, planted %d", seed, ml.EdgeCut, len(ml.Parts), gr.EdgeCut, cross)
		}
	}
}

// TestDeterministic: the same graph and options give the same parts.
func TestDeterministic(t *testing.T) {
	g := gen.RandomGraphM(3, 800, 4000, 2, 1)
	o := partition.Options{Budget: partition.GraphBytes(g) / 6}
	a, err := partition.Partition(context.Background(), g, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := partition.Partition(context.Background(), g, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Of, b.Of) {
		t.Fatal("two runs gave different parts")
	}
}

func TestParseMethod(t *testing.T) {
	for _, m := range []partition.Method{partition.Multilevel, partition.Grow, partition.Auto, partition.Ranges} {
		if got, err := partition.ParseMethod(m.String()); err != nil || got != m {
			t.Errorf("ParseMethod(%q) = %v, %v", m, got, err)
		}
	}
	if _, err := partition.ParseMethod("metis"); err == nil {
		t.Error("ParseMethod(metis): no error")
	}
}

// TestTrianglesKeepCliques: with triangle weights, the multilevel partitioner keeps every planted
// clique (10 vertices, each with 3 edges into a sparse random background: 30 edges out against
// 25 cut for a split in halves) inside one part, under a budget of a quarter of the graph, where
// a part holds several of them; ids shuffled.
func TestTrianglesKeepCliques(t *testing.T) {
	ctx := context.Background()
	const cliques, size, bg, bgDeg, out = 12, 10, 1500, 4, 3
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 11))
		n := bg + cliques*size
		perm := rng.Perm(n)
		b := graph.NewBuilder(graph.BuilderOptions{DropSelfLoops: true})
		for v := range n {
			_ = b.SetVertexLabel(int64(v), 0)
		}
		add := func(u, v int) { _ = b.AddEdge(int64(perm[u]), int64(perm[v]), 0) }
		for range bg * bgDeg / 2 {
			add(rng.IntN(bg), rng.IntN(bg))
		}
		for c := range cliques {
			for i := range size {
				u := bg + c*size + i
				for j := range i {
					add(u, bg+c*size+j)
				}
				for range out {
					add(u, rng.IntN(bg))
				}
			}
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		dense := make([]uint32, n) // Build renumbers the vertices by degree
		for v := range uint32(n) {
			dense[g.OriginalID(v)] = v
		}
		budget := partition.GraphBytes(g) / 4
		for _, tri := range []bool{true, false} {
			pt, err := partition.Partition(ctx, g, partition.Options{Budget: budget, Triangles: tri})
			if err != nil {
				t.Fatal(err)
			}
			check(t, g, pt, budget)
			split := 0
			for c := range cliques {
				first := dense[perm[bg+c*size]]
				for i := 1; i < size; i++ {
					if pt.Of[dense[perm[bg+c*size+i]]] != pt.Of[first] {
						split++
						break
					}
				}
			}
			if tri && split > 0 {
				t.Errorf("seed %d: triangle weights: %d of %d cliques split (%d parts)", seed, split, cliques, len(pt.Parts))
			}
			t.Logf("seed %d, triangles %v: %d parts, cut %d, %d cliques split", seed, tri, len(pt.Parts), pt.EdgeCut, split)
		}
	}
}
