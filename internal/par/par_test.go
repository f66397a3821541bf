package par

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestForCallsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 100, maxChunk - 1, maxChunk, 5*maxChunk + 3, 40 * maxChunk} {
		for _, workers := range []int{0, 1, 3} {
			seen := make([]atomic.Int32, n)
			For(n, workers, func(i int) { seen[i].Add(1) })
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("n=%d workers=%d: index %d called %d times", n, workers, i, c)
				}
			}
		}
	}
}

// A short loop spreads over the workers: with 4 workers and 64 slow items, several goroutines
// must take part (one chunk of 1,024 would have run them all on one).
func TestForSpreadsShortLoops(t *testing.T) {
	var running, most atomic.Int32
	For(64, 4, func(int) {
		r := running.Add(1)
		for {
			m := most.Load()
			if r <= m || most.CompareAndSwap(m, r) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		running.Add(-1)
	})
	if most.Load() < 2 {
		t.Errorf("64 items on 4 workers ran on %d goroutine(s) at a time", most.Load())
	}
}

// Ranges covers [0, n) once with ranges of at most chunk indexes, and w stays below Workers.
func TestRangesCoverOnce(t *testing.T) {
	for _, n := range []int{0, 1, 5, 64, 65, 1000} {
		for _, chunk := range []int{1, 7, 64, 5000} {
			for _, workers := range []int{0, 1, 3, 100} {
				nw := Workers(n, workers, chunk)
				seen := make([]atomic.Int32, n)
				var badW, badRange atomic.Bool
				stopped := Ranges(n, workers, chunk, func(w, lo, hi int) bool {
					if w < 0 || w >= nw {
						badW.Store(true)
					}
					if lo >= hi || hi-lo > chunk || hi > n {
						badRange.Store(true)
					}
					for i := lo; i < hi; i++ {
						seen[i].Add(1)
					}
					return true
				})
				if stopped || badW.Load() || badRange.Load() {
					t.Fatalf("n=%d chunk=%d workers=%d: stopped %v, w out of [0,%d) %v, bad range %v",
						n, chunk, workers, stopped, nw, badW.Load(), badRange.Load())
				}
				for i := range seen {
					if c := seen[i].Load(); c != 1 {
						t.Fatalf("n=%d chunk=%d workers=%d: index %d covered %d times", n, chunk, workers, i, c)
					}
				}
			}
		}
	}
}

// A call returning false stops the loop: on one worker nothing after it runs.
func TestRangesStop(t *testing.T) {
	var calls int
	stopped := Ranges(100, 1, 10, func(_, lo, _ int) bool {
		calls++
		return lo < 30
	})
	if !stopped || calls != 4 {
		t.Errorf("stopped %v after %d calls, want true after 4 (the ranges at 0, 10, 20, 30)", stopped, calls)
	}
}

func TestWorkers(t *testing.T) {
	for _, c := range []struct{ n, workers, chunk, want int }{
		{0, 4, 16, 1}, {1, 4, 16, 1}, {17, 4, 16, 2}, {1000, 4, 16, 4}, {1000, 4, 0, 4},
	} {
		if got := Workers(c.n, c.workers, c.chunk); got != c.want {
			t.Errorf("Workers(%d, %d, %d) = %d, want %d", c.n, c.workers, c.chunk, got, c.want)
		}
	}
}

// TestEachFirstFailure: every index runs once; the first failure is returned, not the
// cancellations it causes, and it stops the calls still running.
func TestEachFirstFailure(t *testing.T) {
	var ran [8]atomic.Int32
	if err := Each(context.Background(), len(ran), func(_ context.Context, i int) error {
		ran[i].Add(1)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i := range ran {
		if n := ran[i].Load(); n != 1 {
			t.Errorf("index %d ran %d times", i, n)
		}
	}
	boom := errors.New("boom")
	t0 := time.Now()
	err := Each(context.Background(), 4, func(ctx context.Context, i int) error {
		if i == 2 {
			time.Sleep(10 * time.Millisecond)
			return boom
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Minute):
			return nil
		}
	})
	if !errors.Is(err, boom) {
		t.Errorf("Each returned %v, want the failure", err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("the others stopped after %v", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Each(ctx, 3, func(ctx context.Context, _ int) error { return ctx.Err() }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
