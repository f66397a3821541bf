package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzThreadsValue: --threads takes exactly the counts 0..maxThreads (blanks around them
// allowed) and refuses anything else as it is parsed; never a panic.
func FuzzThreadsValue(f *testing.F) {
	for _, s := range []string{"0", "4", " 16 ", "4096", "4097", "-1", "99999999999", "x", "", "+3", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v threadsValue
		err := v.Set(s)
		n, aerr := strconv.Atoi(strings.TrimSpace(s))
		if want := aerr == nil && n >= 0 && n <= maxThreads; want != (err == nil) {
			t.Fatalf("Set(%q): %v; want accepted %v", s, err, want)
		}
		if err == nil && int(v) != n {
			t.Fatalf("Set(%q) gave %d", s, v)
		}
	})
}

// FuzzParseDelta: temporal's --delta is a usage error or a non-negative window; never a panic.
func FuzzParseDelta(f *testing.F) {
	for _, s := range []string{"", "0", "3600", "1h", "90s", "1.5s", "-1", "-1h", "9223372036854775807", "99999999999999999999", "2562047h47m16s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseDelta(s)
		if err != nil {
			if !isBadInput(err) {
				t.Fatalf("parseDelta(%q): %v is not a usage error", s, err)
			}
			return
		}
		if d < 0 {
			t.Fatalf("parseDelta(%q) = %d", s, d)
		}
	})
}

// FuzzParseIntList: gen queries' --sizes and bench's --threads give integers of at least the
// floor, or an error; never a panic.
func FuzzParseIntList(f *testing.F) {
	for _, s := range []string{"4,6,8,12", "1", "", ",", "1,,2", " 3 , 4", "-1", "x", "99999999999999999999"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, least int) {
		got, err := parseIntList(s, least)
		if err != nil {
			return
		}
		if len(got) == 0 {
			t.Fatalf("parseIntList(%q) accepted no integers", s)
		}
		for _, n := range got {
			if n < least {
				t.Fatalf("parseIntList(%q, %d) = %v", s, least, got)
			}
		}
	})
}

// FuzzParseSize: a size flag is a usage error or a positive size; never a panic.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"", "0", "512MiB", "4GB", "1.5GiB", "-1", "1e30", "99999EiB", "NaN", "Inf", ".", "1,,0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSize("--memory", s)
		if err != nil {
			if !isBadInput(err) {
				t.Fatalf("parseSize(%q): %v is not a usage error", s, err)
			}
			return
		}
		if n == 0 && s != "" {
			t.Fatalf("parseSize(%q) = 0 accepted", s)
		}
	})
}

// FuzzResumeCheckpoint: watch --resume reads a checkpoint's JSON, which a person or a crash may
// have broken: whatever it holds (positions, counts, window edges of absent vertices, a graph
// file elsewhere), the run ends with exit 0 or with one line and exit 2; never a panic.
func FuzzResumeCheckpoint(f *testing.F) {
	dir := f.TempDir()
	data := filepath.Join(dir, "g.txt")
	stream := filepath.Join(dir, "up.txt")
	if err := os.WriteFile(data, []byte("0 1\n1 2\n2 0\n2 3\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(stream, []byte("e 0 3 0 1\ne 1 3 0 2\n-e 0 1 0 3\ne 3 4 0 4\ne 4 0 0 5\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	const tri = "(a)-(b)-(c)-(a)"
	args := []string{"watch", "--updates", stream, "--timestamps", "--window", "3s", data, tri}
	cp := filepath.Join(dir, "cp")
	if code, _, errOut := runCmd(f, append(args, "--checkpoint", cp, "--checkpoint-every", "2")...); code != 0 {
		f.Fatalf("checkpointed run: exit %d: %s", code, errOut)
	}
	good, err := os.ReadFile(cp)
	if err != nil {
		f.Fatal(err)
	}
	s := string(good)
	f.Add(s, true)
	f.Add(s, false)
	for _, r := range [][2]string{
		{`"line":5`, `"line":-7`}, {`"line":5`, `"line":99999999999`}, {`"seq":7`, `"seq":-1`},
		{`"U":3`, `"U":99999999999`}, {`"Time":4`, `"Time":-9223372036854775808`},
		{`"graph":"cp.7.smg"`, `"graph":"../g.txt"`}, {`"graph":"cp.7.smg"`, `"graph":"/"`},
		{`"created":[18]`, `"created":[18,1]`}, {`"version":1`, `"version":2`}, {`"skipped":0`, `"skipped":-3`},
	} {
		f.Add(strings.Replace(s, r[0], r[1], 1), true)
	}
	f.Add("", true)
	f.Add("{", false)
	f.Fuzz(func(t *testing.T, checkpoint string, window bool) {
		if err := os.WriteFile(cp, []byte(checkpoint), 0o644); err != nil {
			t.Fatal(err)
		}
		a := []string{"watch", "--updates", stream, "--timestamps", "--on-invalid", "skip", "--resume", cp, data, tri}
		if window {
			a = append(a, "--window", "3s")
		}
		code, _, errOut := runCmd(t, a...)
		switch {
		case code == 0:
		case code == exitUsage && strings.HasPrefix(errOut, "submatch: ") && strings.Count(strings.TrimRight(errOut, "\n"), "\n") == 0:
		default:
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
	})
}

// TestGenQueriesStops: gen queries stops writing files once its context ends (Ctrl-C, a kill),
// with exit 1 and one line saying how many it wrote; a count of 99999999999 once went on for
// 13 minutes after SIGTERM.
func TestGenQueriesStops(t *testing.T) {
	good := writeFile(t, "g.txt", "0 1\n1 2\n2 0\n2 3\n")
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(300*time.Millisecond, cancel)
	code, _, errOut := runCmdCtx(ctx, t, "gen", "queries", "--sizes", "3", "--count", strconv.Itoa(maxQueries), good, "--dir", dir)
	files, _ := os.ReadDir(dir)
	if code != exitPartial || !strings.Contains(errOut, "gen queries interrupted after") || strings.Count(errOut, "\n") != 1 || len(files) >= maxQueries {
		t.Errorf("exit %d, %d files, stderr %q; want 1, fewer than %d files and one line", code, len(files), errOut, maxQueries)
	}
}
