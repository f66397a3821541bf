package shapes

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/plan"
)

// TestSumHubsFirstStopsReview (review rev37): the shape passes' sum over the vertices calls its
// step for no vertex once its context has ended (before the fix it ran every worker's range of 32
// vertices, the top hubs first, to its end: R-MAT 21's 4-cycles returned 12 s after a cancel),
// and a step's own hub list stops at the flag: ended before the sum, no step runs; ended within
// the first step, no other worker begins more than one step once the flag is set (one whose
// check came just before it).
func TestSumHubsFirstStopsReview(t *testing.T) {
	const n, workers, chunk = 1000, 3, 32
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stop atomic.Bool
	var calls atomic.Int64
	_, err := sumHubsFirst(ctx, &stop, n, workers, chunk, nil, func(int, uint32) (uint64, bool) {
		calls.Add(1)
		return 1, true
	})
	if !errors.Is(err, context.Canceled) || calls.Load() != 0 || !stop.Load() {
		t.Errorf("ended before the sum: %d steps, error %v, stop %v; want none, context.Canceled, set", calls.Load(), err, stop.Load())
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	var first atomic.Bool
	var after atomic.Int64
	stop.Store(false)
	_, err = sumHubsFirst(ctx, &stop, n, workers, chunk, nil, func(int, uint32) (uint64, bool) {
		if first.CompareAndSwap(false, true) {
			cancel()
			for !stop.Load() { // (set by context.AfterFunc's goroutine)
				time.Sleep(time.Millisecond)
			}
			return 1, true
		}
		if stop.Load() {
			after.Add(1) // (begun after the flag: only where it came between a worker's check and its step)
		}
		return 1, true
	})
	if !errors.Is(err, context.Canceled) || after.Load() > workers-1 {
		t.Errorf("ended within the first step: %d steps after it, error %v; want at most %d, context.Canceled", after.Load(), err, workers-1)
	}
}

// TestPassesLeaveTheirListReview (review rev37): once the stop flag is set, a vertex's step of
// the edges' pass and of the wedge pass reads none of its list (the top hubs' lists took seconds
// each on R-MAT 21) and leaves its worker's counters clear for the next count.
func TestPassesLeaveTheirListReview(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 10, EdgeFactor: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	n := g.NumVertices()
	hub := uint32(n - 1) // (the highest degree: graph.Build's order)
	for _, kind := range []edgeKind{edgeDiamonds, edgePaws, edgePaths} {
		d := newEdgeCounter(g, nil, plan.Clique{K: 3}, kind)
		marks := plan.NewBitset(n)
		if s, _ := d.vertex(hub, marks); s == 0 {
			t.Fatalf("edge kind %d: the hub's sum is 0 before the stop: nothing to check", kind)
		}
		d.stop.Store(true)
		if s, ok := d.vertex(hub, marks); s != 0 || !ok {
			t.Errorf("edge kind %d: stopped, the hub's step summed %d (%v); want none", kind, s, ok)
		}
		for i, w := range marks {
			if w != 0 {
				t.Fatalf("edge kind %d: stopped, the marks' word %d left %x", kind, i, w)
			}
		}
	}
	ww := &wedgeWorker{w: make([]uint32, n), wp: make([]uint32, n)}
	d := newEdgeCounter(g, nil, plan.Clique{K: 3}, edgeDiamonds)
	if s, _ := d.wedges(hub, WedgeCycle, ww); s == 0 {
		t.Fatal("the hub's 4-cycles are 0 before the stop: nothing to check")
	}
	d.stop.Store(true)
	if s, ok := d.wedges(hub, WedgeCycle, ww); s != 0 || !ok || len(ww.touched) != 0 {
		t.Errorf("stopped, the hub's wedge step summed %d (%v), %d ends touched; want none", s, ok, len(ww.touched))
	}
	for c, w := range ww.w {
		if w != 0 {
			t.Fatalf("stopped, the wedge counter of %d left %d", c, w)
		}
	}
}
