package temporal

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// errAtEnd returns all of its data together with err.
type errAtEnd struct {
	data string
	err  error
}

func (r *errAtEnd) Read(p []byte) (int, error) {
	n := copy(p, r.data)
	r.data = r.data[n:]
	if r.data == "" {
		return n, r.err
	}
	return n, nil
}

// TestReadErrorLine: a read error that comes with the last bytes (a truncated gzip stream's
// last read) names the line it cut, after the whole lines read with it.
func TestReadErrorLine(t *testing.T) {
	for _, last := range []string{"1 2 3\n2 3 4\n3 4 5\n4 5", "4 5 6 7\n\n\n1 2"} {
		_, err := Read(&errAtEnd{data: last, err: io.ErrUnexpectedEOF}, "f")
		var ie *InputError
		lines := strings.Count(last, "\n") + 1
		if !errors.As(err, &ie) || ie.Line != lines || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%q: %v, want an error naming line %d", last, err, lines)
		}
	}
}
