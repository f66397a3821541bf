// Package predicttest checks engines' predictions (engine.Predictor) in their tests: a prediction
// made under a live context, and one stopped by a context that ends before it or during it.
package predicttest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/ctxtest"
)

// Must is p's prediction for w under a live context; an error fails t.
func Must(t testing.TB, p engine.Predictor, w *engine.Workload) engine.Prediction {
	t.Helper()
	pr, err := p.Predict(context.Background(), w)
	if err != nil {
		t.Fatalf("Predict: %v", err)
	}
	return pr
}

// maxChecks bounds the checks of the context a prediction may make (Stops).
const maxChecks = 1 << 20

// Stops checks that p's Predict for w stops once its context has ended: with a context cancelled
// before the call, one whose deadline has passed, and contexts that end at its 1st, 2nd, 3rd,
// 5th, 9th, ... check of them (ctxtest.UntilLasting), it returns an error wrapping the
// context's, until one that ends after its last check, with which it makes the prediction Must
// makes (the same Seconds and Note: predictions are deterministic). It returns that context's
// live checks: 1 when p checks only before it starts, more when it checks during its work (at
// most twice its checks). No time is asserted: a prediction that did not stop would not return.
func Stops(t *testing.T, p engine.Predictor, w *engine.Workload) int {
	t.Helper()
	want := Must(t, p, w)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Predict(cancelled, w); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before the call: error %v, want one wrapping context.Canceled", err)
	}
	late, stop := context.WithTimeout(context.Background(), time.Nanosecond)
	defer stop()
	<-late.Done()
	if _, err := p.Predict(late, w); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline passed: error %v, want one wrapping context.DeadlineExceeded", err)
	}
	n := ctxtest.UntilLasting(t, maxChecks, func(ctx context.Context) error {
		pr, err := p.Predict(ctx, w)
		if err == nil && (pr.Seconds != want.Seconds || pr.Note != want.Note) {
			t.Errorf("predicted %g s (%s) with a context that lasted, want %g s (%s)", pr.Seconds, pr.Note, want.Seconds, want.Note)
		}
		return err
	})
	if n == 0 {
		t.Errorf("Predict made its prediction without checking its context")
	}
	return n
}
