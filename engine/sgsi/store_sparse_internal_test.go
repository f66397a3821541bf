package sgsi

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
)

// buildForm builds the label graph of k on g in the dense form (sparse false) or, scattered, in
// the sparse one.
func buildForm(t *testing.T, g *graph.Graph, k lgKey, workers int, sparse bool) *labelGraph {
	t.Helper()
	defer func(s uint64, sp float64) { scatterShare, sparseShare = s, sp }(scatterShare, sparseShare)
	scatterShare, sparseShare = 1<<40, 0
	if sparse {
		sparseShare = math.Inf(1)
	}
	lg, b, err := newStore(g, workers).build(k, workers, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := lg.offsets == nil; got != sparse || b.Sparse != sparse {
		t.Fatalf("key %+v: sparse form %v (LabelBuild says %v), want %v", k, got, b.Sparse, sparse)
	}
	return lg
}

// TestSparseLabelGraphMatchesDense: on random graphs (a few to ~20,000 vertices, 1-8 vertex and
// 1-4 edge labels, so that some label graphs are empty, some have one entry and some cover most
// vertices), every scattered label graph built in the sparse form on 1-4 goroutines reads the
// same as the dense one: every vertex's degree, list, span and start, the dense offsets, the
// host bytes it reports (its own arrays'), its device words; and its segments, cut at several
// sizes, are the same segments with the same head, tail, prev, words, local offsets (word for
// word, what goes to the device) and refWords of random vertices.
func TestSparseLabelGraphMatchesDense(t *testing.T) {
	seeds := 30
	if testing.Short() {
		seeds = 12
	}
	sparseBuilt := 0
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 5150))
		vls, els := 1+rng.IntN(8), 1+rng.IntN(4)
		var g *graph.Graph
		switch seed % 3 {
		case 0:
			n := 8192 + rng.IntN(12000)
			g = gen.RandomGraphM(seed, n, n*(1+rng.IntN(3)), vls, els)
		default:
			g = gen.RandomGraph(seed, 1+rng.IntN(80), 0.02+0.5*rng.Float64(), vls, els)
		}
		n := uint32(g.NumVertices())
		for range 6 {
			k := lgKey{uint64(rng.IntN(els + 1)), uint32(rng.IntN(vls + 1)), uint8(rng.IntN(3))}
			if rng.IntN(4) == 0 {
				k.edge = anyEdge
			}
			workers := 1 + rng.IntN(4)
			what := fmt.Sprintf("seed %d (%d vertices), key %+v, %d goroutines", seed, n, k, workers)
			dense := buildForm(t, g, k, workers, false)
			sp := buildForm(t, g, k, workers, true)
			sparseBuilt++
			compareForms(t, what, dense, sp, rng)
		}
	}
	if sparseBuilt == 0 {
		t.Fatal("no sparse label graph built")
	}
}

// compareForms fails t unless sp, a label graph's sparse form, reads as dense, its dense form:
// every vertex's degree, list, span and start, the dense offsets, the host bytes it reports (its
// own arrays'), its device words; and its segments, cut at several sizes, are the same segments
// with the same head, tail, prev, words, local offsets (word for word, what goes to the device),
// refWords of random vertices and find.
func compareForms(t *testing.T, what string, dense, sp *labelGraph, rng *rand.Rand) {
	t.Helper()
	n := dense.numVertices()
	if !slices.Equal(sp.nbrs, dense.nbrs) || !slices.Equal(sp.denseOffsets(), dense.offsets) {
		t.Fatalf("%s: the sparse form's lists or offsets differ from the dense form's", what)
	}
	if sp.numVertices() != n || sp.deviceWords() != dense.deviceWords() {
		t.Fatalf("%s: %d vertices, %d device words; dense %d, %d", what, sp.numVertices(), sp.deviceWords(), n, dense.deviceWords())
	}
	if want := 4*uint64(len(sp.refs)+len(sp.nbrs)) + 8*uint64(len(sp.starts)); sp.hostBytes() != want || len(sp.starts) != len(sp.refs)+1 {
		t.Fatalf("%s: host bytes %d, want %d (%d refs, %d starts)", what, sp.hostBytes(), want, len(sp.refs), len(sp.starts))
	}
	for v := range n + 1 {
		if sp.start(v) != dense.start(v) {
			t.Fatalf("%s: start(%d) %d, want %d", what, v, sp.start(v), dense.start(v))
		}
		if v == n {
			break
		}
		a, b := sp.span(v)
		c, d := dense.span(v)
		if a != c || b != d || sp.degree(v) != dense.degree(v) || !slices.Equal(sp.list(v), dense.list(v)) {
			t.Fatalf("%s: vertex %d: span [%d, %d), degree %d; dense [%d, %d), %d", what, v, a, b, sp.degree(v), c, d, dense.degree(v))
		}
	}
	m := uint64(len(dense.nbrs))
	for _, maxWords := range []uint64{1, 3, 5, 17, 64, 1 + m/3, 2 * (uint64(n) + m), 1 << 30} {
		ds, ss := segments(dense, maxWords), segments(sp, maxWords)
		if len(ds) != len(ss) {
			t.Fatalf("%s, max %d: %d segments, dense %d", what, maxWords, len(ss), len(ds))
		}
		var dbuf, sbuf []uint32
		for i := range ds {
			a, b := ds[i], ss[i]
			if a.lo != b.lo || a.hi != b.hi || a.elo != b.elo || a.ehi != b.ehi ||
				a.head() != b.head() || a.tail() != b.tail() || a.prev() != b.prev() || a.words() != b.words() {
				t.Fatalf("%s, max %d: segment %d %+v, dense %+v", what, maxWords, i, b, a)
			}
			dbuf, sbuf = a.localOffsets(dbuf), b.localOffsets(sbuf)
			if !slices.Equal(dbuf, sbuf) || !slices.Equal(a.neighbours(), b.neighbours()) {
				t.Fatalf("%s, max %d: segment %d: local offsets %v, dense %v", what, maxWords, i, sbuf, dbuf)
			}
			if a.lo < a.hi {
				refs := []uint32{a.lo + uint32(rng.IntN(int(a.hi-a.lo))), a.hi - 1}
				slices.Sort(refs)
				refs = slices.Compact(refs)
				if x, y := (*runner)(nil).refWords(b, refs), (*runner)(nil).refWords(a, refs); x != y {
					t.Fatalf("%s, max %d: segment %d: refWords %d, dense %d", what, maxWords, i, x, y)
				}
			}
		}
		for range 10 {
			if n == 0 {
				break
			}
			v := uint32(rng.IntN(int(n)))
			if find(ss, v) != find(ds, v) {
				t.Fatalf("%s, max %d: find(%d) %d, dense %d", what, maxWords, v, find(ss, v), find(ds, v))
			}
		}
	}
}

// TestSparseLabelGraphChosen: under many labels (R-MAT, 64 zipf vertex and edge labels), build
// makes the sparse form exactly for the scattered label graphs of at most sparseShare entries a
// vertex, its store counts the sparse arrays' bytes (not 8 a vertex), and the reserve is asked
// once, for the pairs and the graph (24 bytes an entry and 8), a refusal leaving nothing held.
func TestSparseLabelGraphChosen(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 14, EdgeFactor: 8, Seed: 7, VertexLabels: 64, EdgeLabels: 64, LabelDistribution: gen.ZipfLabels})
	if err != nil {
		t.Fatal(err)
	}
	n := g.NumVertices()
	sparse, dense := 0, 0
	for vl := range uint32(64) {
		for _, el := range []uint64{0, 1, 5, 40} {
			k := lgKey{el, vl, upperSide}
			s := newStore(g, 2)
			_, scattered := s.planScatter(k)
			held := s.bytes()
			var asked []uint64
			refused := errors.New("refused")
			if _, _, err := s.build(k, 2, func(b uint64) error { asked = append(asked, b); return refused }); !errors.Is(err, refused) || s.has(k) {
				t.Fatalf("key %+v: refused build: error %v, held %v", k, err, s.has(k))
			}
			lg, b, err := s.build(k, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			m := uint64(len(lg.nbrs))
			want := scattered && float64(m) <= sparseShare*float64(n)
			if (lg.offsets == nil) != want || b.Sparse != want {
				t.Fatalf("key %+v (%d entries over %d vertices, scattered %v): sparse %v, want %v", k, m, n, scattered, lg.offsets == nil, want)
			}
			if want {
				sparse++
				if len(asked) != 1 || asked[0] != 24*m+8 {
					t.Fatalf("key %+v: asked for %v bytes, want [%d]", k, asked, 24*m+8)
				}
				if got := s.bytes() - held; got != 4*uint64(len(lg.refs))+8*uint64(len(lg.starts))+4*m || got >= 8*uint64(n) && m > 0 {
					t.Fatalf("key %+v: the store holds %d bytes more for %d entries", k, got, m)
				}
			} else {
				dense++
				if got := s.bytes() - held; got != 8*uint64(n+1)+4*m {
					t.Fatalf("key %+v: the store holds %d bytes more, want %d", k, got, 8*uint64(n+1)+4*m)
				}
			}
		}
	}
	if sparse == 0 || dense == 0 {
		t.Fatalf("%d sparse and %d dense label graphs: want both", sparse, dense)
	}
}
