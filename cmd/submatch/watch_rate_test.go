package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestReplayParts: the two parts replay.log reports, arrival to hand-off (queued) and hand-off
// to result (applied), add up to the response times, update by update; an update handed over
// after its arrival has queued exactly the difference.
func TestReplayParts(t *testing.T) {
	r := newReplay(50000, 7)
	ctx := context.Background()
	var queued, response time.Duration
	for i := range 40 {
		n, err := r.arriveUpTo(ctx, 8)
		if err != nil {
			t.Fatal(err)
		}
		if n < 1 || n > 8 || n != len(r.arrivals) {
			t.Fatalf("arriveUpTo took %d updates (%d in hand), want 1-8", n, len(r.arrivals))
		}
		if last := r.arrivals[n-1]; r.handed < last {
			t.Fatalf("handed over at %v, before the last arrival %v", r.handed, last)
		}
		now := r.handed + time.Duration(i)*50*time.Microsecond // the engine's work, made up
		for _, a := range r.arrivals {
			queued += r.handed - a
			response += now - a
		}
		r.doneAt(now)
	}
	if r.calls != 40 || r.queued != queued || r.queued+r.applied != response {
		t.Fatalf("calls %d, queued %v + applied %v; want 40, %v + %v", r.calls, r.queued, r.applied, queued, response-queued)
	}
	var buf bytes.Buffer
	r.log(slog.New(slog.NewTextHandler(&buf, nil)))
	if !strings.Contains(buf.String(), "batches=40") || !strings.Contains(buf.String(), "mean_queued_ms=") {
		t.Fatalf("log: %s", buf.String())
	}
}
