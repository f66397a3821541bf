package sgsi

import (
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/testenv"
)

var (
	benchLayoutOnce  sync.Once
	benchLayoutGraph *graph.Graph
)

// layoutBenchGraph is BenchmarkLayout's graph: R-MAT of scale $SGSI_LAYOUT_SCALE (default 18),
// edge factor 16, 1,000 zipf vertex labels, seed 1 (the labelled workload).
func layoutBenchGraph(b *testing.B) *graph.Graph {
	benchLayoutOnce.Do(func() {
		scale := 18
		if v, err := strconv.Atoi(os.Getenv("SGSI_LAYOUT_SCALE")); err == nil {
			scale = v
		}
		g, err := gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: 16, VertexLabels: 1000, LabelDistribution: gen.ZipfLabels, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		benchLayoutGraph = g
	})
	return benchLayoutGraph
}

// BenchmarkLayout builds label graphs as a 12-vertex walk's count does on R-MAT under 1,000 zipf
// labels, on GOMAXPROCS goroutines (-cpu 1,2,16): runs, the two commonest labels' graphs (built
// from every vertex's runs); scatter, eight rarer labels' (scattered from their vertices), one
// of them upper and lower. Beside ns/op (wall) it reports cpu-ns/op, the process's CPU time
// (user and system), and the entries built an op.
//
//	SGSI_LAYOUT_SCALE=20 go test -run '^$' -bench Layout -cpu 1,2 ./engine/sgsi/
func BenchmarkLayout(b *testing.B) {
	g := layoutBenchGraph(b)
	sets := []struct {
		name string
		keys []lgKey
	}{
		{"runs", []lgKey{{anyEdge, 0, bothSides}, {anyEdge, 1, bothSides}}},
		{"scatter", []lgKey{{anyEdge, 2, bothSides}, {anyEdge, 3, bothSides}, {anyEdge, 4, bothSides}, {anyEdge, 7, bothSides},
			{anyEdge, 15, bothSides}, {anyEdge, 64, bothSides}, {anyEdge, 2, upperSide}, {anyEdge, 2, lowerSide}}},
	}
	for _, set := range sets {
		b.Run(set.name, func(b *testing.B) { benchBuilds(b, g, set.keys) })
	}
}

// benchBuilds builds the label graphs of keys on g, in a fresh store an op, on GOMAXPROCS
// goroutines, and reports cpu-ns/op (user and system) and the entries built an op.
func benchBuilds(b *testing.B, g *graph.Graph, keys []lgKey) {
	entries := 0
	n, cpu0 := 0, testenv.CPUTime()
	for b.Loop() {
		n++
		s := &store{g: g, labels: map[lgKey]*labelGraph{}, edges: map[uint64]uint64{}}
		entries = 0
		for _, k := range keys {
			lg, _, err := s.build(k, 0, nil)
			if err != nil {
				b.Fatal(err)
			}
			entries += len(lg.nbrs)
		}
	}
	b.ReportMetric(float64(entries), "entries")
	b.ReportMetric(float64((testenv.CPUTime()-cpu0).Nanoseconds())/float64(n), "cpu-ns/op")
}

// BenchmarkLabelForms builds 24 label graphs of one edge label and one vertex label each, as a
// 12-vertex walk's count does under SGSI's labelling (R-MAT of scale $SGSI_LAYOUT_SCALE, edge
// factor 16, 1,000 zipf vertex and edge labels, seed 1): edge labels 1 to 60 and vertex labels 2
// to 91, a few hundred entries a key at scale 22, each scattered from its vertex label's
// vertices. dense keeps every vertex's offset (sparseShare 0), sparse is the default choice.
// Beside ns/op it reports cpu-ns/op (user and system) and the entries an op; an op is the 24
// builds.
//
//	SGSI_LAYOUT_SCALE=22 go test -run '^$' -bench LabelForms -count 3 -cpu 2 ./engine/sgsi/
func BenchmarkLabelForms(b *testing.B) {
	scale := 18
	if v, err := strconv.Atoi(os.Getenv("SGSI_LAYOUT_SCALE")); err == nil {
		scale = v
	}
	benchFormsOnce.Do(func() {
		g, err := gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: 16, VertexLabels: 1000, EdgeLabels: 1000, LabelDistribution: gen.ZipfLabels, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		benchFormsGraph = g
	})
	g := benchFormsGraph
	var keys []lgKey
	for i := range 24 {
		keys = append(keys, lgKey{uint64(1 + i*13%60), uint32(2 + i*29%90), []uint8{upperSide, bothSides}[i%2]})
	}
	for _, form := range []struct {
		name  string
		share float64
	}{{"dense", 0}, {"sparse", sparseShare}} {
		b.Run(form.name, func(b *testing.B) {
			defer func(sp float64) { sparseShare = sp }(sparseShare)
			sparseShare = form.share
			benchBuilds(b, g, keys)
		})
	}
}

var (
	benchFormsOnce  sync.Once
	benchFormsGraph *graph.Graph
)
