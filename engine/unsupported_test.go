package engine

import (
	"errors"
	"fmt"
	"testing"
)

// TestUnsupported: an engine's sentinel made by Unsupported keeps its message, is itself and is
// ErrUnsupported through wrapping; another error is not.
func TestUnsupported(t *testing.T) {
	sentinel := Unsupported("census: not a census pattern")
	err := fmt.Errorf("%w (vertex a has a label)", sentinel)
	if err.Error() != "census: not a census pattern (vertex a has a label)" {
		t.Errorf("message %q", err)
	}
	if !errors.Is(err, sentinel) || !errors.Is(err, ErrUnsupported) {
		t.Errorf("errors.Is: sentinel %v, ErrUnsupported %v", errors.Is(err, sentinel), errors.Is(err, ErrUnsupported))
	}
	if errors.Is(fmt.Errorf("%w", ErrMemory), ErrUnsupported) {
		t.Error("ErrMemory is ErrUnsupported")
	}
}
