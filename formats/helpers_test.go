package formats

import (
	"os"
	"path/filepath"
	"testing"
)

// testdata returns the shared test data folder, skipping the test when it is absent.
func testdata(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join("..", "..", "shared", "testdata")
	if _, err := os.Stat(dir); err != nil {
		tb.Skip("shared test data not found at ", dir)
	}
	return dir
}
