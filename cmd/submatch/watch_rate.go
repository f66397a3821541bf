package main

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// replay paces an update stream as if its updates arrived at rate a second with exponential
// gaps (a Poisson process from a fixed seed: every run sees the same arrivals), and measures each
// update's response time, from its arrival to the end of the batch that applied it: with --batch
// N an update waits for the batch to fill, and when the engine falls behind the next updates wait
// in the queue. The histogram keeps memory fixed whatever the stream's length.
type replay struct {
	rate     float64
	rng      *rand.Rand
	start    time.Time
	next     time.Duration   // arrival of the next update, since start
	arrivals []time.Duration // the arrivals of the batch in hand
	hist     *hdrhistogram.Histogram
	updates  int
	// handed is when the batch in hand went to the engine (arrive's return); queued and applied
	// sum the updates' time from arrival to then and from then to their result, calls counts
	// the batches (watch -v logs their means: waiting behind the engine against the engine's own
	// time).
	handed          time.Duration
	queued, applied time.Duration
	calls           int
}

// minRate is the least --rate: an update every 11.6 days on average. The replay's arrival times
// are time.Durations, which a far slower rate overflows (--rate 1e-300 waited forever).
const minRate = 1e-6

// maxResponse is the largest response time the histogram records exactly (larger ones are
// recorded as this).
const maxResponse = time.Hour

func newReplay(rate float64, seed uint64) *replay {
	return &replay{rate: rate, rng: rand.New(rand.NewPCG(seed, 0x5eed)),
		hist: hdrhistogram.New(1, maxResponse.Microseconds(), 3)}
}

// arrive assigns the arrivals of n more updates (the batch in hand) and waits until the last of
// them has arrived; the first call starts the clock. It returns ctx's error if ctx ends first.
func (r *replay) arrive(ctx context.Context, n int) error {
	if r.start.IsZero() {
		r.start = time.Now()
	}
	r.arrivals = r.arrivals[:0]
	for range n {
		r.arrivals = append(r.arrivals, r.next)
		r.next += time.Duration(r.rng.ExpFloat64() / r.rate * float64(time.Second))
	}
	due := r.start.Add(r.arrivals[len(r.arrivals)-1])
	// A timer oversleeps by tens of microseconds or more, which would count as response time at
	// high rates: sleep to spinAhead before the arrival, then spin.
	if wait := time.Until(due) - spinAhead; wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	for time.Now().Before(due) {
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	r.handed = time.Since(r.start)
	return nil
}

// spinAhead is how long before an arrival replay stops sleeping and spins.
const spinAhead = time.Millisecond

// done records the response times of the batch in hand, applied now.
func (r *replay) done() { r.doneAt(time.Since(r.start)) }

// doneAt is done at time now since the start.
func (r *replay) doneAt(now time.Duration) {
	for _, a := range r.arrivals {
		_ = r.hist.RecordValue(min(now-a, maxResponse).Microseconds()) // clamped: cannot fail
		r.queued += max(r.handed-a, 0)
	}
	r.applied += time.Duration(len(r.arrivals)) * (now - r.handed)
	r.calls++
	r.updates += len(r.arrivals)
	r.arrivals = r.arrivals[:0]
}

// responseSummary is the replay's line of watch's summary (JSON: its object).
type responseSummary struct {
	Rate       float64 `json:"rate"`
	Updates    int     `json:"updates"`
	MedianMS   float64 `json:"median_ms"`
	P99MS      float64 `json:"p99_ms"`
	MaxMS      float64 `json:"max_ms"`
	Throughput float64 `json:"updates_per_s"`
}

func (r *replay) summary() responseSummary {
	ms := func(us int64) float64 { return float64(us) / 1000 }
	s := responseSummary{Rate: r.rate, Updates: r.updates}
	if r.updates == 0 {
		return s
	}
	s.MedianMS, s.P99MS, s.MaxMS = ms(r.hist.ValueAtQuantile(50)), ms(r.hist.ValueAtQuantile(99)), ms(r.hist.Max())
	if el := time.Since(r.start).Seconds(); el > 0 {
		s.Throughput = float64(r.updates) / el
	}
	return s
}

func (s responseSummary) String() string {
	return fmt.Sprintf("# response time at %g updates/s (arrival to result, %d updates): median %.3f ms, p99 %.3f ms, max %.3f ms; throughput %.0f updates/s",
		s.Rate, s.Updates, s.MedianMS, s.P99MS, s.MaxMS, s.Throughput)
}

// arriveUpTo waits for the next update's arrival, then takes as well every update that has
// arrived by then, up to limit in all; it returns how many it took (their response times are
// recorded by done). It returns ctx's error if ctx ends first.
func (r *replay) arriveUpTo(ctx context.Context, limit int) (int, error) {
	if err := r.arrive(ctx, 1); err != nil {
		return 0, err
	}
	now := time.Since(r.start)
	for len(r.arrivals) < limit && r.next <= now {
		r.arrivals = append(r.arrivals, r.next)
		r.next += time.Duration(r.rng.ExpFloat64() / r.rate * float64(time.Second))
	}
	r.handed = time.Since(r.start)
	return len(r.arrivals), nil
}

// log logs the means of the response time's two parts (watch -v): from arrival to the hand-off
// of the update's batch to the engine (waiting for the batches before it), and from the hand-off
// to the result; and the batches' mean size.
func (r *replay) log(l *slog.Logger) {
	if r.updates == 0 {
		return
	}
	mean := func(d time.Duration) float64 { return d.Seconds() * 1000 / float64(r.updates) }
	l.Info("response", "updates", r.updates, "batches", r.calls, "mean_batch", float64(r.updates)/float64(r.calls),
		"mean_queued_ms", mean(r.queued), "mean_applied_ms", mean(r.applied))
}
