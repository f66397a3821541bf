package gpu

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"sync"
)

// kernelFS holds the CUDA C++ sources of kernels/, compiled at run time by NVRTC.
//
//go:embed kernels/*.cu
var kernelFS embed.FS

// registered holds the kernels that other packages (the engines) embed, by file name.
var registered struct {
	sync.Mutex
	src map[string]string
}

// RegisterKernel makes a kernel that another package embeds known under its file name, to
// KernelSource and KernelFiles: `submatch gpu-info --compile` then compiles it into the cache
// too, as the engine's own Compile(source, file, nil) would. Engines call it from init; a file
// name registered twice, or one of this package's, panics (a programming error).
func RegisterKernel(file, source string) {
	registered.Lock()
	defer registered.Unlock()
	if _, err := kernelFS.ReadFile("kernels/" + file); err == nil {
		panic("gpu: kernel " + file + " is embedded in package gpu already")
	}
	if _, dup := registered.src[file]; dup {
		panic("gpu: kernel " + file + " registered twice")
	}
	if registered.src == nil {
		registered.src = map[string]string{}
	}
	registered.src[file] = source
}

// KernelSource returns the source of the embedded or registered kernel file (e.g.
// "triangles.cu").
func KernelSource(file string) (string, error) {
	b, err := kernelFS.ReadFile("kernels/" + file)
	if err == nil {
		return string(b), nil
	}
	registered.Lock()
	src, ok := registered.src[file]
	registered.Unlock()
	if ok {
		return src, nil
	}
	return "", fmt.Errorf("gpu: no embedded kernel %q: %w", file, err)
}

// KernelFiles lists the embedded and registered kernel files, sorted.
func KernelFiles() []string {
	ents, _ := fs.ReadDir(kernelFS, "kernels")
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	registered.Lock()
	for f := range registered.src {
		out = append(out, f)
	}
	registered.Unlock()
	sort.Strings(out)
	return out
}
