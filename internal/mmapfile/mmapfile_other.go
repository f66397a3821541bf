//go:build !linux

package mmapfile

import "os"

// Map is not implemented on this system (ErrUnsupported): callers read the file instead.
func Map(*os.File, int, bool) ([]byte, func(), error) {
	return nil, nil, ErrUnsupported
}
