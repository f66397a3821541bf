// Package bench is the benchmark suite of submatch: a fixed list of cases (real data sets from
// ../shared/testdata and deterministic R-MAT graphs with random-walk queries), a runner that times
// loading, planning and matching at several thread counts, and the CSV, markdown and PNG reports.
// The command "submatch bench" is a thin wrapper around Run.
package bench

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// Dataset is a data graph of the suite: a file, or a graph the suite generates.
type Dataset struct {
	Name string
	// Path is loaded with formats.Load; when empty, Generate builds the graph instead (and its
	// generation time is reported as the load time).
	Path     string
	Generate func() (*graph.Graph, error)
}

// Case is one measurement: a query on a data graph under one counting convention.
type Case struct {
	Name  string // unique within a suite, e.g. "github/Q_3"
	Group string // the family, for summaries and the chart: "hprd", "github", "wikivote", "rmat-16", ...
	Data  *Dataset
	// Query says what the query is (a file or an inline pattern), for the reports.
	Query string
	// Pattern returns the query; it receives the loaded data graph, from which random-walk
	// queries are sampled.
	Pattern   func(g *graph.Graph) (*pattern.Pattern, error)
	Semantics engine.Semantics
	// Expected is the published count when HasExpected.
	Expected    uint64
	HasExpected bool
}

// Suite names.
const (
	SuiteDefault = "default"
	SuiteQuick   = "quick"
)

// RMAT parameters of the suite: every R-MAT case uses these, at the scale of its group, and its
// queries are gen.RandomWalk queries (dense) with seeds gen.QuerySeed(RMATQuerySeed, size, i).
// "submatch gen rmat" and "submatch gen queries" regenerate them as files (docs/benchmarks.md).
var (
	RMATEdgeFactor   = 16
	RMATVertexLabels = 16
	RMATEdgeLabels   = 4
	RMATSeed         = uint64(1)
	RMATQuerySeed    = uint64(1)
	RMATQuerySizes   = []int{4, 6, 8, 12}
)

// wikiVotePatterns are the unlabelled cliques counted on wiki-Vote, as unique subgraphs.
var wikiVotePatterns = []struct {
	name, pattern string
	expected      uint64 // 0: not published
}{
	{"triangle", "(a)-(b)-(c)-(a)", 608389},
	{"4-clique", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)", 0},
	{"5-clique", "(a)-(b)-(c)-(d)-(e)-(a), (a)-(c), (a)-(d), (b)-(d), (b)-(e), (c)-(e)", 0},
}

// Suite returns the cases of the named suite ("default" or "quick") with the real data sets read
// from the testdata folder. Data sets missing there are left out; their folders are returned in
// missing so the caller can say so.
//
// default: HPRD query_dense_16_1..100, github Q_0..Q_10, wiki-Vote triangles, 4- and 5-cliques,
// R-MAT scales 16..22 with 3 random-walk queries of each size in RMATQuerySizes.
// quick: HPRD query_dense_16_1..20, the same github and wiki-Vote cases, R-MAT scales 16 and 18
// with 2 queries of each size.
func Suite(name, testdata string) (cases []Case, missing []string, err error) {
	var (
		hprdQueries, perSize int
		scales               []int
	)
	switch name {
	case SuiteDefault, "":
		hprdQueries, perSize, scales = 100, 3, []int{16, 17, 18, 19, 20, 21, 22}
	case SuiteQuick:
		hprdQueries, perSize, scales = 20, 2, []int{16, 18}
	default:
		return nil, nil, fmt.Errorf("unknown suite %q (want %s or %s)", name, SuiteDefault, SuiteQuick)
	}
	add := func(cs []Case, dir string, err error) error {
		switch {
		case err != nil && os.IsNotExist(err):
			missing = append(missing, dir)
		case err != nil:
			return err
		default:
			cases = append(cases, cs...)
		}
		return nil
	}
	dir := filepath.Join(testdata, "hprd-subgraphmatching")
	cs, err := FileQueries("hprd", dir, "HPRD.graph", "query_graph", "query_dense_16_", hprdQueries)
	if err := add(cs, dir, err); err != nil {
		return nil, nil, err
	}
	dir = filepath.Join(testdata, "github-gmatch")
	cs, err = FileQueries("github", dir, "data.graph", "query_graph", "Q_", 11)
	if err := add(cs, dir, err); err != nil {
		return nil, nil, err
	}
	dir = filepath.Join(testdata, "wikivote-graphpi")
	cs, err = WikiVoteCases(dir)
	if err := add(cs, dir, err); err != nil {
		return nil, nil, err
	}
	for _, s := range scales {
		cases = append(cases, RMATCases(s, perSize)...)
	}
	return cases, missing, nil
}

// FileQueries returns the cases of a data set laid out like SubgraphMatching's and gMatch's test
// folders: dir/dataFile, the queries dir/queryDir/<prefix><i>.graph in numeric order of i (at most
// limit of them) and the expected counts in dir/expected_output.res ("name:count" lines).
func FileQueries(group, dir, dataFile, queryDir, prefix string, limit int) ([]Case, error) {
	dataPath := filepath.Join(dir, dataFile)
	if _, err := os.Stat(dataPath); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Join(dir, queryDir))
	if err != nil {
		return nil, err
	}
	type query struct {
		name string
		num  int
	}
	var queries []query
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".graph")
		num, err := strconv.Atoi(strings.TrimPrefix(name, prefix))
		if err != nil || !strings.HasPrefix(name, prefix) || name == e.Name() {
			continue
		}
		queries = append(queries, query{name, num})
	}
	slices.SortFunc(queries, func(a, b query) int { return a.num - b.num })
	if len(queries) > limit {
		queries = queries[:limit]
	}
	expected, err := readExpected(filepath.Join(dir, "expected_output.res"))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	data := &Dataset{Name: group, Path: dataPath}
	cases := make([]Case, 0, len(queries))
	for _, q := range queries {
		path := filepath.Join(dir, queryDir, q.name+".graph")
		want, ok := expected[q.name]
		cases = append(cases, Case{
			Name: group + "/" + q.name, Group: group, Data: data, Query: path,
			Pattern: func(*graph.Graph) (*pattern.Pattern, error) {
				return formats.LoadPattern(path, formats.Options{})
			},
			Expected: want, HasExpected: ok,
		})
	}
	return cases, nil
}

// readExpected reads "name:count" lines.
func readExpected(path string) (map[string]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	counts := map[string]uint64{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		name, count, ok := strings.Cut(text, ":")
		n, err := strconv.ParseUint(strings.TrimSpace(count), 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("%s:%d: want name:count, got %q", path, line, text)
		}
		counts[strings.TrimSpace(name)] = n
	}
	return counts, sc.Err()
}

// WikiVoteCases returns the unlabelled clique cases on dir/wiki-vote_input (unique subgraphs).
func WikiVoteCases(dir string) ([]Case, error) {
	path := filepath.Join(dir, "wiki-vote_input")
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	data := &Dataset{Name: "wikivote", Path: path}
	var cases []Case
	for _, wp := range wikiVotePatterns {
		cases = append(cases, Case{
			Name: "wikivote/" + wp.name, Group: "wikivote", Data: data, Query: wp.pattern,
			Pattern:   func(*graph.Graph) (*pattern.Pattern, error) { return pattern.Parse(wp.pattern) },
			Semantics: engine.Semantics{Unique: true},
			Expected:  wp.expected, HasExpected: wp.expected != 0,
		})
	}
	return cases, nil
}

// RMATOptions returns the generator options of the suite's R-MAT graph at scale.
func RMATOptions(scale int) gen.RMATOptions {
	return gen.RMATOptions{Scale: scale, EdgeFactor: RMATEdgeFactor, VertexLabels: RMATVertexLabels,
		EdgeLabels: RMATEdgeLabels, Seed: RMATSeed}
}

// RMATCases returns the cases on the suite's R-MAT graph at scale: perSize dense random-walk
// queries of every size in RMATQuerySizes.
func RMATCases(scale, perSize int) []Case {
	return GeneratedCases(fmt.Sprintf("rmat-%d", scale), func() (*graph.Graph, error) {
		return gen.RMAT(RMATOptions(scale))
	}, RMATQuerySizes, perSize, RMATQuerySeed)
}

// GeneratedCases returns the cases of a generated data graph: perSize dense random-walk queries
// of each size, the i-th of a size sampled with seed gen.QuerySeed(seed, size, i) and named
// q_<size>_<i> like the files "submatch gen queries" writes.
func GeneratedCases(group string, generate func() (*graph.Graph, error), sizes []int, perSize int, seed uint64) []Case {
	data := &Dataset{Name: group, Generate: generate}
	var cases []Case
	for _, size := range sizes {
		for i := range perSize {
			qseed := gen.QuerySeed(seed, size, i)
			name := fmt.Sprintf("q_%d_%d", size, i)
			cases = append(cases, Case{
				Name: group + "/" + name, Group: group, Data: data,
				Query: fmt.Sprintf("random walk: %d vertices, dense, seed %d", size, qseed),
				Pattern: func(g *graph.Graph) (*pattern.Pattern, error) {
					return gen.RandomWalkQuery(g, size, qseed, gen.QueryOptions{})
				},
			})
		}
	}
	return cases
}
