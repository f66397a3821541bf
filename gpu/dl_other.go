//go:build !(linux || darwin || freebsd || netbsd)

package gpu

import (
	"errors"
	"runtime"
)

const dlSupported = false

func dlopen(path string) (uintptr, error) {
	return 0, errors.New("dynamic loading is not supported on " + runtime.GOOS)
}

func dlsym(h uintptr, name string) (uintptr, error) {
	return 0, errors.New("dynamic loading is not supported on " + runtime.GOOS)
}
