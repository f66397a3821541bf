package updates

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/graph"
)

// The CSM study's graph files (initial graphs and queries of RapidFlow, CaLiG and others) are
// streams of insertions: `v id label` and `e u v [label]` lines, without a header. This package
// registers them with package formats as the format "csm", so every command that reads a graph
// reads them.
func init() { formats.Register(csmLoader{}) }

type csmLoader struct{}

func (csmLoader) Name() string { return "csm" }

// Detect accepts a file whose first data line is `v id label` or `e u v ...`.
func (csmLoader) Detect(path string, head []byte) int {
	for line := range bytes.SplitSeq(head, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		f := bytes.Fields(line)
		if (string(f[0]) == "v" && len(f) == 3) || (string(f[0]) == "e" && (len(f) == 3 || len(f) == 4)) {
			return formats.Structure
		}
		return formats.NoMatch
	}
	return formats.NoMatch
}

// Load reads the insertions into a graph; any other update, a self-loop or a vertex given two
// labels is an error naming the line, an edge given two labels one naming the file.
func (csmLoader) Load(r io.Reader, path string, opts formats.Options) (*graph.Graph, error) {
	b := graph.NewBuilder(graph.BuilderOptions{DropSelfLoops: opts.DropSelfLoops})
	for u, err := range Read(r, path, Options{}) {
		if err != nil {
			var ue *Error
			if errors.As(err, &ue) {
				return nil, &formats.InputError{Path: path, Line: ue.Line, Msg: ue.Msg, Err: ue.Err}
			}
			return nil, err
		}
		switch u.Kind {
		case InsertVertex:
			err = b.SetVertexLabel(u.U, u.Label)
		case InsertEdge:
			err = b.AddEdge(u.U, u.V, u.Label)
		default:
			return nil, &formats.InputError{Path: path, Line: u.Line, Msg: fmt.Sprintf("expected `v id label` or `e u v [label]` in a graph file, got `%s`", u)}
		}
		if err != nil {
			return nil, &formats.InputError{Path: path, Line: u.Line, Msg: err.Error(), Err: err}
		}
	}
	if b.SelfLoopsDropped > 0 && opts.Warn != nil {
		opts.Warn(fmt.Sprintf("%s: dropped %d self-loops", path, b.SelfLoopsDropped))
	}
	g, err := b.BuildContext(opts.Context())
	if err != nil && opts.Context().Err() != nil {
		return nil, fmt.Errorf("%s: loading stopped: %w", path, err)
	}
	if err != nil { // an edge given with two labels (graph.EdgeLabelConflict): bad input
		return nil, &formats.InputError{Path: path, Msg: err.Error(), Err: err}
	}
	return g, nil
}
