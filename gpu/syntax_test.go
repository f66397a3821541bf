package gpu

import (
	"testing"

	"github.com/submatch/submatch/internal/cudacheck"
)

// TestKernelSyntax checks every embedded kernel with clang's CUDA front end (no CUDA needed).
func TestKernelSyntax(t *testing.T) {
	for _, f := range KernelFiles() {
		src, _ := KernelSource(f)
		cudacheck.Syntax(t, f, src)
	}
}
