package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWatchResumeChain: a checkpoint resumed into the same file (relative, in the current
// folder) twice over, the last time with nothing left of the stream (a checkpoint at the same
// seq as the one resumed), ends with the totals of an uninterrupted run and one graph file
// beside the checkpoint, the one it names.
func TestWatchResumeChain(t *testing.T) {
	data, stream := randomWatchFiles(t, 21, 30, 60, 200)
	args := []string{"watch", data, triangle, "--updates", stream, "--on-invalid", "skip", "--drop-self-loops", "--initial", "--batch", "2"}
	code, full, errOut := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	cpArgs := append(args, "--checkpoint", "cp", "--checkpoint-every", "30")
	runKilledAfter(t, 40, cpArgs...)
	runKilledAfter(t, 30, append(cpArgs, "--resume", "cp")...)
	totals := func(out string) string { return out[strings.LastIndex(out, "# "+triangle):] }
	for i := range 2 {
		code, resumed, errOut := runCmd(t, append(cpArgs, "--resume", "cp")...)
		if code != 0 {
			t.Fatalf("resume %d: exit %d: %s", i, code, errOut)
		}
		if a, b := totals(full), totals(resumed); a != b {
			t.Errorf("resume %d: totals %q, an uninterrupted run %q", i, b, a)
		}
		smg, _ := filepath.Glob(filepath.Join(dir, "*.smg"))
		if want := checkpointGraph(filepath.Join(dir, "cp")); len(smg) != 1 || smg[0] != want {
			t.Errorf("resume %d: graph files %v, the checkpoint names %s", i, smg, want)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "tmp") {
			t.Errorf("leftover %s", e.Name())
		}
	}
}

// TestCheckOutputPlainPaths: outputs a user names every day are not refused: a file of the
// current folder (with or without ./), one in a subfolder, /dev/stdout and /dev/null.
func TestCheckOutputPlainPaths(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	in := filepath.Join(dir, "g.txt")
	if err := os.WriteFile(in, []byte("0 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Mkdir("sub", 0o755)
	for _, out := range []string{"out.txt", "./out.txt", "sub/out.txt", filepath.Join(dir, "out.txt"), "/dev/stdout", "/dev/null"} {
		if err := checkOutput("-o", out, in, "(a)-(b)", "-"); err != nil {
			t.Errorf("-o %s refused: %v", out, err)
		}
	}
	for _, out := range []string{"g.txt", "./g.txt", "nosuch/out.txt", "sub"} {
		if err := checkOutput("-o", out, in); err == nil {
			t.Errorf("-o %s accepted", out)
		}
	}
}

// TestWatchFreshRunOverCheckpoint: a run that starts afresh (no --resume) with the --checkpoint
// of an earlier run replaces that checkpoint, its graph file too: one graph file is left, the
// one the checkpoint names (each run killed at another seq left one more snapshot).
func TestWatchFreshRunOverCheckpoint(t *testing.T) {
	data, stream := randomWatchFiles(t, 22, 30, 60, 200)
	dir := t.TempDir()
	cp := filepath.Join(dir, "cp")
	args := []string{"watch", data, triangle, "--updates", stream, "--on-invalid", "skip", "--drop-self-loops", "--batch", "2", "--checkpoint", cp, "--checkpoint-every", "30"}
	runKilledAfter(t, 40, args...)
	if code, _, errOut := runCmd(t, append(args, "--checkpoint-every", "37")...); code != 0 { // (checkpoints at other seqs)
		t.Fatalf("exit %d: %s", code, errOut)
	}
	smg, _ := filepath.Glob(filepath.Join(dir, "*.smg"))
	if want := checkpointGraph(cp); len(smg) != 1 || smg[0] != want {
		t.Errorf("graph files %v, the checkpoint names %s", smg, want)
	}
}

// TestWatchFreshRunCrashSameSeq: a fresh run over another run's checkpoint, killed inside its
// first checkpoint at the seq of the one it replaces, leaves that checkpoint whole: its graph is
// not written over (the resume read the old position with the new run's graph).
func TestWatchFreshRunCrashSameSeq(t *testing.T) {
	data, stream := randomWatchFiles(t, 23, 30, 60, 200)
	args := []string{"watch", data, triangle, "--updates", stream, "--on-invalid", "skip", "--drop-self-loops", "--initial"}
	code, full, errOut := runCmd(t, append(args, "--batch", "2")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	cp := filepath.Join(t.TempDir(), "cp")
	cpArgs := append(args, "--checkpoint", cp, "--checkpoint-every", "30")
	watchKillAfter = 20 // batches of 2: checkpoints at seq 15, then killed
	code, _, errOut = runCmd(t, append(cpArgs, "--batch", "2")...)
	if code != exitPartial {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	watchKillAfter, watchCrashInCheckpoint = 0, 1 // batches of 1: its first checkpoint at seq 30
	code, _, _ = runCmd(t, append(cpArgs, "--batch", "1", "--checkpoint-every", "15")...)
	watchCrashInCheckpoint = 0
	if code == 0 {
		t.Fatal("the run crashing in its first checkpoint ended normally")
	}
	code, resumed, errOut := runCmd(t, append(args, "--batch", "2", "--resume", cp)...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	totals := func(out string) string { return out[strings.LastIndex(out, "# "+triangle):] }
	if a, b := totals(full), totals(resumed); a != b {
		t.Errorf("totals after the resume %q, an uninterrupted run %q", b, a)
	}
}
