//go:build !linux

package formats

import (
	"errors"
	"os"
)

// mapFile is not implemented on this system: snapshots are read into memory instead.
func mapFile(f *os.File, size int) ([]byte, func(), error) {
	return nil, nil, errors.New("memory mapping not implemented on this system")
}
