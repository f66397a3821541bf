package gpu

import (
	"fmt"
	"sort"
	"sync"
)

// registered holds the kernels that other packages (the engines) embed, by file name. The
// runtime has no kernels of its own: they belong to the engines.
var registered struct {
	sync.Mutex
	src map[string]func() string
}

// RegisterKernel makes a kernel that another package embeds known under its file name, to
// KernelSource and KernelFiles: `submatch gpu-info --compile` then compiles it into the cache
// too, as the engine's own Compile(source, file, nil) would. Engines call it from init; a file
// name registered twice panics (a programming error).
func RegisterKernel(file, source string) {
	RegisterKernelFunc(file, func() string { return source })
}

// RegisterKernelFunc is RegisterKernel for a source that source builds when it is first asked
// for (a kernel assembled from several embedded parts: every process would otherwise concatenate
// tens of kilobytes at start for a kernel it seldom compiles). source must return the same
// string on every call (sync.OnceValue).
func RegisterKernelFunc(file string, source func() string) {
	registered.Lock()
	defer registered.Unlock()
	if _, dup := registered.src[file]; dup {
		panic("gpu: kernel " + file + " registered twice")
	}
	if registered.src == nil {
		registered.src = map[string]func() string{}
	}
	registered.src[file] = source
}

// KernelSource returns the source of a registered kernel file (e.g. "stmatch.cu").
func KernelSource(file string) (string, error) {
	registered.Lock()
	src, ok := registered.src[file]
	registered.Unlock()
	if ok {
		return src(), nil
	}
	return "", fmt.Errorf("gpu: no kernel %q is registered", file)
}

// KernelFiles lists the registered kernel files, sorted.
func KernelFiles() []string {
	var out []string
	registered.Lock()
	for f := range registered.src {
		out = append(out, f)
	}
	registered.Unlock()
	sort.Strings(out)
	return out
}
