package bench

import (
	"context"
	"github.com/submatch/submatch/internal/testenv"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/graph"
)

// The Go benchmarks read the shared test data (skipped when it is missing) and count with every
// core the -cpu flag allows: "go test ./bench -run '^$' -bench . -cpu 1,2".
var testdata = testenv.Dir()

var (
	graphsMu sync.Mutex
	graphs   = map[string]*graph.Graph{}
)

// loadedData loads a data set once per test binary.
func loadedData(b *testing.B, ds *Dataset) *graph.Graph {
	b.Helper()
	graphsMu.Lock()
	defer graphsMu.Unlock()
	if g, ok := graphs[ds.Path]; ok {
		return g
	}
	g, err := formats.Load(ds.Path, formats.Options{})
	if err != nil {
		b.Fatal(err)
	}
	graphs[ds.Path] = g
	return g
}

// benchCases skips the benchmark when its data set is missing.
func benchCases(b *testing.B, list func() ([]Case, error)) []Case {
	b.Helper()
	cases, err := list()
	if os.IsNotExist(err) {
		b.Skipf("test data missing: %v", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	return cases
}

// countCases counts every case once per iteration and reports matches/s and time per query. It
// fails on a count that differs from the published one.
func countCases(b *testing.B, cases []Case) {
	e := cpuEngine(b)
	g := loadedData(b, cases[0].Data)
	probs := make([]*engine.Problem, len(cases))
	for i, c := range cases {
		p, err := c.Pattern(g)
		if err != nil {
			b.Fatal(err)
		}
		probs[i] = &engine.Problem{Data: g, Pattern: p, Semantics: c.Semantics}
	}
	var total uint64
	for b.Loop() {
		total = 0
		for i, prob := range probs {
			res, err := e.Count(context.Background(), prob)
			if err != nil {
				b.Fatal(err)
			}
			if c := cases[i]; c.HasExpected && res.Count != c.Expected {
				b.Fatalf("%s: count %d, published %d", c.Name, res.Count, c.Expected)
			}
			total += res.Count
		}
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(total)*float64(b.N)/secs, "matches/s")
	if len(cases) > 1 {
		b.ReportMetric(secs*1e3/float64(b.N*len(cases)), "ms/query")
	}
}

// BenchmarkGithub counts github-gmatch Q_0..Q_10, one sub-benchmark per query.
func BenchmarkGithub(b *testing.B) {
	cases := benchCases(b, func() ([]Case, error) {
		return FileQueries("github", filepath.Join(testdata, "github-gmatch"), "data.graph", "query_graph", "Q_", 11)
	})
	for _, c := range cases {
		b.Run(filepath.Base(c.Name), func(b *testing.B) { countCases(b, []Case{c}) })
	}
}

// BenchmarkHPRD counts all 100 HPRD query_dense_16_* queries per iteration.
func BenchmarkHPRD(b *testing.B) {
	countCases(b, benchCases(b, func() ([]Case, error) {
		return FileQueries("hprd", filepath.Join(testdata, "hprd-subgraphmatching"), "HPRD.graph", "query_graph", "query_dense_16_", 100)
	}))
}

// BenchmarkWikiVoteCliques counts unique triangles, 4-cliques and 5-cliques on wiki-Vote.
func BenchmarkWikiVoteCliques(b *testing.B) {
	cases := benchCases(b, func() ([]Case, error) { return WikiVoteCases(filepath.Join(testdata, "wikivote-graphpi")) })
	for _, c := range cases {
		b.Run(filepath.Base(c.Name), func(b *testing.B) { countCases(b, []Case{c}) })
	}
}
