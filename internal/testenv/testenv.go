// Package testenv owns what the tests learn from their environment: where the shared test data
// are ($SUBMATCH_TESTDATA, else ../shared/testdata beside the repository), whether the deep
// sweeps run ($SUBMATCH_LONG), and what a test does when the data it needs are missing: it skips
// on a developer's machine and fails in CI (CI=true), where a skipped conformance test would hide
// a lost data set. It imports nothing of the project, so that every package's tests can use it.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// EnvTestdata names the folder holding the shared test data.
const EnvTestdata = "SUBMATCH_TESTDATA"

// EnvLong turns on the deep sweeps (many random cases, large graphs) that the README's test
// command leaves out so that it passes in a few minutes; .ci/run sets it.
const EnvLong = "SUBMATCH_LONG"

// Dir returns the shared test data folder: $SUBMATCH_TESTDATA, else ../shared/testdata beside the
// repository root, found from the package's directory (tests run zero to three levels below the
// root).
func Dir() string {
	if d := os.Getenv(EnvTestdata); d != "" {
		return d
	}
	for _, up := range []string{".", "..", "../..", "../../.."} {
		if _, err := os.Stat(filepath.Join(up, "go.mod")); err == nil {
			return filepath.Join(up, "..", "shared", "testdata")
		}
	}
	return filepath.Join("..", "..", "..", "shared", "testdata")
}

// Long reports whether the deep sweeps run ($SUBMATCH_LONG set to anything but "" or "0").
func Long() bool {
	v := os.Getenv(EnvLong)
	return v != "" && v != "0"
}

// Sweep returns short, or long in the deep sweeps (Long): how many cases a test runs, so that
// the README's `go test ./...` stays within minutes while CI still runs every case.
func Sweep[T any](short, long T) T {
	if Long() {
		return long
	}
	return short
}

// SkipUnlessLong skips a deep sweep unless $SUBMATCH_LONG is set.
func SkipUnlessLong(t testing.TB) {
	t.Helper()
	if !Long() {
		t.Skipf("a deep sweep: set %s=1 to run it", EnvLong)
	}
}

// InCI reports whether the tests run in CI (CI=true).
func InCI() bool { return os.Getenv("CI") == "true" }

// Missing reports that shared test data the test needs cannot be read: it skips the test, or
// fails it in CI.
func Missing(t testing.TB, what string, err error) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s: the shared test data are missing in CI (set %s): %v", what, EnvTestdata, err)
	}
	t.Skipf("%s not available (set %s): %v", what, EnvTestdata, err)
}

// Path returns Dir()/rel, or reports it Missing when it does not exist.
func Path(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(Dir(), rel)
	if _, err := os.Stat(p); err != nil {
		Missing(t, rel, err)
	}
	return p
}
