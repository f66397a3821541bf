// Package bytesize owns the parsing and printing of memory sizes ("512MiB", "4GB"): SI units are
// powers of 1000 and IEC units powers of 1024, as the units say. It follows
// github.com/dustin/go-humanize's ParseBytes and IBytes, which it replaced so that the command
// line does not pay that package's initialisation (its tables of big numbers) at every start.
package bytesize

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Parse reads a size in bytes: a number with an optional unit, SI (kB, MB, GB, TB, PB, EB:
// powers of 1000; a bare k, M, G... too) or IEC (KiB, MiB, GiB, TiB, PiB, EiB: powers of 1024),
// case-insensitive, with an optional blank before the unit. "4GB" is 4,000,000,000 bytes and
// "4GiB" 4,294,967,296. Fractions are allowed ("1.5GiB"), as are commas between digits
// ("1,000"); a negative or too large size is an error.
func Parse(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	if t == "" || strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
		return 0, fmt.Errorf("size %q: expected a number with an optional unit such as MB, GB, MiB or GiB", s)
	}
	n, ok := parse(t)
	if !ok {
		return 0, fmt.Errorf("size %q: expected a number with an optional unit such as MB, GB, MiB or GiB", s)
	}
	return n, nil
}

// parse is go-humanize's ParseBytes: the leading digits, dots and commas (the commas dropped)
// as a float, times the unit that the rest names.
func parse(s string) (uint64, bool) {
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == '.' || s[end] == ',') {
		end++
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s[:end], ",", ""), 64)
	if err != nil {
		return 0, false
	}
	m, ok := unit(strings.ToLower(strings.TrimSpace(s[end:])))
	if !ok {
		return 0, false
	}
	f *= float64(m)
	if f >= math.MaxUint64 {
		return 0, false
	}
	return uint64(f), true
}

// unit returns the bytes of a lower-case unit ("" and "b" are bytes).
func unit(u string) (uint64, bool) {
	switch u {
	case "", "b":
		return 1, true
	case "k", "kb":
		return 1e3, true
	case "m", "mb":
		return 1e6, true
	case "g", "gb":
		return 1e9, true
	case "t", "tb":
		return 1e12, true
	case "p", "pb":
		return 1e15, true
	case "e", "eb":
		return 1e18, true
	case "ki", "kib":
		return 1 << 10, true
	case "mi", "mib":
		return 1 << 20, true
	case "gi", "gib":
		return 1 << 30, true
	case "ti", "tib":
		return 1 << 40, true
	case "pi", "pib":
		return 1 << 50, true
	case "ei", "eib":
		return 1 << 60, true
	}
	return 0, false
}

// IEC writes n bytes in the largest IEC unit that keeps the number at least 1, rounded to one
// decimal and printed with one below 10 ("512 B", "1.5 KiB", "79 MiB"): go-humanize's IBytes.
func IEC(n uint64) string {
	if n < 10 {
		return fmt.Sprintf("%d B", n)
	}
	units := [...]string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	e := math.Floor(math.Log(float64(n)) / math.Log(1024))
	v := math.Floor(float64(n)/math.Pow(1024, e)*10+0.5) / 10
	if v < 10 {
		return fmt.Sprintf("%.1f %s", v, units[int(e)])
	}
	return fmt.Sprintf("%.0f %s", v, units[int(e)])
}
