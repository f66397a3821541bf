package updates_test

import (
	"fmt"
	"strings"

	"github.com/submatch/submatch/formats/updates"
)

// A Reader pulls one update at a time, on the caller's goroutine.
func ExampleReader() {
	stream := "e 1 2\n# a comment\n-e 1 2 0\nv 7 3\n"
	rd := updates.NewReader(strings.NewReader(stream), "stream", updates.Options{})
	for {
		u, ok := rd.Next()
		if !ok {
			break
		}
		fmt.Printf("line %d: %s\n", u.Line, u)
	}
	// Output:
	// line 1: e 1 2 0
	// line 3: -e 1 2 0
	// line 4: v 7 3
}
