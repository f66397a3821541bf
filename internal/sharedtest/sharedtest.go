// Package sharedtest reads the shared test data (../shared/testdata, or $SUBMATCH_TESTDATA on
// the GPU machine) for the engines' tests: the query suites with published counts and
// wiki-Vote. A test whose data is absent is skipped, not failed.
package sharedtest

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// EnvTestdata names the folder holding the shared test data.
const EnvTestdata = "SUBMATCH_TESTDATA"

// Dir returns the shared test data folder: $SUBMATCH_TESTDATA, else ../shared/testdata seen
// from the repository root (tests run one to three levels below it).
func Dir() string {
	if d := os.Getenv(EnvTestdata); d != "" {
		return d
	}
	for _, up := range []string{"..", "../..", "../../.."} {
		d := filepath.Join(up, "..", "shared", "testdata")
		if _, err := os.Stat(filepath.Join(up, "go.mod")); err == nil {
			return d
		}
	}
	return filepath.Join("..", "..", "..", "shared", "testdata")
}

// Query is one query of a suite and its published count.
type Query struct {
	Name    string
	Pattern *pattern.Pattern
	Want    uint64
}

// ReadExpected reads an expected_output.res file ("name: count" lines) in file order.
func ReadExpected(t testing.TB, path string) (names []string, counts map[string]uint64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("test data not available (set %s): %v", EnvTestdata, err)
	}
	counts = map[string]uint64{}
	for _, line := range strings.Split(string(b), "\n") {
		name, num, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(num), 10, 64)
		if err != nil {
			t.Fatalf("%s: bad line %q", path, line)
		}
		names = append(names, strings.TrimSpace(name))
		counts[strings.TrimSpace(name)] = n
	}
	return names, counts
}

// Suite loads the data graph dir/data and the first limit queries (0: all) of dir's expected
// file, dir relative to Dir().
func Suite(t testing.TB, dir, data string, limit int) (*graph.Graph, []Query) {
	t.Helper()
	dir = filepath.Join(Dir(), dir)
	names, want := ReadExpected(t, filepath.Join(dir, "expected_output.res"))
	g, err := formats.Load(filepath.Join(dir, data), formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if limit > 0 && len(names) > limit {
		names = names[:limit]
	}
	var qs []Query
	for _, name := range names {
		p, err := formats.LoadPattern(filepath.Join(dir, "query_graph", name+".graph"), formats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, Query{Name: name, Pattern: p, Want: want[name]})
	}
	return g, qs
}

// WikiVote reads wikivote-graphpi/wiki-vote_input (a header line, then "u v" per line;
// self-loops dropped) as an unlabelled graph.
func WikiVote(t testing.TB) *graph.Graph {
	t.Helper()
	path := filepath.Join(Dir(), "wikivote-graphpi", "wiki-vote_input")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("wiki-Vote not available (set %s): %v", EnvTestdata, err)
	}
	defer f.Close()
	b := graph.NewBuilder(graph.BuilderOptions{DropSelfLoops: true})
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || line == 1 {
			continue
		}
		u, err1 := strconv.ParseInt(fs[0], 10, 64)
		v, err2 := strconv.ParseInt(fs[1], 10, 64)
		if len(fs) != 2 || err1 != nil || err2 != nil {
			t.Fatalf("%s:%d: bad line %q", path, line, sc.Text())
		}
		if err := b.AddEdge(u, v, 0); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// EnvLong turns on the deep sweeps (many random cases, large graphs) that the README's test
// command leaves out so that it passes in a few minutes; .ci/run sets it.
const EnvLong = "SUBMATCH_LONG"

// Long reports whether the deep sweeps run ($SUBMATCH_LONG set to anything but "" or "0").
func Long() bool {
	v := os.Getenv(EnvLong)
	return v != "" && v != "0"
}

// SkipUnlessLong skips a deep sweep unless $SUBMATCH_LONG is set.
func SkipUnlessLong(t testing.TB) {
	t.Helper()
	if !Long() {
		t.Skipf("a deep sweep: set %s=1 to run it", EnvLong)
	}
}
