package triangles

import (
	"cmp"
	"context"
	"errors"
	"math/bits"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/setops"
)

// forwardOf is g oriented by ascending (degree, id), laid out as mining lays it out (lower
// neighbours, then the out-list, per vertex) when lower is set, else the out-lists alone; adj is
// g's adjacency in the new ids, for the oracle.
func forwardOf(g *graph.Graph, lower bool) (f *Forward, adj []map[uint32]bool) {
	n := g.NumVertices()
	orig := make([]uint32, n)
	for v := range orig {
		orig[v] = uint32(v)
	}
	slices.SortFunc(orig, func(a, b uint32) int {
		return cmp.Or(cmp.Compare(g.Degree(a), g.Degree(b)), cmp.Compare(a, b))
	})
	rank := make([]uint32, n)
	for r, v := range orig {
		rank[v] = uint32(r)
	}
	f = &Forward{Lo: make([]uint64, n), Hi: make([]uint64, n)}
	adj = make([]map[uint32]bool, n)
	for r, v := range orig {
		var list []uint32
		adj[r] = map[uint32]bool{}
		for _, w := range g.Neighbors(v) {
			list = append(list, rank[w])
			adj[r][rank[w]] = true
		}
		slices.Sort(list)
		above, _ := slices.BinarySearch(list, uint32(r))
		if !lower {
			list = list[above:]
			above = 0
		}
		f.Lo[r] = uint64(len(f.Adj) + above)
		f.Adj = append(f.Adj, list...)
		f.Hi[r] = uint64(len(f.Adj))
	}
	return f, adj
}

// graphs are random graphs of several densities and R-MAT graphs, whose hubs make out-lists of
// very different lengths meet (galloping searches rather than merges), and longBeforeShort.
func graphs(t *testing.T) []*graph.Graph {
	var gs []*graph.Graph
	for seed := range uint64(12) {
		gs = append(gs, gen.RandomGraphM(seed, 20+int(seed)*15, (20+int(seed)*15)*(1+int(seed%6)), 1, 1))
	}
	for seed := range uint64(4) {
		g, err := gen.RMAT(gen.RMATOptions{Scale: 8 + int(seed), EdgeFactor: 8 + 4*int(seed), Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, g)
	}
	return append(gs, longBeforeShort(t))
}

// longBeforeShort is a graph where the rest of an out-list, 79 entries, meets a much shorter
// out-list of 2 (galloping searches of the second's entries in the first): v's neighbours
// w0..w79 lie above it, and w0, below the others, has the two out-neighbours w1 and w2; the
// leaves raise the ws' degrees.
func longBeforeShort(t *testing.T) *graph.Graph {
	b := graph.NewBuilder(graph.BuilderOptions{})
	next := int64(81)
	add := func(u, v int64) {
		if err := b.AddEdge(u, v, 0); err != nil {
			t.Fatal(err)
		}
	}
	for w := int64(1); w <= 80; w++ {
		add(0, w)
		for range 85 + 15*min(w-1, 1) {
			add(w, next)
			next++
		}
	}
	add(1, 2)
	add(1, 3)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestAtFindsEveryTriangleOnce compares At with the brute-force triangles (every vertex triple
// whose three pairs are edges), positions included, on both layouts.
func TestAtFindsEveryTriangleOnce(t *testing.T) {
	for i, g := range graphs(t) {
		for _, lower := range []bool{false, true} {
			f, adj := forwardOf(g, lower)
			n := f.N()
			want := 0
			for v := range n {
				for u := range adj[v] {
					for x := range adj[v] {
						if v < int(u) && u < x && adj[u][x] {
							want++
						}
					}
				}
			}
			seen := map[[3]uint32]bool{}
			for v := range n {
				f.At(v, func(u, x uint32, pvu, pvx, pux uint64) {
					key := [3]uint32{uint32(v), u, x}
					switch {
					case seen[key]:
						t.Fatalf("graph %d: triangle %v twice", i, key)
					case !(uint32(v) < u && u < x) || !adj[v][u] || !adj[v][x] || !adj[u][x]:
						t.Fatalf("graph %d: %v is no triangle in order", i, key)
					case pvu < f.Lo[v] || pvu >= f.Hi[v] || f.Adj[pvu] != u, pvx < f.Lo[v] || pvx >= f.Hi[v] || f.Adj[pvx] != x,
						pux < f.Lo[u] || pux >= f.Hi[u] || f.Adj[pux] != x:
						t.Fatalf("graph %d: triangle %v at positions %d %d %d", i, key, pvu, pvx, pux)
					}
					seen[key] = true
				})
			}
			if len(seen) != want {
				t.Fatalf("graph %d: %d triangles, want %d", i, len(seen), want)
			}
		}
	}
}

// TestCount compares every out-edge's count with its ends' common neighbours, on 1 to 4
// goroutines, adding to what t held; positions outside the out-lists (the lower neighbours of
// mining's layout) stay as they were. Work is the bound as the partitioner sets it: both whole
// out-lists of every out-edge, merged or searched.
func TestCount(t *testing.T) {
	for i, g := range graphs(t) {
		f, adj := forwardOf(g, i%2 == 1)
		var work uint64 // the oracle's Work: both whole out-lists, merged or searched
		for v := range f.N() {
			for _, u := range f.Out(v) {
				a, b := int(f.Hi[v]-f.Lo[v]), int(f.Hi[u]-f.Lo[u])
				if s, l := min(a, b), max(a, b); l > setops.GallopThreshold*s {
					work += uint64(s * bits.Len(uint(l)))
				} else {
					work += uint64(a + b)
				}
			}
		}
		if got := f.Work(); got != work {
			t.Fatalf("graph %d: Work %d, want %d", i, got, work)
		}
		// The partitioner takes Work before it sorts the out-lists.
		shuffled := &Forward{Adj: slices.Clone(f.Adj), Lo: f.Lo, Hi: f.Hi}
		for v := range f.N() {
			slices.Reverse(shuffled.Out(v))
		}
		if got := shuffled.Work(); got != work {
			t.Fatalf("graph %d: Work %d of reversed out-lists, want %d", i, got, work)
		}
		base := make([]uint32, len(f.Adj))
		for p := range base {
			base[p] = uint32(p % 7)
		}
		for threads := 1; threads <= 4; threads++ {
			cnt := slices.Clone(base)
			if err := f.Count(context.Background(), threads, cnt); err != nil {
				t.Fatalf("graph %d: %v", i, err)
			}
			owner := make([]int, len(f.Adj))
			for p := range owner {
				owner[p] = -1
			}
			for v := range f.N() {
				for p := f.Lo[v]; p < f.Hi[v]; p++ {
					owner[p] = v
				}
			}
			for p, v := range owner {
				want := base[p]
				if v >= 0 {
					for x := range adj[v] {
						if adj[f.Adj[p]][x] {
							want++
						}
					}
				}
				if cnt[p] != want {
					t.Fatalf("graph %d, %d threads: position %d (vertex %d) holds %d, want %d", i, threads, p, v, cnt[p], want)
				}
			}
		}
	}
}

// TestTotal compares Total with the brute-force triangles (every vertex triple whose three pairs
// are edges), on 1 to 4 goroutines, on both layouts, and with every out-list reversed (Total
// needs them unsorted only).
func TestTotal(t *testing.T) {
	for i, g := range graphs(t) {
		f, adj := forwardOf(g, i%2 == 1)
		var want uint64
		for v := range adj {
			for u := range adj[v] {
				for x := range adj[v] {
					if uint32(v) < u && u < x && adj[u][x] {
						want++
					}
				}
			}
		}
		reversed := &Forward{Adj: slices.Clone(f.Adj), Lo: f.Lo, Hi: f.Hi}
		for v := range f.N() {
			slices.Reverse(reversed.Out(v))
		}
		for threads := 1; threads <= 4; threads++ {
			for _, f := range []*Forward{f, reversed} {
				got, err := f.Total(context.Background(), threads)
				if err != nil || got != want {
					t.Fatalf("graph %d, %d threads: %d triangles (%v), want %d", i, threads, got, err, want)
				}
			}
		}
	}
}

func TestTotalCancelled(t *testing.T) {
	f, _ := forwardOf(graphs(t)[5], false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.Total(ctx, 2); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled total: %v", err)
	}
}

func TestCountCancelled(t *testing.T) {
	f, _ := forwardOf(graphs(t)[5], false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := f.Count(ctx, 2, make([]uint32, len(f.Adj))); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled count: %v", err)
	}
}

// TestAtAllocatesNothing: the enumeration with a counting callback allocates nothing.
func TestAtAllocatesNothing(t *testing.T) {
	gs := graphs(t)
	f, _ := forwardOf(gs[len(gs)-1], true)
	var tri uint64
	allocs := testing.AllocsPerRun(3, func() {
		for v := range f.N() {
			f.At(v, func(_, _ uint32, _, _, _ uint64) { tri++ })
		}
	})
	if allocs != 0 || tri == 0 {
		t.Fatalf("%v allocations, %d triangles", allocs, tri)
	}
}
