package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strings"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/csm/dcsm"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

// TestWatchStreamOverflowFails: a running total that overflows in the middle of a chunk fails
// the run, whatever the engine does with the updates after it.
func TestWatchStreamOverflowFails(t *testing.T) {
	p, _ := pattern.Parse("(a)-(b)")
	m, err := dcsm.OpenEmulated(dynamic.New(), []*pattern.Pattern{p}, csm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var s strings.Builder
	for i := range 40000 { // more than a wave: the next wave is gathered when the first reports
		fmt.Fprintf(&s, "e %d %d\n", 2*i, 2*i+1)
	}
	var out, errb bytes.Buffer
	st := &watchState{f: &watchFlags{batch: 1, emit: "counts"}, names: []string{"edge"}, pats: []*pattern.Pattern{p},
		out: bufio.NewWriter(&out), created: []uint64{math.MaxUint64 - 1}, destroyed: []uint64{0}, m: m,
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	rd := updates.NewReader(strings.NewReader(s.String()), "u", updates.Options{})
	code := st.streamLoop(context.Background(), m, rd, "u", newWatchProgress(io.Discard), &errb)
	if code == exitOK {
		t.Fatalf("exit 0 after a total overflowed (created total now %d, %d batches recorded)", st.created[0], st.batches)
	}
	if st.created[0] != math.MaxUint64-1 { // the first update's two matches (both orientations) overflow it
		t.Fatalf("created total %d, want the last exact one %d", st.created[0], uint64(math.MaxUint64-1))
	}
	if !strings.Contains(errb.String(), "overflow") {
		t.Fatalf("stderr %q does not name the overflow", errb.String())
	}
}

// watchCounts is watch's summary's update count, batches and line ("N updates in B batches",
// "up to line L").
func watchCounts(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "# ") && strings.Contains(l, "updates in") {
			up, _, _ := strings.Cut(l, ",")
			_, line, _ := strings.Cut(l, "up to line ")
			line, _, _ = strings.Cut(line, ",")
			return up + "; line " + line
		}
	}
	return ""
}

// TestWatchStreamSummaryOnStop: when an invalid update stops the stream in the middle of a
// chunk, the per-update engine's summary counts the updates and lines it reported, as the CPU
// engine's does.
func TestWatchStreamSummaryOnStop(t *testing.T) {
	data := writeFile(t, "g.graph", watchGraph)
	for _, stream := range []string{
		"e 1 3\n-e 1 2\ne 1 2 0\ne 2 1\n", // the fourth update inserts an edge present
		"e 1 3\n-v 2\ne 1 2 0\ne 1 2\n",   // a vertex deletion reported as its edges' deletions
	} {
		bad := writeFile(t, "bad.stream", stream)
		codeCPU, want, _ := runCmd(t, "watch", data, triangle, "--updates", bad)
		code, got, _ := runCmd(t, "watch", data, triangle, "--updates", bad, "--engine", "dcsm-emulated")
		if code != codeCPU || watchCounts(got) == "" || watchCounts(got) != watchCounts(want) {
			t.Fatalf("%q: dcsm exit %d, summary %q; cpu exit %d, %q\n%s\n%s", stream, code, watchCounts(got), codeCPU, watchCounts(want), got, want)
		}
	}
}

// TestWatchRecordOverflowKeepsTotals: a batch whose delta overflows a running total fails and
// leaves every total at its last exact value (the summary prints them).
func TestWatchRecordOverflowKeepsTotals(t *testing.T) {
	var out, errb bytes.Buffer
	st := &watchState{f: &watchFlags{batch: 1, emit: "counts"}, names: []string{"a", "b"},
		out: bufio.NewWriter(&out), created: []uint64{5, math.MaxUint64 - 1}, destroyed: []uint64{7, 3},
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	res := &csm.Result{Applied: 1, Deltas: []csm.Delta{{Created: 1, Destroyed: 1}, {Created: 2, Destroyed: 1}}}
	if code := st.record([]updates.Update{{Kind: updates.InsertEdge, U: 1, V: 2, Line: 1}}, res, false, &errb); code == exitOK {
		t.Fatal("an overflowing total was recorded")
	}
	if st.created[0] != 5 || st.destroyed[0] != 7 || st.created[1] != math.MaxUint64-1 || st.destroyed[1] != 3 {
		t.Fatalf("after the overflow: created %v, destroyed %v; want the last exact totals", st.created, st.destroyed)
	}
}

// TestWatchTotalNearMax: the running total initial + created - destroyed is printed exactly when
// initial + created passes math.MaxUint64 (the total itself fitting, or not), and negative only
// when it is.
func TestWatchTotalNearMax(t *testing.T) {
	const m = math.MaxUint64
	for _, c := range []struct {
		initial, created, destroyed uint64
		want                        string
	}{
		{m - 10, 20, 15, "18446744073709551610"},
		{m, m, m, "18446744073709551615"},
		{m, 1, 0, "18446744073709551616"},
		{m, m, 0, "36893488147419103230"},
		{3, 4, 9, "-2"},
		{0, 0, m, "-18446744073709551615"},
		{5, 0, 5, "0"},
	} {
		st := &watchState{initial: []uint64{c.initial}, created: []uint64{c.created}, destroyed: []uint64{c.destroyed}}
		if got := st.total(0); got != c.want {
			t.Errorf("initial %d + %d - %d: total %s, want %s", c.initial, c.created, c.destroyed, got, c.want)
		}
	}
}
