package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

const temporalSample = "# src dst t\n1 2 10\n2 3 11\n3 1 12\n1 2 12\n2 3 20\n3 1 30\n"

func TestTemporalCountList(t *testing.T) {
	f := writeFile(t, "t.txt", temporalSample)
	// Cycles within 5: 1->2->3->1 at (10, 11, 12) and 2->3->1->2 at (11, 12, 12), the last two
	// tied in input order; strict timestamps keep only the first.
	code, out, errOut := runCmd(t, "temporal", "count", f, "a->b, b->c, c->a", "--delta", "5")
	if code != 0 || out != "a->b, b->c, c->a\t2\n" {
		t.Fatalf("count: exit %d %q %s", code, out, errOut)
	}
	code, out, _ = runCmd(t, "temporal", "count", f, "a->b, b->c, c->a", "--delta", "5", "--strict-time")
	if code != 0 || out != "a->b, b->c, c->a\t1\n" {
		t.Fatalf("count strict: exit %d %q", code, out)
	}
	code, out, _ = runCmd(t, "temporal", "count", f, "a->b, b->c", "--delta", "10")
	// 1->2@10 with 2->3@11, 2->3@20; 1->2@12 with 2->3@20; 2->3@11 with 3->1@12; 2->3@20 with 3->1@30;
	// 3->1@12 with 1->2@12 (input order: 3->1 is line 4, 1->2 line 5).
	if code != 0 || out != "a->b, b->c\t6\n" {
		t.Fatalf("count 2-path: exit %d %q", code, out)
	}
	code, out, _ = runCmd(t, "temporal", "count", f, "a->b, b->c", "--delta", "10", "--strict-time")
	if code != 0 || out != "a->b, b->c\t5\n" {
		t.Fatalf("strict: exit %d %q", code, out)
	}
	code, out, _ = runCmd(t, "temporal", "list", f, "a->b, b->c, c->a", "--delta", "1h")
	if code != 0 || !strings.Contains(out, "1->2@10\t2->3@11\t3->1@12") {
		t.Fatalf("list: exit %d %q", code, out)
	}
	code, out, _ = runCmd(t, "temporal", "list", f, "a->b, b->c, c->a", "--delta", "100", "--json", "--limit", "1")
	var evs []map[string]int64
	if code != 0 || json.Unmarshal([]byte(strings.TrimSpace(out)), &evs) != nil || len(evs) != 3 {
		t.Fatalf("list --json: exit %d %q", code, out)
	}
}

func TestTemporalMotifs(t *testing.T) {
	f := writeFile(t, "t.txt", temporalSample)
	code, out, errOut := runCmd(t, "temporal", "motifs", f, "--delta", "100", "--json")
	if code != 0 {
		t.Fatalf("exit %d %s", code, errOut)
	}
	var r struct {
		Total uint64
		Grid  [6][6]uint64
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	// Triples of 6 events on 3 vertices are all 2- or 3-node motifs: C(6,3) = 20.
	if r.Total != 20 {
		t.Errorf("total %d, want 20: %v", r.Total, r.Grid)
	}
}

func TestTemporalUsage(t *testing.T) {
	f := writeFile(t, "t.txt", temporalSample)
	bad := writeFile(t, "b.txt", "1 2 3\n1 2\n")
	for _, args := range [][]string{
		{"temporal"}, {"temporal", "count", f, "a->b"}, {"temporal", "count", f, "a->a", "--delta", "1"},
		{"temporal", "motifs", f, "--delta", "-1"}, {"temporal", "motifs", bad, "--delta", "1"}, {"temporal", "motifs", "/nonexistent", "--delta", "1"},
		{"temporal", "motifs", f, "--delta", "1", "--gpu-memory", "lots"},
	} {
		if code, _, _ := runCmd(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestTemporalLoadFaults: an event file without events, with a line too long or truncated (a cut
// gzip stream) is bad input naming the file (exit 2); a load cut short by Ctrl-C or --timeout says
// so (exit 1), never that the line it was reading is malformed.
func TestTemporalLoadFaults(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(strings.Repeat(temporalSample, 200)))
	zw.Close()
	for _, tc := range []struct{ name, content, want string }{
		{"empty.txt", "", "empty.txt: no events"},
		{"header.txt", "# c\nsrc dst t\n", "header.txt: no events"},
		{"long.txt", "1 2 3\n" + strings.Repeat("7", 2<<20) + "\n", "long.txt:2: line longer than"},
		{"cut.gz", gz.String()[:gz.Len()/2], "cut.gz:"},
	} {
		f := writeFile(t, tc.name, tc.content)
		code, _, errOut := runCmd(t, "temporal", "count", f, "a->b", "--delta", "5")
		if code != exitUsage || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 || len(errOut) > 300 {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", tc.name, code, errOut, tc.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := writeFile(t, "t.txt", temporalSample)
	if code, _, errOut := runCmdCtx(ctx, t, "temporal", "count", f, "a->b", "--delta", "5"); code != exitPartial || !strings.Contains(errOut, "loading stopped: interrupted") {
		t.Errorf("cancelled load: exit %d, stderr %q", code, errOut)
	}
}
