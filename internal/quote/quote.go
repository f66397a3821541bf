// Package quote owns how the parsers show a bad input line in their one-line error messages:
// quoted, and cut to its first 80 bytes, so that a binary or huge line cannot flood the terminal.
package quote

import "strconv"

// maxLine is how much of a line a message shows.
const maxLine = 80

// Line quotes line s for an error message, shortening a long one ("..." after the quote).
func Line(s string) string {
	if len(s) > maxLine {
		return strconv.Quote(s[:maxLine]) + "..."
	}
	return strconv.Quote(s)
}
