// Package ctxtest has contexts for tests of cancellation: one that ends at a given check, so
// that a test can stop a computation at each of its checks in turn, without timing.
package ctxtest

import (
	"context"
	"iter"
	"sync/atomic"
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
