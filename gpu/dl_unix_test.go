//go:build linux || darwin || freebsd || netbsd

package gpu

import (
	"errors"
	"testing"
)

// withReason gives an empty error from dlopen or dlsym a message, so a report never reads as
// success.
func TestWithReason(t *testing.T) {
	if err := withReason(errors.New(""), "why"); err == nil || err.Error() != "why" {
		t.Fatalf("withReason of an empty error: %v", err)
	}
	if err := withReason(errors.New("no such file"), "why"); err == nil || err.Error() != "no such file" {
		t.Fatalf("withReason of an error with a message: %v, want it unchanged", err)
	}
	if err := withReason(nil, "why"); err != nil {
		t.Fatalf("withReason of nil: %v, want nil", err)
	}
}
