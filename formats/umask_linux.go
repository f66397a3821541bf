//go:build linux

package formats

import (
	"bytes"
	"os"
	"strconv"
)

// umask returns the process's file mode creation mask, read from /proc/self/status (reading it
// with umask(2) would change it for a moment, racing with other goroutines creating files);
// 022 when it cannot be read.
func umask() os.FileMode {
	data, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for line := range bytes.Lines(data) {
			if v, ok := bytes.CutPrefix(line, []byte("Umask:")); ok {
				if m, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 8, 32); err == nil {
					return os.FileMode(m) & 0o777
				}
			}
		}
	}
	return 0o022
}
