// Package sharedtest reads the shared test data (../shared/testdata, or $SUBMATCH_TESTDATA on
// the GPU machine) for the engines' tests: the query suites with published counts and
// wiki-Vote. A test whose data is absent is skipped, and failed in CI (package testenv).
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
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

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
		testenv.Missing(t, path, err)
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
// file, dir relative to testenv.Dir().
func Suite(t testing.TB, dir, data string, limit int) (*graph.Graph, []Query) {
	t.Helper()
	dir = filepath.Join(testenv.Dir(), dir)
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
	path := filepath.Join(testenv.Dir(), "wikivote-graphpi", "wiki-vote_input")
	f, err := os.Open(path)
	if err != nil {
		testenv.Missing(t, "wiki-Vote", err)
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

// WikiVotePattern is one of the patterns the engines' wiki-Vote checks run.
type WikiVotePattern struct {
	Name    string
	Pattern *pattern.Pattern
}

// WikiVotePatterns are the wiki-Vote checks' patterns: the triangle and the 4-clique.
func WikiVotePatterns(t testing.TB) []WikiVotePattern {
	t.Helper()
	var ps []WikiVotePattern
	for _, c := range []struct{ name, pat string }{
		{"triangle", "(a)-(b)-(c)-(a)"},
		{"4-clique", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)"},
	} {
		p, err := pattern.Parse(c.pat)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, WikiVotePattern{c.name, p})
	}
	return ps
}

// STMatchPatterns reads STMatch's 24 benchmark patterns (stmatch-patterns/wikivote-unlabelled.tsv)
// named in names, in the file's order (none named: all of them).
func STMatchPatterns(t testing.TB, names ...string) []WikiVotePattern {
	t.Helper()
	f, err := os.Open(testenv.Path(t, "stmatch-patterns/wikivote-unlabelled.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := "," + strings.Join(names, ",") + ","
	var ps []WikiVotePattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) < 2 || strings.HasPrefix(fs[0], "#") || (len(names) > 0 && !strings.Contains(want, ","+fs[0]+",")) {
			continue
		}
		p, err := pattern.Parse(fs[1])
		if err != nil {
			t.Fatalf("%s: %v", fs[0], err)
		}
		ps = append(ps, WikiVotePattern{fs[0], p})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(names) > 0 && len(ps) != len(names) {
		t.Fatalf("found %d of the patterns %v", len(ps), names)
	}
	return ps
}
