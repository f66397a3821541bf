// Package ctxtest has contexts for tests of cancellation: one that ends at a given check, so
// that a test can stop a computation at each of its checks in turn, without timing
// (UntilLasting).
package ctxtest

import (
	"context"
	"errors"
	"iter"
	"sync/atomic"
	"testing"
)

// Countdown is a context that is live for its first n checks (calls of Err) and cancelled from
// the next one on; its Done channel never closes (for code that polls Err).
func Countdown(n int) context.Context {
	c := &countdown{Context: context.Background()}
	c.left.Store(int64(n))
	return c
}

type countdown struct {
	context.Context
	left atomic.Int64
}

func (c *countdown) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// Checks yields the checks a test makes Countdown contexts end at, to stop a computation at
// each of its first checks and then at ever sparser ones (0, 1, 2, 4, 8, ...) below limit: the
// whole computation's cost about twice over.
func Checks(limit int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for n := 0; n < limit; n = max(n+1, 2*n) {
			if !yield(n) {
				return
			}
		}
	}
}

// UntilLasting runs f with Countdown contexts that end at its checks 1, 2, 3, 5, 9, ... (Checks)
// while f returns an error wrapping context.Canceled, until one lasts and f returns nil (f
// compares what it made with a live context's then): it returns that context's live checks, 0
// when f did not look at it at all. Any other error, or no context lasting below limit checks,
// fails t.
func UntilLasting(t testing.TB, limit int, f func(ctx context.Context) error) int {
	t.Helper()
	for n := range Checks(limit) {
		err := f(Countdown(n))
		if err == nil {
			return n
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("context ended at check %d: error %v, want one wrapping context.Canceled", n+1, err)
		}
	}
	t.Fatalf("no context of fewer than %d checks lasted", limit)
	return 0
}
