package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

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
