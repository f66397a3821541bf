package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

const watchGraph = "v 1 0\nv 2 0\nv 3 0\nv 4 0\ne 1 2 0\ne 2 3 0\n"
const triangle = "(a)-(b)-(c)-(a)"

func TestWatchBasic(t *testing.T) {
	data := writeFile(t, "g.graph", watchGraph)
	stream := writeFile(t, "u.stream", "# a comment\ne 1 3\n-e 1 2\ne 1 2 0\n")
	code, out, errOut := runCmd(t, "watch", data, triangle, "--updates", stream, "--unique", "--initial")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "0\tinitial\t" + triangle + "\t+0\t-0\t0\n" +
		"1\t2\t" + triangle + "\t+1\t-0\t1\n" +
		"2\t3\t" + triangle + "\t+0\t-1\t0\n" +
		"3\t4\t" + triangle + "\t+1\t-0\t1\n"
	if !strings.HasPrefix(out, want) {
		t.Fatalf("output:\n%s\nwant it to start with:\n%s", out, want)
	}
	if !strings.Contains(out, "# 3 updates in 3 batches, 0 skipped") || !strings.Contains(out, "# "+triangle+"\t0 +2\t-1\t1\n") {
		t.Fatalf("summary:\n%s", out)
	}
	// One batch of three: the net change only (the edge 1-2 deleted and inserted again is no change).
	code, out, _ = runCmd(t, "watch", data, triangle, "--updates", stream, "--unique", "--batch", "3")
	if code != 0 || !strings.HasPrefix(out, "1\t2-4\t"+triangle+"\t+1\t-0\t+1\n") {
		t.Fatalf("batch 3: exit %d:\n%s", code, out)
	}
	// Embeddings: 6 per triangle; induced on a path pattern: closing the triangle destroys paths.
	code, out, _ = runCmd(t, "watch", data, "(a)-(b)-(c)", "--updates", stream, "--induced", "--unique", "--initial")
	if code != 0 || !strings.Contains(out, "1\t2\t(a)-(b)-(c)\t+0\t-1\t0\n") {
		t.Fatalf("induced: exit %d:\n%s", code, out)
	}
}

func TestWatchInvalid(t *testing.T) {
	data := writeFile(t, "g.graph", watchGraph)
	for _, c := range []struct{ stream, want string }{
		{"e 1 3\ne 2 1\n", "u.stream:2: invalid update `e 2 1 0`: the edge is already present"},
		{"-e 1 4\n", "u.stream:1: invalid update `-e 1 4`: no such edge"},
		{"v 1 5\n", "u.stream:1: invalid update `v 1 5`: the vertex is already present (label 0; a second label)"},
		{"e 4 4\n", "u.stream:1: invalid update `e 4 4 0`: self-loop"},
		{"-v 9\n", "u.stream:1: invalid update `-v 9`: no such vertex"},
		{"e 1 x\n", "u.stream:1: expected `e u v [label]`: bad vertex id \"x\""},
	} {
		stream := writeFile(t, "u.stream", c.stream)
		code, _, errOut := runCmd(t, "watch", data, triangle, "--updates", stream)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.stream, code, errOut, c.want)
		}
	}
	stream := writeFile(t, "u.stream", "e 1 3\ne 2 1\n-e 1 4\ne 1 4\n")
	code, out, errOut := runCmd(t, "watch", data, triangle, "--updates", stream, "--on-invalid", "skip", "--unique")
	if code != 0 || !strings.Contains(out, "# 4 updates in 4 batches, 2 skipped as invalid") {
		t.Fatalf("skip: exit %d %s:\n%s", code, errOut, out)
	}
	for _, args := range [][]string{
		{"watch", data, triangle},
		{"watch", data, "--updates", stream},
		{"watch", data, triangle, "--updates", stream, "--batch", "0"},
		{"watch", data, triangle, "--updates", stream, "--emit", "all"},
		{"watch", data, triangle, "--updates", stream, "--on-invalid", "ignore"},
		{"watch", data, triangle, "--updates", stream, "--engine", "nope"},
	} {
		if code, _, _ := runCmd(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestWatchEmitJSON(t *testing.T) {
	data := writeFile(t, "g.graph", watchGraph)
	stream := writeFile(t, "u.stream", "e 1 3\n-v 2\n")
	code, out, errOut := runCmd(t, "watch", data, triangle, "(a)-(b)", "--updates", stream, "--unique", "--emit", "matches")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(out, "\n")
	var plus, minus []string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "+\t"):
			plus = append(plus, l)
		case strings.HasPrefix(l, "-\t"):
			minus = append(minus, l)
		}
	}
	// Batch 1 creates the triangle and the edge 1-3; -v 2 deletes 1-2 (batch 2: the triangle and
	// that edge) and 2-3 (batch 3), then the vertex (batch 4).
	if len(plus) != 2 || len(minus) != 3 || !strings.HasPrefix(minus[0], "-\t2\t") {
		t.Fatalf("signed matches:\n%s", out)
	}
	code, out, _ = runCmd(t, "watch", data, triangle, "--updates", stream, "--json", "--unique")
	if code != 0 {
		t.Fatal(code)
	}
	var recs []map[string]any
	for l := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		recs = append(recs, r)
	}
	// The vertex deletion reports its two edges' deletions first, on its line.
	if len(recs) != 5 || recs[0]["update"] != "e 1 3 0" || recs[1]["update"] != "-e 2 1 0" || recs[1]["lines"] != "2" ||
		recs[3]["update"] != "-v 2" || recs[4]["summary"] != true {
		t.Fatalf("json:\n%s", out)
	}
	p := recs[1]["patterns"].([]any)[0].(map[string]any)
	if p["destroyed"] != 1.0 || p["total"] != "+0" {
		t.Fatalf("json batch 2: %v", p)
	}
}

func TestWatchWindow(t *testing.T) {
	data := writeFile(t, "g.graph", "v 1 0\nv 2 0\nv 3 0\nv 4 0\n")
	stream := writeFile(t, "u.stream", "e 1 2 0 10\ne 2 3 0 11\ne 1 3 0 12\ne 3 4 0 26\ne 2 4 0 27\n")
	code, out, errOut := runCmd(t, "watch", data, triangle, "--updates", stream, "--unique", "--window", "15s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// At 26, 1-2 (10) and 2-3 (11) expire: the triangle 1-2-3 goes; at 27, 1-3 (12) expires.
	for _, want := range []string{"3\t3\t" + triangle + "\t+1\t-0\t+1\n", "4\texpire\t" + triangle + "\t+0\t-1\t+0\n", "# 5 updates in 7 batches"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output:\n%s\nwant %q", out, want)
		}
	}
	code, _, errOut = runCmd(t, "watch", data, triangle, "--updates", writeFile(t, "v.stream", "e 1 2\n"), "--window", "1s")
	if code != exitUsage || !strings.Contains(errOut, "v.stream:1: expected `e u v [label] time`") {
		t.Fatalf("no timestamp: exit %d %s", code, errOut)
	}
}

// TestWatchResume stops a run dead at a random batch (as kill -9 would), resumes it from its last
// checkpoint and checks that the batches after it and the totals equal an uninterrupted run: the
// CPU engine in batches of 3, and the per-update engine (dcsm's host emulation, as on the GPU),
// which stops dead in the middle of a chunk of updates.
func TestWatchResume(t *testing.T) {
	t.Run("cpu", func(t *testing.T) { testWatchResume(t, "--batch", "3") })
	t.Run("dcsm-emulated", func(t *testing.T) { testWatchResume(t, "--engine", "dcsm-emulated") })
}

// randomWatchFiles writes a random labelled graph of n vertices and m edges and a stream of
// random edge insertions and deletions (a third of them) over its vertices, some invalid
// (edges present or missing, self-loops), from seed.
func randomWatchFiles(t *testing.T, seed uint64, n, m, updates int) (data, stream string) {
	r := rand.New(rand.NewPCG(seed, seed))
	var s strings.Builder
	g := randomCSMGraph(r, n, m, true)
	for range updates {
		op := "e"
		if r.IntN(3) == 0 {
			op = "-e"
		}
		fmt.Fprintf(&s, "%s %d %d\n", op, r.IntN(n), r.IntN(n))
	}
	return writeFile(t, "g.graph", strings.ReplaceAll(g, "e 0 0 0\n", "")), writeFile(t, "u.stream", s.String())
}

// TestWatchResumeVertexDeletions: a vertex deletion after a resume reports its edges' deletions
// in the same order, with the same per-line deltas, as the uninterrupted run (the resumed graph's
// dense ids are numbered afresh).
func TestWatchResumeVertexDeletions(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	const n = 30
	var s strings.Builder
	next := n
	for range 400 {
		switch op := r.IntN(20); {
		case op < 2:
			fmt.Fprintf(&s, "-v %d\n", r.IntN(next))
		case op < 4:
			fmt.Fprintf(&s, "v %d %d\n", next, r.IntN(2))
			next++
		case op < 8:
			fmt.Fprintf(&s, "-e %d %d\n", r.IntN(next), r.IntN(next))
		default:
			fmt.Fprintf(&s, "e %d %d\n", r.IntN(next), r.IntN(next))
		}
	}
	data := writeFile(t, "g.graph", strings.ReplaceAll(randomCSMGraph(r, n, 90, true), "e 0 0 0\n", ""))
	stream := writeFile(t, "u.stream", s.String())
	t.Run("cpu", func(t *testing.T) { testWatchResumeFiles(t, data, stream, "--batch", "1") })
	t.Run("dcsm-emulated", func(t *testing.T) { testWatchResumeFiles(t, data, stream, "--engine", "dcsm-emulated") })
}

func testWatchResume(t *testing.T, extra ...string) {
	data, stream := randomWatchFiles(t, 5, 30, 60, 400)
	testWatchResumeFiles(t, data, stream, extra...)
}

// testWatchResumeFiles is testWatchResume on the graph and stream files given.
func testWatchResumeFiles(t *testing.T, data, stream string, extra ...string) {
	r := rand.New(rand.NewPCG(6, 6)) // the kill points and checkpoint intervals
	cp := filepath.Join(t.TempDir(), "cp")
	args := append([]string{"watch", data, triangle, "(a:1)-(b)-(c)", "--updates", stream, "--on-invalid", "skip", "--drop-self-loops", "--initial"}, extra...)
	code, full, errOut := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	fullLines := strings.Split(full, "\n")
	for trial := range 3 {
		kill, every := 5+r.IntN(100), 1+r.IntN(40)
		runKilledAfter(t, kill, append(args, "--checkpoint", cp, "--checkpoint-every", fmt.Sprint(every))...)
		code, resumed, errOut := runCmd(t, append(args, "--resume", cp, "--checkpoint", cp)...)
		if code != 0 {
			t.Fatalf("resume: exit %d: %s", code, errOut)
		}
		// Every line the resumed run prints (batches and summary totals) is a line of the full run,
		// and it ends with the same totals.
		var rl []string
		for _, l := range strings.Split(resumed, "\n") {
			if !strings.HasPrefix(l, "# ") || strings.HasPrefix(l, "# "+triangle) || strings.HasPrefix(l, "# (a:1)") {
				rl = append(rl, l)
			}
		}
		for _, l := range rl {
			if !slices.Contains(fullLines, l) {
				t.Fatalf("trial %d (kill after %d, checkpoint every %d): resumed line %q not in the full run\nresumed:\n%s", trial, watchKillAfter, every, l, resumed)
			}
		}
		if len(rl) < 3 || !strings.HasSuffix(full, strings.Join(rl[len(rl)-3:], "\n")) {
			t.Fatalf("trial %d: resumed run ends\n%s\nfull run\n%s", trial, resumed, full[max(0, len(full)-300):])
		}
		// The summary counts updates and batches from the stream's start, as the full run does.
		if got, want := summaryCounts(resumed), summaryCounts(full); got == "" || got != want {
			t.Fatalf("trial %d: resumed summary %q, full run's %q", trial, got, want)
		}
	}
}

// summaryCounts is watch's summary line up to its elapsed time: "# N updates in B batches, S
// skipped as invalid, up to line L" ("" when there is none).
func summaryCounts(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "# ") && strings.Contains(l, " updates in ") {
			if i := strings.LastIndex(l, ", "); i > 0 {
				l = l[:i] // the graph's size
			}
			if i := strings.LastIndex(l, ", "); i > 0 {
				return l[:i] // the elapsed time
			}
		}
	}
	return ""
}

func TestWatchBatchInterval(t *testing.T) {
	data := writeFile(t, "g.graph", "v 1 0\nv 2 0\nv 3 0\nv 4 0\n")
	// Intervals of 10 from the first update of each batch: [0,10) holds lines 1-3, [12,22) 4-5.
	stream := writeFile(t, "u.stream", "e 1 2 0 0\ne 2 3 0 4\n-e 1 2 0 9\ne 1 3 0 12\ne 1 2 0 13\ne 3 4 0 40\n")
	code, out, errOut := runCmd(t, "watch", data, triangle, "--updates", stream, "--unique", "--batch-interval", "10s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "1\t1-3\t" + triangle + "\t+0\t-0\t+0\n2\t4-5\t" + triangle + "\t+1\t-0\t+1\n3\t6\t" + triangle + "\t+0\t-0\t+1\n"
	if !strings.HasPrefix(out, want) {
		t.Fatalf("output:\n%s\nwant:\n%s", out, want)
	}
}

func TestWatchJSONLinesStdin(t *testing.T) {
	data := writeFile(t, "g.graph", watchGraph)
	stream := writeFile(t, "u.jsonl", `{"op":"e","u":1,"v":3}`+"\n"+`{"op":"v","id":9,"label":0}`+"\n"+`{"op":"e","u":9,"v":1}`+"\n")
	// The same stream through a file and through standard input.
	code, fromFile, errOut := runCmd(t, "watch", data, triangle, "(a)", "--updates", stream, "--unique", "--initial")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"1\t1\t" + triangle + "\t+1\t-0\t1\n", "2\t2\t(a)\t+1\t-0\t5\n"} {
		if !strings.Contains(fromFile, want) {
			t.Fatalf("output:\n%s\nwant %q", fromFile, want)
		}
	}
	f, err := os.Open(stream)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = saved }()
	code, fromStdin, errOut := runCmd(t, "watch", data, triangle, "(a)", "--updates", "-", "--unique", "--initial")
	if code != 0 {
		t.Fatalf("stdin: exit %d: %s", code, errOut)
	}
	cut := func(s string) string { return s[:strings.Index(s, "# ")] } // the summary has times
	if cut(fromStdin) != cut(fromFile) {
		t.Fatalf("stdin:\n%s\nfile:\n%s", fromStdin, fromFile)
	}
}

// TestWatchResumeWindow: a checkpoint keeps the window, so expiries after a resume are those of an

// runKilledAfter runs a watch command stopped dead after n updates (watchKillAfter, the tests'
// kill -9) and fails the test unless it ended partial.
func runKilledAfter(t *testing.T, n int, args ...string) {
	t.Helper()
	watchKillAfter = n
	defer func() { watchKillAfter = 0 }()
	if code, _, errOut := runCmd(t, args...); code != exitPartial {
		t.Fatalf("killed run (after %d updates): exit %d: %s", n, code, errOut)
	}
}

// uninterrupted run.
func TestWatchResumeWindow(t *testing.T) {
	data := writeFile(t, "g.graph", "v 1 0\nv 2 0\nv 3 0\nv 4 0\n")
	stream := writeFile(t, "u.stream", "e 1 2 0 10\ne 2 3 0 11\ne 1 3 0 12\ne 3 4 0 20\ne 2 4 0 26\ne 1 4 0 27\ne 4 2 5 40\n")
	args := []string{"watch", data, triangle, "--updates", stream, "--unique", "--window", "15s", "--initial", "--on-invalid", "skip"}
	code, full, errOut := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	cp := filepath.Join(t.TempDir(), "cp")
	runKilledAfter(t, 4, append(args, "--checkpoint", cp, "--checkpoint-every", "3")...)
	code, resumed, errOut := runCmd(t, append(args, "--resume", cp)...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	for _, l := range strings.Split(resumed, "\n") {
		if l != "" && !strings.HasPrefix(l, "# ") && !strings.Contains(full, l+"\n") {
			t.Fatalf("resumed line %q not in the full run:\n%s\nresumed:\n%s", l, full, resumed)
		}
	}
	if !strings.Contains(resumed, "expire") {
		t.Fatalf("no expiry after the resume:\n%s", resumed)
	}
	fullTail := full[strings.LastIndex(full, "# "+triangle):]
	if !strings.HasSuffix(resumed, fullTail) {
		t.Fatalf("totals differ:\n%s\nwant\n%s", resumed, fullTail)
	}
	// A checkpoint of other patterns is refused.
	code, _, errOut = runCmd(t, "watch", data, "(a)-(b)", "--updates", stream, "--resume", cp, "--initial", "--window", "15s")
	if code != exitUsage || !strings.Contains(errOut, "pattern 1 is") {
		t.Fatalf("other pattern: exit %d %s", code, errOut)
	}
}

// TestGCHold: the collector is off while held and back, with its setting, once the allowance is
// spent (time or bytes) or on release.
func TestGCHold(t *testing.T) {
	orig := debug.SetGCPercent(77)
	defer debug.SetGCPercent(orig)
	h := holdGC()
	h.arm()
	h.check()
	if !h.held || debug.SetGCPercent(-1) != -1 {
		t.Fatal("released at once")
	}
	h.until = time.Now().Add(-time.Second)
	h.check()
	if h.held || debug.SetGCPercent(77) != 77 {
		t.Fatal("not released after its time")
	}
	h = holdGC()
	h.arm()
	h.limit = 0
	h.check()
	if h.held || debug.SetGCPercent(77) != 77 {
		t.Fatal("not released after its bytes")
	}
	h = holdGC()
	h.release()
	h.release()
	if debug.SetGCPercent(77) != 77 {
		t.Fatal("release")
	}
}

// TestWatchRate: --rate paces the stream without changing any count, and the summary reports
// the response times of every update, in text and JSON; it refuses what it cannot pace.
func TestWatchRate(t *testing.T) {
	data := writeFile(t, "g.graph", watchGraph)
	stream := writeFile(t, "u.stream", "e 1 3\n-e 1 2\ne 1 2 0\ne 3 4\n-e 2 3\n")
	code, plain, errOut := runCmd(t, "watch", data, triangle, "--updates", stream, "--batch", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	start := time.Now()
	code, paced, errOut := runCmd(t, "watch", data, triangle, "--updates", stream, "--batch", "2", "--rate", "50")
	if code != 0 {
		t.Fatalf("--rate: exit %d: %s", code, errOut)
	}
	// Five arrivals at 50 a second: the last one comes after tens of milliseconds, not at once.
	if el := time.Since(start); el < 5*time.Millisecond {
		t.Errorf("--rate 50 took %v for 5 updates: not paced", el)
	}
	body := func(out string) string { // the batch lines
		var keep []string
		for _, l := range strings.Split(out, "\n") {
			if !strings.HasPrefix(l, "#") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if body(paced) != body(plain) {
		t.Fatalf("--rate changed the batches:\n%s\nwithout:\n%s", paced, plain)
	}
	if !strings.Contains(paced, "# response time at 50 updates/s (arrival to result, 5 updates): median ") {
		t.Fatalf("no response-time line in the summary:\n%s", paced)
	}
	code, out, _ := runCmd(t, "watch", data, triangle, "--updates", stream, "--rate", "1000", "--json")
	var sum struct {
		Summary  bool
		Response *struct {
			Rate     float64 `json:"rate"`
			Updates  int     `json:"updates"`
			MedianMS float64 `json:"median_ms"`
			MaxMS    float64 `json:"max_ms"`
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || json.Unmarshal([]byte(lines[len(lines)-1]), &sum) != nil || !sum.Summary || sum.Response == nil ||
		sum.Response.Updates != 5 || sum.Response.Rate != 1000 || sum.Response.MaxMS < sum.Response.MedianMS {
		t.Fatalf("--json summary: exit %d, %+v:\n%s", code, sum.Response, out)
	}
	for _, args := range [][]string{{"--rate", "-1"}, {"--rate", "10", "--window", "1s"}, {"--rate", "x"}, {"--rate", "1e-300"}} {
		code, _, errOut := runCmd(t, append([]string{"watch", data, triangle, "--updates", stream}, args...)...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args, code, exitUsage, errOut)
		}
	}
}

// TestWatchGCSMModeRefusedEarly: a bad --gcsm-mode is refused before anything is loaded (the
// data file here does not even exist).
func TestWatchGCSMModeRefusedEarly(t *testing.T) {
	code, _, errOut := runCmd(t, "watch", "--engine", "gcsm", "--gcsm-mode", "bogus", filepath.Join(t.TempDir(), "missing.graph"), triangle, "--updates", "-")
	if code != exitUsage || !strings.Contains(errOut, `--gcsm-mode: gcsm: unknown mode "bogus"`) {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// TestWatchSplit: a stream cut in two (two threads, watch_split.go) or pipelined (exact
// labels, watch_pipe.go) prints what one thread prints, line for line (but the summary's time):
// batches of 1 and 3, vertex insertions and deletions, invalid updates skipped or fatal, JSON,
// the cut fixed at several places and chosen while running.
func TestWatchSplit(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	var s strings.Builder
	g := randomCSMGraph(r, 40, 120, false)
	for i := range 1500 {
		a, b := r.IntN(46), r.IntN(46)
		switch op := r.IntN(20); {
		case op < 11:
			fmt.Fprintf(&s, "e %d %d\n", a, b)
		case op < 18:
			fmt.Fprintf(&s, "-e %d %d\n", a, b)
		case op < 19:
			fmt.Fprintf(&s, "v %d %d\n", 40+i, r.IntN(2))
		default:
			fmt.Fprintf(&s, "-v %d\n", a)
		}
	}
	data := writeFile(t, "g.graph", g)
	stream := writeFile(t, "u.stream", s.String())
	bad := writeFile(t, "bad.stream", s.String()+"e 1 1\n")
	summary := regexp.MustCompile(`(, )[0-9.]+[µmn]?s(; graph)|("elapsed_ms":)[0-9.e+-]+`)
	for _, c := range []struct {
		stream string
		args   []string
	}{
		{stream, []string{"--on-invalid", "skip"}},
		{stream, []string{"--on-invalid", "skip", "--batch", "3", "--induced"}},
		{stream, []string{"--on-invalid", "skip", "--json", "--initial", "--unique"}},
		{stream, nil}, // the first invalid update ends both runs
		{bad, []string{"--on-invalid", "skip", "--batch", "2"}},
	} {
		// Wildcard labels: the stream is cut; exact labels: pipelined.
		for _, pats := range [][]string{{triangle, "(a:1)-(b)-(c:0)-(d)"}, {"(a:0)-(b:0)-(c:1)-(a)", "(a:1)-(b:0)-(c:0)-(d:1)"}} {
			args := append(append([]string{"watch", data}, pats...), append([]string{"--updates", c.stream}, c.args...)...)
			code1, out1, err1 := runCmd(t, append(args, "--threads", "1")...)
			out1 = summary.ReplaceAllString(out1, "$1$2$3")
			// -1: a busy machine (the stream read whole, applied in order).
			for _, cut := range []int{-1, 0, 1, 300, 900} {
				watchSplitCut, watchMinCores = cut, 0
				if cut < 0 {
					watchSplitCut, watchMinCores = 0, 1e9
				}
				code2, out2, err2 := runCmd(t, append(args, "--threads", "2")...)
				watchSplitCut, watchMinCores = 0, 1.3
				if out2 = summary.ReplaceAllString(out2, "$1$2$3"); code1 != code2 || out1 != out2 || err1 != err2 {
					t.Fatalf("%v %v (%s), cut %d: one thread exit %d, two %d; stderr %q / %q; outputs differ:\n%s\n---\n%s", pats, c.args, watchMode, cut, code1, code2, err1, err2, tail(out1), tail(out2))
				}
				want := map[bool]string{true: "cut", false: "pipeline"}[pats[0] == triangle]
				if cut < 0 {
					want = "serial"
				}
				if watchMode != want {
					t.Fatalf("%v, cut %d: ran %s, want %s", pats, cut, watchMode, want)
				}
				if watchMode == "pipeline" {
					break // (no cut)
				}
			}
		}
	}
}

func tail(s string) string { return s[max(0, len(s)-600):] }

func TestAppendDecimal(t *testing.T) {
	for _, v := range []int64{0, 1, 9, 10, 99, 100, 12345, 1<<62 + 7, math.MaxInt64, -1, -907, math.MinInt64} {
		if got, want := string(appendDecimal([]byte("x"), v)), "x"+strconv.FormatInt(v, 10); got != want {
			t.Errorf("%d: %q, want %q", v, got, want)
		}
	}
}

// randomCSMGraph returns a graph in the CSM format: n vertices with labels 0 and 1, m random
// edges (self-loops left out unless loops).
func randomCSMGraph(r *rand.Rand, n, m int, loops bool) string {
	var g strings.Builder
	for v := range n {
		fmt.Fprintf(&g, "v %d %d\n", v, r.IntN(2))
	}
	for range m {
		if a, b := r.IntN(n), r.IntN(n); a != b || loops {
			fmt.Fprintf(&g, "e %d %d 0\n", a, b)
		}
	}
	return g.String()
}

// TestWatchCheckpointAfterError: a run whose output fails mid-stream leaves the checkpoint it
// wrote before the error (the engine may have applied updates it never reported), and a resume
// from it ends with the totals of an uninterrupted run: the CPU engine, and the per-update
// engine with waves in flight (and its validation goroutine a chunk ahead: 6,000 updates).
func TestWatchCheckpointAfterError(t *testing.T) {
	for _, eng := range []string{"cpu", "dcsm-emulated"} {
		data, stream := randomWatchFiles(t, 7, 60, 200, 6000)
		cp := filepath.Join(t.TempDir(), "cp")
		args := []string{"watch", data, triangle, "--updates", stream, "--on-invalid", "skip", "--drop-self-loops", "--initial", "--engine", eng}
		code, full, errOut := runCmd(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", eng, code, errOut)
		}
		var stderr strings.Builder
		if code := run(context.Background(), append(args, "--checkpoint", cp, "--checkpoint-every", "1500"), &failingWriter{left: 100000}, &stderr); code == exitOK {
			t.Fatalf("%s: a run whose output failed exited 0", eng)
		}
		if !strings.Contains(stderr.String(), "no checkpoint written after the error") {
			t.Errorf("%s: the failed run does not say its checkpoint stands:\n%s", eng, stderr.String())
		}
		code, resumed, errOut := runCmd(t, append(args, "--resume", cp)...)
		if code != 0 {
			t.Fatalf("%s: resume: exit %d: %s", eng, code, errOut)
		}
		totals := func(out string) string { return out[strings.LastIndex(out, "# "+triangle):] }
		if a, b := totals(full), totals(resumed); a != b {
			t.Errorf("%s: totals after the resume %q, an uninterrupted run %q", eng, b, a)
		}
	}
}

// TestSearchThreads: --threads 0 (the default) stands for every core, so that the pipeline's
// searches get every core but M's, not one thread.
func TestSearchThreads(t *testing.T) {
	if got, want := searchThreads(0), runtime.GOMAXPROCS(0); got != want {
		t.Errorf("searchThreads(0) = %d, want GOMAXPROCS %d", got, want)
	}
	if got := searchThreads(3); got != 3 {
		t.Errorf("searchThreads(3) = %d, want 3", got)
	}
}

// TestWatchResumeCrashInCheckpoint: a run killed in the middle of writing a checkpoint (its graph
// written, its JSON not yet) resumes from the checkpoint before it as if it had never begun the
// next one: the graph and the stream position resumed are those of one moment, so no update is
// lost or applied twice.
func TestWatchResumeCrashInCheckpoint(t *testing.T) {
	data, stream := randomWatchFiles(t, 11, 30, 60, 300)
	for _, extra := range [][]string{{"--batch", "3"}, {"--engine", "dcsm-emulated"}} {
		args := append([]string{"watch", data, triangle, "(a:1)-(b)-(c)", "--updates", stream, "--on-invalid", "skip", "--drop-self-loops", "--initial"}, extra...)
		code, full, errOut := runCmd(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errOut)
		}
		totals := func(out string) string { return out[strings.LastIndex(out, "# "+triangle):] }
		// A run that is not killed leaves one graph, its last checkpoint's.
		dir := t.TempDir()
		if code, _, errOut := runCmd(t, append(args, "--checkpoint", filepath.Join(dir, "cp"), "--checkpoint-every", "20")...); code != 0 {
			t.Fatalf("%v: checkpointed run: exit %d: %s", extra, code, errOut)
		}
		if graphs, _ := filepath.Glob(filepath.Join(dir, "*.smg")); len(graphs) != 1 {
			t.Errorf("%v: graphs left by the checkpoints: %v, want 1", extra, graphs)
		}
		for _, crashAt := range []int{2, 5} {
			cp := filepath.Join(t.TempDir(), "cp")
			watchCrashInCheckpoint = crashAt
			code, _, _ = runCmd(t, append(args, "--checkpoint", cp, "--checkpoint-every", "20")...)
			watchCrashInCheckpoint = 0
			if code == 0 {
				t.Fatalf("%v: the run crashing in checkpoint %d ended normally", extra, crashAt)
			}
			code, resumed, errOut := runCmd(t, append(args, "--resume", cp)...)
			if code != 0 {
				t.Fatalf("%v crash in checkpoint %d: resume: exit %d: %s", extra, crashAt, code, errOut)
			}
			if a, b := totals(full), totals(resumed); a != b {
				t.Errorf("%v crash in checkpoint %d: totals after the resume %q, an uninterrupted run %q", extra, crashAt, b, a)
			}
			for _, l := range strings.Split(resumed, "\n") {
				if l != "" && !strings.HasPrefix(l, "# ") && !strings.Contains(full, l+"\n") {
					t.Fatalf("%v crash in checkpoint %d: resumed line %q not in the full run", extra, crashAt, l)
				}
			}
		}
	}
}

// TestWatchResumeTimed: a timestamped stream (times that repeat, vertex deletions) in batches of
// an interval and with a window, killed at a random batch or in the middle of a checkpoint and
// resumed: every line of the resumed run is a line of the uninterrupted run, and the totals are
// its totals (the update read past an interval's batch, and the window, across the resume).
func TestWatchResumeTimed(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 12))
	const n = 25
	var s strings.Builder
	now := 0
	for range 300 {
		now += []int{0, 0, 1, 1, 2, 5}[r.IntN(6)]
		switch op := r.IntN(20); {
		case op < 1:
			fmt.Fprintf(&s, "-v %d %d\n", r.IntN(n), now)
		case op < 2:
			fmt.Fprintf(&s, "v %d %d %d\n", r.IntN(n), r.IntN(2), now)
		case op < 6:
			fmt.Fprintf(&s, "-e %d %d %d\n", r.IntN(n), r.IntN(n), now)
		default:
			fmt.Fprintf(&s, "e %d %d %d\n", r.IntN(n), r.IntN(n), now)
		}
	}
	data := writeFile(t, "g.graph", strings.ReplaceAll(randomCSMGraph(r, n, 70, true), "e 0 0 0\n", ""))
	stream := writeFile(t, "u.stream", s.String())
	resumes := 0
	for _, timing := range [][]string{{"--batch-interval", "3s", "--window", "20s"}, {"--batch", "4", "--window", "9s"}, {"--batch", "1", "--window", "7s", "--engine", "dcsm-emulated"}} {
		args := append([]string{"watch", data, triangle, "(a:1)-(b)-(c)", "--updates", stream, "--on-invalid", "skip", "--drop-self-loops", "--initial", "--timestamps"}, timing...)
		code, full, errOut := runCmd(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", timing, code, errOut)
		}
		totals := func(out string) string { return out[strings.LastIndex(out, "# "+triangle):] }
		for trial := range 4 {
			cp := filepath.Join(t.TempDir(), "cp")
			every := 1 + r.IntN(30)
			if trial%2 == 0 {
				watchKillAfter = 3 + r.IntN(60)
			} else {
				watchCrashInCheckpoint = 2 + r.IntN(4)
			}
			code, _, _ = runCmd(t, append(args, "--checkpoint", cp, "--checkpoint-every", fmt.Sprint(every))...)
			desc := fmt.Sprintf("%v trial %d (kill after %d, crash in checkpoint %d, every %d)", timing, trial, watchKillAfter, watchCrashInCheckpoint, every)
			watchKillAfter, watchCrashInCheckpoint = 0, 0
			if _, err := os.Stat(cp); code == 0 || err != nil {
				continue // the stream ended first, or was killed before its first checkpoint
			}
			code, resumed, errOut := runCmd(t, append(args, "--resume", cp)...)
			if code != 0 {
				t.Fatalf("%s: resume: exit %d: %s", desc, code, errOut)
			}
			for _, l := range strings.Split(resumed, "\n") {
				if l != "" && !strings.HasPrefix(l, "# ") && !strings.Contains(full, l+"\n") {
					t.Fatalf("%s: resumed line %q not in the full run", desc, l)
				}
			}
			if a, b := totals(full), totals(resumed); a != b {
				t.Errorf("%s: totals after the resume %q, an uninterrupted run %q", desc, b, a)
			}
			resumes++
		}
	}
	if resumes < 6 {
		t.Errorf("only %d of 12 runs resumed: the test checks too little", resumes)
	}
}

// TestWatchTimesShifted: batches by interval and a window do not depend on where the stream's
// times lie: TestWatchBatchInterval's stream moved next to math.MaxInt64 (where a batch's first
// time plus the interval passes it) or math.MinInt64 (where now minus the window passes it)
// prints what it prints at times from 0.
func TestWatchTimesShifted(t *testing.T) {
	data := writeFile(t, "g.graph", "v 1 0\nv 2 0\nv 3 0\nv 4 0\n")
	times := []int64{0, 4, 9, 12, 13, 40, 41, 53, 55, 58, 60}
	lines := []string{"e 1 2 0", "e 2 3 0", "-e 1 2 0", "e 1 3 0", "e 1 2 0", "e 3 4 0", "e 2 4 0", "-e 2 4 0", "e 1 4 0", "e 2 4 0", "-e 1 4 0"}
	run := func(base int64) string {
		var s strings.Builder
		for i, l := range lines {
			fmt.Fprintf(&s, "%s %d\n", l, base+times[i])
		}
		stream := writeFile(t, "u.stream", s.String())
		code, out, errOut := runCmd(t, "watch", data, triangle, "(a)-(b)", "--updates", stream, "--unique", "--batch-interval", "10s", "--window", "30s")
		if code != 0 {
			t.Fatalf("from %d: exit %d: %s", base, code, errOut)
		}
		return out[:strings.Index(out, "# ")] // (the summary has times)
	}
	want := run(0)
	for _, base := range []int64{math.MaxInt64 - 60, math.MinInt64} {
		if got := run(base); got != want {
			t.Errorf("times from %d:\n%s\nfrom 0:\n%s", base, got, want)
		}
	}
}

// TestWatchResumeLegacyCheckpoint: a checkpoint written before its JSON named its graph (the
// graph in FILE.smg) still resumes.
func TestWatchResumeLegacyCheckpoint(t *testing.T) {
	data, stream := randomWatchFiles(t, 13, 30, 60, 200)
	args := []string{"watch", data, triangle, "--updates", stream, "--on-invalid", "skip", "--drop-self-loops", "--initial", "--batch", "2"}
	code, full, errOut := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	cp := filepath.Join(t.TempDir(), "cp")
	runKilledAfter(t, 40, append(args, "--checkpoint", cp, "--checkpoint-every", "30")...)
	raw, err := os.ReadFile(cp)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	graph, _ := fields["graph"].(string)
	if graph == "" {
		t.Fatalf("the checkpoint names no graph: %s", raw)
	}
	if err := os.Rename(filepath.Join(filepath.Dir(cp), graph), cp+".smg"); err != nil {
		t.Fatal(err)
	}
	delete(fields, "graph")
	if raw, err = json.Marshal(fields); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cp, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	code, resumed, errOut := runCmd(t, append(args, "--resume", cp)...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	totals := func(out string) string { return out[strings.LastIndex(out, "# "+triangle):] }
	if a, b := totals(full), totals(resumed); a != b {
		t.Errorf("totals after the resume %q, an uninterrupted run %q", b, a)
	}
}

// TestWatchCutStream: a truncated gzip update stream ends with an error naming the line (exit 2),
// and everything reported before it comes from whole lines: the line the cut falls in ("e 7 10" of
// "e 7 1007") is not applied.
func TestWatchCutStream(t *testing.T) {
	data := writeFile(t, "g.txt", "0 1\n")
	var text strings.Builder
	for i := range 40 {
		fmt.Fprintf(&text, "e %d %d\n", i, 1000+i)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.NoCompression) // the cut falls where the test says
	zw.Write([]byte(text.String()))
	zw.Close()
	matches := func(out string) []string {
		return slices.DeleteFunc(strings.Split(out, "\n"), func(l string) bool { return !strings.HasPrefix(l, "+") })
	}
	full := writeFile(t, "full.gz", gz.String())
	code, out, errOut := runCmd(t, "watch", "--emit", "matches", data, "(a)-(b)", "--updates", full)
	want := matches(out)
	if code != 0 || len(want) != 80 {
		t.Fatalf("whole stream: exit %d, %d matches: %s", code, len(want), errOut)
	}
	for cut := 20; cut < gz.Len()-8; cut += 3 {
		f := writeFile(t, "cut.gz", gz.String()[:cut])
		code, out, errOut := runCmd(t, "watch", "--emit", "matches", data, "(a)-(b)", "--updates", f)
		got := matches(out)
		if code != exitUsage || !strings.Contains(errOut, "cut.gz:") || len(got) > len(want) || !slices.Equal(got, want[:len(got)]) {
			t.Fatalf("cut at %d: exit %d, stderr %q, matches %q", cut, code, errOut, got)
		}
	}
}

// TestWatchWindowTimeBack: --window expires an edge at its time plus the window even when the
// stream's times go back: 2-4 inserted at 5 after 1-3 at 10 is gone before the update at 16 (it
// waited behind 1-3, the window being a queue in stream order).
func TestWatchWindowTimeBack(t *testing.T) {
	data := writeFile(t, "g.txt", "1 2\n")
	stream := writeFile(t, "u.stream", "e 1 3 10\ne 2 4 5\ne 3 4 16\n")
	code, out, errOut := runCmd(t, "watch", "--emit", "matches", data, "(a)-(b)", "--updates", stream, "--window", "10s")
	if code != 0 || !strings.Contains(out, "3\texpire\t(a)-(b)\t+0\t-2\t+2\n") || !strings.Contains(out, "-\t3\t(a)-(b)\t2\t4\n") {
		t.Fatalf("exit %d, stderr %q, output\n%s", code, errOut, out)
	}
}

// TestWatchChecksUpdatesFirst: a missing or unreadable --updates file is reported before the data
// graph is loaded (a large graph is not loaded in vain), with nothing on standard output.
func TestWatchChecksUpdatesFirst(t *testing.T) {
	data := writeFile(t, "g.txt", "0 1\n1 2\n")
	for _, updates := range []string{filepath.Join(t.TempDir(), "nope.stream"), t.TempDir()} {
		code, out, errOut := runCmd(t, "watch", data, "(a)-(b)", "--updates", updates)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "submatch: "+updates+": ") {
			t.Errorf("--updates %s: exit %d, stdout %q, stderr %q", updates, code, out, errOut)
		}
	}
}

// TestWatchChecksCheckpointFirst: a --checkpoint that cannot be written (a folder, a missing
// folder, an input file) is refused before anything runs (it was found at the first checkpoint,
// after the stream, and a folder's checkpoint left FOLDER.tmp and FOLDER.smg beside it).
func TestWatchChecksCheckpointFirst(t *testing.T) {
	data := writeFile(t, "g.txt", "0 1\n1 2\n")
	stream := writeFile(t, "u.stream", "e 0 3\n")
	dir := t.TempDir()
	folder := filepath.Join(dir, "cp")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, cp := range []string{folder, filepath.Join(dir, "nope", "cp"), stream} {
		code, out, errOut := runCmd(t, "watch", data, "(a)-(b)", "--updates", stream, "--checkpoint", cp)
		if code != exitUsage || out != "" || !strings.HasPrefix(errOut, "submatch: --checkpoint "+cp+": ") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("--checkpoint %s: exit %d, stdout %q, stderr %q", cp, code, out, errOut)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left %v", entries)
	}
}

// TestWatchQuiet: a successful watch prints nothing on stderr without -v (--engine auto's choice
// was logged at level INFO on every run; it is a -v record, as its comment said).
func TestWatchQuiet(t *testing.T) {
	data := writeFile(t, "g.txt", "0 1\n1 2\n")
	stream := writeFile(t, "u.stream", "e 0 3\n")
	if code, _, errOut := runCmd(t, "watch", data, "(a)-(b)", "--updates", stream); code != 0 || errOut != "" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := runCmd(t, "watch", "-v", data, "(a)-(b)", "--updates", stream); code != 0 || !strings.Contains(errOut, "watch: --engine auto") {
		t.Errorf("-v: exit %d, stderr %q", code, errOut)
	}
}
