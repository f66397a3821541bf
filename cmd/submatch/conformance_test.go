package main

// Conformance: the counts of the engine behind --engine auto against counts published by other
// systems, on the public data in ../shared/testdata (see its README.md). Each case is a subtest;
// a case whose files are missing is skipped.

import (
	"bufio"
	"context"
	"fmt"
	"github.com/submatch/submatch/internal/testenv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// confEngine is the engine conformance runs through (resolved from the registry like --engine auto).
func confEngine(t *testing.T) engine.Engine {
	t.Helper()
	e, err := resolveEngine("auto")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func confLoad(t *testing.T, path string, opts formats.Options) *graph.Graph {
	t.Helper()
	g, err := formats.Load(path, opts)
	if err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
	return g
}

func confCount(t *testing.T, e engine.Engine, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics) uint64 {
	t.Helper()
	start := time.Now()
	res, err := e.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: sem})
	if err != nil || res.Partial {
		t.Fatalf("count %s (%s): partial %v, error %v", p, sem, res.Partial, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Logf("slow: %s (%s) took %s", p, sem, d)
	}
	return res.Count
}

// readExpected reads a name:count file.
func readExpected(t *testing.T, path string) (names []string, counts map[string]uint64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts = map[string]uint64{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		name, num, ok := strings.Cut(s, ":")
		n, err := strconv.ParseUint(strings.TrimSpace(num), 10, 64)
		if !ok || err != nil {
			t.Fatalf("%s:%d: expected name:count, got %q", path, line, s)
		}
		name = strings.TrimSpace(name)
		names = append(names, name)
		counts[name] = n
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return names, counts
}

// expectedSuite checks every query listed in dir/expected_output.res (embeddings) against
// dir/data, loading dir/query_graph/NAME.graph; a listed query whose file is missing is skipped.
func expectedSuite(t *testing.T, dir, data string) {
	dir = needData(t, dir)
	e := confEngine(t)
	g := confLoad(t, filepath.Join(dir, data), formats.Options{})
	names, want := readExpected(t, filepath.Join(dir, "expected_output.res"))
	start := time.Now()
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			qp := filepath.Join(dir, "query_graph", name+".graph")
			if _, err := os.Stat(qp); err != nil {
				testenv.Missing(t, qp, err)
			}
			p, err := formats.LoadPattern(qp, formats.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := confCount(t, e, g, p, engine.Semantics{}); got != want[name] {
				t.Errorf("%s: %d embeddings, want %d", name, got, want[name])
			}
		})
	}
	t.Logf("%d queries in %s", len(names), time.Since(start))
}

func TestConformanceHPRD(t *testing.T) {
	expectedSuite(t, "hprd-subgraphmatching", "HPRD.graph")
}

func TestConformanceGitHub(t *testing.T) {
	expectedSuite(t, "github-gmatch", "data.graph")
}

// unlabelled patterns with their published citeseer counts (non-induced unique, induced unique)
// and |Aut|.
var citeseerCases = []struct {
	name, pattern    string
	unique, inducedU uint64
	aut              uint64
}{
	{"triangle", "(a)-(b)-(c)-(a)", 1166, 1166, 6},
	{"wedge", "(a)-(b)-(c)", 26878, 23380, 2},
	{"4-clique", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)", 255, 255, 24},
	{"diamond", "(a)-(b)-(c)-(d)-(a), (a)-(c)", 3730, 2200, 4},
	{"4-cycle", "(a)-(b)-(c)-(d)-(a)", 6059, 3094, 8},
	{"tailed-triangle", "(a)-(b)-(c)-(a), (a)-(d)", 34760, 22900, 2},
	{"3-star", "(a)-(b), (a)-(c), (a)-(d)", 250950, 222630, 6},
	{"4-path", "(a)-(b)-(c)-(d)", 185589, 111153, 2},
}

func TestConformanceCiteseer(t *testing.T) {
	dir := needData(t, "citeseer-graphminer")
	e := confEngine(t)
	g := confLoad(t, dir, formats.Options{})
	if g.NumVertices() != 3312 || g.NumEdges() != 4536 {
		t.Fatalf("citeseer: %d vertices, %d edges; want 3312, 4536", g.NumVertices(), g.NumEdges())
	}
	for _, c := range citeseerCases {
		t.Run(c.name, func(t *testing.T) {
			p, err := pattern.Parse(c.pattern) // wildcards: the data graph's labels are ignored
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []struct {
				sem  engine.Semantics
				want uint64
			}{
				{engine.Semantics{Unique: true}, c.unique},
				{engine.Semantics{Induced: true, Unique: true}, c.inducedU},
				{engine.Semantics{}, c.unique * c.aut},
				{engine.Semantics{Induced: true}, c.inducedU * c.aut},
			} {
				if got := confCount(t, e, g, p, k.sem); got != k.want {
					t.Errorf("%s %s: %d, want %d", c.name, k.sem, got, k.want)
				}
			}
		})
	}
}

func TestConformanceWikiVote(t *testing.T) {
	path := needData(t, "wikivote-graphpi/wiki-vote_input")
	e := confEngine(t)
	g := confLoad(t, path, formats.Options{})
	if g.NumVertices() != 7115 || g.NumEdges() != 100762 {
		t.Errorf("wiki-Vote: %d vertices, %d edges; want 7115, 100762", g.NumVertices(), g.NumEdges())
	}
	p, err := pattern.Parse("(a)-(b)-(c)-(a)")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("triangle", func(t *testing.T) {
		if got := confCount(t, e, g, p, engine.Semantics{Unique: true}); got != 608389 {
			t.Errorf("wiki-Vote: %d unique triangles, want 608389", got)
		}
	})
}

// The Glasgow Subgraph Solver's instances may carry self-loops, which it treats as part of the
// graph: a pattern vertex with a loop must map to a target vertex with a loop, and under induced
// matching a pattern vertex without one must map to a target vertex without one. submatch graphs
// have no self-loops, so the instances are loaded with DropSelfLoops and the loops come back as
// labels: target vertices get label 1 with a loop and 0 without; pattern vertices get label 1
// with a loop and, without one, label 0 when induced or a wildcard when not. This is exactly
// Glasgow's semantics.

// glasgowLoops returns the names of the looped vertices of a LAD or CSV file, and for CSV the
// names in order of first appearance (the loader numbers non-integer names that way).
func glasgowLoops(t *testing.T, path string) (loops map[string]bool, order []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	loops = map[string]bool{}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if strings.HasSuffix(path, ".csv") {
		seen := map[string]bool{}
		for _, l := range lines {
			f := strings.Split(strings.TrimSpace(l), ",")
			for _, name := range f[:min(2, len(f))] {
				if name != "" && !seen[name] {
					seen[name] = true
					order = append(order, name)
				}
			}
			if len(f) >= 2 && f[0] == f[1] {
				loops[f[0]] = true
			}
		}
		return loops, order
	}
	for i, l := range lines[1:] { // LAD: n, then "degree nbr..." for vertex i
		f := strings.Fields(l)
		for _, w := range f[min(1, len(f)):] {
			if w == strconv.Itoa(i) {
				loops[w] = true
			}
		}
	}
	return loops, nil
}

// glasgowGraph loads a Glasgow instance with its loops as vertex labels (see above).
func glasgowGraph(t *testing.T, path string) (*graph.Graph, []bool) {
	t.Helper()
	g := confLoad(t, path, formats.Options{DropSelfLoops: true})
	loops, order := glasgowLoops(t, path)
	looped := make([]bool, g.NumVertices())
	numeric := true
	for _, name := range order {
		if _, err := strconv.ParseInt(name, 10, 64); err != nil {
			numeric = false
		}
	}
	b := graph.NewBuilder(graph.BuilderOptions{})
	for v := range g.NumVertices() {
		id := g.OriginalID(uint32(v))
		name := strconv.FormatInt(id, 10)
		if order != nil && !numeric {
			name = order[id]
		}
		looped[v] = loops[name]
		label := uint32(0)
		if looped[v] {
			label = 1
		}
		if err := b.SetVertexLabel(int64(v), label); err != nil {
			t.Fatal(err)
		}
	}
	for v := range g.NumVertices() {
		for _, w := range g.Neighbors(uint32(v)) {
			if err := b.AddEdge(int64(v), int64(w), 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	n := 0
	for _, l := range looped {
		if l {
			n++
		}
	}
	if n != len(loops) {
		t.Fatalf("%s: found %d looped vertices in the file, matched %d", path, len(loops), n)
	}
	lg, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return lg, looped
}

// glasgowPattern turns a loop-labelled graph into a pattern (see above).
func glasgowPattern(t *testing.T, g *graph.Graph, looped []bool, induced bool) *pattern.Pattern {
	t.Helper()
	labels := make([]pattern.Label, g.NumVertices())
	var edges []pattern.Edge
	for v := range labels {
		switch {
		case looped[v]:
			labels[v] = pattern.Exact(1)
		case induced:
			labels[v] = pattern.Exact(0)
		default:
			labels[v] = pattern.Wildcard
		}
		for _, w := range g.Neighbors(uint32(v)) {
			if int(w) > v {
				edges = append(edges, pattern.Edge{U: v, V: int(w), Label: pattern.Wildcard})
			}
		}
	}
	p, err := pattern.New(labels, edges, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConformanceGlasgow(t *testing.T) {
	dir := needData(t, "glasgow")
	e := confEngine(t)
	for _, c := range []struct {
		pattern, target string
		induced         bool
		want            uint64
	}{
		{"small", "large", false, 6},
		{"small", "large", true, 0},
		{"trident.csv", "longtrident.csv", false, 12},
		{"c3.csv", "c3c2.csv", true, 6},
	} {
		name := c.pattern + "-" + c.target
		if c.induced {
			name += "-induced"
		}
		t.Run(name, func(t *testing.T) {
			pg, ploops := glasgowGraph(t, filepath.Join(dir, c.pattern))
			tg, _ := glasgowGraph(t, filepath.Join(dir, c.target))
			p := glasgowPattern(t, pg, ploops, c.induced)
			if got := confCount(t, e, tg, p, engine.Semantics{Induced: c.induced}); got != c.want {
				t.Errorf("%s in %s (induced %v): %d, want %d", c.pattern, c.target, c.induced, got, c.want)
			}
		})
	}
	// The loops matter: without them small is a 4-cycle, which occurs more often in large.
	t.Run("small-large-loops-dropped", func(t *testing.T) {
		p, err := formats.LoadPattern(filepath.Join(dir, "small"), formats.Options{DropSelfLoops: true})
		if err != nil {
			t.Fatal(err)
		}
		g := confLoad(t, filepath.Join(dir, "large"), formats.Options{DropSelfLoops: true})
		if got := confCount(t, e, g, p, engine.Semantics{}); got <= 6 {
			t.Errorf("4-cycles in large: %d, want more than the 6 through the looped vertex", got)
		}
	})
	// And without DropSelfLoops the command refuses them as bad input.
	t.Run("self-loop-refused", func(t *testing.T) {
		code, _, errOut := runCmd(t, "count", filepath.Join(dir, "large"), filepath.Join(dir, "small"))
		if code != exitUsage || !strings.Contains(errOut, "self-loop") {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})
}

func TestConformanceVF3Refused(t *testing.T) {
	dir := needData(t, "vf3-mivia")
	for _, name := range []string{"bvg1", "m2d1", "rand1", "si2_b03_m400_37"} {
		t.Run(name, func(t *testing.T) {
			data, query := filepath.Join(dir, name+".grf"), filepath.Join(dir, name+".sub.grf")
			for _, args := range [][]string{{"count", data, query}, {"stats", data}, {"count", "--format", "grf", data, "(a)-(b)"}} {
				code, _, errOut := runCmd(t, args...)
				if code != exitUsage || !strings.Contains(errOut, "directed") {
					t.Errorf("%q: exit %d, stderr %q; want 2 and a message about directed graphs", args, code, errOut)
				}
			}
		})
	}
}

// TestConformanceCLI runs a few of the published counts through the command line itself.
func TestConformanceCLI(t *testing.T) {
	dir := needData(t, "hprd-subgraphmatching")
	_, want := readExpected(t, filepath.Join(dir, "expected_output.res"))
	args := []string{"count", filepath.Join(dir, "HPRD.graph")}
	var queries []string
	for i := 1; i <= 5; i++ {
		q := filepath.Join(dir, "query_graph", fmt.Sprintf("query_dense_16_%d.graph", i))
		if _, err := os.Stat(q); err == nil {
			queries = append(queries, q)
		}
	}
	code, out, errOut := runCmd(t, append(args, queries...)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	rows := tsv(out)
	if len(rows) != len(queries) {
		t.Fatalf("want %d lines, got %q", len(queries), out)
	}
	for i, q := range queries {
		name := strings.TrimSuffix(filepath.Base(q), ".graph")
		if rows[i][0] != q || rows[i][1] != strconv.FormatUint(want[name], 10) {
			t.Errorf("%s: got %q, want count %d", name, rows[i], want[name])
		}
	}
}
