//go:build !linux

package formats

import "os"

// umask returns the usual file mode creation mask, 022 (it is not read on this system).
func umask() os.FileMode { return 0o022 }
