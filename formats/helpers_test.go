package formats

import (
	"github.com/submatch/submatch/internal/testenv"
	"testing"
)

// testdata returns the shared test data folder, skipping the test when it is absent.
func testdata(tb testing.TB) string {
	tb.Helper()
	return testenv.Path(tb, ".")
}
