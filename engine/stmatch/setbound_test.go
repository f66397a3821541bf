package stmatch

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestSetBoundsOracle: setBounds.bound, read from the run index, is the most labelled neighbours
// counted edge by edge, for every combination of exact and wildcard labels, on graphs with and
// without edge labels.
func TestSetBoundsOracle(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		vl, el := 1+int(seed%4), []int{0, 2, 3}[seed%3]
		g := gen.RandomGraphM(seed*13, 60+int(seed)*5, 300+int(seed)*40, vl, el)
		b := newSetBounds(g)
		labels := func(k int) []pattern.Label {
			ls := []pattern.Label{pattern.Label{Any: true}}
			for l := range uint32(k + 1) { // one label past the graph's: no vertex or edge has it
				ls = append(ls, pattern.Exact(l))
			}
			return ls
		}
		for _, from := range labels(vl) {
			for _, to := range labels(vl) {
				for _, edge := range labels(max(1, el)) {
					var want uint64
					for v := range uint32(g.NumVertices()) {
						if !from.Matches(g.VertexLabel(v)) {
							continue
						}
						var c uint64
						els := g.NeighborEdgeLabels(v)
						for k, u := range g.Neighbors(v) {
							e := uint32(0)
							if els != nil {
								e = els[k]
							}
							if to.Matches(g.VertexLabel(u)) && edge.Matches(e) {
								c++
							}
						}
						want = max(want, c)
					}
					if got := b.bound(from, to, edge); got != want {
						t.Fatalf("seed %d: bound(%v, %v, %v) = %d, counted %d", seed, from, to, edge, got, want)
					}
				}
			}
		}
	}
}

// TestEmulatedGraphModeBounds runs graph-mode plans, whose level buffers are bounded by the
// labelled neighbour counts (setBounds), through the emulated kernel, which panics when a level's
// set outgrows its buffer: power-law (R-MAT) and uniform random graphs with few vertex labels
// (zipf: sets near their bounds) and edge labels, patterns with exact and wildcard vertex and
// edge labels and several components, the four semantics, reuse and pieces, random spills and
// donations, against the CPU engine. It also checks the buffers are never larger than the old
// bound (the maximum degree, or the candidate list) and shrink somewhere.
func TestEmulatedGraphModeBounds(t *testing.T) {
	var cases, shrunk int
	for seed := uint64(1); seed <= uint64(testenv.Sweep(20, 120)); seed++ {
		vl, el := 2+int(seed%4), []int{0, 0, 2, 3}[seed%4]
		var g *graph.Graph
		if seed%2 == 0 {
			var err error
			g, err = gen.RMAT(gen.RMATOptions{Scale: 7 + int(seed%3), EdgeFactor: 6, VertexLabels: vl, LabelDistribution: gen.ZipfLabels, EdgeLabels: el, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
		} else {
			g = gen.RandomGraphM(seed*7, 50+int(seed%5)*10, 250+int(seed%4)*60, vl, el)
		}
		p := gen.RandomPattern(seed*37, 2+int(seed%6), gen.PatternOptions{
			EdgeProb: 0.4, VertexLabels: vl, EdgeLabels: max(1, el), Wildcard: 0.25, Components: 1 + int(seed%7)/5,
		})
		if el == 0 && seed%8 == 0 { // exact edge label 0 on a graph without edge labels: every edge
			p = gen.RandomPattern(seed*37, 4, gen.PatternOptions{EdgeProb: 0.5, VertexLabels: vl, EdgeLabels: 1})
		}
		maxDegree := uint64(g.MaxDegree())
		for _, sem := range semantics {
			pl := testPlan(g, p, sem, Options{NoSpace: true})
			if pl.Empty {
				continue
			}
			want := cpuCount(t, g, p, sem)
			for _, pieceCap := range []uint64{defaultPieceCap, minPieceCap} {
				fp, err := flattenOn(g, pl, flatOptions{reuse: seed%5 != 0, pieceCap: pieceCap})
				if err != nil {
					t.Fatalf("seed %d %s: %v", seed, sem, err)
				}
				for i, lvl := range pl.Levels {
					old := maxDegree
					if labelMayFail(g, p.VertexLabel(lvl.Vertex)) {
						old = min(old, uint64(len(pl.Candidates[lvl.Vertex])))
					}
					if len(lvl.Backward) == 0 {
						old = uint64(len(pl.Candidates[lvl.Vertex]))
					}
					if fp.Cap[i] > min(old, pieceCap) {
						t.Fatalf("seed %d: level %d's buffer %d above the old bound %d", seed, i, fp.Cap[i], min(old, pieceCap))
					}
					if fp.Cap[i] < min(old, pieceCap) {
						shrunk++
					}
				}
				goff, gadj := fp.sortedCSR(g)
				chaos := rand.New(rand.NewPCG(seed, 9))
				name := fmt.Sprintf("seed %d %s (%s) pieceCap %d", seed, p, sem, pieceCap)
				got := emulateChecked(t, name, func() uint64 { return emulateV2(fp, fp.makeUnits(4, seed%3 != 0), goff, gadj, chaos) })
				if got*max(1, pl.Multiplier) != want {
					t.Errorf("%s: emulated %d (x%d), cpu %d", name, got, pl.Multiplier, want)
				}
				cases++
			}
		}
	}
	t.Logf("%d cases, %d level buffers below the maximum degree bound", cases, shrunk)
	if shrunk == 0 {
		t.Error("no level buffer shrank")
	}
}

// emulateChecked runs an emulation, reporting a level set that outgrew its buffer (the
// emulation's panic) as the failure of case name.
func emulateChecked(t *testing.T, name string, run func() uint64) (n uint64) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s: %v", name, r)
		}
	}()
	return run()
}

// TestGraphModeStrideShrinks: on a power-law graph with many labels (R-MAT scale 16, 1000 zipf
// vertex labels) a 12-vertex dense walk in graph mode gets per-warp buffers below those of the
// maximum degree bound (here most levels were bounded by their candidate lists already: 121
// words against 125; at scale 20, 2,101 against 3,389, docs/benchmarks.md); the emulated count
// is the CPU engine's.
func TestGraphModeStrideShrinks(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 16, VertexLabels: 1000, LabelDistribution: gen.ZipfLabels, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := gen.RandomWalkQuery(g, 12, gen.QuerySeed(1, 12, 0), gen.QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pl := testPlan(g, p, engine.Semantics{}, Options{NoSpace: true})
	fp, err := flattenOn(g, pl, Options{}.flatOptions(false))
	if err != nil {
		t.Fatal(err)
	}
	old := oldStride(g, pl, fp, defaultPieceCap)
	const budget = 300 << 20
	warps := func(stride uint64) int {
		perWarp := stride*4 + 8 + 2*uint64(fp.L+2)*taskBytes
		return chooseBlocks(fullGridWarps/warpsPerBlock, warpsPerBlock, perWarp, budget) * warpsPerBlock
	}
	t.Logf("max degree %d, stride %d words (maximum degree bound: %d), warps in 300 MB %d (was %d), caps %v",
		g.MaxDegree(), fp.Stride, old, warps(fp.Stride), warps(old), fp.Cap)
	if fp.Stride >= old {
		t.Errorf("stride %d, not below the maximum degree bound's %d", fp.Stride, old)
	}
	goff, gadj := fp.sortedCSR(g)
	if got, want := emulateV2(fp, fp.makeUnits(4, true), goff, gadj, nil)*max(1, pl.Multiplier), cpuCount(t, g, p, engine.Semantics{}); got != want {
		t.Errorf("emulated %d, cpu %d", got, want)
	}
}

// oldStride is the stride flattenOn gave fp's plan before setBounds: every graph-mode level with
// a backward edge bounded by the maximum degree (and its candidate list where a label may fail),
// capped by pieceCap.
func oldStride(g *graph.Graph, pl *plan.Plan, fp *flatPlan, pieceCap uint64) uint64 {
	var s uint64
	for i := 1; i < fp.L-1; i++ {
		c := uint64(g.MaxDegree())
		if labelMayFail(g, pl.Pattern.VertexLabel(pl.Levels[i].Vertex)) {
			c = min(c, fp.Meta[i*metaStride+mCandLen])
		}
		s += min(c, pieceCap)
	}
	return max(1, s)
}

// TestEmulatedGraphModeBoundsTight runs graph-mode plans through the emulated kernel (which
// panics when a level's set outgrows its buffer) on graphs where the sets reach their labelled
// bounds: near-complete graphs and a star whose hub holds every edge (plus a few leaf edges),
// dense patterns (reused sets, mostly wildcard vertex and edge labels, a second component at
// times), pieces or not, and a buffer for the last level (listing's) or not, against the CPU
// engine.
func TestEmulatedGraphModeBoundsTight(t *testing.T) {
	for seed := uint64(1); seed <= uint64(testenv.Sweep(60, 400)); seed++ {
		vl, el := 1+int(seed%3), []int{0, 2}[seed%2]
		n := 8 + int(seed%7)
		g := gen.RandomGraphM(seed*11, n, n*(n-1)/2-int(seed%5), vl, el)
		if seed%3 == 0 {
			g = starGraph(t, seed, n, vl, max(1, el))
		}
		p := gen.RandomPattern(seed*31, 3+int(seed%5), gen.PatternOptions{
			EdgeProb: 0.7, VertexLabels: vl, EdgeLabels: max(1, el), Wildcard: 0.4, Components: 1 + int(seed%9)/7,
		})
		for _, sem := range semantics {
			pl := testPlan(g, p, sem, Options{NoSpace: true})
			if pl.Empty {
				continue
			}
			want := cpuCount(t, g, p, sem)
			for k, o := range []flatOptions{{reuse: true}, {reuse: true, storeLast: true, pieceCap: minPieceCap}, {reuse: true, pieceCap: minPieceCap}} {
				fp, err := flattenOn(g, pl, o)
				if err != nil {
					t.Fatal(err)
				}
				goff, gadj := fp.sortedCSR(g)
				name := fmt.Sprintf("seed %d %s (%s) options %d, caps %v", seed, p, sem, k, fp.Cap)
				got := emulateChecked(t, name, func() uint64 {
					return emulateV2(fp, fp.makeUnits(3, seed%2 == 0), goff, gadj, rand.New(rand.NewPCG(seed, 3)))
				})
				if got*max(1, pl.Multiplier) != want {
					t.Errorf("%s: emulated %d (x%d), cpu %d", name, got, pl.Multiplier, want)
				}
			}
		}
	}
}

// starGraph is vertex 0 joined to each of n-1 others, plus about n edges between those (edge
// label (u+v) mod edgeLabels; vertex labels random below vertexLabels).
func starGraph(t *testing.T, seed uint64, n, vertexLabels, edgeLabels int) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(graph.BuilderOptions{})
	r := rand.New(rand.NewPCG(seed, 1))
	for v := range n {
		if err := b.SetVertexLabel(int64(v), uint32(r.IntN(vertexLabels))); err != nil {
			t.Fatal(err)
		}
	}
	edge := func(u, v int) {
		if err := b.AddEdge(int64(u), int64(v), uint32((u+v)%edgeLabels)); err != nil {
			t.Fatal(err)
		}
	}
	for v := 1; v < n; v++ {
		edge(0, v)
	}
	for range n {
		if u, v := 1+r.IntN(n-1), 1+r.IntN(n-1); u != v {
			edge(u, v)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}
