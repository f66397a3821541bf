package graph

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"
)

// op is one call on a builder, for replaying the same input on the new builder and the
// reference one.
type op struct {
	kind  byte // 'e' AddEdge, 'p' AddEdgePairs (a run of edges), 'l' SetVertexLabel, 'v' Vertex, 'n' NewVertices
	u, v  int64
	label uint32
	pairs []uint32
	elab  []uint32
}

func replay(t *testing.T, ops []op, opts BuilderOptions) (*Graph, error, *Graph, error) {
	t.Helper()
	b := NewBuilder(opts)
	r := newRefBuilder(opts)
	for _, o := range ops {
		switch o.kind {
		case 'e':
			e1, e2 := b.AddEdge(o.u, o.v, o.label), r.AddEdge(o.u, o.v, o.label)
			if (e1 == nil) != (e2 == nil) {
				t.Fatalf("AddEdge(%d, %d): %v, reference %v", o.u, o.v, e1, e2)
			}
		case 'p':
			var mx uint32
			for _, x := range o.pairs {
				mx = max(mx, x)
			}
			b.AddEdgePairs(o.pairs, o.elab, mx)
			for i := 0; i < len(o.pairs); i += 2 {
				var l uint32
				if o.elab != nil {
					l = o.elab[i/2]
				}
				r.AddEdge(int64(o.pairs[i]), int64(o.pairs[i+1]), l)
			}
		case 'l':
			e1, e2 := b.SetVertexLabel(o.u, o.label), r.SetVertexLabel(o.u, o.label)
			if (e1 == nil) != (e2 == nil) {
				t.Fatalf("SetVertexLabel(%d): %v, reference %v", o.u, e1, e2)
			}
		case 'v':
			d1, _ := b.Vertex(o.u)
			d2, _ := r.Vertex(o.u)
			if d1 != d2 {
				t.Fatalf("Vertex(%d) = %d, reference %d", o.u, d1, d2)
			}
			if b.NumVertices() != r.NumVertices() || b.HasVertex(o.v) != r.HasVertex(o.v) {
				t.Fatal("NumVertices or HasVertex differ")
			}
		case 'n':
			dup, _ := b.NewVertices(o.pairs, o.elab)
			want := -1
			for i, id := range o.pairs {
				if r.HasVertex(int64(id)) {
					want = i
					break
				}
				r.SetVertexLabel(int64(id), o.elab[i])
			}
			if dup != want {
				t.Fatalf("NewVertices: %d, reference %d", dup, want)
			}
		}
	}
	if b.SelfLoopsDropped != r.SelfLoopsDropped {
		t.Fatalf("%d self-loops dropped, reference %d", b.SelfLoopsDropped, r.SelfLoopsDropped)
	}
	g1, err1 := b.Build()
	g2, err2 := r.Build()
	return g1, err1, g2, err2
}

func randomOps(r *rand.Rand, big bool) ([]op, BuilderOptions) {
	n := 1 + r.IntN(80)
	m := r.IntN(6 * n)
	if big {
		n, m = 1000+r.IntN(30000), 20000+r.IntN(80000)
	}
	opts := BuilderOptions{DropSelfLoops: r.IntN(2) == 0}
	scale := []int64{1, 1, 3, 1000}[r.IntN(4)]
	offset := []int64{0, 0, 5, -20}[r.IntN(4)]
	sparse := r.IntN(8) == 0
	id := func() int64 {
		x := int64(r.IntN(n))*scale + offset
		if sparse && r.IntN(50) == 0 {
			x = int64(r.IntN(n)) * 1_000_000_007
		}
		return x
	}
	edgeLabels := r.IntN(4) == 0
	vertexLabels := r.IntN(2) == 0
	var ops []op
	if r.IntN(3) == 0 { // vertices declared first, in order (sm files)
		k := r.IntN(n)
		ids := make([]uint32, k)
		ls := make([]uint32, k)
		for i := range ids {
			ids[i] = uint32(i)
			if vertexLabels {
				ls[i] = uint32(r.IntN(4))
			}
		}
		if k > 0 && r.IntN(4) == 0 {
			ids[r.IntN(k)] = uint32(r.IntN(k)) // maybe a duplicate
		}
		ops = append(ops, op{kind: 'n', pairs: ids, elab: ls})
	}
	for len(ops) < m {
		switch c := r.IntN(100); {
		case c < 2 && vertexLabels:
			ops = append(ops, op{kind: 'l', u: id(), label: uint32(r.IntN(3))})
		case c < 3:
			ops = append(ops, op{kind: 'v', u: id(), v: id()})
		case c < 30 && offset >= 0 && !sparse:
			var p, l []uint32
			for range 1 + r.IntN(50) {
				u, v := id(), id()
				if u == v {
					continue
				}
				p = append(p, uint32(u), uint32(v))
				l = append(l, uint32(r.IntN(2)))
			}
			if !edgeLabels || r.IntN(2) == 0 {
				l = nil
			}
			ops = append(ops, op{kind: 'p', pairs: p, elab: l})
		default:
			u, v := id(), id()
			if u == v && !opts.DropSelfLoops {
				continue
			}
			var l uint32
			if edgeLabels {
				l = uint32(r.IntN(2))
			}
			ops = append(ops, op{kind: 'e', u: u, v: v, label: l})
		}
	}
	return ops, opts
}

// TestBuilderAgreesWithReference: the builder (bulk mapping, counting or parallel build) gives
// the reference builder's graph, array for array, and the same errors.
func TestBuilderAgreesWithReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for iter := range 600 {
		big := iter%50 == 49
		ops, opts := randomOps(r, big)
		for _, mode := range []string{"default", "parallel"} {
			savedMap, savedBuild := parallelMapFrom, parallelBuildFrom
			if mode == "parallel" {
				parallelMapFrom, parallelBuildFrom = 0, 0
			}
			g1, err1, g2, err2 := replay(t, ops, opts)
			parallelMapFrom, parallelBuildFrom = savedMap, savedBuild
			if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
				t.Fatalf("iteration %d %s: error %v, reference %v", iter, mode, err1, err2)
			}
			if err1 != nil {
				continue
			}
			if err := g1.Validate(); err != nil {
				t.Fatalf("iteration %d %s: %v", iter, mode, err)
			}
			if a, c := g1.Raw(), g2.Raw(); !reflect.DeepEqual(a, c) {
				t.Fatalf("iteration %d %s (%d ops): graphs differ\n%s", iter, mode, len(ops), diffRaw(a, c))
			}
			if !reflect.DeepEqual(g1.names, g2.names) {
				t.Fatalf("iteration %d %s: names differ", iter, mode)
			}
		}
	}
}

func diffRaw(a, c Raw) string {
	s := ""
	if !reflect.DeepEqual(a.VertexLabels, c.VertexLabels) {
		s += "vertex labels differ\n"
	}
	if !reflect.DeepEqual(a.Offsets, c.Offsets) {
		s += "offsets differ\n"
	}
	if !reflect.DeepEqual(a.Neighbors, c.Neighbors) {
		s += fmt.Sprintf("neighbours differ (%d, %d)\n", len(a.Neighbors), len(c.Neighbors))
	}
	if !reflect.DeepEqual(a.EdgeLabels, c.EdgeLabels) {
		s += "edge labels differ\n"
	}
	if !reflect.DeepEqual(a.Runs, c.Runs) || !reflect.DeepEqual(a.RunOffsets, c.RunOffsets) {
		s += "runs differ\n"
	}
	if !reflect.DeepEqual(a.OriginalIDs, c.OriginalIDs) {
		s += fmt.Sprintf("original ids differ (nil: %v, %v)\n", a.OriginalIDs == nil, c.OriginalIDs == nil)
	}
	return s
}

var _ = errors.New

// TestCountingPositionsFit: buildCounting and walk place a list's entries with uint32 positions,
// so every graph Build sends them must have fewer than 2^32 adjacency entries; larger ones take
// buildParallel (64-bit positions). SGSI's FR size (1.8e9 edges, 3.6e9 entries: past 2^31, under
// 2^32) is counted still; twice as many edges would not be.
func TestCountingPositionsFit(t *testing.T) {
	if uint64(2*maxCountingPairs) > math.MaxUint32 {
		t.Fatalf("buildCounting takes up to %d edges: %d entries overflow its uint32 positions", maxCountingPairs, 2*maxCountingPairs)
	}
}

// TestScanListsWorkers: the check of the lists that also makes the run index (scanLists) gives
// buildRuns's runs, on any number of workers, finds a duplicate wherever it is, and leaves the
// runs to buildRuns when its scratch is too small or the labels uniform.
func TestScanListsWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	made := 0
	defer func() {
		if made < 300 {
			t.Errorf("runs made in %d scans of 1,200: too few to test", made)
		}
	}()
	for iter := range 300 {
		n := 1 + r.IntN(200)
		labels := 1 + r.IntN(4)
		if iter%10 == 0 {
			labels = 1
		}
		b := NewBuilder(BuilderOptions{})
		for v := range n {
			if err := b.SetVertexLabel(int64(v), uint32(r.IntN(labels))); err != nil {
				t.Fatal(err)
			}
		}
		for range r.IntN(20 * n) {
			if u, v := r.IntN(n), r.IntN(n); u != v {
				if err := b.AddEdge(int64(u), int64(v), 0); err != nil {
					t.Fatal(err)
				}
			}
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		fresh := func() *Graph {
			return &Graph{vertexLabels: g.vertexLabels, offsets: g.offsets, neighbors: slices.Clone(g.neighbors),
				runOffsets: make([]uint64, n+1)}
		}
		want := fresh()
		want.runs = buildRuns(want, want.runOffsets, nil)
		for workers := 1; workers <= 4; workers++ {
			small := r.IntN(4) == 0
			scratch := make([]uint32, len(g.neighbors))
			if small {
				scratch = scratch[:r.IntN(len(scratch)+1)]
			}
			h := fresh()
			runs, dup := scanLists(h, workers, scratch, nil)
			if dup {
				t.Fatalf("iteration %d, %d workers: a duplicate found in a graph without", iter, workers)
			}
			if runs == nil {
				continue // (uniform labels, or too little scratch for the bound)
			}
			made++
			if !reflect.DeepEqual(runs, want.runs) || !reflect.DeepEqual(h.runOffsets, want.runOffsets) {
				t.Fatalf("iteration %d, %d workers: runs differ from buildRuns's", iter, workers)
			}
			// A duplicate anywhere is found.
			for v := range n {
				if lo, hi := g.offsets[v], g.offsets[v+1]; hi-lo >= 2 && r.IntN(3) == 0 {
					h := fresh()
					i := lo + 1 + uint64(r.IntN(int(hi-lo-1)))
					h.neighbors[i] = h.neighbors[i-1]
					if _, dup := scanLists(h, workers, make([]uint32, len(g.neighbors)), nil); !dup {
						t.Fatalf("iteration %d, %d workers: the duplicate in vertex %d's list not found", iter, workers, v)
					}
					break
				}
			}
		}
	}
}

// TestCountingWorkersAgree: buildCounting's scatters and walks on 1 to 4 cores (one, two
// filling each list from both ends, more counting each worker's entries first) give the
// reference builder's graph, array for array: dense graphs, so that every count of workers
// is taken, with duplicates (the second walk), vertex labels or none, dense or sparse ids,
// vertices declared first or not.
func TestCountingWorkersAgree(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	r := rand.New(rand.NewPCG(41, 42))
	taken := map[int]int{}
	for iter := range 40 {
		n := 300 + r.IntN(300)
		m := min(8192+r.IntN(24000), n*(n-1)/4) // at most half the pairs: simple graphs stay easy to draw
		labels := []int{1, 3, 10, 1000}[r.IntN(4)]
		scale := []int64{1, 1, 7}[r.IntN(3)]
		dupEvery := []int{0, 0, 50, 5000}[r.IntN(4)]
		var ops []op
		if r.IntN(2) == 0 {
			ids, ls := make([]uint32, n), make([]uint32, n)
			for i := range ids {
				ids[i], ls[i] = uint32(int64(i)*scale), uint32(r.IntN(labels))
			}
			ops = append(ops, op{kind: 'n', pairs: ids, elab: ls})
		}
		var pairs []uint32
		seen := map[[2]uint32]bool{}
		for len(pairs) < 2*m {
			u, v := uint32(int64(r.IntN(n))*scale), uint32(int64(r.IntN(n))*scale)
			if u == v {
				continue
			}
			if k := [2]uint32{min(u, v), max(u, v)}; seen[k] && (dupEvery == 0 || r.IntN(dupEvery) != 0) {
				continue // (without duplicates but for one in dupEvery)
			} else {
				seen[k] = true
			}
			pairs = append(pairs, u, v)
		}
		ops = append(ops, op{kind: 'p', pairs: pairs})
		for procs := 1; procs <= 4; procs++ {
			runtime.GOMAXPROCS(procs)
			taken[scatterWorkers(n, 2*m)]++
			g1, err1, g2, err2 := replay(t, ops, BuilderOptions{})
			if err1 != nil || err2 != nil {
				t.Fatalf("iteration %d, %d cores: %v, reference %v", iter, procs, err1, err2)
			}
			if a, c := g1.Raw(), g2.Raw(); !reflect.DeepEqual(a, c) {
				t.Fatalf("iteration %d, %d cores: graphs differ\n%s", iter, procs, diffRaw(a, c))
			}
		}
	}
	for w := 1; w <= 4; w++ {
		if taken[w] == 0 {
			t.Errorf("no build on %d workers: %v", w, taken)
		}
	}
}

// TestCountingWorkersEdgeCases: the edge cases of buildCounting's walks on 1 to 4 cores give the
// reference builder's graph: a star whose edges are given many times over (both walks, the
// second over lists of length one whose two ends meet), a clique beside many isolated
// vertices and one pendant edge (empty lists and ranges of them for the workers), one edge given
// many times, with one vertex label or several; and no vertices or one. The dense inputs take
// two workers or more from two cores on.
func TestCountingWorkersEdgeCases(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	r := rand.New(rand.NewPCG(7, 8))
	declare := func(n, labels int) op {
		ids, ls := make([]uint32, n), make([]uint32, n)
		for i := range ids {
			ids[i], ls[i] = uint32(i), uint32(r.IntN(labels))
		}
		return op{kind: 'n', pairs: ids, elab: ls}
	}
	cases := map[string][]op{"no vertices": nil, "one vertex": {declare(1, 3)}}
	for _, labels := range []int{1, 2, 5} {
		for _, n := range []int{2, 3, 50, 400} {
			var star []uint32
			for len(star) < 40000 {
				v := uint32(1 + r.IntN(n-1))
				if r.IntN(2) == 0 {
					star = append(star, 0, v)
				} else {
					star = append(star, v, 0)
				}
			}
			cases[fmt.Sprintf("star of %d, %d labels", n, labels)] = []op{declare(n+7, labels), {kind: 'p', pairs: star}}
		}
		var clique []uint32
		for u := uint32(0); u < 130; u++ {
			for v := u + 1; v < 130; v++ {
				clique = append(clique, u, v)
			}
		}
		clique = append(clique, 5, 1999)
		cases[fmt.Sprintf("clique and isolated, %d labels", labels)] = []op{declare(2000, labels), {kind: 'p', pairs: clique}}
		var one []uint32
		for range 20000 {
			one = append(one, 3, 4)
		}
		cases[fmt.Sprintf("one edge, %d labels", labels)] = []op{declare(5, labels), {kind: 'p', pairs: one}}
		cases["one edge, no vertices declared"] = []op{{kind: 'p', pairs: one}}
	}
	for name, ops := range cases {
		for procs := 1; procs <= 4; procs++ {
			runtime.GOMAXPROCS(procs)
			g1, err1, g2, err2 := replay(t, ops, BuilderOptions{})
			if err1 != nil || err2 != nil {
				t.Fatalf("%s, %d cores: %v, reference %v", name, procs, err1, err2)
			}
			if a, c := g1.Raw(), g2.Raw(); !reflect.DeepEqual(a, c) {
				t.Fatalf("%s, %d cores: graphs differ\n%s", name, procs, diffRaw(a, c))
			}
			if err := g1.Validate(); err != nil {
				t.Fatalf("%s, %d cores: %v", name, procs, err)
			}
		}
	}
}

// TestSplitEntries: the ranges cover the vertices in order, whatever the lists' lengths
// (empty ones included) and the workers, more workers than vertices too.
func TestSplitEntries(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := r.IntN(6)
		offs := make([]uint64, n+1)
		for i := 1; i <= n; i++ {
			offs[i] = offs[i-1] + uint64([]int{0, 0, 1, 5, 100}[r.IntN(5)])
		}
		for w := 1; w <= 5; w++ {
			b := splitEntries(offs, w)
			if len(b) != w+1 || b[0] != 0 || b[w] != n || !slices.IsSorted(b) {
				t.Fatalf("splitEntries(%v, %d) = %v", offs, w, b)
			}
		}
	}
}
