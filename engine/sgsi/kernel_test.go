package sgsi

import (
	"testing"

	"github.com/submatch/submatch/internal/cudacheck"
)

func TestKernelSyntax(t *testing.T) { cudacheck.Syntax(t, kernelFile, kernelSource) }
