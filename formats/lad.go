package formats

import (
	"io"

	"github.com/submatch/submatch/graph"
)

// The LAD format (Solnon's LAD solver, the Glasgow Subgraph Solver): a first line with the number
// of vertices n, then one line per vertex 0..n-1: `<degree> <neighbour>...`. Following Glasgow's
// "lad" format the edges are undirected, so an edge may be listed from one end or both. A vertex
// listing itself is a self-loop (an error unless self-loops are dropped).
//
// "vertexlabelledlad" (Glasgow's name) puts a label first: `<label> <degree> <neighbour>...`. It
// cannot be told apart from "lad" by content, so it is never auto-detected: select it explicitly.
//
// Detection: a ".lad" extension, or a first line with one number followed by lines whose first
// number counts the numbers after it.

func init() {
	Register(ladLoader{})
	Register(ladLoader{labelled: true})
}

type ladLoader struct{ labelled bool }

func (l ladLoader) Name() string {
	if l.labelled {
		return "vertexlabelledlad"
	}
	return "lad"
}

func (l ladLoader) Detect(path string, head []byte) int {
	if l.labelled {
		return NoMatch
	}
	if hasExt(path, ".lad") {
		return Extension
	}
	if ladShape(head) {
		return Structure
	}
	return NoMatch
}

// ladShape checks the first lines of head: one number n, then lines whose first number counts
// the rest, each neighbour below n.
func ladShape(head []byte) bool {
	lines := firstDataLines(head, "", 64)
	if len(lines) == 0 {
		return false
	}
	n, ok := singleInt(lines[0])
	if !ok || n < 0 || int64(len(lines)-1) > n {
		return false
	}
	for _, line := range lines[1:] {
		t := tokens{s: line}
		f, _ := t.next()
		deg, ok := parseInt(f)
		if !ok {
			return false
		}
		var count int64
		for f, more := t.next(); more; f, more = t.next() {
			v, ok := parseInt(f)
			if !ok || v < 0 || v >= n {
				return false
			}
			count++
		}
		if count != deg {
			return false
		}
	}
	return true
}

// singleInt parses a line holding exactly one integer.
func singleInt(line []byte) (int64, bool) {
	var v [1]int64
	t := tokens{s: line}
	n, ok := t.ints(v[:])
	return v[0], ok && n == 1
}

func (l ladLoader) Load(r io.Reader, path string, opts Options) (*graph.Graph, error) {
	lr := newLineReader(r, path)
	syntax := "<degree> <neighbour>..."
	if l.labelled {
		syntax = "<label> <degree> <neighbour>..."
	}
	line, err := lr.nextData("")
	if err == io.EOF {
		return nil, lr.emptyError("the number of vertices")
	} else if err != nil {
		return nil, err
	}
	n, ok := singleInt(line)
	if !ok || n < 0 || n > graph.MaxVertices {
		return nil, lr.expected(line, "<number of vertices>")
	}
	b := graph.NewBuilder(graph.BuilderOptions{DropSelfLoops: opts.DropSelfLoops})
	// Edges are kept until every vertex exists, so that vertices are created in id order.
	var src, dst []uint32
	for v := int64(0); v < n; v++ {
		line, err := lr.nextData("")
		if err == io.EOF {
			return nil, lr.endErrorf("unexpected end of file after %d of %d vertex lines, expected %q", v, n, syntax)
		} else if err != nil {
			return nil, err
		}
		if _, err := b.Vertex(v); err != nil {
			return nil, lr.wrap(err)
		}
		t := tokens{s: line}
		if l.labelled {
			f, _ := t.next()
			x, ok := parseInt(f)
			if !ok {
				return nil, lr.expected(line, syntax)
			}
			lab, ok := label(x)
			if !ok {
				return nil, lr.errorf("vertex label %d out of range 0..4294967295", x)
			}
			if err := b.SetVertexLabel(v, lab); err != nil {
				return nil, lr.wrap(err)
			}
		}
		f, _ := t.next()
		deg, ok := parseInt(f)
		if !ok || deg < 0 {
			return nil, lr.expected(line, syntax)
		}
		var count int64
		for f, more := t.next(); more; f, more = t.next() {
			w, ok := parseInt(f)
			if !ok {
				return nil, lr.expected(line, syntax)
			}
			if w < 0 || w >= n {
				return nil, lr.errorf("neighbour %d of vertex %d is outside 0..%d", w, v, n-1)
			}
			count++
			if w == v {
				if !opts.DropSelfLoops {
					return nil, selfLoopError(lr, v)
				}
				b.SelfLoopsDropped++
				continue
			}
			src, dst = append(src, uint32(v)), append(dst, uint32(w))
		}
		if count != deg {
			hint := ""
			if !l.labelled {
				hint = " (a vertex-labelled LAD file needs format vertexlabelledlad)"
			}
			return nil, lr.errorf("vertex %d declares degree %d but lists %d neighbours%s", v, deg, count, hint)
		}
	}
	if line, err := lr.nextData(""); err == nil {
		return nil, lr.errorf("unexpected text after the %d vertex lines: %s", n, quoteLine(line))
	} else if err != io.EOF {
		return nil, err
	}
	for i := range src {
		if err := b.AddEdge(int64(src[i]), int64(dst[i]), 0); err != nil {
			return nil, &InputError{Path: path, Msg: err.Error(), Err: err}
		}
	}
	return build(b, path, opts)
}
