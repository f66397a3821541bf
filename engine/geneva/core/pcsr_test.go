package core

import (
	"cmp"
	"fmt"
	"github.com/submatch/submatch/internal/testenv"
	"reflect"
	"slices"
	"testing"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
)

// testGraphs returns small random labelled graphs, the degenerate ones included.
func testGraphs(t *testing.T) map[string]*graph.Graph {
	t.Helper()
	gs := map[string]*graph.Graph{}
	for _, c := range []struct {
		n       int
		p       float64
		vl, el  int
		samples int
	}{
		{0, 0, 1, 1, 1}, {1, 0, 1, 1, 1}, {5, 0, 2, 3, 1}, {2, 1, 1, 1, 1},
		{30, 0.2, 1, 1, 3}, {40, 0.1, 3, 2, 3}, {60, 0.08, 2, 5, 3}, {100, 0.05, 4, 12, 3},
		{200, 0.02, 5, 3, 2}, {150, 0.3, 2, 7, 2}, {300, 0.01, 1, 40, 2},
	} {
		for s := 0; s < c.samples; s++ {
			gs[fmt.Sprintf("n%d_p%g_vl%d_el%d_s%d", c.n, c.p, c.vl, c.el, s)] = gen.RandomGraph(uint64(100*c.n+s), c.n, c.p, c.vl, c.el)
		}
	}
	for _, el := range []int{1, 4, 16} {
		g, err := gen.RMAT(gen.RMATOptions{Scale: 9, EdgeFactor: 8, VertexLabels: 3, EdgeLabels: el, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		gs[fmt.Sprintf("rmat9_el%d", el)] = g
	}
	return gs
}

// refNeighbors is the reference for one interval-PCSR row: the neighbours of old vertex v by
// edges labelled l, renamed and sorted by (vertex label, new id).
// A label of -1 takes every edge (the union partition's row).
func refNeighbors(g *graph.Graph, v uint32, l int64, oldToNew []uint32) []uint32 {
	var out []uint32
	els := g.NeighborEdgeLabels(v)
	for i, w := range g.Neighbors(v) {
		el := uint32(0)
		if els != nil {
			el = els[i]
		}
		if l < 0 || int64(el) == l {
			out = append(out, oldToNew[w])
		}
	}
	slices.SortFunc(out, func(a, b uint32) int {
		if c := cmp.Compare(g.VertexLabel(newToOldOf(oldToNew, a)), g.VertexLabel(newToOldOf(oldToNew, b))); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return out
}

// newToOldOf inverts oldToNew at one id, by search (tests only).
func newToOldOf(oldToNew []uint32, w uint32) uint32 {
	return uint32(slices.Index(oldToNew, w))
}

func TestBuildMatchesReference(t *testing.T) {
	for name, g := range testGraphs(t) {
		t.Run(name, func(t *testing.T) {
			pc, err := Build(g)
			if err != nil {
				t.Fatal(err)
			}
			n := g.NumVertices()
			checkBijection(t, pc.OldToNew, pc.NewToOld, n)
			p := NewPartitions(g)
			if pc.NumELPs() != p.Len() {
				t.Fatalf("%d ELPs, partitions say %d", pc.NumELPs(), p.Len())
			}
			if g.NumEdges() == 0 && pc.NumELPs() != 0 {
				t.Fatalf("edgeless graph has %d ELPs", pc.NumELPs())
			}
			var entries uint64
			for e := range pc.Parts {
				l := pc.Parts[e].Label
				if pc.ELP(l) != e || p.Index(l) != e {
					t.Fatalf("ELP lookup of label %d: %d, %d; want %d", l, pc.ELP(l), p.Index(l), e)
				}
				rows := 0
				for v := 0; v < n; v++ {
					ref := refNeighbors(g, uint32(v), int64(l), pc.OldToNew)
					got := pc.Neighbors(e, pc.OldToNew[v])
					if !slices.Equal(got, ref) {
						t.Fatalf("ELP %d (label %d) vertex %d (new %d): got %v, want %v", e, l, v, pc.OldToNew[v], got, ref)
					}
					if _, in := pc.Parts[e].Row(pc.OldToNew[v]); in != (len(ref) > 0) {
						t.Fatalf("ELP %d vertex %d: membership %v, degree %d", e, v, in, len(ref))
					}
					if len(ref) > 0 {
						rows++
					}
					if pc.VertexLabels[pc.OldToNew[v]] != g.VertexLabel(uint32(v)) {
						t.Fatalf("vertex %d lost its label", v)
					}
				}
				for _, v := range []uint32{uint32(n), uint32(n) + 1, ^uint32(0)} {
					if pc.Neighbors(e, v) != nil {
						t.Fatalf("ELP %d: out-of-range id %d has neighbours", e, v)
					}
				}
				if rows != pc.NumVertices(e) || rows != len(p.Vertices[e]) {
					t.Fatalf("ELP %d: %d rows, %d reference vertices, %d partition vertices", e, pc.NumVertices(e), rows, len(p.Vertices[e]))
				}
				if got, want := pc.NumIntervals(e), p.CountIntervals(e, pc.OldToNew); got != want {
					t.Fatalf("ELP %d: %d intervals, %d maximal runs", e, got, want)
				}
				entries += uint64(len(pc.Parts[e].Neighbors))
			}
			if entries != 2*g.NumEdges() {
				t.Fatalf("%d entries over all ELPs, want %d", entries, 2*g.NumEdges())
			}
			u := pc.Union(g)
			for v := 0; v < n; v++ {
				w := pc.OldToNew[v]
				if got, ref := u.Neighbors[u.Offsets[w]:u.Offsets[w+1]], refNeighbors(g, uint32(v), -1, pc.OldToNew); !slices.Equal(got, ref) {
					t.Fatalf("union row of vertex %d (new %d): got %v, want %v", v, w, got, ref)
				}
			}
		})
	}
}

func checkBijection(t *testing.T, oldToNew, newToOld []uint32, n int) {
	t.Helper()
	if len(oldToNew) != n || len(newToOld) != n {
		t.Fatalf("permutation has %d and %d entries for %d vertices", len(oldToNew), len(newToOld), n)
	}
	seen := make([]bool, n)
	for v, w := range oldToNew {
		if int(w) >= n || seen[w] || newToOld[w] != uint32(v) {
			t.Fatalf("not a bijection at %d -> %d", v, w)
		}
		seen[w] = true
	}
}

// TestGenMapIntervals checks GENMAP's effect: the largest ELP is one interval, isolated vertices
// come last, and the total interval count never exceeds the identity order's.
func TestGenMapIntervals(t *testing.T) {
	for name, g := range testGraphs(t) {
		p := NewPartitions(g)
		oldToNew, _ := GenMap(p)
		if big := p.Largest(); big >= 0 && p.CountIntervals(big, oldToNew) != 1 {
			t.Errorf("%s: largest ELP has %d intervals", name, p.CountIntervals(big, oldToNew))
		}
		total, identity := 0, 0
		for e := 0; e < p.Len(); e++ {
			total += p.CountIntervals(e, oldToNew)
			identity += p.CountIntervals(e, nil)
		}
		if total > identity {
			t.Errorf("%s: GENMAP gives %d intervals, identity %d", name, total, identity)
		}
		for v := 0; v < g.NumVertices(); v++ {
			if g.Degree(uint32(v)) == 0 && int(oldToNew[v]) < g.NumVertices()-countIsolated(g) {
				t.Errorf("%s: isolated vertex %d renamed to %d, before a non-isolated one", name, v, oldToNew[v])
			}
		}
	}
}

func countIsolated(g *graph.Graph) int {
	c := 0
	for v := 0; v < g.NumVertices(); v++ {
		if g.Degree(uint32(v)) == 0 {
			c++
		}
	}
	return c
}

// TestGenMapExample follows Section 4.2's walk-through: vertices sharing ELPs {0,1,2} are renamed
// first, then those sharing {0,1}, then {0}, so ELPs 0 and 1 are one interval each; ELP 2's own
// vertices come after ELP 0's, a second interval (Algorithm 2 never looks ahead to place them
// before the share set {0,1,2}).
func TestGenMapExample(t *testing.T) {
	b := graph.NewBuilder(graph.BuilderOptions{})
	edges := [][3]int{
		// ELP 0 (label 0): a path over 0..9.
		{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {3, 4, 0}, {4, 5, 0}, {5, 6, 0}, {6, 7, 0}, {7, 8, 0}, {8, 9, 0},
		// ELP 1 (label 1): 4, 8, 2, 6.
		{4, 8, 1}, {2, 6, 1},
		// ELP 2 (label 2): 4, 8, 10, 11.
		{4, 10, 2}, {8, 11, 2},
	}
	for _, e := range edges {
		if err := b.AddEdge(int64(e[0]), int64(e[1]), uint32(e[2])); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	pc, err := Build(g)
	if err != nil {
		t.Fatal(err)
	}
	for e, want := range []int{1, 1, 2} {
		if got := pc.NumIntervals(e); got != want {
			t.Errorf("ELP %d: %d intervals, want %d", e, got, want)
		}
	}
	// {0,1,2}-vertices first, then {0,1}, then {0}: old ids through OriginalID of the builder.
	var firstTwo []int64
	for w := 0; w < 2; w++ {
		firstTwo = append(firstTwo, g.OriginalID(pc.NewToOld[w]))
	}
	slices.Sort(firstTwo)
	if !slices.Equal(firstTwo, []int64{4, 8}) {
		t.Errorf("first renamed vertices %v, want the share set {0,1,2}: [4 8]", firstTwo)
	}
}

func TestBytes(t *testing.T) {
	g := gen.RandomGraph(3, 50, 0.1, 2, 3)
	pc, err := Build(g)
	if err != nil {
		t.Fatal(err)
	}
	var sum uint64
	for e := range pc.Parts {
		p := pc.Parts[e]
		want := 4*uint64(2*len(p.Starts)+1) + 8*uint64(pc.NumVertices(e)+1) + 4*uint64(len(p.Neighbors))
		if pc.Bytes(e) != want {
			t.Errorf("ELP %d: %d bytes, want %d", e, pc.Bytes(e), want)
		}
		sum += want
	}
	if pc.TotalBytes() != sum+4*50 {
		t.Errorf("total %d, want %d", pc.TotalBytes(), sum+4*50)
	}
	s := ComputeSizes(g, pc)
	if s.IntervalPCSR != pc.TotalBytes() || s.CSR != 8*51+4*2*g.NumEdges()*2+4*50 {
		t.Errorf("sizes %+v", s)
	}
	if s.HashPCSR <= s.IntervalPCSR || s.HashPCSRMax < s.IntervalPCSRMax {
		t.Errorf("hash-PCSR should be larger: %+v", s)
	}
}

// BenchmarkBuild lays out R-MAT graphs (scale 18) as interval-PCSR: 8 edge labels (GENMAP
// renames for real) and 1 edge label with 256 vertex labels (the renaming is a shift, see
// renameShift; the labelled R-MAT runs of docs/benchmarks.md).
func BenchmarkBuild(b *testing.B) {
	for _, c := range []struct {
		name   string
		vl, el int
	}{{"el8", 8, 8}, {"el1_vl256", 256, 1}} {
		g, err := gen.RMAT(gen.RMATOptions{Scale: 18, EdgeFactor: 16, VertexLabels: c.vl, EdgeLabels: c.el, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name+"/GenMap", func(b *testing.B) {
			p := NewPartitions(g)
			for b.Loop() {
				GenMap(p)
			}
		})
		b.Run(c.name+"/Build", func(b *testing.B) {
			for b.Loop() {
				if _, err := Build(g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestGenMapCiteseer runs GENMAP on citeseer's 65 edge labels (skipped without the test data).
func TestGenMapCiteseer(t *testing.T) {
	path := testenv.Path(t, "citeseer-graphminer")
	g, err := formats.Load(path, formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := NewPartitions(g)
	oldToNew, _ := GenMap(p)
	total, identity := 0, 0
	for e := 0; e < p.Len(); e++ {
		total += p.CountIntervals(e, oldToNew)
		identity += p.CountIntervals(e, nil)
	}
	t.Logf("citeseer: %d ELPs, %d intervals with GENMAP, %d with the identity order", p.Len(), total, identity)
	if total > identity || p.CountIntervals(p.Largest(), oldToNew) != 1 {
		t.Errorf("GENMAP gives %d intervals (largest ELP %d), identity %d", total, p.CountIntervals(p.Largest(), oldToNew), identity)
	}
}

// TestUnlabelledPartitions: the degree-only partitions of graphs without edge labels equal the
// general computation's.
func TestUnlabelledPartitions(t *testing.T) {
	checked := 0
	for name, g := range testGraphs(t) {
		if g.HasEdgeLabels() || g.NumEdges() == 0 {
			continue
		}
		fast, general := unlabelledPartitions(g), labelledPartitions(g)
		if !reflect.DeepEqual(fast, general) {
			t.Errorf("%s: degree-only partitions %+v, general %+v", name, fast, general)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no graph without edge labels among the test graphs")
	}
}
