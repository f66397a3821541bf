package gpu

import (
	"context"
	"os"
	"os/exec"
	"testing"
)

// TestNoNVRTCSearchWithoutGPU: opening the GPUs on a machine without one (no libcuda, or no
// device) never searches for NVRTC. Run in a child process, whose discovery state is fresh.
func TestNoNVRTCSearchWithoutGPU(t *testing.T) {
	if os.Getenv("SUBMATCH_TEST_CHILD") == "nvrtc-search" {
		if _, err := Open(context.Background()); err == nil {
			t.Skip("a GPU is present")
		}
		if report.NVRTC.Name != "" || len(report.NVRTC.Tried) > 0 {
			t.Fatalf("NVRTC was searched for without a GPU: %+v", report.NVRTC)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoNVRTCSearchWithoutGPU$", "-test.v")
	cmd.Env = append(os.Environ(), "SUBMATCH_TEST_CHILD=nvrtc-search")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
