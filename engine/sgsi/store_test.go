package sgsi

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/ctxtest"
)

// TestSegments checks segments against the definition: the segments cover every vertex and every
// entry in order, each entry once; each fits maxWords; a segment that does not end at a vertex
// boundary holds one vertex; prev is the entry before a cut; find returns a vertex's first segment.
func TestSegments(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		g := hubGraph(seed, 40+int(seed)*5, int(seed%3))
		if seed%2 == 0 {
			g = gen.RandomGraph(seed, 30, 0.3, 2, 1)
		}
		lg := newStore(g, 0).label(lgKey{anyEdge, anyLabel, bothSides})
		n := lg.numVertices()
		for _, maxWords := range []uint64{1, 3, 4, 7, 20, 1000} {
			segs := segments(lg, maxWords)
			e := uint64(0)
			for i, sg := range segs {
				if sg.elo != e || sg.ehi < sg.elo || sg.lo >= sg.hi {
					t.Fatalf("seed %d max %d: segment %d %+v does not follow entry %d", seed, maxWords, i, sg, e)
				}
				if sg.words() > max(maxWords, minSegWords) {
					t.Fatalf("seed %d max %d: segment %d of %d words", seed, maxWords, i, sg.words())
				}
				if sg.tail() && sg.hi != sg.lo+1 {
					t.Fatalf("seed %d max %d: segment %d ends inside the list of a vertex that is not its only one", seed, maxWords, i)
				}
				if sg.head() > 0 && sg.prev() != lg.nbrs[sg.elo-1] {
					t.Fatalf("seed %d max %d: segment %d prev %d", seed, maxWords, i, sg.prev())
				}
				if i > 0 && segs[i-1].hi != sg.lo && !(segs[i-1].tail() && segs[i-1].lo == sg.lo) {
					t.Fatalf("seed %d max %d: segments %d and %d leave a gap of vertices", seed, maxWords, i-1, i)
				}
				e = sg.ehi
			}
			if e != uint64(len(lg.nbrs)) || (n > 0 && segs[len(segs)-1].hi != n) {
				t.Fatalf("seed %d max %d: segments end at entry %d of %d", seed, maxWords, e, len(lg.nbrs))
			}
			for v := range n {
				i := find(segs, v)
				if i == len(segs) || segs[i].lo > v || segs[i].hi <= v || i > 0 && segs[i-1].hi > v {
					t.Fatalf("seed %d max %d: find(%d) = %d", seed, maxWords, v, i)
				}
			}
		}
	}
}

// TestSortRows checks sortRows on every row width it special-cases and beyond: rows in order of
// the column (or tiled: by another column's blocks, then the column), each row kept whole.
func TestSortRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 1; k <= 10; k++ {
		// 100,000 rows: the radix sort on four goroutines (minWorkerRows each at least).
		for _, n := range []int{0, 1, 2, 17, 300, 5000, 100_000} {
			col := rng.IntN(k)
			// Values of keyBits bits: 6, many equal; up to 30, three passes of the radix sort.
			keyBits := []int{6, 13, 25, 30}[rng.IntN(4)]
			// Every other case tiled: by another column's blocks of 2^shift values, then col.
			o := rowOrder{col: col}
			if n%2 == 1 {
				o.tile, o.shift = rng.IntN(k), uint(1+rng.IntN(keyBits))
			}
			tab := make([]uint32, n*k)
			for i := range tab {
				tab[i] = rng.Uint32() >> (32 - keyBits)
			}
			want := rowSet(tab, k)
			for _, radix := range []bool{false, true} {
				tab := slices.Clone(tab)
				var buf []uint32
				if radix {
					buf = make([]uint32, len(tab))
				}
				sortRows(context.Background(), tab, buf, k, o, keyBits, 4)
				for i := 1; i < n; i++ {
					if prev, row := tab[(i-1)*k:i*k], tab[i*k:(i+1)*k]; o.less(row, prev) {
						t.Fatalf("k %d, %d rows, radix %v (%d bits, order %+v): row %d %v after %v", k, n, radix, keyBits, o, i, row, prev)
					}
				}
				if got := rowSet(tab, k); !maps.Equal(got, want) {
					t.Fatalf("k %d, %d rows, radix %v (%d bits): the rows changed", k, n, radix, keyBits)
				}
			}
		}
	}
}

// TestSortRowsStops: the radix sort with a context that ends at each of its looks in turn
// (sortCheckRows rows a goroutine apart, on 1 and 4 goroutines, a tiled order's two sorts):
// ctx's error, until a context lasts, with which the rows are sorted as with a live one.
func TestSortRowsStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const k, n, keyBits = 3, 5 * sortCheckRows, 25
	src := make([]uint32, n*k)
	for i := range src {
		src[i] = rng.Uint32() >> (32 - keyBits)
	}
	for _, workers := range []int{1, 4} {
		for _, o := range []rowOrder{{col: 1}, {col: 2, tile: 0, shift: 20}} {
			want := slices.Clone(src)
			if err := sortRows(context.Background(), want, make([]uint32, len(src)), k, o, keyBits, workers); err != nil {
				t.Fatal(err)
			}
			looks := ctxtest.UntilLasting(t, 1<<12, func(ctx context.Context) error {
				tab := slices.Clone(src)
				err := sortRows(ctx, tab, make([]uint32, len(tab)), k, o, keyBits, workers)
				if err == nil && !slices.Equal(tab, want) {
					t.Errorf("%d goroutines, order %+v: a context that lasted, rows not as with a live one", workers, o)
				}
				return err
			})
			// At least a look per block of rows a pass: 3 passes (6 tiled) of 5 blocks.
			if looks < 15 {
				t.Errorf("%d goroutines, order %+v: %d looks at the context, want one every %d rows", workers, o, looks, sortCheckRows)
			}
		}
	}
}

// rowSet counts a table's rows (of k words) by their contents.
func rowSet(tab []uint32, k int) map[string]int {
	m := map[string]int{}
	for i := 0; i+k <= len(tab); i += k {
		m[fmt.Sprint(tab[i:i+k])]++
	}
	return m
}

// TestStoreByRuns checks the store's run-based tables against their definitions, one neighbour
// at a time: each vertex's signature (one pair a neighbour, its group's counter saturating at
// two) and the list of each label graph (the neighbours joined by the edge label, or any, that
// have the vertex label, or any, sorted by id), on graphs with and without edge labels. It fails
// when a run counts once for two neighbours, or a list misses a run or is left unsorted.
func TestStoreByRuns(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		vl, el := 1+int(seed%4), int(seed%3)
		g := gen.RandomGraph(seed, 40+int(seed)*4, 0.25, vl, el)
		s := newStore(g, 0)
		n := g.NumVertices()
		for v := range n {
			want := [sigWords]uint32{labelBit(g.VertexLabel(uint32(v)))}
			els := g.NeighborEdgeLabels(uint32(v))
			for i, x := range g.Neighbors(uint32(v)) {
				l := uint32(0)
				if els != nil {
					l = els[i]
				}
				addPair(want[:], pairGroup(l, g.VertexLabel(x)))
			}
			for j := range sigWords {
				if got := s.sigs[j*n+v]; got != want[j] {
					t.Fatalf("seed %d: vertex %d signature word %d %#x, want %#x", seed, v, j, got, want[j])
				}
			}
		}
		edges := []uint64{anyEdge}
		for l := range max(el, 1) + 1 {
			edges = append(edges, uint64(l))
		}
		for _, e := range edges {
			for _, key := range lgKeys(e) {
				k, l := key, key.vl
				lg := s.label(k)
				m := uint64(0)
				for v := range n {
					var want []uint32
					els := g.NeighborEdgeLabels(uint32(v))
					for i, x := range g.Neighbors(uint32(v)) {
						xl := uint32(0)
						if els != nil {
							xl = els[i]
						}
						onSide := k.dir == bothSides || k.dir == upperSide && x > uint32(v) || k.dir == lowerSide && x < uint32(v)
						if (e == anyEdge || uint64(xl) == e) && (l == anyLabel || g.VertexLabel(x) == l) && onSide {
							want = append(want, x)
						}
					}
					slices.Sort(want)
					m += uint64(len(want))
					if got := lg.list(uint32(v)); !slices.Equal(got, want) {
						t.Fatalf("seed %d key %+v: vertex %d's list %v, want %v", seed, k, v, got, want)
					}
				}
				if b := s.entries(k, 0); b != m {
					t.Errorf("seed %d key %+v: entries %d, want %d", seed, k, b, m)
				}
				if l == anyLabel && k.dir == bothSides && s.edgeEntries(e, 0) != m {
					t.Errorf("seed %d edge %d: edgeEntries %d, want %d", seed, e, s.edgeEntries(e, 0), m)
				}
			}
		}
	}
}

// lgKeys is every label graph key of edge label e the store test checks: each neighbour label
// (and the wildcard) with each side of the lists.
func lgKeys(e uint64) []lgKey {
	var ks []lgKey
	for _, l := range []uint32{anyLabel, 0, 1, 2, 3} {
		for _, d := range []uint8{bothSides, upperSide, lowerSide} {
			ks = append(ks, lgKey{e, l, d})
		}
	}
	return ks
}

// TestEdgeEntriesOnePass: the plan's edge label frequencies (edgeEntries) on random graphs whose
// edge labels are small (the histogram's slices) or large (its maps), equal the entries of each
// label's label graph of every neighbour label, 0 for a label no edge has; the first question
// counts every label at once (one pass over the runs: a 12-vertex walk under 1,000 edge labels
// asks for twenty, each a pass over the graph before).
func TestEdgeEntriesOnePass(t *testing.T) {
	asked := []uint64{0, 1, 2, 3, 4, 5, 6}
	for l := uint64(denseEdgeLabels - 3); l <= denseEdgeLabels+3; l++ {
		asked = append(asked, l)
	}
	for seed := uint64(1); seed <= 12; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		b := graph.NewBuilder(graph.BuilderOptions{})
		n := 20 + r.IntN(200)
		labels, pairs := map[uint32]bool{}, map[[2]int64]bool{}
		for range 4 * n {
			u, v := int64(r.IntN(n)), int64(r.IntN(n))
			if u == v || pairs[[2]int64{min(u, v), max(u, v)}] {
				continue
			}
			pairs[[2]int64{min(u, v), max(u, v)}] = true
			l := uint32(1 + r.IntN(5))
			if seed%3 == 0 { // about the histogram's slices' end
				l = denseEdgeLabels - 2 + uint32(r.IntN(5))
			}
			if err := b.AddEdge(u, v, l); err != nil {
				t.Fatal(err)
			}
			labels[l] = true
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		s := newStore(g, 0)
		for i, l := range asked {
			want := s.entries(lgKey{l, anyLabel, bothSides}, 0)
			if got := s.edgeEntries(l, 1+int(seed%2)); got != want {
				t.Fatalf("seed %d label %d: edgeEntries %d, want %d", seed, l, got, want)
			}
			if i == 0 && len(s.edges) != len(labels) {
				t.Fatalf("seed %d: after one question %d labels counted, the graph has %d", seed, len(s.edges), len(labels))
			}
		}
	}
}
