package formats

import (
	"bytes"
	"io"

	"github.com/submatch/submatch/graph"
)

// The Glasgow Subgraph Solver's CSV format, one item per line:
//
//	a,b          an undirected edge between the vertices named a and b
//	a,b,label    an edge with a label
//	a,,label     vertex a has the label (a,, alone declares an isolated vertex)
//	a>b          a directed edge: refused, directed graphs are out of scope
//
// Vertex names are arbitrary strings. When every name is an integer the names are the vertices'
// original ids; otherwise vertices are numbered 0, 1, ... in order of first appearance and the
// graph keeps the names for output (graph.Graph.VertexName). Labels must be non-negative
// integers: pattern and data files are read separately, so there is no consistent way to number
// textual labels.
//
// Detection: a ".csv" extension, or a first line with a non-numeric name, ",," or '>'.

func init() { Register(csvLoader{}) }

type csvLoader struct{}

func (csvLoader) Name() string { return "csv" }

func (csvLoader) Detect(path string, head []byte) int {
	if hasExt(path, ".csv") {
		return Extension
	}
	lines := firstDataLines(head, "", 1)
	if len(lines) == 0 {
		return NoMatch
	}
	line := lines[0]
	i := bytes.IndexAny(line, ",>")
	if i <= 0 || bytes.ContainsAny(line, " \t") {
		return NoMatch
	}
	if line[i] == '>' || bytes.Contains(line, []byte(",,")) {
		return Structure
	}
	_, ok1 := parseInt(line[:i])
	rest := line[i+1:]
	if j := bytes.IndexByte(rest, ','); j >= 0 {
		rest = rest[:j]
	}
	if _, ok2 := parseInt(rest); !ok1 || !ok2 {
		return Structure
	}
	return NoMatch // numbers separated by commas: an edge list
}

var csvSyntax = []string{"<a>,<b>[,<label>]", "<a>,,<label>"}

func (csvLoader) Load(r io.Reader, path string, opts Options) (*graph.Graph, error) {
	lr := newLineReader(r, path)
	type edge struct {
		u, v  int32
		label uint32
		line  int
	}
	var (
		index   = map[string]int32{}
		names   []string
		labels  = map[int32]uint32{}
		edges   []edge
		numeric = true
	)
	vertex := func(name []byte) (int32, error) {
		if i, ok := index[string(name)]; ok {
			return i, nil
		}
		if len(names) >= graph.MaxVertices || len(names) >= 1<<31-1 {
			return 0, lr.errorf("too many vertices")
		}
		i := int32(len(names))
		s := string(name)
		index[s] = i
		names = append(names, s)
		if _, ok := parseInt(name); !ok {
			numeric = false
		}
		return i, nil
	}
	for {
		line, err := lr.nextData("")
		if err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		pos := bytes.IndexAny(line, ",>")
		if pos < 0 {
			return nil, lr.expected(line, csvSyntax...)
		}
		if line[pos] == '>' {
			return nil, lr.errorf("directed edge %s: directed graphs are not supported (yet); use a,b for an undirected edge", quoteLine(line))
		}
		left, right := trimSpace(line[:pos]), line[pos+1:]
		var lab []byte
		if j := bytes.IndexByte(right, ','); j >= 0 {
			right, lab = right[:j], trimSpace(right[j+1:])
		}
		right = trimSpace(right)
		if len(left) == 0 {
			return nil, lr.expected(line, csvSyntax...)
		}
		var l uint32
		if len(lab) > 0 {
			x, isInt := parseInt(lab)
			var ok bool
			if l, ok = label(x); !ok || !isInt {
				return nil, lr.errorf("label %s is not an integer in 0..4294967295 (textual labels are not supported)", quoteLine(lab))
			}
		}
		u, err := vertex(left)
		if err != nil {
			return nil, err
		}
		if len(right) == 0 {
			if len(lab) > 0 {
				if old, ok := labels[u]; ok && old != l {
					return nil, lr.errorf("vertex %s given two labels, %d and %d", quoteLine(left), old, l)
				}
				labels[u] = l
			}
			continue
		}
		v, err := vertex(right)
		if err != nil {
			return nil, err
		}
		if u == v && !opts.DropSelfLoops {
			e := lr.errorf("self-loop on vertex %s (Options.DropSelfLoops drops it)", quoteLine(left))
			e.Err = graph.ErrSelfLoop
			return nil, e
		}
		edges = append(edges, edge{u, v, l, lr.line})
	}

	ids := make([]int64, len(names))
	if numeric {
		seen := make(map[int64]bool, len(names))
		for i, name := range names {
			ids[i], _ = parseInt([]byte(name))
			if seen[ids[i]] {
				numeric = false // two spellings of one number ("1", "01"): keep them apart
			}
			seen[ids[i]] = true
		}
	}
	b := graph.NewBuilder(graph.BuilderOptions{DropSelfLoops: opts.DropSelfLoops})
	for i := range names {
		if !numeric {
			ids[i] = int64(i)
		}
		if _, err := b.Vertex(ids[i]); err != nil {
			return nil, inputErrorf(path, "%v", err)
		}
		if !numeric {
			if err := b.SetVertexName(ids[i], names[i]); err != nil {
				return nil, inputErrorf(path, "%v", err)
			}
		}
	}
	for u, l := range labels {
		if err := b.SetVertexLabel(ids[u], l); err != nil {
			return nil, inputErrorf(path, "%v", err)
		}
	}
	for _, e := range edges {
		if err := b.AddEdge(ids[e.u], ids[e.v], e.label); err != nil {
			return nil, &InputError{Path: path, Line: e.line, Msg: err.Error(), Err: err}
		}
	}
	return buildLocating(b, path, opts, func(c *graph.EdgeLabelConflict) (first, second int) {
		for _, e := range edges {
			u, v := ids[e.u], ids[e.v]
			if !(u == c.U && v == c.V || u == c.V && v == c.U) {
				continue
			}
			if e.label == c.Labels[0] && first == 0 {
				first = e.line
			} else if e.label == c.Labels[1] && second == 0 {
				second = e.line
			}
		}
		return first, second
	})
}
