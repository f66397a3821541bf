package proptest

import (
	"context"
	"testing"
)

// Progress records a count's progress reports (engine.Problem.Progress, on one thread: the
// count's tests of cuts at a report).
type Progress struct{ Reports []float64 }

// Record is the count's progress function.
func (p *Progress) Record(done float64) { p.Reports = append(p.Reports, done) }

// LastBelowOne fails t unless the reports rise within [0, 1] to end at 1, and returns the last
// report in (above, 1): where a cut leaves only the count's last range of work undone (CutAt).
func (p *Progress) LastBelowOne(t testing.TB, what string, above float64) float64 {
	t.Helper()
	at := -1.0
	for i, r := range p.Reports {
		if r < 0 || r > 1 || i > 0 && r < p.Reports[i-1] {
			t.Fatalf("%s: progress %v: not rising within [0, 1]", what, p.Reports)
		}
		if r > above && r < 1 {
			at = r
		}
	}
	if at < 0 || p.Reports[len(p.Reports)-1] != 1 {
		t.Fatalf("%s: progress %v: no report in (%v, 1), or no end at 1", what, p.Reports, above)
	}
	return at
}

// CutAt returns a context of ctx and a progress function that cancels it on the first report
// of at or more: on one thread, a cut after the same work in every run (the count's stop, set
// on context.AfterFunc's goroutine, comes later: the count goes on at least that far). The
// caller calls cancel when done.
func CutAt(ctx context.Context, at float64) (cut context.Context, progress func(float64), cancel context.CancelFunc) {
	cut, cancel = context.WithCancel(ctx)
	return cut, func(done float64) {
		if done >= at {
			cancel()
		}
	}, cancel
}
