//go:build !unix

package formats

import "errors"

// mkfifo: named pipes are a Unix thing; the tests that need one skip elsewhere.
func mkfifo(string) error { return errors.New("no named pipes on this system") }
