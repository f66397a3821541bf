package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/submatch/submatch/internal/testenv"
	"image/png"
	"io"
	"iter"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/pattern"
)

// needData returns the path of a file or folder under testdata, skipping the test when it is
// missing (failing it in CI).
func needData(t testing.TB, rel string) string {
	t.Helper()
	return testenv.Path(t, rel)
}

// runCmd runs a command line in-process and returns the exit status, stdout and stderr.
func runCmd(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	return runCmdCtx(context.Background(), t, args...)
}

func runCmdCtx(ctx context.Context, t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// writeFile writes a temporary file and returns its path.
func writeFile(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fields splits the output into lines of tab-separated fields.
func tsv(out string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if line != "" {
			rows = append(rows, strings.Split(line, "\t"))
		}
	}
	return rows
}

func TestCountSampleDataset(t *testing.T) {
	dir := needData(t, "hprd-subgraphmatching/sample_dataset")
	data := filepath.Join(dir, "test_case_1.graph")
	q1 := filepath.Join(dir, "query1_positive.graph")
	q2 := filepath.Join(dir, "query2_positive.graph")
	// Checked by hand: query1 (a label-0 vertex with a label-1 and a label-2 neighbour) occurs once;
	// query2 (a 1-2-2-1 labelled 4-cycle) occurs twice, as the two orientations of 1-3-4-2.
	code, out, errOut := runCmd(t, "count", data, q1, q2)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	rows := tsv(out)
	if len(rows) != 2 {
		t.Fatalf("want 2 result lines, got %q", out)
	}
	for i, want := range []struct{ query, count string }{{q1, "1"}, {q2, "2"}} {
		if rows[i][0] != want.query || rows[i][1] != want.count || rows[i][2] != "embeddings" {
			t.Errorf("line %d = %q, want %s\t%s\tembeddings\t...", i, rows[i], want.query, want.count)
		}
	}
}

func TestCountInlinePattern(t *testing.T) {
	dir := needData(t, "hprd-subgraphmatching/sample_dataset")
	data := filepath.Join(dir, "test_case_1.graph")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"(a)-(b)-(c)-(a)"}, "6\tembeddings"},
		{[]string{"(a)-(b)-(c)-(a)", "--unique"}, "1\tunique"},
		{[]string{"(a:1)-(b:2)"}, "2\tembeddings"},
		{[]string{"(a:1)-(b:2)", "--unique", "--induced"}, "2\tunique-induced"},
	} {
		args := append([]string{"count", data}, tc.args...)
		code, out, errOut := runCmd(t, args...)
		if code != 0 {
			t.Errorf("%q: exit %d, stderr %q", tc.args, code, errOut)
			continue
		}
		if !strings.Contains(out, "\t"+tc.want+"\t") {
			t.Errorf("%q: got %q, want a line with %q", tc.args, out, tc.want)
		}
	}
	// Induced wedges = wedges - 3 x triangles: every triangle holds 3 non-induced wedges x 2 orders.
	count := func(args ...string) string {
		code, out, errOut := runCmd(t, append([]string{"count", data}, args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d, stderr %q", args, code, errOut)
		}
		return tsv(out)[0][1]
	}
	wedges, induced, triangles := count("(a)-(b)-(c)"), count("--induced", "(a)-(b)-(c)"), count("(a)-(b)-(c)-(a)")
	var w, i, tr int
	fmt.Sscan(wedges, &w)
	fmt.Sscan(induced, &i)
	fmt.Sscan(triangles, &tr)
	if w-i != tr {
		t.Errorf("wedges %d - induced wedges %d != triangle embeddings %d", w, i, tr)
	}
}

func TestCountJSON(t *testing.T) {
	dir := needData(t, "hprd-subgraphmatching/sample_dataset")
	data := filepath.Join(dir, "test_case_1.graph")
	q := "(a)-(b)-(c)-(a)"
	// Flags after the positional arguments, too.
	code, out, errOut := runCmd(t, "count", data, q, "--json", "--unique", "--threads", "2")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("output %q is not one JSON object: %v", out, err)
	}
	for _, k := range []string{"query", "count", "semantics", "elapsed_ms", "partial", "engine", "pattern_vertices", "pattern_edges"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, out)
		}
	}
	if rec["query"] != q || rec["count"] != 1.0 || rec["semantics"] != "unique" || rec["partial"] != false ||
		rec["engine"] != "cpu" || rec["pattern_vertices"] != 3.0 || rec["pattern_edges"] != 3.0 {
		t.Errorf("unexpected JSON %s", out)
	}
	// --engine auto (the default) says why it chose the engine it names.
	if why, _ := rec["auto"].(string); !strings.Contains(why, "below the GPU threshold") {
		t.Errorf("JSON field auto = %q, want the reason for the choice", rec["auto"])
	}
	if code, out, _ := runCmd(t, "count", "--engine", "cpu", "--json", data, q); code != 0 || strings.Contains(out, `"auto"`) ||
		!strings.Contains(out, `"engine":"cpu"`) {
		t.Errorf("--engine cpu: exit %d, %s", code, out)
	}
}

// TestExplainEngine: --explain prints, after each plan, the engine that runs it and why.
func TestExplainEngine(t *testing.T) {
	dir := needData(t, "hprd-subgraphmatching/sample_dataset")
	data := filepath.Join(dir, "test_case_1.graph")
	q := "(a)-(b)-(c)-(a)"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"count", "--explain", data, q}, "\nengine: cpu (auto: at most "},
		{[]string{"count", "--explain", "--engine", "cpu", data, q}, "\nengine: cpu (chosen with --engine)\n"},
		{[]string{"list", "--explain", data, q}, "\nengine: cpu (auto: at most 65 search nodes (bound from the plan), below the GPU threshold "},
	} {
		code, out, errOut := runCmd(t, tc.args...)
		if code != 0 || !strings.Contains(errOut, "plan for "+q) || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q, want it to contain %q", tc.args, code, errOut, tc.want)
		}
		if tc.args[0] == "count" && !strings.HasPrefix(out, q+"\t6\t") {
			t.Errorf("%q: stdout %q", tc.args, out)
		}
	}
	code, _, errOut := runCmd(t, "count", "--explain", data, q)
	if code != 0 || !regexpMatch(`engine: cpu \(auto: at most \d+ search nodes \(bound from the plan\), below the GPU threshold [0-9.e]+\)\n`, errOut) {
		t.Errorf("engine line not as documented: %q", errOut)
	}
}

func regexpMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }

func TestListOriginalIDs(t *testing.T) {
	// A triangle on sparse (and negative) ids plus a pendant vertex.
	data := writeFile(t, "sparse.txt", "# sparse ids\n100 200\n200 -3000\n-3000 100\n-3000 7\n")
	tri := "(a)-(b)-(c)-(a)"
	want := []string{"-3000", "100", "200"}

	code, out, errOut := runCmd(t, "list", data, tri)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	rows := tsv(out)
	if len(rows) != 6 {
		t.Fatalf("want 6 embeddings, got %q", out)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		seen[strings.Join(r, " ")] = true
		s := slices.Clone(r)
		slices.Sort(s)
		if !slices.Equal(s, want) {
			t.Errorf("match %q is not the triangle %q", r, want)
		}
	}
	if len(seen) != 6 {
		t.Errorf("matches are not distinct: %q", out)
	}

	// --unique --header: one match after a header naming the pattern vertices.
	code, out, errOut = runCmd(t, "list", "--unique", data, tri, "--header")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 2 || lines[0] != "# a\tb\tc" {
		t.Fatalf("--unique --header: got %q", out)
	}

	// --json and --limit.
	code, out, errOut = runCmd(t, "list", "--json", "--limit", "2", data, tri)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	lines = strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("--limit 2: got %q", out)
	}
	for _, l := range lines {
		var m struct{ Match []int64 }
		if err := json.Unmarshal([]byte(l), &m); err != nil || len(m.Match) != 3 {
			t.Errorf("bad JSON line %q: %v", l, err)
		}
	}

	// -o FILE, and a labelled edge query hitting the pendant.
	outFile := filepath.Join(t.TempDir(), "out.tsv")
	code, out, errOut = runCmd(t, "list", "-o", outFile, data, "(a)-(b)", "--unique")
	if code != 0 || out != "" {
		t.Fatalf("-o: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	b, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tsv(string(b))); n != 4 {
		t.Errorf("-o: want 4 edges, got %q", b)
	}
	if !strings.Contains(string(b), "7") {
		t.Errorf("-o: the pendant edge -3000-7 is missing: %q", b)
	}
}

func TestBadInputExit2(t *testing.T) {
	bad := writeFile(t, "bad.graph", "t 2 1\nv 0 0 1\nv 1 x 1\ne 0 1\n")
	good := writeFile(t, "good.txt", "0 1\n1 2\n2 0\n")
	for _, tc := range []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"malformed data", []string{"count", bad, "(a)-(b)"}, "bad.graph:3:"},
		{"malformed query", []string{"count", good, bad}, "bad.graph:3:"},
		{"malformed stats", []string{"stats", bad}, "bad.graph:3:"},
		{"unknown flag", []string{"count", "--no-such-flag", good, "(a)-(b)"}, "no-such-flag"},
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"no arguments", []string{}, "Usage"},
		{"missing query", []string{"count", good}, "count needs"},
		{"missing file", []string{"count", filepath.Join(t.TempDir(), "nope.graph"), "(a)-(b)"}, "nope.graph"},
		{"missing query file", []string{"count", good, "nope.graph"}, "nope.graph"},
		{"bad inline pattern", []string{"count", good, "(a)-(b"}, `inline pattern "(a)-(b":1:`},
		{"directed inline pattern", []string{"list", good, "(a)->(b)"}, "directed"},
		{"unknown engine", []string{"count", "--engine", "abacus", good, "(a)-(b)"}, "abacus"},
		{"unknown format", []string{"count", "--format", "xml", good, "(a)-(b)"}, "xml"},
		{"bad flag value", []string{"list", "--limit", "many", good, "(a)-(b)"}, "limit"},
		{"negative limit", []string{"list", "--limit", "-1", good, "(a)-(b)"}, "limit"},
		{"self-loop", []string{"stats", writeFile(t, "loop.txt", "0 1\n1 1\n")}, "loop.txt:2:"},
		{"unknown stmatch kernel", []string{"count", "--engine", "stmatch", "--stmatch-kernel", "fast", good, "(a)-(b)"}, `not "fast"`},
		{"stmatch kernel without stmatch", []string{"count", "--stmatch-kernel", "query", good, "(a)-(b)"}, "needs --engine stmatch"},
		{"geneva flag without geneva", []string{"count", "--geneva-no-tail", good, "(a)-(b)"}, "needs --engine geneva"},
		{"unknown graph memory", []string{"count", "--engine", "stmatch", "--stmatch-graph-memory", "disk", good, "(a)-(b)"}, `not "disk"`},
		{"graph memory without stmatch", []string{"count", "--stmatch-graph-memory", "host", good, "(a)-(b)"}, "needs --engine stmatch"},
		{"edge list with a bad second line", []string{"stats", writeFile(t, "bad2.txt", "1 2\n2 x\n3 1\n")}, "bad2.txt:2:"},
		{"csm graph with an edge given two labels", []string{"count", "--format", "csm", writeFile(t, "twice.graph", "e 0 10 1\ne 10 0\n"), "(a)-(b)"}, "twice.graph: edge 0-10 given with two labels"}, // exited 1
		{"header with json", []string{"list", "--header", "--json", good, "(a)-(b)"}, "--header"},
		{"vertex labels for a t/v/e file", []string{"stats", "--vertex-labels", writeFile(t, "labels.txt", "0 1\n"), bad}, "carry their own vertex labels"},
		{"negative timeout", []string{"count", "--timeout", "-1s", good, "(a)-(b)"}, "--timeout -1s"},
		{"negative timeout, list", []string{"list", "--timeout", "-5ms", good, "(a)-(b)"}, "--timeout -5ms"},
		{"negative timeout, demo", []string{"demo", "--timeout", "-1m"}, "--timeout -1m0s"},
		{"huge demo", []string{"demo", "--vertices", "99999999999"}, "at most 16777216 vertices"}, // ran out of memory
		{"more labels than 32 bits", []string{"gen", "rmat", "--scale", "3", "--vertex-labels", "99999999999", "-o", filepath.Join(t.TempDir(), "r.graph")}, "at most 4294967296"},
		{"huge thread count", []string{"count", "--threads", "99999999999", good, "(a)-(b)"}, "--threads \"99999999999\": expected a thread count in 0..4096"}, // ran out of memory
		{"huge thread count, short", []string{"motifs", "-k", "3", "-t", "100000000", good}, "-t \"100000000\""},
		{"huge thread count, watch", []string{"watch", "--updates", writeFile(t, "up.txt", "e 0 3\n"), "-t", "5000", good, "(a)-(b)"}, "0..4096"},               // killed for its memory
		{"huge query count", []string{"gen", "queries", "--sizes", "3", "--count", "99999999999", good, "--dir", t.TempDir()}, "--count must be in 1..1048576"}, // wrote files for 13 minutes, deaf to SIGTERM
		{"huge bench thread count", []string{"bench", "--threads", "1,99999"}, "--threads: 99999 is more than 4096"},
		{"negative thread count", []string{"count", "-t", "-1", good, "(a)-(b)"}, "-t \"-1\""},
		{"too many R-MAT samples", []string{"gen", "rmat", "--scale", "20", "--edge-factor", "99999999999", "-o", filepath.Join(t.TempDir(), "r.smg")}, "more than 2^40"}, // exited 1
		{"dense demo", []string{"demo", "--attach", "5000", "--vertices", "100000"}, "--attach at most 1024"},
		// engines that cannot do what the command line asks, refused as usage (they exited 1)
		{"list with the census", []string{"list", "--engine", "census", good, "(a)-(b)-(c)"}, "--engine census counts only"},
		{"list with geneva", []string{"list", "--engine", "geneva", good, "(a)-(b)-(c)"}, "--engine geneva counts only"},
		{"census of an edge", []string{"count", "--engine", "census", good, "(a)-(b)"}, "not a connected 3- to 5-vertex pattern"},
		{"census of a labelled pattern", []string{"count", "--engine", "census", good, "(a:1)-(b)-(c)"}, "vertex a has a label"},
		{"demo with the census", []string{"demo", "--engine", "census"}, `--engine census does not count the demo's query "labelled path"`},
		{"pbe on a host engine's GPU", []string{"count", "--engine", "pbe", "--pbe-backend", "gpu:cpu", good, "(a)-(b)"}, `engine "cpu" does not run on a GPU`},
		{"pbe on an unknown GPU engine", []string{"count", "--engine", "pbe", "--pbe-backend", "gpu:abacus", good, "(a)-(b)"}, `unknown engine "abacus"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCmd(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want 2 (stderr %q)", code, errOut)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr %q lacks %q", errOut, tc.want)
			}
			if strings.Contains(errOut, "goroutine") || strings.Contains(errOut, "panic") {
				t.Errorf("stderr looks like a panic: %q", errOut)
			}
			if tc.name != "no arguments" && strings.Count(strings.TrimRight(errOut, "\n"), "\n") != 0 {
				t.Errorf("want one line on stderr, got %q", errOut)
			}
			if tc.name != "no arguments" && !strings.HasPrefix(errOut, "submatch: ") {
				t.Errorf("stderr %q does not start with 'submatch: '", errOut)
			}
		})
	}
	// The self-loop file loads with --drop-self-loops.
	if code, _, errOut := runCmd(t, "stats", "--drop-self-loops", writeFile(t, "loop.txt", "0 1\n1 1\n")); code != 0 {
		t.Errorf("--drop-self-loops: exit %d, stderr %q", code, errOut)
	}
}

func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"help", "count"}, {"list", "-h"}, {"version"}} {
		code, out, errOut := runCmd(t, args...)
		if code != 0 || out == "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	_, out, _ := runCmd(t, "help")
	for _, c := range []string{"count", "list", "demo", "convert", "stats", "version"} {
		if !strings.Contains(out, "  "+c+" ") {
			t.Errorf("help does not list %s: %q", c, out)
		}
	}
	_, out, _ = runCmd(t, "help", "count")
	for _, f := range []string{"--engine", "--threads", "--timeout", "--induced", "--unique", "--format", "--vertex-labels", "--drop-self-loops", "--json", "-v"} {
		if !strings.Contains(out, f) {
			t.Errorf("help count lacks %s", f)
		}
	}
}

func TestPanicIsInternalError(t *testing.T) {
	registerCommand(command{name: "test-panic", run: func(context.Context, []string, io.Writer, io.Writer) int { panic("boom") }})
	defer delete(commands, "test-panic")
	code, _, errOut := runCmd(t, "test-panic")
	if code != exitInternal || !strings.Contains(errOut, "internal error: boom") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestDemo(t *testing.T) {
	start := time.Now()
	code, out, errOut := runCmd(t, "demo")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, errOut, out)
	}
	for _, want := range []string{"vertices", "edges", "embeddings", "induced", "unique", "triangle", "(a)-(b)-(c)-(a)", "holds for every query"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	// The demo is deterministic.
	_, out2, _ := runCmd(t, "demo")
	strip := func(s string) string { // drop the timings
		var b strings.Builder
		for _, l := range strings.Split(s, "\n") {
			f := strings.Fields(l) // column widths follow the timings: compare fields only
			if len(f) > 0 && strings.ContainsAny(f[len(f)-1], "sµ") && !strings.Contains(l, "(") {
				f = f[:len(f)-1]
			}
			l = strings.Join(f, " ")
			if strings.Contains(l, "generated in") || strings.Contains(l, "all counts in") {
				continue
			}
			b.WriteString(l + "\n")
		}
		return b.String()
	}
	if strip(out) != strip(out2) {
		t.Errorf("demo is not deterministic:\n%s\n%s", out, out2)
	}
	t.Logf("demo ran twice in %s", time.Since(start))
	// An engine that does not take the demo's patterns is refused before anything is printed
	// (the census: before, the table's head, then the first query's |Aut| failed).
	if code, out, errOut := runCmd(t, "demo", "--engine", "census"); code != exitUsage || out != "" {
		t.Errorf("demo --engine census: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// refusingEngine is an engine.PatternChecker that refuses the patterns with more edges than
// maxEdges, or with a vertex of label label; it counts nothing.
type refusingEngine struct {
	maxEdges int
	label    uint32
}

func (refusingEngine) Name() string { return "refusing" }

func (refusingEngine) Count(context.Context, *engine.Problem) (engine.Result, error) {
	return engine.Result{}, errors.New("refusing: no count")
}

func (refusingEngine) Matches(context.Context, *engine.Problem) iter.Seq2[[]uint32, error] {
	return func(yield func([]uint32, error) bool) { yield(nil, errors.New("refusing: no listing")) }
}

func (e refusingEngine) CheckPattern(p *pattern.Pattern) error {
	if len(p.Edges()) > e.maxEdges {
		return fmt.Errorf("refusing: %d edges", len(p.Edges()))
	}
	for v := range p.NumVertices() {
		if l := p.VertexLabel(v); !l.Any && l.Value == e.label {
			return fmt.Errorf("refusing: vertex %s has label %d", p.Name(v), l.Value)
		}
	}
	return nil
}

// TestCheckDemoEngine: the demo's engine check asks an engine.PatternChecker about the demo's
// queries, then about the labelled copies its |Aut| counts (wildcards as label 1<<31), and
// names the first it refuses; an engine that takes them all, or checks nothing, passes.
func TestCheckDemoEngine(t *testing.T) {
	var ue *usageError
	for _, c := range []struct {
		eng  engine.Engine
		want string // "" when the engine is not refused
	}{
		{refusingEngine{maxEdges: 100, label: 7}, ""},
		{refusingEngine{maxEdges: 4, label: 7}, `query "diamond, edge labels": refusing: 5 edges`},
		{refusingEngine{maxEdges: 100, label: 3}, `query "labelled path": refusing: vertex d has label 3`},
		{refusingEngine{maxEdges: 100, label: 1 << 31}, `labelled copy of "triangle" (its |Aut|): refusing: vertex 0 has label 2147483648`},
		{nil, ""}, // the CPU engine
	} {
		if c.eng == nil {
			var err error
			if c.eng, err = engine.Lookup("cpu"); err != nil {
				t.Fatal(err)
			}
		}
		err := checkDemoEngine(c.eng)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.eng, err)
		case c.want != "" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: %v, want a usage error with %q", c.eng, err, c.want)
		}
	}
}

// bigGraph writes a random graph with n vertices and m edges as an edge list.
func bigGraph(t testing.TB, n, m int) string {
	rng := rand.New(rand.NewPCG(7, 7))
	var b strings.Builder
	for i := 0; i < m; i++ {
		u, v := rng.IntN(n), rng.IntN(n)
		if u != v {
			fmt.Fprintf(&b, "%d %d\n", u, v)
		}
	}
	return writeFile(t, "big.txt", b.String())
}

func TestTimeoutIsPartial(t *testing.T) {
	// A snapshot loads in milliseconds, so the timeouts below cut the search, not the load
	// (which they would cut too, on a machine loaded enough: see TestLoadCancelled).
	text := bigGraph(t, 3000, 60000)
	data := filepath.Join(t.TempDir(), "big.smg")
	if code, _, errOut := runCmd(t, "convert", text, data); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errOut)
	}
	// Trillions of 6-cycles: no engine finishes this in a test's lifetime.
	const c6 = "(a)-(b)-(c)-(d)-(e)-(f)-(a)"
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"count", []string{"count", "--timeout", "300ms", data, c6}},
		{"count json", []string{"count", "--json", "--timeout", "300ms", data, c6}},
		// list must get past planning to print anything, even under the race detector
		{"list", []string{"list", "--timeout", "2s", data, c6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			code, out, errOut := runCmd(t, tc.args...)
			elapsed := time.Since(start)
			if code != exitPartial {
				t.Errorf("exit %d, want 1 (stderr %q)", code, errOut)
			}
			if !strings.Contains(errOut, "partial") || !strings.Contains(errOut, "timed out") {
				t.Errorf("stderr %q does not say the result is partial", errOut)
			}
			switch tc.name {
			case "count":
				if !strings.Contains(out, "(partial)") {
					t.Errorf("stdout %q does not flag the count as partial", out)
				}
			case "count json":
				var rec struct{ Partial bool }
				if err := json.Unmarshal([]byte(out), &rec); err != nil || !rec.Partial {
					t.Errorf("JSON %q: partial not set (%v)", out, err)
				}
			case "list":
				if out == "" {
					t.Errorf("list printed no matches before the timeout")
				}
			}
			if elapsed > 10*time.Second {
				t.Errorf("the 300ms timeout took %s to stop the run", elapsed)
			}
		})
	}
	// Several queries: the one the timeout cuts and every one after it still get a line, flagged
	// partial, whether they run one at a time or together.
	for _, threads := range []string{"1", "2"} {
		code, out, errOut := runCmd(t, "count", "--threads", threads, "--timeout", "300ms", data, c6, "(a)-(b)", c6)
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if code != exitPartial || len(lines) != 3 || !strings.HasSuffix(lines[0], "(partial)") || !strings.HasSuffix(lines[2], "(partial)") ||
			!strings.HasPrefix(lines[1], "(a)-(b)\t") {
			t.Errorf("three queries, threads %s, timing out: exit %d, stdout %q, stderr %q", threads, code, out, errOut)
		}
	}
	// Cancellation (as by SIGINT) is partial too.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	code, out, errOut := runCmdCtx(ctx, t, "count", data, c6)
	if code != exitPartial || !strings.Contains(out, "(partial)") || !strings.Contains(errOut, "interrupted") {
		t.Errorf("cancelled count: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestStats(t *testing.T) {
	data := writeFile(t, "g.txt", "10 20\n20 30\n30 10\n30 40 \n")
	code, out, errOut := runCmd(t, "stats", data)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"vertices       4", "edges          4", "max degree     3", "remapped ids   yes", "degree distribution"} {
		if !strings.Contains(out, want) {
			t.Errorf("stats lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCmd(t, "stats", "--json", data)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var s graphStats
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if s.Vertices != 4 || s.Edges != 4 || s.MaxDegree != 3 || s.AvgDegree != 2 || !s.RemappedIDs || len(s.DegreeHistogram) != 2 {
		t.Errorf("stats %+v", s)
	}
}

func TestConvertRoundTrip(t *testing.T) {
	dir := needData(t, "hprd-subgraphmatching/sample_dataset")
	data := filepath.Join(dir, "test_case_1.graph")
	snap := filepath.Join(t.TempDir(), "g.smg")
	code, out, errOut := runCmd(t, "convert", data, snap)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "5 vertices, 6 edges") {
		t.Errorf("convert output %q", out)
	}
	q2 := filepath.Join(dir, "query2_positive.graph")
	code, out, errOut = runCmd(t, "count", snap, q2)
	if code != 0 || tsv(out)[0][1] != "2" {
		t.Errorf("count on the snapshot: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestParseArgsInterleaved(t *testing.T) {
	fs := newFlagSet("x", "", "")
	b := fs.Bool("b", false, "")
	s := fs.String("s", "", "")
	pos, err := parseArgs(fs, []string{"p1", "-b", "p2", "--s", "v", "p3", "--", "-b", "p4"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !*b || *s != "v" || !slices.Equal(pos, []string{"p1", "p2", "p3", "-b", "p4"}) {
		t.Errorf("b=%v s=%q pos=%q", *b, *s, pos)
	}
}

// TestCountManyQueriesInOrder: several queries run at once, but results come in the order given,
// with the same counts as one query per run.
func TestCountManyQueriesInOrder(t *testing.T) {
	dir := needData(t, "hprd-subgraphmatching/sample_dataset")
	data := filepath.Join(dir, "test_case_1.graph")
	queries := []string{"(a)-(b)-(c)-(a)", "(a)-(b)", "(a:1)-(b:2)", "(a)-(b)-(c)", "(a), (b)", "(a)-(b)-(c)-(d)"}
	var want []string
	for _, q := range queries {
		_, out, _ := runCmd(t, "count", "--threads", "1", data, q)
		want = append(want, tsv(out)[0][1])
	}
	for _, threads := range []string{"2", "4"} {
		code, out, errOut := runCmd(t, append([]string{"count", "--threads", threads, data}, queries...)...)
		if code != 0 {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
		rows := tsv(out)
		if len(rows) != len(queries) {
			t.Fatalf("threads %s: %d result lines for %d queries:\n%s", threads, len(rows), len(queries), out)
		}
		for i, r := range rows {
			if r[0] != queries[i] || r[1] != want[i] {
				t.Errorf("threads %s line %d: %q %s, want %q %s", threads, i, r[0], r[1], queries[i], want[i])
			}
		}
	}
}

func TestProgressText(t *testing.T) {
	for _, c := range []struct {
		done    float64
		elapsed time.Duration
		want    string
	}{
		{0, 2 * time.Second, "count: " + "  0.0% 2s"},
		{0.25, 3 * time.Second, "count:  25.0% 3s, about 9s left"},
		{1, 4 * time.Second, "count: 100.0% 4s"},
		{1.5, time.Second, "count: 100.0% 1s"},
	} {
		if got := progressText("count", c.done, c.elapsed); got != c.want {
			t.Errorf("progressText(%v, %v) = %q, want %q", c.done, c.elapsed, got, c.want)
		}
	}
	if isTerminal(os.Stdout) && os.Getenv("CI") == "true" {
		t.Error("stdout taken for a terminal in CI")
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if isTerminal(null) {
		t.Error("/dev/null taken for a terminal")
	}
}

// TestStatsLayouts: --formats reports the layout of every engine with one of its own
// (engine.LayoutReporter), GENEVA's Table 2 among them, in text and JSON.
func TestStatsLayouts(t *testing.T) {
	data := writeFile(t, "g.graph", "t 4 4\nv 0 1 3\nv 1 1 2\nv 2 2 2\nv 3 1 1\ne 0 1 0\ne 0 2 0\ne 1 2 1\ne 0 3 1\n")
	code, out, errOut := runCmd(t, "stats", "--formats", "--json", "--no-structure", data)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s struct {
		Formats map[string]map[string]any `json:"formats"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if g := s.Formats["geneva"]; g == nil || g["elps"] != float64(2) || g["interval_pcsr_bytes"] == nil {
		t.Errorf("formats: %v", s.Formats)
	}
	code, out, _ = runCmd(t, "stats", "--formats", "--no-structure", data)
	if code != 0 || !strings.Contains(out, "storage layouts (GENEVA Table 2") || !strings.Contains(out, "interval-PCSR") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestStatsDegreePlot(t *testing.T) {
	data := writeFile(t, "g.txt", "1 2\n2 3\n3 1\n3 4\n4 5\n")
	out := filepath.Join(t.TempDir(), "deg.png")
	if code, _, errOut := runCmd(t, "stats", "--no-structure", "--degree-plot", out, data); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != plotWidth || b.Dy() != plotHeight {
		t.Errorf("plot is %v", b)
	}
	// A bar is drawn: some pixel has the bar colour.
	found := false
	for y := plotTop; y < plotHeight-plotBottom && !found; y++ {
		for x := plotLeft; x < plotWidth-plotRight; x++ {
			if r, g, b, _ := img.At(x, y).RGBA(); r>>8 == 70 && g>>8 == 110 && b>>8 == 180 {
				found = true
				break
			}
		}
	}
	if !found {
		t.Error("no bar drawn")
	}
}

// TestCountVerbosePhases: count -v logs where the process's time went (args, queries, load,
// count, total), the CPU engine's steps (plan, setup, search) and, with a GPU engine, CUDA's
// start by phase, found or not. The CPU engine's query is a 5-path, which its general search
// counts (a triangle goes to the clique counter, which has no search steps).
func TestCountVerbosePhases(t *testing.T) {
	dir := needData(t, "hprd-subgraphmatching/sample_dataset")
	data := filepath.Join(dir, "test_case_1.graph")
	query := map[string]string{"cpu": "(a)-(b)-(c)-(d)-(e)", "stmatch": "(a)-(b)-(c)-(a)"}
	for _, eng := range []string{"cpu", "stmatch"} {
		_, out, errOut := runCmd(t, "count", "-v", "--engine", eng, data, query[eng])
		if eng == "cpu" && !strings.Contains(out, "14\tembeddings") {
			t.Errorf("--engine cpu: got %q", out)
		}
		var process, start, steps string
		for _, line := range strings.Split(errOut, "\n") {
			switch {
			case strings.Contains(line, `msg="count: process"`):
				process = line
			case strings.Contains(line, `msg="cpu: steps"`):
				steps = line
			case strings.Contains(line, `msg="gpu: start"`):
				start = line
			}
		}
		for _, key := range []string{" args=", " queries=", " load=", " count=", " total=", " start_unix_us="} {
			if !strings.Contains(process, key) {
				t.Errorf("--engine %s: no %s in the process record %q (stderr %q)", eng, key, process, errOut)
			}
		}
		if eng != "stmatch" {
			for _, key := range []string{" plan=", " setup=", " search=", " workers=", " ramp="} {
				if !strings.Contains(steps, key) {
					t.Errorf("--engine %s: no %s in the CPU engine's steps %q (stderr %q)", eng, key, steps, errOut)
				}
			}
			continue
		}
		for _, key := range []string{" began=", " discover=", " init=", " devices=", " context=", " nvrtc=", " total=", " ready=", " wait="} {
			if !strings.Contains(start, key) {
				t.Errorf("--engine stmatch: no %s in the GPU start record %q (stderr %q)", key, start, errOut)
			}
		}
	}
}
