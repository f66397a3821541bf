package formats

import (
	"bytes"
	"context"
	"io"
	"math"
	"strconv"

	"github.com/submatch/submatch/graph"
)

// The SNAP-style edge list: `u v [label]` per line, fields separated by blanks or commas, lines
// starting with '%' are comments, and so is the text from a '#' on. As networkx's read_edgelist
// does, lines with fewer than two fields are skipped (with a warning naming them), and so is a
// first line of words such as SNAP's "FromNodeId ToNodeId" header (with a warning). Ids are arbitrary int64 values (sparse, negative);
// edges are undirected, duplicates (including u v / v u) are merged.
//
// Header rule. Some files (GraphPi's wiki-vote_input) start with a `<vertices> <edges>` line,
// which looks like an edge. The first data line is read as such a header, not as an edge, when
// all of these hold:
//   - it has exactly two fields, n >= 2 and m >= 0;
//   - exactly m data lines follow it;
//   - the lines that follow use at most n distinct vertex ids.
//
// Otherwise it is an edge. When a header declares more vertices than the edges use and every id
// is in 0..n-1, the missing ids are added as isolated vertices (unless that would more than
// double the graph); otherwise the difference is reported through Options.Warn.
//
// Options.VertexLabelsFile names an optional `id label` file (same comment and separator rules);
// an id that no edge uses becomes an isolated labelled vertex.

func init() { Register(edgeListLoader{}) }

type edgeListLoader struct{}

func (edgeListLoader) Name() string { return "edgelist" }

const (
	edgeListSyntax = "<u> <v> [label]"
	labelsSyntax   = "<id> <label>"
	edgeComments   = "#%"
	maxHeaderFill  = 1 << 16 // isolated vertices a header may add beyond the number the edges use
)

func (edgeListLoader) Detect(path string, head []byte) int {
	lines := firstDataLines(head, edgeComments, 9)
	var f [3]int64
	edges := 0
	for i, line := range lines {
		var l lineFields
		parseEdge(line, &l)
		switch {
		case l.kind == edgeSkip:
			continue // skipped on load, as networkx does
		case l.ok:
			edges++
			continue
		case i == 0 && isHeaderLine(line):
			continue // a SNAP-style header such as "FromNodeId ToNodeId"
		case edges > 0:
			// An edge list with a bad line among the first: loading it names the line.
			return LastResort
		}
		t := tokens{s: line, commas: true}
		if _, ok := t.ints(f[:]); !ok {
			return NoMatch
		}
	}
	if edges == 0 {
		return NoMatch
	}
	return Fallback
}

// edgeSkip is the kind parseEdge gives a line with fewer than two fields (after a '#' comment
// is cut off): networkx's read_edgelist skips such lines, and so does the loader, with a warning.
const edgeSkip = 's'

// isHeaderLine reports whether line looks like a column header ("FromNodeId ToNodeId",
// "source target weight"): at least two fields, the first two not integers, every field a word
// of letters, digits, '_', '-' or '.'.
func isHeaderLine(line []byte) bool {
	t := tokens{s: line, commas: true}
	n := 0
	for f, more := t.next(); more; f, more = t.next() {
		if _, isInt := parseInt(f); isInt && n < 2 {
			return false
		}
		for _, c := range f {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
				return false
			}
		}
		n++
	}
	return n >= 2
}

func (edgeListLoader) Load(r io.Reader, path string, opts Options) (*graph.Graph, error) {
	lr := newLineReader(r, path)
	b := graph.NewBuilder(graph.BuilderOptions{DropSelfLoops: opts.DropSelfLoops})
	var (
		header       [2]int64
		headerLine   int
		candidate    bool
		first        = true
		lines        int64
		minID        int64 = 1<<63 - 1
		maxID        int64 = -1 << 63
		skipped      int
		skippedLines []int
		sized        bool
	)
	// line reads one data line (the reference for the fast parser's blocks).
	line := func(pl *parsedLine) error {
		n, f := pl.n, &pl.f
		if pl.kind == edgeSkip {
			if skipped++; len(skippedLines) < 5 {
				skippedLines = append(skippedLines, lr.line)
			}
			return nil
		}
		if !pl.ok || n < 2 {
			if first && isHeaderLine(pl.text) {
				first = false
				opts.warnf("%s:%d: skipped the header line %s", path, lr.line, quoteLine(pl.text))
				return nil
			}
			return lr.expected(pl.text, edgeListSyntax)
		}
		if first {
			first = false
			if n == 2 && f[0] >= 2 && f[1] >= 0 {
				candidate, header, headerLine = true, [2]int64{f[0], f[1]}, lr.line
				return nil
			}
		}
		lines++
		var el uint32
		if n == 3 {
			var ok bool
			if el, ok = label(f[2]); !ok {
				return lr.errorf("edge label %d out of range 0..4294967295", f[2])
			}
		}
		if f[0] == f[1] && !opts.DropSelfLoops {
			return selfLoopError(lr, f[0])
		}
		if err := b.AddEdge(f[0], f[1], el); err != nil {
			return lr.wrap(err)
		}
		minID, maxID = min(minID, f[0], f[1]), max(maxID, f[0], f[1])
		return nil
	}
	for blk, err := range lr.blocks(edgeComments, fastEdges, parseEdge) {
		if err != nil {
			return nil, err
		}
		if !blk.fast {
			for pl := range lr.records(blk, 0) {
				if err := line(pl); err != nil {
					return nil, err
				}
			}
			continue
		}
		pairs, labels, lo, hi := blk.pairs, blk.edgeLabels(), blk.minID, blk.maxID
		if len(pairs) == 0 {
			continue
		}
		if first {
			first = false
			if blk.firstN == 2 && pairs[0] >= 2 {
				candidate, header, headerLine = true, [2]int64{int64(pairs[0]), int64(pairs[1])}, blk.first+int(blk.firstData)
				pairs = pairs[2:]
				if labels != nil {
					labels = labels[1:]
				}
				lo, hi = math.MaxUint32, 0
				for _, x := range pairs {
					lo, hi = min(lo, x), max(hi, x)
				}
				if len(pairs) == 0 {
					continue
				}
			}
		}
		if !sized {
			// Room for the edges: where the parser put them (a file read whole), else
			// estimated from the file's size and this block's lines.
			sized = true
			if !lr.useStorage(b, blk, pairs) {
				if size := inputSize(r); size > 0 {
					b.Grow(int(min(size/int64(len(blk.text))+1, 1<<40) * int64(len(pairs)/2) * 21 / 20))
				}
			}
		}
		lines += int64(len(pairs) / 2)
		minID, maxID = min(minID, int64(lo)), max(maxID, int64(hi))
		b.AddEdgePairs(pairs, labels, hi)
	}
	if text := lr.takeText(); text != nil {
		b.UseScratch(text)
	}
	if skipped > 0 {
		more := ""
		if skipped > len(skippedLines) {
			more = ", ..."
		}
		opts.warnf("%s: skipped %d line(s) with fewer than two fields (line %s%s)", path, skipped, joinInts(skippedLines), more)
	}
	if candidate {
		if lines == header[1] && int64(b.NumVertices()) <= header[0] {
			if nv := int64(b.NumVertices()); nv < header[0] {
				// Fill in isolated vertices, but never let a header value alone allocate much.
				if (nv == 0 || minID >= 0 && maxID < header[0]) && header[0]-nv <= nv+maxHeaderFill {
					for id := int64(0); id < header[0] && b.NumVertices() < int(header[0]); id++ {
						if _, err := b.Vertex(id); err != nil {
							return nil, &InputError{Path: path, Line: headerLine, Msg: err.Error(), Err: err}
						}
					}
				} else {
					opts.warnf("%s:%d: header declares %d vertices but the edges use %d; the others are left out", path, headerLine, header[0], nv)
				}
			}
		} else if err := b.AddEdge(header[0], header[1], 0); err != nil {
			return nil, &InputError{Path: path, Line: headerLine, Msg: err.Error(), Err: err}
		}
	}
	if opts.VertexLabelsFile != "" {
		if err := readVertexLabels(opts.Context(), b, opts.VertexLabelsFile); err != nil {
			return nil, err
		}
	}
	return buildLocating(b, path, opts, rescanEdges(r, path, edgeComments, parseEdge, func(l *lineFields) (int64, int64, uint32, bool) {
		if !l.ok || l.n < 2 {
			return 0, 0, 0, false
		}
		var el uint32
		if l.n == 3 {
			el, _ = label(l.f[2])
		}
		return l.f[0], l.f[1], el, true
	}))
}

// parseEdge parses a `u v [label]` line; text from a '#' on is a comment. A line with fewer than
// two fields gets kind edgeSkip.
func parseEdge(line []byte, l *lineFields) {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = trimSpace(line[:i])
	}
	t := tokens{s: line, commas: true}
	l.n, l.ok = t.ints(l.f[:])
	if l.ok && l.n < 2 {
		l.kind = edgeSkip
	} else if !l.ok {
		t = tokens{s: line, commas: true}
		fields := 0
		for _, more := t.next(); more && fields < 2; _, more = t.next() {
			fields++
		}
		if fields < 2 {
			l.kind = edgeSkip
		}
	}
}

// joinInts writes numbers separated by ", ".
func joinInts(v []int) string {
	var b []byte
	for i, x := range v {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return string(b)
}

// readVertexLabels applies an `id label` file to a builder.
func readVertexLabels(ctx context.Context, b *graph.Builder, path string) error {
	r, closeFn, err := openRegular(ctx, path)
	if err != nil {
		return err
	}
	defer closeFn()
	lr := newLineReader(r, path)
	var v [2]int64
	for n := 0; ; n++ {
		line, err := lr.nextData(edgeComments)
		if err == io.EOF && n == 0 {
			return inputErrorf(path, "no labels: expected %q lines", labelsSyntax)
		} else if err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if _, err := lr.lineInts(line, true, v[:], 2, labelsSyntax); err != nil {
			return err
		}
		l, ok := label(v[1])
		if !ok {
			return lr.errorf("vertex label %d out of range 0..4294967295", v[1])
		}
		if err := b.SetVertexLabel(v[0], l); err != nil {
			return lr.wrap(err)
		}
	}
}
