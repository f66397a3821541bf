package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/csm/dcsm"
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
		args = append(args, sem...)
		code, want, errOut := runCmd(t, args...)
		if code != 0 {
			t.Fatalf("cpu %v: exit %d: %s", sem, code, errOut)
		}
		code, got, errOut := runCmd(t, append(args, "--engine", "dcsm-emulated")...)
		if code != 0 {
			t.Fatalf("dcsm %v: exit %d: %s", sem, code, errOut)
		}
		if g, w := sortRuns(watchBody(got)), sortRuns(watchBody(want)); g != w {
			t.Fatalf("dcsm %v:\n%s\ncpu:\n%s", sem, g, w)
		}
		listed += strings.Count(want, "\n+\t") + strings.Count(want, "\n-\t")
	}
	if listed < 100 {
		t.Fatalf("only %d matches listed: the case checks too little", listed)
	}
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
		{[]string{"--window", "1s"}, "--batch-interval and --window are not implemented with --engine dcsm"},
	} {
		code, _, errOut := runCmd(t, append([]string{"watch", "--engine", "dcsm", missing, triangle, "--updates", "-"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d: %s", c.args, code, errOut)
		}
	}
}
