package bench

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"github.com/submatch/submatch/internal/testenv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	_ "github.com/submatch/submatch/engine/cpu" // registers "cpu"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/pattern"
)

func cpuEngine(t testing.TB) engine.Engine {
	t.Helper()
	e, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestRunQuickMachinery runs the suite's machinery (generated data, random-walk queries, two
// thread counts, reports) on a tiny R-MAT graph. It checks outcomes, never timings.
func TestRunQuickMachinery(t *testing.T) {
	tiny := func() (*graph.Graph, error) {
		return gen.RMAT(gen.RMATOptions{Scale: 8, EdgeFactor: 4, VertexLabels: 4, EdgeLabels: 2, Seed: 3})
	}
	cases := GeneratedCases("tiny", tiny, []int{3, 4, 6}, 2, 7)
	cases = append(cases, Case{
		Name: "tiny/triangle", Group: "tiny-unlabelled", Data: cases[0].Data, Query: "(a)-(b)-(c)-(a)",
		Pattern:   func(*graph.Graph) (*pattern.Pattern, error) { return pattern.Parse("(a)-(b)-(c)-(a)") },
		Semantics: engine.Semantics{Unique: true},
	})
	var log bytes.Buffer
	rs, err := Run(context.Background(), Config{Cases: cases, Engine: cpuEngine(t), Threads: []int{2, 1},
		Repeats: 2, Timeout: time.Minute, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2*len(cases) {
		t.Fatalf("%d results for %d cases at 2 thread counts", len(rs), len(cases))
	}
	g, _ := tiny()
	for i, r := range rs {
		c := cases[i/2]
		if r.Case != c.Name || r.Threads != 1+i%2 {
			t.Fatalf("result %d is %s at %d threads, want %s at %d", i, r.Case, r.Threads, c.Name, 1+i%2)
		}
		if r.Status != StatusOK || r.Runs != 2 || r.Count == 0 {
			t.Fatalf("%s at %d threads: %s, %d runs, count %d (%s)", r.Case, r.Threads, r.Status, r.Runs, r.Count, r.Err)
		}
		if r.Load <= 0 || r.Match <= 0 || r.Vertices != 256 {
			t.Fatalf("%s: missing measurements %+v", r.Case, r)
		}
		if r.Speedup <= 0 || (r.Threads == 1 && r.Speedup != 1) {
			t.Fatalf("%s at %d threads has speedup %v", r.Case, r.Threads, r.Speedup)
		}
		p, _ := c.Pattern(g)
		if want, ok := oracle.CountWithin(g, p, c.Semantics, 1e8); ok && want != r.Count {
			t.Fatalf("%s: count %d, oracle %d", r.Case, r.Count, want)
		}
	}
	if !strings.Contains(log.String(), "tiny/q_3_0") {
		t.Fatalf("log does not mention the cases:\n%s", log.String())
	}

	dir := t.TempDir()
	if err := WriteReports(dir, rs); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, CSVFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(rs)+1 || len(rows[0]) != len(csvHeader) {
		t.Fatalf("CSV has %d rows of %d columns", len(rows), len(rows[0]))
	}
	// The CSV reads back (what cmd/submatch-chart draws from).
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCSV(f)
	if err != nil || len(back) != len(rs) {
		t.Fatalf("ReadCSV: %d results, error %v", len(back), err)
	}
	for i := range rs {
		a, b := rs[i], back[i]
		if a.Case != b.Case || a.Count != b.Count || a.Threads != b.Threads || a.Status != b.Status ||
			a.Expected != b.Expected || a.HasExpected != b.HasExpected || a.Edges != b.Edges {
			t.Errorf("row %d read back as %+v, written %+v", i, b, a)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if err != nil || !strings.Contains(string(md), "| tiny/q_6_1 |") || !strings.Contains(string(md), "| tiny-unlabelled |") {
		t.Fatalf("markdown lacks rows (%v):\n%s", err, md)
	}
}

// TestRunTimeout checks that a run cut short is recorded as a timeout with a lower bound.
func TestRunTimeout(t *testing.T) {
	big := func() (*graph.Graph, error) {
		return gen.RMAT(gen.RMATOptions{Scale: 14, EdgeFactor: 16, Seed: 1})
	}
	const clique = "(a)-(b)-(c)-(d)-(e)-(f)-(a), (a)-(c), (a)-(d), (a)-(e), (b)-(d), (b)-(e), (b)-(f), (c)-(e), (c)-(f), (d)-(f)"
	c := Case{Name: "big/6-clique", Group: "big", Data: &Dataset{Name: "big", Generate: big}, Query: clique,
		Pattern: func(*graph.Graph) (*pattern.Pattern, error) { return pattern.Parse(clique) }}
	rs, err := Run(context.Background(), Config{Cases: []Case{c}, Engine: cpuEngine(t), Threads: []int{1},
		Repeats: 3, Timeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r := rs[0]; r.Status == StatusOK {
		t.Skipf("the engine counted %d in under a millisecond: nothing to cut short", r.Count)
	} else if r.Status != StatusTimeout || r.Runs != 1 || r.Speedup != 0 {
		t.Fatalf("got %s after %d runs (%s), want one timeout", r.Status, r.Runs, r.Err)
	}
}

func TestWrongCountDetected(t *testing.T) {
	cases := GeneratedCases("tiny", func() (*graph.Graph, error) {
		return gen.RMAT(gen.RMATOptions{Scale: 6, VertexLabels: 2, Seed: 1})
	}, []int{3}, 1, 1)
	cases[0].Expected, cases[0].HasExpected = 1<<60, true
	rs, err := Run(context.Background(), Config{Cases: cases, Engine: cpuEngine(t), Threads: []int{1}, Repeats: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Status != StatusWrong {
		t.Fatalf("status %s for a count that differs from the published one", rs[0].Status)
	}
}

func TestSuiteFromTestdata(t *testing.T) {
	testdata := testenv.Path(t, ".")
	cases, missing, err := Suite(SuiteQuick, testdata)
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string]int{}
	names := map[string]bool{}
	for _, c := range cases {
		groups[c.Group]++
		if names[c.Name] {
			t.Fatalf("case %s twice", c.Name)
		}
		names[c.Name] = true
	}
	if groups["rmat-16"] != 2*len(RMATQuerySizes) || groups["rmat-18"] != 2*len(RMATQuerySizes) || groups["rmat-17"] != 0 {
		t.Fatalf("quick R-MAT cases: %v", groups)
	}
	if len(missing) > 0 {
		testenv.Missing(t, "the quick suite's data", fmt.Errorf("%v", missing))
	}
	if groups["hprd"] != 20 || groups["github"] != 11 || groups["wikivote"] != 3 {
		t.Fatalf("quick suite groups: %v", groups)
	}
	if !names["hprd/query_dense_16_20"] || names["hprd/query_dense_16_21"] {
		t.Fatal("quick suite does not take HPRD queries 1..20 in numeric order")
	}
	for _, c := range cases {
		if (c.Group == "hprd" || c.Group == "github") && !c.HasExpected {
			t.Fatalf("%s has no expected count", c.Name)
		}
	}
	all, _, err := Suite(SuiteDefault, testdata)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 100+11+3+7*3*len(RMATQuerySizes) {
		t.Fatalf("default suite has %d cases", len(all))
	}
	if _, _, err := Suite("huge", testdata); err == nil {
		t.Fatal("unknown suite accepted")
	}
}

func TestSMWriterRoundTrip(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 7, VertexLabels: 5, EdgeLabels: 3, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "g.graph")
	if err := WriteSMFile(path, g); err != nil {
		t.Fatal(err)
	}
	h, err := formats.Load(path, formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h.NumVertices() != g.NumVertices() || h.NumEdges() != g.NumEdges() {
		t.Fatalf("round trip: %d/%d vertices, %d/%d edges", h.NumVertices(), g.NumVertices(), h.NumEdges(), g.NumEdges())
	}
	for v := range uint32(g.NumVertices()) {
		// h may number vertices differently; OriginalID is the id written, g's dense id.
		w := findOriginal(t, h, int64(v))
		if h.VertexLabel(w) != g.VertexLabel(v) || h.Degree(w) != g.Degree(v) {
			t.Fatalf("vertex %d changed in the round trip", v)
		}
	}

	q, err := gen.RandomWalkQuery(g, 6, 1, gen.QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	qpath := filepath.Join(dir, "q.graph")
	if err := WriteSMFile(qpath, q); err != nil {
		t.Fatal(err)
	}
	back, err := formats.LoadPattern(qpath, formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if back.NumVertices() != q.NumVertices() || back.NumEdges() != q.NumEdges() {
		t.Fatalf("pattern round trip: %s became %s", q, back)
	}
	wild, _ := pattern.Parse("(a)-(b)")
	if err := WritePatternSM(&bytes.Buffer{}, wild); err == nil {
		t.Fatal("wildcard pattern written")
	}
}

func findOriginal(t *testing.T, g *graph.Graph, id int64) uint32 {
	t.Helper()
	for v := range uint32(g.NumVertices()) {
		if g.OriginalID(v) == id {
			return v
		}
	}
	t.Fatalf("no vertex with original id %d", id)
	return 0
}

func TestReadExpected(t *testing.T) {
	path := filepath.Join(t.TempDir(), "expected_output.res")
	os.WriteFile(path, []byte("Q_0:6267\n\nQ_12:1800000000\n"), 0o644)
	got, err := readExpected(path)
	if err != nil || got["Q_0"] != 6267 || got["Q_12"] != 1800000000 || len(got) != 2 {
		t.Fatalf("got %v, %v", got, err)
	}
	os.WriteFile(path, []byte("Q_0 6267\n"), 0o644)
	if _, err := readExpected(path); err == nil {
		t.Fatal("malformed line accepted")
	}
}

func TestReportsWithoutCompletedRuns(t *testing.T) {
	rs := []Result{{Case: "x/a", Group: "x", Threads: 1, Status: StatusError, Err: "no data"},
		{Case: "x/a", Group: "x", Threads: 2, Status: StatusTimeout, Count: 5, Match: time.Second}}
	if err := WriteReports(t.TempDir(), rs); err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rs); err != nil || !strings.Contains(md.String(), "| x/a | – |") ||
		!strings.Contains(md.String(), "| > 1 s |") {
		t.Fatalf("%v\n%s", err, md.String())
	}
}
