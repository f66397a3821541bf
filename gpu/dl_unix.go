//go:build linux || darwin || freebsd || netbsd

package gpu

import "github.com/ebitengine/purego"

const dlSupported = true

// dlopen loads a shared library with RTLD_NOW|RTLD_GLOBAL (GLOBAL so that libnvrtc finds the
// libnvrtc-builtins loaded before it).
func dlopen(path string) (uintptr, error) {
	return purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
}

func dlsym(h uintptr, name string) (uintptr, error) {
	return purego.Dlsym(h, name)
}
