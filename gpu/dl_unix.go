//go:build linux || darwin || freebsd || netbsd

package gpu

import (
	"errors"
	"runtime"

	"github.com/ebitengine/purego"
)

const dlSupported = true

// dlopen loads a shared library with RTLD_NOW|RTLD_GLOBAL (GLOBAL so that libnvrtc finds the
// libnvrtc-builtins loaded before it).
func dlopen(path string) (uintptr, error) {
	// dlerror's message is per OS thread: the goroutine must not move between the failing call
	// and purego's dlerror, or the reason comes back empty (seen once in CI).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	return h, withReason(err, "dlopen failed and dlerror gave no reason")
}

func dlsym(h uintptr, name string) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p, err := purego.Dlsym(h, name)
	return p, withReason(err, "dlsym failed and dlerror gave no reason")
}

// withReason replaces an error with an empty message, which would read as success in a report.
func withReason(err error, reason string) error {
	if err != nil && err.Error() == "" {
		return errors.New(reason)
	}
	return err
}
