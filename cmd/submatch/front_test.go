package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/submatch/submatch/formats"
)

// TestCountStartsInOrder: a count of several queries starts them in the order given (before, the
// goroutines raced for slots and the last-created tended to start first, so a cheap first query
// could print a partial 0 under --timeout while later expensive ones ran).
func TestCountStartsInOrder(t *testing.T) {
	dir := needData(t, "hprd-subgraphmatching/sample_dataset")
	data := filepath.Join(dir, "test_case_1.graph")
	args := []string{"count", "--threads", "2", data}
	for range 24 {
		args = append(args, "(a)-(b)-(c)")
	}
	var (
		mu    sync.Mutex
		order []int
	)
	countStarted = func(i int) { mu.Lock(); order = append(order, i); mu.Unlock() }
	defer func() { countStarted = nil }()
	if code, _, errOut := runCmd(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !slices.IsSorted(order) || len(order) != 24 {
		t.Fatalf("queries started in the order %v", order)
	}
}

// TestListCSVNames: string vertex names of CSV input are printed, not internal indices.
func TestListCSVNames(t *testing.T) {
	data := writeFile(t, "names.csv", "alice,bob\nbob,carol\ncarol,alice\ncarol,dave\n")
	code, out, errOut := runCmd(t, "list", data, "(a)-(b)-(c)-(a)")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := tsv(out)
	if len(rows) != 6 {
		t.Fatalf("%d matches, want 6:\n%s", len(rows), out)
	}
	for _, r := range rows {
		got := slices.Sorted(slices.Values(r))
		if !slices.Equal(got, []string{"alice", "bob", "carol"}) {
			t.Fatalf("match %v, want alice, bob and carol", r)
		}
	}
	_, out, _ = runCmd(t, "list", "--json", data, "(a:0)-(b)", "--limit", "1")
	if !strings.Contains(out, `"match":["`) {
		t.Errorf("JSON names not quoted: %s", out)
	}
}

// TestListOutputIsInput: list -o naming an input file is refused before anything is written.
func TestListOutputIsInput(t *testing.T) {
	data := writeFile(t, "g.txt", "0 1\n1 2\n")
	code, _, errOut := runCmd(t, "list", "-o", data, data, "(a)-(b)")
	if code != exitUsage || !strings.Contains(errOut, "is the input file") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(data); string(b) != "0 1\n1 2\n" {
		t.Fatalf("input changed: %q", b)
	}
}

// TestMemoryFlagUnits: --memory 4GB is 4e9 bytes (SI), 4GiB is 4 x 2^30 (IEC).
func TestMemoryFlagUnits(t *testing.T) {
	for in, want := range map[string]uint64{"4GB": 4_000_000_000, "4GiB": 4 << 30, "512MiB": 512 << 20} {
		if got, err := parseSize("--memory", in); err != nil || got != want {
			t.Errorf("--memory %s = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := parseSize("--memory", "4XB"); err == nil {
		t.Error("--memory 4XB accepted")
	}
}

// TestFlagMessages: flag errors name flags with two dashes, suggest the nearest flag, ask for a
// duration's unit; a missing file says so plainly; a self-loop names the flag that loads it.
func TestFlagMessages(t *testing.T) {
	data := writeFile(t, "g.txt", "0 1\n1 2\n")
	loop := writeFile(t, "loop.txt", "0 1\n1 1\n")
	gmFile := writeFile(t, "graph.edge.bin", "\x00\x01\x02\x03\x04\x05\x06\xff")
	if err := os.WriteFile(filepath.Join(filepath.Dir(gmFile), "graph.meta.txt"), []byte("2 2 4 8 1 2 1 0 1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"count", "--uniqe", data, "(a)-(b)"}, "unknown flag --uniqe (did you mean --unique?)"},
		{[]string{"count", "-uniqe", data, "(a)-(b)"}, "unknown flag --uniqe (did you mean --unique?)"},
		{[]string{"count", "--timeout", "5", data, "(a)-(b)"}, "--timeout 5: add a unit, e.g. 5s or 5m"},
		{[]string{"count", "--threads", "x", data, "(a)-(b)"}, `--threads "x": expected a whole number`},
		{[]string{"stats", filepath.Join(t.TempDir(), "nope.txt")}, "nope.txt: no such file\n"},
		{[]string{"stats", loop}, "self-loop on vertex 1 (--drop-self-loops loads it anyway"},
		// An empty argument (an unset shell variable) is named as such, not as the file ": no such file".
		{[]string{"count", data, ""}, "count: argument 2 is empty"},
		{[]string{"stats", " "}, "stats: argument 1 is empty"},
		{[]string{"temporal", "count", "", "a->b", "--delta", "1"}, "temporal count: argument 1 is empty"},
		// A folder that is not a GraphMiner graph is not an "unrecognised format" to choose; a file
		// of a GraphMiner graph points to its folder.
		{[]string{"stats", filepath.Dir(data)}, "is a folder, not a GraphMiner graph (no graph.meta.txt in it): give a graph file"},
		{[]string{"stats", gmFile}, "graph.edge.bin: is one file of the GraphMiner graph in " + filepath.Dir(gmFile) + ": give the folder"},
		{[]string{"motifs", data}, "motifs needs -k K, the pattern size (3..6)"},
		// An empty labels file is a mistake, not a graph without labels.
		{[]string{"stats", "--vertex-labels", writeFile(t, "labels.txt", "# none\n"), data}, `labels.txt: no labels: expected "<id> <label>" lines`},
		// A query that is neither a file nor an inline pattern says what an inline pattern looks like.
		{[]string{"count", data, "a-b-c"}, "a-b-c: no such file (an inline pattern is written (a)-(b)-(c)"},
	} {
		code, _, errOut := runCmd(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, "stat ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestConvertFollowsName: convert writes the format the output's name (or --to) says, never a
// binary snapshot under a text name, and refuses non-regular outputs and unknown names.
func TestConvertFollowsName(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, "g.csv", "a,b,2\nb,c\nc,a\nd,,5\n")
	for name, format := range map[string]string{"out.graph": "sm", "out.csv": "csv", "out.smg": "smg"} {
		out := filepath.Join(dir, name)
		if code, _, errOut := runCmd(t, "convert", in, out); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		if got, err := formats.Detect(out); err != nil || got != format {
			t.Errorf("%s written as %q (%v), want %s", name, got, err, format)
		}
	}
	out := filepath.Join(dir, "x.data")
	if code, _, _ := runCmd(t, "convert", "--to", "graphml", in, out); code != 0 {
		t.Fatal("--to graphml failed")
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), "<graphml") {
		t.Errorf("--to graphml wrote %q", b)
	}
	for _, args := range [][]string{
		{"convert", in, filepath.Join(dir, "out.xyz")},
		{"convert", "--to", "sm", in, "/dev/null"},
		{"convert", in, in + ".txt"}, // vertex labels and an isolated vertex: not an edge list
		{"convert", "--to", "csv", in, in},
	} {
		if code, _, errOut := runCmd(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errOut)
		}
	}
	if b, _ := os.ReadFile(in); !strings.HasPrefix(string(b), "a,b,2") {
		t.Errorf("input overwritten: %q", b)
	}
}

// failingWriter takes left bytes, then fails every write as a full disk does.
type failingWriter struct{ left int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.left < len(p) {
		return 0, syscall.ENOSPC
	}
	f.left -= len(p)
	return len(p), nil
}

// TestOutputWriteFailure: a command whose standard output cannot be written exits non-zero.
func TestOutputWriteFailure(t *testing.T) {
	data := writeFile(t, "g.txt", "0 1\n1 2\n")
	for _, args := range [][]string{{"stats", data}, {"version"}, {"help"}, {"--help"}, {"help", "count"}, {"gpu-info"},
		{"demo"}, {"convert", "--to", "sm", data, "-"}, {"gen", "rmat", "--scale", "3", "-o", filepath.Join(t.TempDir(), "r.graph")}} {
		if code, _, errOut := runCmd(t, args...); code != exitOK {
			t.Fatalf("%v: exit %d (%s) with a working standard output", args, code, errOut)
		}
		var errOut strings.Builder
		if code := run(context.Background(), args, &failingWriter{}, &errOut); code != exitPartial {
			t.Errorf("%v: exit %d with a failing standard output, want 1", args, code)
		}
	}
}

// TestGPUInfoCompileWithoutGPU: gpu-info --compile with nothing compiled exits 1 (plain
// gpu-info still exits 0 without a GPU).
func TestGPUInfoCompileWithoutGPU(t *testing.T) {
	code, out, _ := runCmd(t, "gpu-info", "--json")
	if code != 0 {
		t.Fatalf("gpu-info: exit %d", code)
	}
	if !strings.Contains(out, `"devices": []`) {
		t.Skip("a GPU is present")
	}
	if code, _, errOut := runCmd(t, "gpu-info", "--compile"); code != exitPartial || !strings.Contains(errOut, "nothing was compiled") {
		t.Errorf("gpu-info --compile without a GPU: exit %d, stderr %q", code, errOut)
	}
}

// TestCountOverflowKeepsRows: a query whose count overflows still prints its row, so the rows
// line up with the queries (text and JSON).
func TestCountOverflowKeepsRows(t *testing.T) {
	data := needData(t, "email-eu-core/email-Eu-core.txt")
	queries := []string{"(a)-(b)", "(a), (b), (c), (d), (e), (f), (g), (h)", "(a)-(b)-(c)"}
	for _, threads := range []string{"1", "2"} {
		code, out, errOut := runCmd(t, append([]string{"count", "--threads", threads, data}, queries...)...)
		rows := tsv(out)
		if code != exitPartial || len(rows) != 3 || rows[1][0] != queries[1] || rows[1][1] != "-" ||
			!strings.Contains(rows[1][4], "overflow") || rows[2][1] != "2366432" || !strings.Contains(errOut, "overflows") {
			t.Errorf("threads %s: exit %d, rows %q, stderr %q", threads, code, rows, errOut)
		}
		_, out, _ = runCmd(t, append([]string{"count", "--json", "--threads", threads, data}, queries...)...)
		if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 3 || !strings.Contains(lines[1], `"error":"count overflows`) {
			t.Errorf("threads %s: JSON %s", threads, out)
		}
	}
}

// TestLoadFaults: a cancelled load exits 1 (interrupted), not 2; devices and FIFOs are refused at
// once (never read or waited on), with or without a forced format.
func TestLoadFaults(t *testing.T) {
	data := writeFile(t, "g.txt", "0 1\n1 2\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if code, _, errOut := runCmdCtx(ctx, t, "stats", data); code != exitPartial || !strings.Contains(errOut, "loading stopped") {
		t.Errorf("cancelled load: exit %d, stderr %q", code, errOut)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Skip(err)
	}
	for _, args := range [][]string{
		{"stats", "--format", "edgelist", "/dev/zero"},
		{"stats", fifo},
		{"count", data, fifo},
		{"stats", "--vertex-labels", fifo, data},
	} {
		if code, _, errOut := runCmd(t, args...); code != exitUsage || !strings.Contains(errOut, "only regular files are read") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// TestListCSV: --csv (or -o FILE.csv) writes comma-separated rows, with a plain header line.
func TestListCSV(t *testing.T) {
	data := writeFile(t, "g.txt", "0 1\n1 2\n")
	code, out, errOut := runCmd(t, "list", "--csv", "--header", data, "(a)-(b)-(c)")
	if code != 0 || out != "a,b,c\n0,1,2\n2,1,0\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	dst := filepath.Join(t.TempDir(), "m.csv")
	if code, _, errOut := runCmd(t, "list", "-o", dst, data, "(a)-(b)-(c)"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(dst); string(b) != "0,1,2\n2,1,0\n" {
		t.Errorf("-o m.csv wrote %q", b)
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"count", "count", 0}, {"cuont", "count", 1}, {"uniqe", "unique", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"ca", "abc", 3}} {
		if d := editDistance(c.a, c.b); d != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, d, c.d)
		}
	}
	if code, _, errOut := runCmd(t, "cuont"); code != exitUsage || !strings.Contains(errOut, "did you mean count?") {
		t.Errorf("cuont: exit %d, %q", code, errOut)
	}
}

// TestListSubgraph: --subgraph writes the union of the matches as a graph, in the format its name
// says, with the data graph's ids and labels.
func TestListSubgraph(t *testing.T) {
	data := writeFile(t, "g.txt", "10 20 1\n20 30 2\n30 10 3\n30 40 4\n")
	dst := filepath.Join(t.TempDir(), "sub.graph")
	if code, _, errOut := runCmd(t, "list", "--subgraph", dst, data, "(a)-(b)-(c)-(a)"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	g, err := formats.Load(dst, formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.NumVertices() != 3 || g.NumEdges() != 3 || !g.HasEdgeLabels() {
		t.Fatalf("subgraph: %d vertices, %d edges", g.NumVertices(), g.NumEdges())
	}
	if code, _, _ := runCmd(t, "list", "--subgraph", filepath.Join(t.TempDir(), "x.xyz"), data, "(a)-(b)"); code != exitUsage {
		t.Errorf("--subgraph x.xyz: exit %d, want 2", code)
	}
}

// TestOwnReadersRefuseFIFOs: the commands whose inputs are read outside the graph loaders
// (temporal events, update streams, watch's --resume checkpoint) refuse a FIFO at once and read
// gzip. (--resume FIFO waited for a writer until 2026-12-06, and Ctrl-C did not stop it.)
func TestOwnReadersRefuseFIFOs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Skip(err)
	}
	graph := writeFile(t, "g.txt", "1 2\n2 3\n")
	for _, args := range [][]string{
		{"temporal", "count", fifo, "a->b", "--delta", "1"},
		{"watch", graph, "(a)-(b)", "--updates", fifo},
		{"watch", graph, "(a)-(b)", "--updates", writeFile(t, "u.txt", "e 1 3\n"), "--resume", fifo},
	} {
		done := make(chan int, 1)
		go func() { code, _, _ := runCmd(t, args...); done <- code }()
		select {
		case code := <-done:
			if code != exitUsage {
				t.Errorf("%v: exit %d, want 2", args, code)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v: still waiting on the FIFO", args)
		}
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte("1 2 10\n2 1 20\n"))
	w.Close()
	events := filepath.Join(dir, "events.txt.gz")
	if err := os.WriteFile(events, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCmd(t, "temporal", "count", events, "a->b, b->a", "--delta", "100"); code != 0 || !strings.HasSuffix(strings.TrimSpace(out), "\t1") {
		t.Errorf("gzip events: exit %d, %q, %q", code, out, errOut)
	}
}

// TestNoGPUSaysWhatToDo: a GPU engine or device asked for on a machine without a GPU says that the
// CPU gives the same results and where to look (exit 1, one line).
func TestNoGPUSaysWhatToDo(t *testing.T) {
	if _, out, _ := runCmd(t, "gpu-info", "--json"); !strings.Contains(out, `"devices": []`) {
		t.Skip("a GPU is present")
	}
	data := writeFile(t, "g.txt", "0 1\n1 2\n2 0\n")
	events := writeFile(t, "e.txt", temporalSample)
	updates := writeFile(t, "u.txt", "e 0 3\n")
	for _, args := range [][]string{
		{"count", "--engine", "stmatch", data, "(a)-(b)"},
		{"list", "--engine", "sgsi", data, "(a)-(b)"}, // geneva counts only: list refuses it first
		{"motifs", "-k", "3", "--device", "gpu", data},
		{"temporal", "count", "--device", "gpu", events, "a->b", "--delta", "5"},
		{"watch", "--engine", "gcsm", data, "(a)-(b)", "--updates", updates},
	} {
		code, _, errOut := runCmd(t, args...)
		if code != exitPartial || !strings.Contains(errOut, "no usable NVIDIA GPU") || !strings.Contains(errOut, "the CPU gives the same results") ||
			!strings.Contains(errOut, "'submatch gpu-info'") || strings.Count(errOut, "submatch: ") != 1 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// TestHelpNamesFlags: 'help temporal' says where the subcommands' flags are, and a flag's value is
// named by what it holds (--device WHERE), not by its default.
func TestHelpNamesFlags(t *testing.T) {
	_, out, _ := runCmd(t, "help", "temporal")
	if !strings.Contains(out, "Run 'submatch temporal count -h'") {
		t.Errorf("help temporal:\n%s", out)
	}
	for _, args := range [][]string{{"motifs", "-h"}, {"temporal", "count", "-h"}} {
		if _, out, _ := runCmd(t, args...); !strings.Contains(out, "  --device WHERE\n") {
			t.Errorf("%v:\n%s", args, out)
		}
	}
	// list's --unique lists (it read "count each distinct subgraph once").
	if _, out, _ := runCmd(t, "list", "-h"); !strings.Contains(out, "list one match per subgraph") {
		t.Errorf("list -h:\n%s", out)
	}
	// No flag's value is named by its Go type ("--density string").
	typed := regexp.MustCompile(`(?m)^  -{1,2}[a-z0-9-]+ (string|int|uint|float|duration|value)$`)
	for _, args := range [][]string{{"count"}, {"list"}, {"watch"}, {"motifs"}, {"stats"}, {"convert"}, {"demo"}, {"bench"},
		{"gen", "rmat"}, {"gen", "queries"}, {"gpu-info"}, {"temporal", "count"}, {"temporal", "list"}, {"temporal", "motifs"}} {
		if _, out, _ := runCmd(t, append(args, "-h")...); typed.MatchString(out) {
			t.Errorf("%v -h: %q", args, typed.FindAllString(out, -1))
		}
	}
}

// TestThreadsShortFlag: every command that takes --threads N takes -t N too (motifs and temporal
// did, count, list, watch and demo did not).
func TestThreadsShortFlag(t *testing.T) {
	for _, args := range [][]string{{"count"}, {"list"}, {"watch"}, {"motifs"}, {"temporal", "count"}, {"temporal", "list"}, {"temporal", "motifs"}, {"demo"}} {
		_, out, _ := runCmd(t, append(args, "-h")...)
		if !strings.Contains(out, "  --threads N\n") || !strings.Contains(out, "  -t N\n") {
			t.Errorf("%v -h lacks --threads N or -t N", args)
		}
	}
	data := writeFile(t, "g.txt", "0 1\n1 2\n2 0\n")
	if code, out, errOut := runCmd(t, "count", "-t", "1", data, "(a)-(b)-(c)-(a)"); code != 0 || !strings.HasPrefix(out, "(a)-(b)-(c)-(a)\t6\t") {
		t.Errorf("count -t 1: exit %d, %q %q", code, out, errOut)
	}
}

// TestConvertInterrupted: Ctrl-C (or --timeout) while convert writes stops it: exit 1, saying so,
// and OUT is neither written nor left half-written (it ran to the end and exited 0).
func TestConvertInterrupted(t *testing.T) {
	in := writeFile(t, "g.txt", "0 1\n1 2\n2 0\n")
	for _, name := range []string{"out.graph", "out.smg", "-"} {
		out := name
		if name != "-" {
			out = filepath.Join(t.TempDir(), name)
		}
		ctx, cancel := context.WithCancel(context.Background())
		dataLoaded = cancel
		code, _, errOut := runCmdCtx(ctx, t, "convert", "--to", map[string]string{"out.graph": "sm", "out.smg": "smg", "-": "csv"}[name], in, out)
		dataLoaded = nil
		want := "convert: interrupted; " + out + " not written\n"
		if name == "-" {
			want = "convert: interrupted; the graph on standard output is incomplete\n"
		}
		if code != exitPartial || !strings.HasSuffix(errOut, want) {
			t.Errorf("%s: exit %d, stderr %q", name, code, errOut)
		}
		if name != "-" {
			if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
				t.Errorf("%s: left %v in %s", name, entries, filepath.Dir(out))
			}
		}
	}
}

// TestStatsInterrupted: Ctrl-C while stats counts triangles says so in words and how to skip them
// (it printed "counting triangles: context canceled").
func TestStatsInterrupted(t *testing.T) {
	data := writeFile(t, "g.txt", "0 1\n1 2\n2 0\n")
	ctx, cancel := context.WithCancel(context.Background())
	dataLoaded = cancel
	defer func() { dataLoaded = nil }()
	code, out, errOut := runCmdCtx(ctx, t, "stats", data)
	if code != exitPartial || out != "" || errOut != "submatch: "+data+": interrupted while counting triangles; nothing printed (--no-structure skips them)\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestStatsDegreePlotChecked: --degree-plot naming the input, a folder or a file in a missing
// folder is refused before the load (exit 2): the input was overwritten with the PNG.
func TestStatsDegreePlotChecked(t *testing.T) {
	data := writeFile(t, "g.txt", "0 1\n1 2\n")
	for _, plot := range []string{data, t.TempDir(), filepath.Join(t.TempDir(), "nope", "d.png")} {
		code, out, errOut := runCmd(t, "stats", "--degree-plot", plot, data)
		if code != exitUsage || out != "" || !strings.HasPrefix(errOut, "submatch: --degree-plot "+plot+": ") {
			t.Errorf("--degree-plot %s: exit %d, stdout %q, stderr %q", plot, code, out, errOut)
		}
	}
	if b, _ := os.ReadFile(data); string(b) != "0 1\n1 2\n" {
		t.Errorf("input changed: %q", b)
	}
}

// TestMemoryBoundSaysWhatToDo: a count refused for --memory says which flag to raise.
func TestMemoryBoundSaysWhatToDo(t *testing.T) {
	data := writeFile(t, "g.txt", "0 1\n1 2\n2 0\n2 3\n")
	code, _, errOut := runCmd(t, "count", "--engine", "cpu", "--memory", "1", data, "(a)-(b)-(c)-(a)")
	if code != exitPartial || !strings.Contains(errOut, "not enough memory") || !strings.Contains(errOut, "raise --memory") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestStdinWaitStops: a command waiting for standard input (a terminal, an idle pipe) stops at
// --timeout or Ctrl-C within a second, saying so (exit 1); it waited until the input closed.
func TestStdinWaitStops(t *testing.T) {
	data := writeFile(t, "g.txt", "0 1\n1 2\n2 0\n")
	saved := os.Stdin
	defer func() { os.Stdin = saved }()
	for _, args := range [][]string{
		{"count", "-", "(a)-(b)"},
		{"count", data, "-"},
		{"stats", "-"},
		{"temporal", "count", "-", "a->b", "--delta", "5"},
		{"watch", data, "(a)-(b)", "--updates", "-"},
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		os.Stdin = r
		closer := time.AfterFunc(5*time.Second, func() { w.Close() })
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		start := time.Now()
		code, _, errOut := runCmdCtx(ctx, t, args...)
		elapsed := time.Since(start)
		cancel()
		closer.Stop()
		w.Close()
		r.Close()
		if code != exitPartial || elapsed > 2*time.Second || !strings.Contains(errOut, "timed out") && !strings.Contains(errOut, "interrupted") {
			t.Errorf("%v: exit %d after %v, stderr %q", args, code, elapsed.Round(time.Millisecond), errOut)
		}
	}
}

// TestListOutputReplaced: list -o replaces a regular file by renaming a new one over it: a reader
// that holds the old file open (or mapped) keeps its contents, the new file has the matches, no
// temporary file is left; a path that is not a regular file (/dev/null) is written as it is.
func TestListOutputReplaced(t *testing.T) {
	data := writeFile(t, "g.txt", "0 1\n1 2\n")
	out := filepath.Join(t.TempDir(), "m.txt")
	if err := os.WriteFile(out, []byte("old contents\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if code, _, errOut := runCmd(t, "list", "-o", out, data, "(a)-(b)"); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if b, _ := io.ReadAll(old); string(b) != "old contents\n" {
		t.Errorf("the old file, held open, now reads %q", b)
	}
	if b, _ := os.ReadFile(out); len(tsv(string(b))) != 4 {
		t.Errorf("-o wrote %q, want 4 matches", b)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
		t.Errorf("left in the folder: %v", entries)
	}
	if code, _, errOut := runCmd(t, "list", "-o", os.DevNull, data, "(a)-(b)"); code != exitOK {
		t.Errorf("-o %s: exit %d: %s", os.DevNull, code, errOut)
	}
}

// TestListOutputDescriptor: list -o /dev/stdout (here /proc/self/fd/N, the same kind of name)
// writes into the descriptor's file, a shell's redirection, in place: it was taken for a
// regular file to replace, and the temporary file could not be made under /proc (as root,
// /dev/stdout itself was replaced by a file in /dev and the matches lost); a symbolic link is
// kept and its file replaced.
func TestListOutputDescriptor(t *testing.T) {
	data := writeFile(t, "g.txt", "0 1\n1 2\n")
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "redirected"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
	if _, err := os.Stat(fd); err != nil {
		t.Skip(err)
	}
	if code, _, errOut := runCmd(t, "list", "-o", fd, data, "(a)-(b)"); code != exitOK {
		t.Fatalf("-o %s: exit %d: %s", fd, code, errOut)
	}
	if b, _ := io.ReadAll(f); len(tsv(string(b))) != 4 {
		t.Errorf("-o %s wrote %q into the descriptor's file, want 4 matches", fd, b)
	}
	link := filepath.Join(dir, "link.tsv")
	if err := os.Symlink("redirected", link); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCmd(t, "list", "-o", link, data, "(a)-(b)-(c)"); code != exitOK {
		t.Fatalf("-o %s: exit %d: %s", link, code, errOut)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("-o %s: the link is gone (%v)", link, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "redirected")); len(tsv(string(b))) != 2 {
		t.Errorf("-o through a link wrote %q into its file, want 2 matches", b)
	}
}

// TestFileOutputsCheckedFirst: an output written to a temporary file renamed into place (gen
// rmat -o, convert, stats --degree-plot, list --subgraph, watch --checkpoint) that names a FIFO
// (or a device) is refused before any work, exit 2 and one line naming the flag; gen rmat -o
// naming a folder or a file in a missing folder too. Before, gen rmat generated the graph and
// then failed with exit 1 (its message naming its temporary file), and the others failed at
// the end, after listing or counting, with exit 1 and no flag named.
func TestFileOutputsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "out.txt")
	if err := mkfifo(fifo); err != nil {
		t.Skip(err)
	}
	graph := writeFile(t, "g.txt", "1 2\n2 3\n3 1\n")
	updates := writeFile(t, "u.txt", "e 1 4\n")
	for _, c := range []struct {
		flag string
		args []string
	}{
		{"gen rmat: -o", []string{"gen", "rmat", "--scale", "4", "-o", fifo}},
		{"gen rmat: -o", []string{"gen", "rmat", "--scale", "4", "-o", dir}},
		{"gen rmat: -o", []string{"gen", "rmat", "--scale", "4", "-o", filepath.Join(dir, "nope", "r.smg")}},
		{"convert: output", []string{"convert", graph, fifo}},
		{"--degree-plot", []string{"stats", "--degree-plot", fifo, graph}},
		{"--subgraph", []string{"list", "--subgraph", fifo, graph, "(a)-(b)"}},
		{"--checkpoint", []string{"watch", "--checkpoint", fifo, graph, "(a)-(b)", "--updates", updates}},
	} {
		code, out, errOut := runCmd(t, c.args...)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "submatch: "+c.flag+" ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, one line naming %s", c.args, code, out, errOut, c.flag)
		}
	}
}

// TestGenQueriesDirIsAFile: gen queries --dir naming a file is refused before the data graph
// loads, exit 2 naming --dir (before: exit 1, "mkdir FILE: not a directory", after the load).
func TestGenQueriesDirIsAFile(t *testing.T) {
	graph := writeFile(t, "g.txt", "1 2\n2 3\n3 1\n")
	code, out, errOut := runCmd(t, "gen", "queries", graph, "--dir", graph, "--sizes", "3")
	if code != exitUsage || out != "" || !strings.HasPrefix(errOut, "submatch: --dir "+graph+": is a file") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestHelpOfHelpAndSubcommands: 'submatch help --help' prints the usage (it said unknown command
// "--help", exit 2), 'help gen rmat' the flags of gen rmat, and an unknown gen subcommand is one
// line, as for temporal (it printed gen's whole usage on stderr).
func TestHelpOfHelpAndSubcommands(t *testing.T) {
	for _, args := range [][]string{{"help", "--help"}, {"help", "-h"}, {"help", "help"}} {
		if code, out, errOut := runCmd(t, args...); code != exitOK || !strings.Contains(out, "Commands:") || errOut != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	for args, want := range map[[3]string]string{
		{"help", "gen", "rmat"}:        "Usage: submatch gen rmat [flags] -o OUT\n",
		{"help", "temporal", "count"}:  "Usage: submatch temporal count [flags] DATA PATTERN --delta D\n",
		{"help", "gen", "queries"}:     "Usage: submatch gen queries [flags] DATA --dir OUT\n",
		{"help", "temporal", "motifs"}: "Usage: submatch temporal motifs [flags] DATA --delta D\n",
	} {
		if code, out, _ := runCmd(t, args[:]...); code != exitOK || !strings.HasPrefix(out, want) {
			t.Errorf("%v: exit %d, stdout starts %.60q, want %q", args, code, out, want)
		}
	}
	for _, args := range [][]string{{"gen", "nosuch"}, {"gen"}, {"help", "count", "x"}} {
		if code, out, errOut := runCmd(t, args...); code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line", args, code, out, errOut)
		}
	}
}

// TestListOutputFIFOStops: list -o naming a FIFO writes the matches into it once a reader opens
// it, and --timeout (as Ctrl-C) ends the wait for a reader: exit 1 and one line saying so.
// Before, the wait was in open(2), which neither stopped: the process had to be killed.
func TestListOutputFIFOStops(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "matches")
	if err := mkfifo(fifo); err != nil {
		t.Skip(err)
	}
	data := writeFile(t, "g.txt", "0 1\n1 2\n")
	read := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(fifo) // opens it for reading: the writer's open returns
		read <- string(b)
	}()
	if code, _, errOut := runCmd(t, "list", "-o", fifo, data, "(a)-(b)"); code != exitOK {
		t.Fatalf("with a reader: exit %d: %s", code, errOut)
	}
	if got := <-read; len(tsv(got)) != 4 {
		t.Errorf("the reader got %q, want 4 matches", got)
	}
	done := make(chan int, 1)
	var errOut string
	go func() {
		var code int
		code, _, errOut = runCmd(t, "list", "--timeout", "1s", "-o", fifo, data, "(a)-(b)")
		done <- code
	}()
	select {
	case code := <-done:
		if code != exitPartial || errOut != "submatch: -o "+fifo+": timed out after 1s while waiting for a reader; no matches listed\n" {
			t.Errorf("no reader: exit %d, stderr %q", code, errOut)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no reader: list -o FIFO --timeout 1s still waiting after 10 s")
	}
	// The abandoned open (a goroutine of this test process) returns once a reader comes.
	if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
}

// TestReadmeListExample: the README's list example prints what its comment lines show (they
// showed "1 2" before "3 4", an order no run gives).
func TestReadmeListExample(t *testing.T) {
	data := needData(t, "hprd-subgraphmatching/sample_dataset/test_case_1.graph")
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const cmd = "submatch list --header --limit 3 $T/hprd-subgraphmatching/sample_dataset/test_case_1.graph '(a:1)-(b:2)'\n"
	_, after, ok := strings.Cut(string(readme), cmd)
	if !ok {
		t.Fatalf("README has no line %q", cmd)
	}
	var want strings.Builder
	for line := range strings.Lines(after) {
		text, ok := strings.CutPrefix(line, "# ")
		if !ok {
			break
		}
		text, _, _ = strings.Cut(text, "  ") // the remark after the last row
		want.WriteString(strings.TrimRight(text, " \n") + "\n")
	}
	code, out, errOut := runCmd(t, "list", "--header", "--limit", "3", data, "(a:1)-(b:2)")
	if code != exitOK || out != want.String() {
		t.Errorf("exit %d, stdout %q, stderr %q; the README shows %q", code, out, errOut, want.String())
	}
}

// TestWatchBatchOrInterval: --batch N beside --batch-interval is refused (exit 2, one line):
// the interval cut the batches and --batch was ignored without a word.
func TestWatchBatchOrInterval(t *testing.T) {
	data := writeFile(t, "g.txt", "1 2\n2 3\n")
	stream := writeFile(t, "u.txt", "e 1 3 100\ne 3 4 150\n")
	code, out, errOut := runCmd(t, "watch", "--batch", "2", "--batch-interval", "5s", data, "(a)-(b)", "--updates", stream)
	if code != exitUsage || out != "" || errOut != "submatch: --batch and --batch-interval both cut the stream into batches (by count, by time); give one\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, errOut := runCmd(t, "watch", "--batch-interval", "5s", data, "(a)-(b)", "--updates", stream); code != exitOK || len(tsv(out)) != 4 {
		t.Errorf("--batch-interval alone: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestUniqueMixedWildcards pins the README's example of --unique with a wildcard beside an exact
// label: the one edge of two label-1 vertices counts 2 for (a)-(b:1) (no label-preserving
// automorphism swaps a and b), 1 for (a:1)-(b:1) and (a)-(b); list --unique lists as many.
func TestUniqueMixedWildcards(t *testing.T) {
	data := writeFile(t, "two.graph", "t 2 1\nv 0 1\nv 1 1\ne 0 1\n")
	for q, want := range map[string]int{"(a)-(b:1)": 2, "(a:1)-(b:1)": 1, "(a)-(b)": 1} {
		code, out, errOut := runCmd(t, "count", "--unique", data, q)
		if rows := tsv(out); code != exitOK || len(rows) != 1 || rows[0][1] != fmt.Sprint(want) {
			t.Errorf("count --unique %s: exit %d, stdout %q, stderr %q; want %d", q, code, out, errOut, want)
		}
		if code, out, _ := runCmd(t, "list", "--unique", data, q); code != exitOK || len(tsv(out)) != want {
			t.Errorf("list --unique %s: exit %d, %q; want %d matches", q, code, out, want)
		}
	}
}
