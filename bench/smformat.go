package bench

import (
	"fmt"
	"io"
	"os"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// WriteGraphSM writes g in the t/v/e text format (formats.WriteSM).
func WriteGraphSM(w io.Writer, g *graph.Graph) error { return formats.WriteSM(w, g) }

// WritePatternSM writes p in the t/v/e text format (formats.WritePatternSM).
func WritePatternSM(w io.Writer, p *pattern.Pattern) error { return formats.WritePatternSM(w, p) }

// WriteSMFile writes a graph (*graph.Graph) or a pattern (*pattern.Pattern) to a new file at path.
func WriteSMFile(path string, x any) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	switch x := x.(type) {
	case *graph.Graph:
		return WriteGraphSM(f, x)
	case *pattern.Pattern:
		return WritePatternSM(f, x)
	}
	return fmt.Errorf("WriteSMFile: cannot write a %T", x)
}
