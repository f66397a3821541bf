package stmatch

import "github.com/submatch/submatch/internal/testenv"

// sweep is long in the deep sweeps (SUBMATCH_LONG=1, set by CI) and short otherwise, so that the
// README's `go test ./...` stays within minutes while CI still runs every case.
func sweep(long, short int) int {
	if testenv.Long() {
		return long
	}
	return short
}
