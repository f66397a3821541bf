package gpu

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
)

// kernelFS holds the CUDA C++ sources of kernels/, compiled at run time by NVRTC.
//
//go:embed kernels/*.cu
var kernelFS embed.FS

// KernelSource returns the source of the embedded kernel file (e.g. "triangles.cu").
func KernelSource(file string) (string, error) {
	b, err := kernelFS.ReadFile("kernels/" + file)
	if err != nil {
		return "", fmt.Errorf("gpu: no embedded kernel %q: %w", file, err)
	}
	return string(b), nil
}

// KernelFiles lists the embedded kernel files, sorted.
func KernelFiles() []string {
	ents, _ := fs.ReadDir(kernelFS, "kernels")
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}
