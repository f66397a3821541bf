package dcsm

import (
	"context"
	"errors"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

// TestReportErrorStopsStream: once report returns an error (here at the first update, reported
// when the second wave's launch finishes the first), ApplyEach returns it and calls report no
// more: the waves gathered or running are not reported.
func TestReportErrorStopsStream(t *testing.T) {
	tri, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	m, err := OpenEmulated(dynamic.New(), []*pattern.Pattern{tri}, csm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m.maxWave = 2
	var s []updates.Update
	for i := int64(0); i < 10; i++ {
		s = append(s, updates.Update{Kind: updates.InsertEdge, U: i, V: i + 1, Line: int(i + 1)})
	}
	stop := errors.New("stop")
	calls := 0
	err = m.ApplyEach(context.Background(), s, func(updates.Update, *csm.Result) error {
		calls++
		return stop
	})
	if err != stop || calls != 1 {
		t.Fatalf("err %v, report called %d times (want the error, once)", err, calls)
	}
	if err := m.ApplyEach(context.Background(), s[:1], func(updates.Update, *csm.Result) error { return nil }); err != stop {
		t.Fatalf("after report's error: %v, want the matcher to refuse work with it", err)
	}
}
