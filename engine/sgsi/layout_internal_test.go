package sgsi

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
)

// sequentialLabel is the label graph of k as the store built it before its build ran in chunks:
// every list's length, the offsets by a running sum, then every list, one vertex after another.
func sequentialLabel(s *store, k lgKey) *labelGraph {
	n := s.g.NumVertices()
	lg := &labelGraph{offsets: make([]uint64, n+1)}
	for v := range n {
		lg.offsets[v+1] = lg.offsets[v] + s.degree(uint32(v), k)
	}
	lg.nbrs = make([]uint32, lg.offsets[n])
	for v := range n {
		s.appendList(lg.nbrs[lg.offsets[v]:lg.offsets[v]:lg.offsets[v+1]], uint32(v), k)
	}
	return lg
}

// layoutGraphs are the graphs the layout tests build on: random and R-MAT graphs, with vertex
// labels (uniform and zipf), with and without edge labels, each of several layout chunks.
func layoutGraphs(t *testing.T) map[string]*graph.Graph {
	gs := map[string]*graph.Graph{
		"random 3 labels":                gen.RandomGraphM(1, 3*layoutChunk+77, 60000, 3, 0),
		"random 5 labels, 3 edge labels": gen.RandomGraphM(2, 2*layoutChunk+5, 50000, 5, 3),
	}
	for _, el := range []int{0, 4} {
		g, err := gen.RMAT(gen.RMATOptions{Scale: 15, EdgeFactor: 8, VertexLabels: 50, LabelDistribution: gen.ZipfLabels, EdgeLabels: el, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		gs[fmt.Sprintf("R-MAT 15, 50 zipf labels, %d edge labels", el)] = g
	}
	return gs
}

// TestLayoutThreads checks that the store's layout does not depend on its goroutines: the
// signature table and every label graph (each edge label and the wildcard, the commonest, a
// middle and a missing neighbour label and the wildcard, each side) built on 1, 2, 3 and 7
// goroutines equal the sequential build's, and entries and edgeEntries count its entries; both
// of build's passes (from the runs, scattered from a label's vertices) are forced in turn. It
// fails when a chunk's lists start at another chunk's running sum, or a scattered list is left
// unsorted.
func TestLayoutThreads(t *testing.T) {
	defer func(share, piece uint64) { scatterShare, scatterPiece = share, piece }(scatterShare, scatterPiece)
	for name, g := range layoutGraphs(t) {
		ref := newStore(g, 1)
		edges := []uint64{anyEdge, 0, 1, 3}
		var keys []lgKey
		for _, e := range edges {
			for _, vl := range []uint32{anyLabel, 0, 7, 1 << 20} {
				for _, d := range []uint8{bothSides, upperSide, lowerSide} {
					keys = append(keys, lgKey{e, vl, d})
				}
			}
		}
		want := map[lgKey]*labelGraph{}
		for _, k := range keys {
			want[k] = sequentialLabel(ref, k)
		}
		for _, c := range []struct {
			w            int
			share, piece uint64
		}{{1, 2, 1 << 14}, {2, 2, 1 << 14}, {3, 2, 1 << 14}, {7, 2, 1 << 14}, {3, 0, 1 << 14}, {7, 1 << 40, 1 << 14}, {1, 1 << 40, 3}, {3, 1 << 40, 1}} {
			w := c.w
			scatterShare = c.share // (0: every list from the runs; 1<<40: scattered)
			scatterPiece = c.piece // (1: a piece a vertex)
			s := newStore(g, w)
			if !slices.Equal(s.sigs, ref.sigs) {
				t.Fatalf("%s, %d goroutines: the signature table differs from one goroutine's", name, w)
			}
			for _, k := range keys {
				lg, _, err := s.build(k, w, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(lg.denseOffsets(), want[k].offsets) || !slices.Equal(lg.nbrs, want[k].nbrs) {
					t.Fatalf("%s, %d goroutines, scatter share %d, pieces of %d entries, key %+v: the label graph differs from the sequential build's", name, w, c.share, c.piece, k)
				}
				if m := s.entries(k, w); m != uint64(len(lg.nbrs)) {
					t.Errorf("%s, %d goroutines, key %+v: entries %d, want %d", name, w, k, m, len(lg.nbrs))
				}
				if k.vl == anyLabel && k.dir == bothSides {
					if m := s.edgeEntries(k.edge, w); m != uint64(len(lg.nbrs)) {
						t.Errorf("%s, %d goroutines, edge %d: edgeEntries %d, want %d", name, w, k.edge, m, len(lg.nbrs))
					}
				}
			}
		}
	}
}

// TestLayoutReserves checks build's memory checks: it asks for the offsets' bytes before it
// allocates them, then for the whole label graph's before its lists, and a refusal at either
// leaves no label graph held (a later build with room builds it). The reserve may ask the store
// what it holds (a count's does, runner.hostShared), which must not wait for the build.
func TestLayoutReserves(t *testing.T) {
	defer func(share uint64) { scatterShare = share }(scatterShare)
	g := gen.RandomGraphM(4, layoutChunk+100, 20000, 4, 0)
	n := uint64(g.NumVertices())
	k := lgKey{anyEdge, 1, upperSide}
	m := uint64(len(sequentialLabel(newStore(g, 1), k).nbrs))
	refused := errors.New("refused")
	for _, share := range []uint64{0, 1 << 40} { // (from the runs, scattered)
		scatterShare = share
		for fail := 1; fail <= 3; fail++ {
			s := newStore(g, 2)
			held := s.bytes()
			var asked []uint64
			_, _, err := s.build(k, 2, func(b uint64) error {
				if h := s.bytes(); h != held { // (a count's reserve asks, under build)
					t.Errorf("share %d: the store holds %d bytes during a build, want the %d before", share, h, held)
				}
				asked = append(asked, b)
				if len(asked) == fail {
					return refused
				}
				return nil
			})
			wantAsked := []uint64{8 * (n + 1), 8*(n+1) + 4*m}[:min(fail, 2)]
			if !slices.Equal(asked, wantAsked) {
				t.Errorf("share %d, refusing call %d: asked for %v bytes, want %v", share, fail, asked, wantAsked)
			}
			if fail <= 2 && (!errors.Is(err, refused) || s.has(k)) {
				t.Errorf("share %d, refusing call %d: error %v, label graph held %v; want the refusal and none", share, fail, err, s.has(k))
			}
			if fail == 3 && (err != nil || !s.has(k)) {
				t.Errorf("share %d, with room: error %v, label graph held %v", share, err, s.has(k))
			}
		}
	}
}

// TestLayoutPieces checks that the passes whose work is in the entries deal pieces of about as
// many entries, not as many vertices: on an R-MAT whose ids are in ascending degree (the last
// vertices hold most entries), scatter's pieces cover the label's vertices in order, each with
// at most scatterPiece entries beside its last vertex's list, and costRanges covers [0, n) in
// order with ranges of at most a share of the cost beside their last vertex's. It fails with
// pieces of a fixed number of vertices (as par.For dealt them before).
func TestLayoutPieces(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 16, EdgeFactor: 16, VertexLabels: 100, LabelDistribution: gen.ZipfLabels, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer func(share uint64) { scatterShare = share }(scatterShare)
	scatterShare = 1 << 40 // (every label scattered)
	s := &store{g: g}
	for _, vl := range []uint32{0, 3, 9} {
		p, ok := s.planScatter(lgKey{anyEdge, vl, bothSides})
		us := g.VerticesWithLabel(vl)
		if !ok || p.cuts[0] != 0 || p.cuts[p.pieces()] != len(us) || p.pieces() < 2 {
			t.Fatalf("label %d: scattered %v, cuts %v of %d vertices", vl, ok, p.cuts, len(us))
		}
		total := uint64(0)
		for i := range p.pieces() {
			lo, hi := p.cuts[i], p.cuts[i+1]
			if lo >= hi {
				t.Fatalf("label %d: piece %d is [%d, %d)", vl, i, lo, hi)
			}
			e := uint64(0)
			for _, u := range us[lo:hi] {
				e += uint64(g.Degree(u))
			}
			if last := uint64(g.Degree(us[hi-1])); e > scatterPiece+last {
				t.Errorf("label %d: piece %d of %d vertices holds %d entries, over %d and its last list's %d", vl, i, hi-lo, e, scatterPiece, last)
			}
			total += e
		}
		if total != p.entries {
			t.Errorf("label %d: pieces hold %d entries, plan %d", vl, total, p.entries)
		}
	}

	// costRanges on the graph's own degrees (cost: vertices plus entries below v).
	n := g.NumVertices()
	below := make([]uint64, n+1)
	for v := range n {
		below[v+1] = below[v] + 1 + uint64(g.Degree(uint32(v)))
	}
	cost := func(v int) uint64 { return below[v] }
	pieces := below[n]/layoutPiece + 1
	for _, w := range []int{1, 3} {
		var mu sync.Mutex
		var ranges [][2]int
		costRanges(n, w, cost, func(lo, hi int) {
			mu.Lock()
			ranges = append(ranges, [2]int{lo, hi})
			mu.Unlock()
		})
		slices.SortFunc(ranges, func(a, b [2]int) int { return a[0] - b[0] })
		at := 0
		for _, r := range ranges {
			if r[0] != at || r[1] <= r[0] {
				t.Fatalf("%d goroutines: ranges %v do not cover [0, %d) in order", w, ranges, n)
			}
			if c, last := below[r[1]]-below[r[0]], below[r[1]]-below[r[1]-1]; c > below[n]/pieces+1+last {
				t.Errorf("%d goroutines: range [%d, %d) costs %d, over %d and its last vertex's %d", w, r[0], r[1], c, below[n]/pieces+1, last)
			}
			at = r[1]
		}
		if at != n {
			t.Fatalf("%d goroutines: ranges end at %d, want %d", w, at, n)
		}
	}
}
