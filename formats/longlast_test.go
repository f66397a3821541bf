package formats

import (
	"context"
	"io"
	"strings"
	"testing"
)

// dataEOF returns the last of its data together with io.EOF, as compress/gzip does.
type dataEOF struct{ r *strings.Reader }

func (d dataEOF) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err == nil && d.r.Len() == 0 {
		err = io.EOF
	}
	return n, err
}

// TestLongLastLineRefused: a last line longer than MaxLineBytes, without its newline, is refused
// even when the reader hands it over together with io.EOF (a gzip stream), as every other line.
func TestLongLastLineRefused(t *testing.T) {
	text := "1 2\n3 4" + strings.Repeat(" ", MaxLineBytes+1<<17)
	_, err := Read(context.Background(), dataEOF{strings.NewReader(text)}, "edgelist", Options{})
	if err == nil || !strings.Contains(err.Error(), "line longer than") || !strings.Contains(err.Error(), ":2:") {
		t.Errorf("a last line of %d bytes: %v", len(text)-4, err)
	}
}
