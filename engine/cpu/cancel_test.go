package cpu_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
)

// bigProblem has far more matches than any test can count: 6-vertex paths in a dense random
// graph of 300 vertices (about 300·150^5 embeddings).
func bigProblem(t *testing.T, threads int) *engine.Problem {
	t.Helper()
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(e)-(f)")
	if err != nil {
		t.Fatal(err)
	}
	return &engine.Problem{Data: gen.RandomGraph(1, 300, 0.5, 1, 1), Pattern: p, Threads: threads}
}

func TestCountCancelled(t *testing.T) {
	e, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{1, 2, 0} {
		prob := bigProblem(t, threads)
		for _, sem := range proptest.AllSemantics {
			prob.Semantics = sem

			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			start := time.Now()
			res, err := e.Count(ctx, prob)
			proptest.CheckStopped(t, fmt.Sprintf("threads %d %s: cancelled Count", threads, sem), time.Since(start), 2*time.Second, res, err, context.Canceled)

			ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
			start = time.Now()
			res, err = e.Count(ctx, prob)
			took := time.Since(start)
			cancel()
			proptest.CheckStopped(t, fmt.Sprintf("threads %d %s: Count with a 50ms deadline", threads, sem), took, 2*time.Second, res, err, context.DeadlineExceeded)
		}
	}
}

func TestMatchesCancelled(t *testing.T) {
	e, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{1, 2} {
		prob := bigProblem(t, threads)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		var last error
		n := 0
		for _, err := range e.Matches(ctx, prob) {
			if err != nil {
				last = err
				break
			}
			n++
		}
		d := time.Since(start)
		cancel()
		if d > 2*time.Second {
			t.Errorf("threads %d: Matches with a 50ms deadline ran %v (%d matches)", threads, d, n)
		}
		if !errors.Is(last, context.DeadlineExceeded) {
			t.Errorf("threads %d: Matches with a 50ms deadline ended with %v after %d matches; want context.DeadlineExceeded", threads, last, n)
		}
	}
}
