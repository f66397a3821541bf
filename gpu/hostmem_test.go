package gpu

import (
	"strings"
	"testing"
)

// TestCopyToDeviceAsyncFreedHost: a copy from a host buffer already freed is refused with an
// error, before any device work (it read freed pinned memory before), with or without a GPU.
func TestCopyToDeviceAsyncFreedHost(t *testing.T) {
	src := &HostBuffer{size: 64} // as Free leaves one (no bytes), without a device
	src.once.Do(func() {})
	dst := &Buffer{size: 64}
	err := CopyToDeviceAsync(dst, 0, src, 0, 16)
	if err == nil || !strings.Contains(err.Error(), "freed") {
		t.Fatalf("a copy from a freed host buffer: %v", err)
	}
}
