package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/csm/dcsm"
	"github.com/submatch/submatch/internal/testenv"
)

// The per-update path of watch (csm.Streamer engines) runs here with DCSM's host emulation.
func init() { csm.Register(dcsm.EmulatedEngine()) }

// watchBody is watch's output without its summary ('#' lines).
func watchBody(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "#") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// watchSummary is watch's summary ('#' lines) without the time it took.
func watchSummary(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "# ") {
			continue
		}
		if before, after, ok := strings.Cut(l, "; graph"); ok && strings.Contains(before, " updates in ") {
			l = before[:strings.LastIndex(before, ", ")] + "; graph" + after
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

// againstCPU runs watch with args on the CPU engine and with --engine dcsm-emulated, failing the
// test on a non-zero exit, and returns both outputs.
func againstCPU(t *testing.T, args []string) (cpu, dcsm string) {
	t.Helper()
	code, cpu, errOut := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("cpu %v: exit %d: %s", args, code, errOut)
	}
	code, dcsm, errOut = runCmd(t, append(args, "--engine", "dcsm-emulated")...)
	if code != 0 {
		t.Fatalf("dcsm %v: exit %d: %s", args, code, errOut)
	}
	return cpu, dcsm
}

// TestWatchStreamEngine: a per-update engine prints the CPU engine's --batch 1 lines (vertex
// deletions as their edges' deletions first), with and without --rate, in every convention,
// skipping invalid updates the same way.
func TestWatchStreamEngine(t *testing.T) {
	data, stream := streamCase(t)
	pats := []string{triangle, "(a:0)-(b)-(c:1)", "(a)-(b)-(c)-(d)-(a)"}
	for _, sem := range [][]string{nil, {"--unique"}, {"--induced"}, {"--induced", "--unique"}} {
		args := append(append([]string{"watch", data}, pats...), "--updates", stream, "--on-invalid", "skip", "--initial")
		args = append(args, sem...)
		code, want, errOut := runCmd(t, args...)
		if code != 0 {
			t.Fatalf("cpu %v: exit %d: %s", sem, code, errOut)
		}
		for _, extra := range [][]string{nil, {"--rate", "20000"}} {
			code, got, errOut := runCmd(t, append(append(args, "--engine", "dcsm-emulated"), extra...)...)
			if code != 0 {
				t.Fatalf("dcsm %v %v: exit %d: %s", sem, extra, code, errOut)
			}
			if watchBody(got) != watchBody(want) {
				t.Fatalf("dcsm %v %v:\n%s\ncpu:\n%s", sem, extra, got, want)
			}
			if i := strings.Index(want, "# "); i < 0 || !strings.Contains(got, want[i:strings.Index(want[i:], ",")+i]) {
				t.Fatalf("summary: dcsm\n%s\ncpu\n%s", got, want)
			}
			if extra != nil && !strings.Contains(got, "# response time at 20000 updates/s") {
				t.Fatalf("no response time:\n%s", got)
			}
		}
	}
	// An invalid update stops the stream at its line, after the lines before it.
	bad := writeFile(t, "bad.stream", "e 1 3\n-e 1 2\ne 1 2 0\ne 2 1\n")
	data = writeFile(t, "g.graph", watchGraph)
	code, out, errOut := runCmd(t, "watch", data, triangle, "--updates", bad, "--engine", "dcsm-emulated")
	if code != exitUsage || !strings.Contains(errOut, "bad.stream:4: invalid update `e 2 1 0`") || !strings.Contains(out, "3\t3\t") {
		t.Fatalf("invalid update: exit %d: %s\n%s", code, errOut, out)
	}
}

// streamCase writes a random labelled graph and a stream of edge insertions, deletions and
// vertex deletions over it (some invalid), and returns their paths.
func streamCase(t *testing.T) (string, string) {
	r := rand.New(rand.NewPCG(5, 20))
	var g, s strings.Builder
	for v := range 12 {
		fmt.Fprintf(&g, "v %d %d\n", v, r.IntN(2))
	}
	for range 30 {
		if a, b := r.IntN(12), r.IntN(12); a != b {
			fmt.Fprintf(&g, "e %d %d 0\n", a, b)
		}
	}
	for range 150 {
		a, b := r.IntN(14), r.IntN(14)
		switch x := r.IntN(10); {
		case x < 5:
			fmt.Fprintf(&s, "e %d %d 0\n", a, b)
		case x < 9:
			fmt.Fprintf(&s, "-e %d %d\n", a, b)
		default:
			fmt.Fprintf(&s, "-v %d\n", a)
		}
	}
	return writeFile(t, "g.graph", g.String()), writeFile(t, "u.stream", s.String())
}

// sortRuns sorts each run of consecutive signed-match lines (an update's matches, printed
// before its line, in no particular order).
func sortRuns(out string) string {
	ls := strings.Split(out, "\n")
	for i := 0; i < len(ls); {
		j := i
		for j < len(ls) && (strings.HasPrefix(ls[j], "+") || strings.HasPrefix(ls[j], "-")) {
			j++
		}
		slices.Sort(ls[i:j])
		i = j + 1
	}
	return strings.Join(ls, "\n")
}

// TestWatchStreamMatches: watch --engine dcsm-emulated --emit matches prints the CPU engine's
// --batch 1 output (every update's signed matches before its line), the matches of an update
// sorted, in every convention, with a vertex-labelled one-vertex pattern among the patterns.
func TestWatchStreamMatches(t *testing.T) {
	data, stream := streamCase(t)
	pats := []string{triangle, "(a:0)-(b)-(c:1)", "(a)-(b)-(c)-(d)-(a)", "(a:1)"}
	var listed int
	for _, sem := range [][]string{nil, {"--unique"}, {"--induced"}, {"--induced", "--unique"}} {
		args := append(append([]string{"watch", data}, pats...), "--updates", stream, "--on-invalid", "skip", "--emit", "matches")
		want, got := againstCPU(t, append(args, sem...))
		if g, w := sortRuns(watchBody(got)), sortRuns(watchBody(want)); g != w {
			t.Fatalf("dcsm %v:\n%s\ncpu:\n%s", sem, g, w)
		}
		listed += strings.Count(want, "\n+\t") + strings.Count(want, "\n-\t")
	}
	if listed < 100 {
		t.Fatalf("only %d matches listed: the case checks too little", listed)
	}
}

// windowCase writes a random labelled graph and a timestamped stream over it (edge insertions,
// many of edges deleted or expired before, deletions, vertex deletions and additions, some
// invalid; vertex operations only with vertexOps), from seed: times mostly grow by 0 to 3 units,
// now and then go back a little.
func windowCase(t *testing.T, seed uint64, vertexOps bool) (string, string) {
	r := rand.New(rand.NewPCG(seed, 21))
	g := randomCSMGraph(r, 12, 30, false)
	var s strings.Builder
	var ins [][2]int
	now := 100
	for range 300 {
		if r.IntN(12) == 0 {
			now -= r.IntN(4)
		} else {
			now += r.IntN(4)
		}
		a, b := r.IntN(14), r.IntN(14)
		x := r.IntN(20)
		if !vertexOps {
			x = r.IntN(17)
		}
		switch {
		case x < 7:
			fmt.Fprintf(&s, "e %d %d 0 %d\n", a, b, now)
			ins = append(ins, [2]int{a, b})
		case x < 11 && len(ins) > 0:
			e := ins[r.IntN(len(ins))]
			fmt.Fprintf(&s, "e %d %d %d\n", e[0], e[1], now)
		case x < 17:
			fmt.Fprintf(&s, "-e %d %d %d\n", a, b, now)
		case x < 18:
			fmt.Fprintf(&s, "v %d %d %d\n", a, r.IntN(2), now)
		default:
			fmt.Fprintf(&s, "-v %d %d\n", a, now)
		}
	}
	return writeFile(t, "g.graph", g), writeFile(t, "u.stream", s.String())
}

// TestWatchStreamWindow: with --window, the per-update engine (expiries between runs of the
// stream, csm.Window.Run; an expiry's deltas summed into one batch 'expire') prints the CPU
// engine's --batch 1 lines, counting and listing, without --induced, on random timestamped
// streams and windows of 3 to 40 units; and with a checkpoint, killed and resumed, the lines
// and totals of an uninterrupted run.
func TestWatchStreamWindow(t *testing.T) {
	pats := []string{triangle, "(a:0)-(b)-(c:1)", "(a)-(b)-(c)-(d)-(a)", "(a:1)"}
	var expiries, destroyed int
	for seed := range uint64(6) {
		data, stream := windowCase(t, seed, true)
		for _, sem := range [][]string{nil, {"--unique"}} {
			for _, emit := range []string{"counts", "matches"} {
				win := []string{"3s", "10s", "40s"}[seed%3]
				args := append(append([]string{"watch", data}, pats...), "--updates", stream, "--on-invalid", "skip", "--initial", "--window", win, "--emit", emit)
				args = append(args, sem...)
				want, got := againstCPU(t, args)
				if g, w := sortRuns(watchBody(got)), sortRuns(watchBody(want)); g != w {
					t.Fatalf("seed %d, %v:\ndcsm:\n%s\ncpu:\n%s", seed, args, g, w)
				}
				if g, w := watchSummary(got), watchSummary(want); g != w || !strings.Contains(w, " batches, ") {
					t.Fatalf("seed %d, %v: summary\n%s\ncpu:\n%s", seed, args, g, w)
				}
				for _, l := range strings.Split(want, "\n") {
					if f := strings.Split(l, "\t"); len(f) == 6 && f[1] == "expire" {
						expiries++
						if f[4] != "-0" {
							destroyed++
						}
					}
				}
			}
		}
	}
	if expiries < 200 || destroyed < 20 {
		t.Fatalf("%d expiry lines, %d destroying matches: the cases check too little", expiries, destroyed)
	}
	// (Without vertex deletions: a resumed run renumbers the graph's dense ids, and a vertex
	// deletion's edges are reported in their order.)
	data, stream := windowCase(t, 7, false)
	testWatchResumeFiles(t, data, stream, "--engine", "dcsm-emulated", "--window", "10s")
}

// TestWatchStreamWindowEmail10: the same on the public email10 workload, its stream given
// synthetic timestamps (eight updates a unit) and windows of 50 and 400 units (400 and 3,200
// updates), queries q4_1 and q6_1, embeddings and unique.
func TestWatchStreamWindowEmail10(t *testing.T) {
	dir := testenv.Path(t, "csm-email10")
	raw, err := os.ReadFile(filepath.Join(dir, "updates.stream"))
	if err != nil {
		t.Fatal(err)
	}
	var s strings.Builder
	for i, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		fmt.Fprintf(&s, "%s %d\n", l, i/8)
	}
	stream := writeFile(t, "email10.stream", s.String())
	q := filepath.Join(dir, "queries")
	var expiries int
	for _, win := range []string{"50s", "400s"} {
		for _, sem := range [][]string{nil, {"--unique"}} {
			args := append([]string{"watch", filepath.Join(dir, "initial.graph"), filepath.Join(q, "q4_1.graph"), filepath.Join(q, "q6_1.graph"),
				"--updates", stream, "--on-invalid", "skip", "--initial", "--window", win}, sem...)
			want, got := againstCPU(t, args)
			if g, w := watchBody(got)+watchSummary(got), watchBody(want)+watchSummary(want); g != w {
				t.Fatalf("%v: dcsm differs from cpu:\n%s", args, firstDiff(g, w))
			}
			expiries += strings.Count(want, "\texpire\t")
		}
	}
	if expiries < 1000 {
		t.Fatalf("only %d expiry lines", expiries)
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// TestWatchStreamRefusals: the options that batch updates are refused before anything is
// loaded (the data file does not exist).
func TestWatchStreamRefusals(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.graph")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--batch", "4"}, "--batch: the dcsm engine reports every update"},
		{[]string{"--batch-interval", "1s"}, "--batch-interval: the dcsm engine reports every update"},
		{[]string{"--window", "1s", "--induced"}, "--window with --induced: the dcsm engine gives each expired edge's delta"},
	} {
		code, _, errOut := runCmd(t, append([]string{"watch", "--engine", "dcsm", missing, triangle, "--updates", "-"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d: %s", c.args, code, errOut)
		}
	}
}

// TestWatchStreamBadInput: a stream that turns bad part way (a line that does not parse; with
// --window, an update without its timestamp) ends the per-update engine's run as it ends the
// CPU engine's: the same exit status and message (not the same lines before it: the per-update
// engine reads a chunk ahead, and reports none of the chunk the bad line ends).
func TestWatchStreamBadInput(t *testing.T) {
	data := writeFile(t, "g.graph", "v 1 0\nv 2 0\nv 3 0\nv 4 0\n")
	for _, c := range []struct {
		stream string
		args   []string
	}{
		{"e 1 2 0\ne 2 3 0\nbogus\ne 1 3 0\n", nil},
		{"e 1 2 0 10\ne 2 3 0 11\ne 1 3\n", []string{"--window", "15s"}},
	} {
		stream := writeFile(t, "u.stream", c.stream)
		args := append([]string{"watch", data, triangle, "--updates", stream, "--initial"}, c.args...)
		code, out, errOut := runCmd(t, args...)
		if code != exitUsage || !strings.Contains(errOut, "u.stream:3: ") {
			t.Fatalf("%q %v, cpu: exit %d: %s", c.stream, c.args, code, errOut)
		}
		if !strings.Contains(out, "\t2\t"+triangle) {
			t.Fatalf("%q %v, cpu: the updates before the bad line are not reported:\n%s", c.stream, c.args, out)
		}
		scode, sout, serrOut := runCmd(t, append(args, "--engine", "dcsm-emulated")...)
		if scode != code || serrOut != errOut {
			t.Fatalf("%q %v: dcsm-emulated exit %d: %s\ncpu exit %d: %s", c.stream, c.args, scode, serrOut, code, errOut)
		}
		// The per-update engine reads the stream in chunks: the updates of the bad line's chunk
		// before it are applied and reported too, as the cpu engine's batches of one report them.
		if dropTimes(sout) != dropTimes(out) {
			t.Errorf("%q %v: dcsm-emulated reported\n%s\ncpu\n%s", c.stream, c.args, sout, out)
		}
		// So does a batch that the bad line cuts short.
		bcode, bout, _ := runCmd(t, append(args, "--batch", "10")...)
		if bcode != code || !strings.Contains(bout, "\t1-2\t"+triangle+"\t") {
			t.Errorf("%q %v --batch 10: exit %d, the batch before the bad line not reported:\n%s", c.stream, c.args, bcode, bout)
		}
	}
}

// dropTimes returns watch's output without its summary lines' elapsed times.
func dropTimes(out string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(line, "# ") && strings.Contains(line, " updates in ") {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}
