package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
)

// TestStopDetail: a count stopped during a kernel's first compile is partial (isCancel), and its
// report says which kernel NVRTC was compiling and how to compile the kernels ahead; other
// stops add nothing.
func TestStopDetail(t *testing.T) {
	err := fmt.Errorf("stmatch: compiling the kernel: %w",
		&gpu.CompileStopped{Name: "stmatch.cu", Elapsed: 4900 * time.Millisecond, Err: context.DeadlineExceeded})
	if !isCancel(err) {
		t.Errorf("%v is not a cancellation", err)
	}
	got := stopDetail(err)
	for _, want := range []string{" while NVRTC compiled stmatch.cu (for 4.9s", "submatch gpu-info --compile"} {
		if !strings.Contains(got, want) {
			t.Errorf("stopDetail: %q, wants %q", got, want)
		}
	}
	for _, err := range []error{nil, context.DeadlineExceeded, fmt.Errorf("plan: %w", context.Canceled), errors.New("other")} {
		if got := stopDetail(err); got != "" {
			t.Errorf("stopDetail(%v) = %q, want nothing", err, got)
		}
	}
}

// TestPredictionStopIsPartial: --engine auto's decision stopped during an engine's prediction
// (engine.PredictionStopped, wrapped by auto) is a cancellation like a stopped count: the query
// prints its partial line and one "timed out"/"interrupted" line, exit status exitPartial.
func TestPredictionStopIsPartial(t *testing.T) {
	late, stop := context.WithTimeout(context.Background(), time.Nanosecond)
	defer stop()
	<-late.Done()
	interrupted, cancel := context.WithCancel(context.Background())
	cancel()
	for _, ctx := range []context.Context{late, interrupted} {
		err := fmt.Errorf("auto: %w", engine.PredictionStopped(ctx, "sgsi"))
		if !isCancel(err) || stopDetail(err) != "" {
			t.Errorf("%v: cancellation %v, detail %q", err, isCancel(err), stopDetail(err))
		}
	}
}
