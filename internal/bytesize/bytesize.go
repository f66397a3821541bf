// Package bytesize owns the parsing of memory sizes given on the command line ("512MiB", "4GB"):
// SI units are powers of 1000 and IEC units powers of 1024, as the units say, through
// github.com/dustin/go-humanize.
package bytesize

import (
	"fmt"
	"strings"

	"github.com/dustin/go-humanize"
)

// Parse reads a size in bytes: a number with an optional unit, SI (kB, MB, GB, TB, PB, EB:
// powers of 1000; a bare k, M, G... too) or IEC (KiB, MiB, GiB, TiB, PiB, EiB: powers of 1024),
// case-insensitive, with an optional blank before the unit. "4GB" is 4,000,000,000 bytes and
// "4GiB" 4,294,967,296. Fractions are allowed ("1.5GiB"); a negative or too large size is an
// error.
func Parse(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	if t == "" || strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
		return 0, fmt.Errorf("size %q: expected a number with an optional unit such as MB, GB, MiB or GiB", s)
	}
	n, err := humanize.ParseBytes(t)
	if err != nil {
		return 0, fmt.Errorf("size %q: expected a number with an optional unit such as MB, GB, MiB or GiB", s)
	}
	return n, nil
}
