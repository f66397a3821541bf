package gen

import (
	"runtime"
	"slices"
	"testing"

	"github.com/submatch/submatch/graph"
)

func TestRMATDeterministicAcrossGOMAXPROCS(t *testing.T) {
	opts := RMATOptions{Scale: 12, EdgeFactor: 8, VertexLabels: 5, EdgeLabels: 3, Seed: 42}
	old := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(old)
	g1, err := RMAT(opts)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GOMAXPROCS(7)
	g2, err := RMAT(opts)
	if err != nil {
		t.Fatal(err)
	}
	r1, r2 := g1.Raw(), g2.Raw()
	if !slices.Equal(r1.Offsets, r2.Offsets) || !slices.Equal(r1.Neighbors, r2.Neighbors) ||
		!slices.Equal(r1.EdgeLabels, r2.EdgeLabels) || !slices.Equal(r1.VertexLabels, r2.VertexLabels) {
		t.Fatal("one seed gave two different graphs under different GOMAXPROCS")
	}
	opts.Seed++
	g3, err := RMAT(opts)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(r1.Neighbors, g3.Raw().Neighbors) {
		t.Fatal("two seeds gave the same graph")
	}
}

func TestRMATShape(t *testing.T) {
	const scale, ef, L, K = 11, 16, 6, 4
	g, err := RMAT(RMATOptions{Scale: scale, EdgeFactor: ef, VertexLabels: L, EdgeLabels: K, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	n := 1 << scale
	if g.NumVertices() != n {
		t.Fatalf("%d vertices, want %d", g.NumVertices(), n)
	}
	if m := g.NumEdges(); m > ef*uint64(n) || m < ef*uint64(n)/2 {
		t.Fatalf("%d edges from %d samples: too many or too few duplicates", m, ef*n)
	}
	seenV := map[uint32]bool{}
	for v := range uint32(n) {
		if l := g.VertexLabel(v); l >= L {
			t.Fatalf("vertex label %d out of range", l)
		}
		seenV[g.VertexLabel(v)] = true
	}
	if len(seenV) != L {
		t.Fatalf("%d distinct vertex labels, want %d", len(seenV), L)
	}
	seenE := map[uint32]bool{}
	for v := range uint32(n) {
		for _, l := range g.NeighborEdgeLabels(v) {
			if l >= K {
				t.Fatalf("edge label %d out of range", l)
			}
			seenE[l] = true
		}
	}
	if len(seenE) != K {
		t.Fatalf("%d distinct edge labels, want %d", len(seenE), K)
	}
	// Power law: the densest vertex is far above the average degree.
	if avg := 2 * float64(g.NumEdges()) / float64(n); float64(g.MaxDegree()) < 5*avg {
		t.Fatalf("max degree %d vs average %.1f: not skewed like R-MAT", g.MaxDegree(), avg)
	}
}

func TestRMATZipfLabels(t *testing.T) {
	g, err := RMAT(RMATOptions{Scale: 12, VertexLabels: 8, LabelDistribution: ZipfLabels, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	hist := make([]int, 8)
	for _, l := range g.VertexLabels() {
		hist[l]++
	}
	if hist[0] <= hist[3] || hist[3] <= hist[7] || hist[7] == 0 {
		t.Fatalf("label histogram %v is not decreasing like Zipf", hist)
	}
	if g.HasEdgeLabels() {
		t.Fatal("EdgeLabels 0 gave edge labels")
	}
}

func TestRMATKeepLocality(t *testing.T) {
	g, err := RMAT(RMATOptions{Scale: 10, Seed: 1, KeepLocality: true})
	if err != nil {
		t.Fatal(err)
	}
	// Without relabelling, input vertex 0 is the top-left corner of every level: the densest.
	// (The builder renumbers by degree; OriginalID keeps the generator's id.)
	for v := range uint32(g.NumVertices()) {
		if g.OriginalID(v) == 0 && g.Degree(v) != g.MaxDegree() {
			t.Fatalf("vertex 0 has degree %d, max is %d", g.Degree(v), g.MaxDegree())
		}
	}
}

func TestRMATErrors(t *testing.T) {
	for _, o := range []RMATOptions{
		{Scale: 0},
		{Scale: MaxRMATScale + 1},
		{Scale: 4, EdgeFactor: -1},
		{Scale: 4, VertexLabels: -2},
		{Scale: 4, A: 0.6, B: 0.3, C: 0.3},
	} {
		if _, err := RMAT(o); err == nil {
			t.Errorf("RMAT(%+v) succeeded", o)
		}
	}
}

func TestParseLabelDistribution(t *testing.T) {
	for _, d := range []LabelDistribution{UniformLabels, ZipfLabels} {
		got, err := ParseLabelDistribution(d.String())
		if err != nil || got != d {
			t.Errorf("round trip of %v gave %v, %v", d, got, err)
		}
	}
	if _, err := ParseLabelDistribution("normal"); err == nil {
		t.Error("accepted an unknown distribution")
	}
}

// BenchmarkRMAT measures generation at scale 16 (65,536 vertices, 1M samples).
func BenchmarkRMAT(b *testing.B) {
	for b.Loop() {
		if _, err := RMAT(RMATOptions{Scale: 16, VertexLabels: 8, EdgeLabels: 2, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRMATCSRIsTheBuildersGraph checks the direct layout against graph.Builder on the same
// samples, array by array, over scales, labels (uniform and zipf, vertex and edge), locality and
// thread counts: one seed must keep giving the graph it gave before the direct layout.
func TestRMATCSRIsTheBuildersGraph(t *testing.T) {
	old := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(old)
	cases := []RMATOptions{
		{Scale: 1, EdgeFactor: 1, Seed: 1},
		{Scale: 3, EdgeFactor: 2, Seed: 2},
		{Scale: 6, EdgeFactor: 16, VertexLabels: 3, Seed: 3},
		{Scale: 9, EdgeFactor: 8, VertexLabels: 1000, LabelDistribution: ZipfLabels, Seed: 4},
		{Scale: 10, EdgeFactor: 16, VertexLabels: 5, EdgeLabels: 3, Seed: 5},
		{Scale: 8, EdgeFactor: 4, EdgeLabels: 7, Seed: 6, KeepLocality: true},
		{Scale: 12, EdgeFactor: 24, VertexLabels: 40, LabelDistribution: ZipfLabels, Seed: 7},
		{Scale: 11, EdgeFactor: 8, Seed: 8, KeepLocality: true},
		{Scale: 13, EdgeFactor: 40, VertexLabels: 1000, LabelDistribution: ZipfLabels, Seed: 1},
		{Scale: 5, EdgeFactor: 1, EdgeLabels: 2, Seed: 9},          // few edges: labels may all be 0
		{Scale: 8, EdgeFactor: 8, VertexLabels: 1 << 20, Seed: 10}, // labels sparser than the vertices
	}
	for i, o := range cases {
		runtime.GOMAXPROCS(1 + i%3)
		o, err := o.checked()
		if err != nil {
			t.Fatal(err)
		}
		want, err := rmatBuilder(o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := RMAT(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		w, g := want.Raw(), got.Raw()
		for _, c := range []struct {
			name string
			eq   bool
		}{
			{"vertex labels", slices.Equal(w.VertexLabels, g.VertexLabels)},
			{"offsets", slices.Equal(w.Offsets, g.Offsets)},
			{"neighbours", slices.Equal(w.Neighbors, g.Neighbors)},
			{"edge labels", slices.Equal(w.EdgeLabels, g.EdgeLabels) && (w.EdgeLabels == nil) == (g.EdgeLabels == nil)},
			{"run offsets", slices.Equal(w.RunOffsets, g.RunOffsets)},
			{"runs", slices.Equal(w.Runs, g.Runs)},
			{"original ids", slices.Equal(w.OriginalIDs, g.OriginalIDs) && (w.OriginalIDs == nil) == (g.OriginalIDs == nil)},
		} {
			if !c.eq {
				t.Errorf("%+v: %s differ from the builder's (%d edges against %d)", o, c.name, got.NumEdges(), want.NumEdges())
			}
		}
	}
}

func TestRMATKeyLayout(t *testing.T) {
	if _, _, ok := rmatKeyLayout(RMATOptions{Scale: 31, VertexLabels: 1 << 20, EdgeLabels: 1 << 13}); !ok {
		t.Error("20 + 13 + 31 bits refused")
	}
	if _, _, ok := rmatKeyLayout(RMATOptions{Scale: 31, VertexLabels: 1 << 20, EdgeLabels: 1<<13 + 1}); ok {
		t.Error("20 + 14 + 31 bits accepted")
	}
	// Beyond 64 bits RMAT takes the builder: still the graph of the seed.
	o := RMATOptions{Scale: 8, EdgeFactor: 4, VertexLabels: 1 << 30, EdgeLabels: 1 << 30, Seed: 3}
	g, err := RMAT(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestLabelBlocks checks each sort id's label and block end against the sorted labels, over
// dense, zipf-like and sparse labels and table steps from 1 up.
func TestLabelBlocks(t *testing.T) {
	for seed := range uint64(40) {
		r := newRand(seed)
		n := 1 + r.IntN(3000)
		L := []int{1, 2, 7, 1000, 1 << 20}[seed%5]
		labels := make([]uint32, n)
		for v := range labels {
			labels[v] = uint32(r.IntN(L))
			if seed%3 == 0 {
				labels[v] = uint32(r.IntN(1 + r.IntN(L))) // skewed towards small labels
			}
		}
		byLabel := graph.OrderByLabel(labels)
		b := newLabelBlocks(labels, byLabel)
		for x := range uint32(n) {
			l, end := b.block(x)
			want := labels[byLabel[x]]
			wantEnd := x + 1
			for wantEnd < uint32(n) && labels[byLabel[wantEnd]] == want {
				wantEnd++
			}
			if l != want || end != wantEnd {
				t.Fatalf("seed %d: sort id %d: label %d, end %d; want %d, %d", seed, x, l, end, want, wantEnd)
			}
		}
	}
}

// TestRMATMemory: the bounds refuse what RMAT refuses, hold the graph within the peak, grow with
// the samples, and take graph.Builder's path where the sort keys do not fit.
func TestRMATMemory(t *testing.T) {
	if _, err := (RMATOptions{Scale: 0}).Memory(); err == nil {
		t.Error("scale 0 accepted")
	}
	small, err := RMATOptions{Scale: 20}.Memory()
	if err != nil {
		t.Fatal(err)
	}
	big, _ := RMATOptions{Scale: 20, EdgeFactor: 32}.Memory()
	if small.Graph > small.Peak || big.Peak <= small.Peak || big.Graph <= small.Graph {
		t.Errorf("edge factor 16: %v; 32: %v", small, big)
	}
	// Unlabelled, the samples and the entries beside them are the peak: 24 bytes a sample.
	if s := uint64(16) << 20; small.Peak < 24*s || small.Peak > 30*s {
		t.Errorf("unlabelled scale 20: peak %d, want 24-30 bytes a sample", small.Peak)
	}
	wide := RMATOptions{Scale: 20, VertexLabels: 1 << 32, EdgeLabels: 1 << 32}
	if _, _, ok := rmatKeyLayout(wide); ok {
		t.Fatal("64-bit labels fit the sort key")
	}
	if m, _ := wide.Memory(); m.Peak < small.Peak {
		t.Errorf("builder's peak %v below rmatCSR's %v", m, small)
	}
	if m, _ := (RMATOptions{Scale: MaxRMATScale}).Memory(); m.Peak < 800<<30 {
		t.Errorf("scale 31: %v", m)
	}
}
