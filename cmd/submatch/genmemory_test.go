package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"

	"github.com/submatch/submatch/bench"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/bytesize"
	"github.com/submatch/submatch/internal/testenv"
)

// rmatArgs is the gen rmat command line for opts, writing out.
func rmatArgs(opts gen.RMATOptions, out string) []string {
	return []string{"gen", "rmat", "--scale", fmt.Sprint(opts.Scale), "--edge-factor", fmt.Sprint(opts.EdgeFactor),
		"--vertex-labels", fmt.Sprint(max(opts.VertexLabels, 1)), "--edge-labels", fmt.Sprint(max(opts.EdgeLabels, 1)),
		"--label-dist", opts.LabelDistribution.String(), "-o", out}
}

// TestGenRMATMemoryBound: the memory gen rmat says it needs (rmatNeed) is above the peak RSS
// that generating and writing the graph adds in this process, and within 3x of it once the
// runtime's allowance is taken out: unlabelled, labelled, edge-labelled, in the three output
// formats' families, and on graph.Builder's path (labels too many for rmatCSR's sort keys).
func TestGenRMATMemoryBound(t *testing.T) {
	if testenv.Race {
		t.Skip("the race detector's shadow memory is not the program's")
	}
	if !bench.ResetPeakRSS() || bench.PeakRSS() == 0 {
		t.Skip("no resettable peak RSS here (Linux's /proc/self/clear_refs)")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		opts gen.RMATOptions
		ext  string
	}{
		{gen.RMATOptions{Scale: 18, EdgeFactor: 16}, "smg"},
		{gen.RMATOptions{Scale: 17, EdgeFactor: 16}, "graph"},
		{gen.RMATOptions{Scale: 17, EdgeFactor: 27, VertexLabels: 1000, LabelDistribution: gen.ZipfLabels}, "smg"},
		{gen.RMATOptions{Scale: 17, EdgeFactor: 16, VertexLabels: 8, EdgeLabels: 4}, "csv"},
		{gen.RMATOptions{Scale: 16, EdgeFactor: 16, VertexLabels: 1 << 32, EdgeLabels: 1 << 32}, "smg"},
	} {
		out := filepath.Join(dir, "r."+c.ext)
		need, err := rmatNeed(c.opts, out)
		if err != nil {
			t.Fatal(err)
		}
		debug.FreeOSMemory()
		bench.ResetPeakRSS()
		base := bench.PeakRSS()
		code, stdout, errOut := runCmd(t, rmatArgs(c.opts, out)...)
		used := bench.PeakRSS() - base
		if code != exitOK {
			t.Fatalf("%+v: exit %d: %s", c.opts, code, errOut)
		}
		os.Remove(out)
		t.Logf("%+v .%s: peak RSS +%.1f MiB, bound %.1f MiB (%.1f without the runtime's allowance); %s", c.opts, c.ext,
			float64(used)/(1<<20), float64(need)/(1<<20), float64(need-gen.RMATRuntimeBytes)/(1<<20), strings.TrimSpace(stdout))
		if used > need {
			t.Errorf("%+v .%s: peak RSS grew by %d bytes, more than the bound %d", c.opts, c.ext, used, need)
		}
		if need-gen.RMATRuntimeBytes > 3*used {
			t.Errorf("%+v .%s: bound %d (less the runtime's allowance) is more than 3x the %d bytes measured", c.opts, c.ext, need-gen.RMATRuntimeBytes, used)
		}
	}
}

// TestGenRMATRefusesMemory: with a host of 1 GiB available (injected), a graph that needs more
// is refused with one line naming both sizes, exit status 2, and nothing written; --memory
// replaces the host's figure either way; an unknown figure (0) checks nothing.
func TestGenRMATRefusesMemory(t *testing.T) {
	defer func(f func() uint64) { hostAvailable = f }(hostAvailable)
	hostAvailable = func() uint64 { return 1 << 30 }
	dir := t.TempDir()
	out := filepath.Join(dir, "big.smg")
	big := gen.RMATOptions{Scale: 24, EdgeFactor: 16}
	need, err := rmatNeed(big, out)
	if err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCmd(t, rmatArgs(big, out)...)
	if code != exitUsage || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "needs up to "+bytesize.IEC(need)+" of memory") ||
		!strings.Contains(errOut, "the memory available (1.0 GiB)") {
		t.Errorf("scale 24 on a 1 GiB host (needs %d bytes): exit %d, %q", need, code, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused graph left a file: %v", err)
	}
	code, _, errOut = runCmd(t, append(rmatArgs(big, out), "--memory", "2GiB")...)
	if code != exitUsage || !strings.Contains(errOut, "more than --memory (2.0 GiB)") {
		t.Errorf("--memory 2GiB: exit %d, %q", code, errOut)
	}

	small := gen.RMATOptions{Scale: 8, EdgeFactor: 4}
	hostAvailable = func() uint64 { return 1 << 20 }
	if code, _, errOut := runCmd(t, rmatArgs(small, out)...); code != exitUsage || !strings.Contains(errOut, "(1.0 MiB)") {
		t.Errorf("scale 8 on a 1 MiB host: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runCmd(t, append(rmatArgs(small, out), "--memory", "1GiB")...); code != exitOK {
		t.Errorf("scale 8 with --memory 1GiB on a 1 MiB host: exit %d, %q", code, errOut)
	}
	hostAvailable = func() uint64 { return 0 }
	if code, _, errOut := runCmd(t, rmatArgs(small, out)...); code != exitOK {
		t.Errorf("scale 8, available memory unknown: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runCmd(t, append(rmatArgs(small, out), "--memory", "0")...); code != exitUsage {
		t.Errorf("--memory 0: exit %d, %q", code, errOut)
	}
}

// TestGenRMATInterrupted: gen rmat stops at Ctrl-C (its context cancelled), status 1, leaving
// no file and no temporary file: it took no context, so the first Ctrl-C was swallowed (the
// signal handler cancels the context) and the graph was written all the same, and a second one
// killed it and left the temporary file, as large as the graph, beside OUT. The write itself
// stops too (writeGraphFile: nothing renamed into place, the temporary file removed).
func TestGenRMATInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	for _, name := range []string{"g.txt", "g.smg"} {
		out := filepath.Join(dir, name)
		code, _, errOut := runCmdCtx(ctx, t, rmatArgs(gen.RMATOptions{Scale: 8, EdgeFactor: 4}, out)...)
		if code != exitPartial || !strings.Contains(errOut, "interrupted") {
			t.Errorf("%s: exit %d, %q; want 1 and interrupted", name, code, errOut)
		}
	}
	g, err := gen.RMAT(gen.RMATOptions{Scale: 8, EdgeFactor: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"w.graph", "w.smg"} {
		if err := writeGraphFile(ctx, filepath.Join(dir, name), g, false); !errors.Is(err, context.Canceled) {
			t.Errorf("writeGraphFile(%s) with the context cancelled: %v", name, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left in the folder: %v", entries)
	}
}

// TestGenRMATEdgeListRefused: an edge list (.txt) holds neither vertex labels nor isolated
// vertices. Labels are refused before generating (exit 2, one line, no file), isolated vertices
// once the graph shows them (exit 2, no file); a graph with neither is written. The line names
// the file once (until 2026-12-06: "writing F: F: an edge list cannot hold ...").
func TestGenRMATEdgeListRefused(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "g.txt")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--scale", "8", "--vertex-labels", "3"}, "cannot hold vertex labels"},
		{[]string{"--scale", "8"}, "has isolated vertices, which an edge list (" + out + ") cannot hold: name a .smg"},
	} {
		code, _, errOut := runCmd(t, append([]string{"gen", "rmat", "-o", out}, c.args...)...)
		if code != exitUsage || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) || strings.Count(errOut, out) > 1 {
			t.Errorf("%v: exit %d, %q; want exit %d saying %q", c.args, code, errOut, exitUsage, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: the refused graph left a file: %v", c.args, err)
		}
	}
	// Scale 3 with 240 samples: every one of the 8 vertices has an edge.
	if code, _, errOut := runCmd(t, "gen", "rmat", "-o", out, "--scale", "3", "--edge-factor", "30"); code != exitOK {
		t.Fatalf("a dense unlabelled graph to .txt: exit %d, %q", code, errOut)
	}
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		t.Errorf("no edge list written: %v", err)
	}
}

// TestSecondSignalRemovesTemporaries: the first signal cancels the run; the second removes the
// temporary files of writes in progress (a graph being written can be tens of GB) before the
// process dies, which it did by the signal's default action, leaving them behind.
func TestSecondSignalRemovesTemporaries(t *testing.T) {
	dir := t.TempDir()
	f, err := formats.CreateAtomic(filepath.Join(dir, "g.smg"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	c := make(chan os.Signal, 2)
	cancelled, died := make(chan struct{}), make(chan os.Signal, 1)
	go cancelOnSignal(c, func() { close(cancelled) }, func(s os.Signal) { died <- s })
	c <- os.Interrupt
	<-cancelled
	if _, err := os.Stat(f.Name()); err != nil {
		t.Fatalf("the first signal removed the temporary (the run winds down and aborts it itself): %v", err)
	}
	c <- syscall.SIGTERM
	if s := <-died; s != syscall.SIGTERM {
		t.Errorf("died by %v, want the second signal", s)
	}
	if _, err := os.Stat(f.Name()); !os.IsNotExist(err) {
		t.Errorf("the temporary %s outlived the second signal (%v)", f.Name(), err)
	}
}
