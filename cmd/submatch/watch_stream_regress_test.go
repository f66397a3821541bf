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
	if !strings.Contains(errb.String(), "overflow") {
		t.Fatalf("stderr %q does not name the overflow", errb.String())
	}
}
