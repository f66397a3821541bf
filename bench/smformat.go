package bench

import (
	"fmt"
	"io"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// WriteGraphSM writes g in the t/v/e text format (formats.WriteSM).
func WriteGraphSM(w io.Writer, g *graph.Graph) error { return formats.WriteSM(w, g) }

// WritePatternSM writes p in the t/v/e text format (formats.WritePatternSM).
func WritePatternSM(w io.Writer, p *pattern.Pattern) error { return formats.WritePatternSM(w, p) }

// WriteSMFile writes a graph (*graph.Graph) or a pattern (*pattern.Pattern) to path, through a
// temporary file renamed into place (formats.WriteAtomic).
func WriteSMFile(path string, x any) error {
	switch x := x.(type) {
	case *graph.Graph:
		return formats.WriteAtomic(path, func(w io.Writer) error { return WriteGraphSM(w, x) })
	case *pattern.Pattern:
		return formats.WriteAtomic(path, func(w io.Writer) error { return WritePatternSM(w, x) })
	}
	return fmt.Errorf("WriteSMFile: cannot write a %T", x)
}
