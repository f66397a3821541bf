package partition

import (
	"context"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/setops"
)

// TestWeightTriangles: every edge weighs 1 + ⌈log2(1 + the common neighbours of its ends)⌉,
// counted by brute force, in both directions; labelled graphs (lists not in id order) too, and
// R-MAT graphs, whose hubs' out-lists are intersected by binary searches (gallop).
func TestWeightTriangles(t *testing.T) {
	for seed := range uint64(24) {
		g := gen.RandomGraphM(seed, 30+int(seed)*10, 100+int(seed)*60, 1+int(seed%3), 1+int(seed%2))
		if seed >= 20 {
			var err error
			if g, err = gen.RMAT(gen.RMATOptions{Scale: 8 + int(seed%4), EdgeFactor: 12, VertexLabels: int(seed % 3), Seed: seed}); err != nil {
				t.Fatal(err)
			}
		}
		w := fromGraph(g)
		mustWeight(t, w)
		for v := range uint32(w.n()) {
			nv := map[uint32]bool{}
			for _, u := range g.Neighbors(v) {
				nv[u] = true
			}
			for j := w.xadj[v]; j < w.xadj[v+1]; j++ {
				u := w.adj[j]
				tri := uint32(0)
				for _, x := range g.Neighbors(u) {
					if nv[x] {
						tri++
					}
				}
				want := 1 + uint64(bits.Len32(tri))
				if w.ew[j] != want {
					t.Fatalf("seed %d: edge %d-%d weighs %d, want %d", seed, v, u, w.ew[j], want)
				}
			}
		}
	}
}

// TestWeightTrianglesBound: complete graphs K_n around the bound (TriangleWork steps an edge)
// are weighted, every edge by 1 + ⌈log2(n-1)⌉ (it lies in n-2 triangles), exactly when the work
// the oracle prices is within the bound, and are left with weights 1 otherwise. In K_n every
// vertex has degree n-1, so v's out-list holds the n-1-v vertices above it, and the work of an
// out-edge v-u is that of intersecting lists of n-1-v and n-1-u entries: their sum, or the
// shorter's binary searches in the longer when one is over 16 times the other.
func TestWeightTrianglesBound(t *testing.T) {
	weighted, refused := 0, 0
	for n := 100; n <= 180; n += 6 {
		b := graph.NewBuilder(graph.BuilderOptions{})
		for u := range n {
			for v := range u {
				if err := b.AddEdge(int64(u), int64(v), 0); err != nil {
					t.Fatal(err)
				}
			}
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		var work uint64
		for v := range n {
			for u := v + 1; u < n; u++ {
				x, y := n-1-v, n-1-u
				if y > 0 && x > setops.GallopThreshold*y {
					work += uint64(y * bits.Len(uint(x)))
				} else {
					work += uint64(x + y)
				}
			}
		}
		within := work <= TriangleWork*uint64(n*(n-1)/2)
		w := fromGraph(g)
		ok, err := w.weightTriangles(context.Background(), 2)
		if err != nil || ok != within {
			t.Fatalf("K_%d (work %d): weighted %v (%v), want %v", n, work, ok, err, within)
		}
		want := uint64(1)
		if ok {
			want += uint64(bits.Len(uint(n - 2)))
			weighted++
		} else {
			refused++
		}
		for j, e := range w.ew {
			if e != want {
				t.Fatalf("K_%d: half-edge %d weighs %d, want %d", n, j, e, want)
			}
		}
	}
	if weighted == 0 || refused == 0 {
		t.Fatalf("%d graphs weighted, %d refused: the sizes miss the bound", weighted, refused)
	}
}

// TestCoarsen: a coarse vertex merges one or two fine ones and weighs their sum; the coarse edge
// weights add up to the fine ones less the edges inside merged pairs; no self-loops.
func TestCoarsen(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for seed := range uint64(20) {
		g := gen.RandomGraphM(seed, 200, 200*(1+int(seed%6)), 1, 1)
		w := fromGraph(g)
		if seed%2 == 1 {
			mustWeight(t, w)
		}
		c, cmap := w.coarsen(rng, 1<<40, 1)
		members := make([]int, c.n())
		var vw []uint64 = make([]uint64, c.n())
		for v, cv := range cmap {
			members[cv]++
			vw[cv] += w.vw[v]
		}
		for cv, m := range members {
			if m < 1 || m > 2 || vw[cv] != c.vw[cv] {
				t.Fatalf("seed %d: coarse vertex %d has %d members, weight %d (sum %d)", seed, cv, m, c.vw[cv], vw[cv])
			}
		}
		var fine, inside, coarse uint64
		for v := range w.n() {
			for j := w.xadj[v]; j < w.xadj[v+1]; j++ {
				fine += w.ew[j]
				if cmap[v] == cmap[w.adj[j]] {
					inside += w.ew[j]
				}
			}
		}
		for cv := range c.n() {
			for j := c.xadj[cv]; j < c.xadj[cv+1]; j++ {
				if int(c.adj[j]) == cv {
					t.Fatalf("seed %d: self-loop at %d", seed, cv)
				}
				coarse += c.ew[j]
			}
		}
		if coarse != fine-inside {
			t.Fatalf("seed %d: coarse edge weight %d, fine %d less inside %d", seed, coarse, fine, inside)
		}
		if c.n() >= w.n() && g.NumEdges() > 0 {
			t.Fatalf("seed %d: nothing merged", seed)
		}
	}
}

// TestCoarsenIsolated: isolated vertices, which have no neighbour to match, are paired with each
// other.
func TestCoarsenIsolated(t *testing.T) {
	b := graph.NewBuilder(graph.BuilderOptions{})
	for v := range 21 {
		if err := b.SetVertexLabel(int64(v), 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.AddEdge(0, 1, 0); err != nil {
		t.Fatal(err)
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	c, _ := fromGraph(g).coarsen(rand.New(rand.NewPCG(3, 4)), 1<<40, 1)
	// 0-1 merge; 19 isolated vertices make 9 pairs and one single.
	if c.n() != 11 {
		t.Fatalf("%d coarse vertices, want 11", c.n())
	}
}

// TestRefineParallel: refinement with its neighbourhood scans on several threads (speculator)
// makes exactly the moves of the sequential loop, on graphs of several batches with random and
// lopsided starting assignments (some parts over the bound).
func TestRefineParallel(t *testing.T) {
	defer func(m int) { parMinVertices = m }(parMinVertices)
	parMinVertices = 1
	for seed := range uint64(8) {
		n := 1000 + int(seed)*1500
		g := gen.RandomGraphM(seed, n, n*(2+int(seed%4)), 1, 1)
		w := fromGraph(g)
		k := 2 + int(seed)
		rng := rand.New(rand.NewPCG(seed, 7))
		init := make([]uint32, n)
		for v := range init {
			if seed%2 == 0 {
				init[v] = uint32(rng.IntN(k))
			} else {
				init[v] = uint32(min(v*k*2/n, k-1)) // the first parts hold twice their share
			}
		}
		var total uint64
		for _, x := range w.vw {
			total += x
		}
		maxW := total / uint64(k) * 11 / 10
		var want []uint32
		var wantW []uint64
		for _, th := range []int{1, 2, 3, 5} {
			part := slices.Clone(init)
			pw := make([]uint64, k)
			for v, p := range part {
				pw[p] += w.vw[v]
			}
			w.refineWeights(part, pw, maxW, 10, rand.New(rand.NewPCG(seed, 9)), th)
			if want == nil {
				want, wantW = part, pw
				if slices.Equal(part, init) {
					t.Fatalf("seed %d: nothing moved", seed)
				}
			} else if !slices.Equal(part, want) || !slices.Equal(pw, wantW) {
				t.Fatalf("seed %d: %d threads moved other vertices than 1", seed, th)
			}
		}
	}
}

// TestCoarsenParallel: contraction on several threads makes the coarse graph of the sequential
// loop, list for list.
func TestCoarsenParallel(t *testing.T) {
	defer func(m int) { parMinVertices = m }(parMinVertices)
	parMinVertices = 1
	for seed := range uint64(10) {
		g := gen.RandomGraphM(seed, 50+int(seed)*300, (50+int(seed)*300)*(1+int(seed%5)), 1, 1)
		w := fromGraph(g)
		if seed%3 == 1 {
			mustWeight(t, w)
		}
		want, wantMap := w.coarsen(rand.New(rand.NewPCG(seed, 5)), 1<<40, 1)
		for _, th := range []int{2, 3, 7} {
			c, cmap := w.coarsen(rand.New(rand.NewPCG(seed, 5)), 1<<40, th)
			if !slices.Equal(cmap, wantMap) || !slices.Equal(c.xadj, want.xadj) || !slices.Equal(c.adj, want.adj) ||
				!slices.Equal(c.ew, want.ew) || !slices.Equal(c.vw, want.vw) {
				t.Fatalf("seed %d: %d threads made another coarse graph than 1", seed, th)
			}
		}
	}
}

// mustWeight weighs w's edges by triangles (the bound never reached on test graphs).
func mustWeight(t *testing.T, w *wgraph) {
	t.Helper()
	ok, err := w.weightTriangles(context.Background(), 2)
	if err != nil || !ok {
		t.Fatalf("weightTriangles: %v, %v", ok, err)
	}
}
