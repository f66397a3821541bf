// Package mmapfile maps files read-only into memory for the loaders (formats' snapshots and text
// graphs, the update streams' fast path). It owns the one system-specific call; callers read the
// file instead when Map reports that mapping is not available.
package mmapfile

import "errors"

// ErrUnsupported is returned by Map on systems without memory mapping.
var ErrUnsupported = errors.New("memory mapping not implemented on this system")
