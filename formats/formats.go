// Package formats owns reading and writing graph files: a registry of loaders with content
// auto-detection, and the .smg binary snapshot.
//
// Built-in formats (see Names): sm, gsi, edgelist, graphminer, lad, vertexlabelledlad, csv, grf
// (detected and refused: directed) and smg. Every error caused by bad input is an *InputError
// naming the file, the line for text formats, and what was expected.
package formats

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/mmapfile"
	"github.com/submatch/submatch/pattern"
)

// Options controls how a file is read.
type Options struct {
	Format           string           // "" or "auto": detect from content; else a registered loader name
	VertexLabelsFile string           // optional `id label` file for edge-list formats (SNAP)
	DropSelfLoops    bool             // drop self-loops (counted, reported through Warn) instead of failing
	Warn             func(msg string) // optional: non-fatal warnings (e.g. "dropped 3 self-loops"); may be nil
	// Name names the input in messages and, by its extension, helps detection (Read only;
	// LoadContext uses the path).
	Name string

	ctx context.Context // set by LoadContext and Read
	// pending, set by LoadChecking, receives the checks a loader left running (the snapshot's
	// data checksum and the graph's rules): they are then not the loader's to wait for.
	pending *func() error
}

func (o Options) warnf(format string, args ...any) {
	if o.Warn != nil {
		o.Warn(fmt.Sprintf(format, args...))
	}
}

// InputError reports bad input: the file, the line (0 when the format has no lines or the
// problem concerns the whole file) and what is wrong. Err is the underlying cause, if any.
type InputError struct {
	Path string
	Line int
	Msg  string
	Err  error
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(path string, format string, args ...any) *InputError {
	return &InputError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// Detection scores returned by Loader.Detect: the loader with the highest score wins, ties go to
// the loader registered first.
const (
	NoMatch    = 0
	LastResort = 5   // only the first lines fit: the loader is run to name the line that does not
	Fallback   = 10  // plausible, but other formats look the same (plain edge lists)
	Structure  = 50  // the content has the format's distinctive structure
	Extension  = 80  // the file name carries the format's extension
	MagicBytes = 100 // the file starts with the format's magic number, or is its directory layout
)

// Loader reads one format.
type Loader interface {
	// Name is the value of Options.Format that selects the loader.
	Name() string
	// Detect scores how likely the file is in this format (NoMatch .. MagicBytes), from its path
	// and its first bytes (head is nil for a directory).
	Detect(path string, head []byte) int
	// Load reads a graph. r reads the file from its start; it is nil when path is a directory.
	Load(r io.Reader, path string, opts Options) (*graph.Graph, error)
}

// DirectoryLoader is implemented by loaders whose input is a folder (or a file inside it, given
// as the path): their Load always gets a nil reader.
type DirectoryLoader interface {
	Loader
	ReadsDirectory()
}

var (
	registryMu sync.RWMutex
	registry   []Loader
)

// Register adds a loader; a loader with the same name replaces the earlier one.
func Register(l Loader) {
	registryMu.Lock()
	defer registryMu.Unlock()
	for i, old := range registry {
		if old.Name() == l.Name() {
			registry[i] = l
			return
		}
	}
	registry = append(registry, l)
}

// Names returns the registered format names, sorted.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, len(registry))
	for i, l := range registry {
		names[i] = l.Name()
	}
	sort.Strings(names)
	return names
}

func lookup(name string) Loader {
	registryMu.RLock()
	defer registryMu.RUnlock()
	for _, l := range registry {
		if l.Name() == name {
			return l
		}
	}
	return nil
}

// headSize is how much of a file detection looks at.
const headSize = 64 << 10

// Detect returns the name of the format path appears to be in (decompressing it first when it
// is compressed).
func Detect(path string) (string, error) {
	st, err := statInput(path)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		l, err := detect(path, nil, path)
		if err != nil {
			return "", err
		}
		return l.Name(), nil
	}
	br, closeFn, err := openRegular(context.Background(), path)
	if err != nil {
		return "", err
	}
	defer closeFn()
	head, err := br.Peek(headSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return "", readError(path, 0, err)
	}
	l, err := detect(detectName(path), head, path)
	if err != nil {
		return "", err
	}
	return l.Name(), nil
}

// magicLoader is a built-in loader whose Detect can score MagicBytes; none of the others does.
type magicLoader interface{ scoresMagic() }

// isGraphML reports whether head starts as an XML document with a graphml element: the format
// WriteGraph writes, and no loader reads.
func isGraphML(head []byte) bool {
	head = bytes.TrimSpace(head)
	return (bytes.HasPrefix(head, []byte("<?xml")) || bytes.HasPrefix(head, []byte("<graphml"))) && bytes.Contains(head, []byte("<graphml"))
}

// detect picks the loader for content head (nil for a folder) of the input named name, whose
// extension, if any, is that of extName.
func detect(extName string, head []byte, name string) (Loader, error) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	// The loaders that can score MagicBytes first: the first of them to score it wins, as in the
	// loop below, since no loader scores more and the built-in loaders register before any other
	// (a package that registers one imports this one). A snapshot then skips the text formats'
	// detectors, which scan its 64 KiB head for lines (40-80 µs).
	for _, l := range registry {
		if _, magic := l.(magicLoader); magic && l.Detect(extName, head) >= MagicBytes {
			return l, nil
		}
	}
	var best Loader
	bestScore := NoMatch
	for _, l := range registry {
		if s := l.Detect(extName, head); s > bestScore {
			best, bestScore = l, s
			if s >= MagicBytes {
				break // no later loader scores higher
			}
		}
	}
	if best == nil && head != nil && len(trimSpace(head)) == 0 {
		return nil, &InputError{Path: name, Line: 1, Msg: "empty file"} // line 1, as the loaders say
	}
	if best == nil && isGraphML(head) {
		return nil, inputErrorf(name, "is GraphML, which submatch writes (convert, list --subgraph) but does not read: load the graph it was made from (or its .smg snapshot)")
	}
	if best == nil {
		names := make([]string, len(registry))
		for i, l := range registry {
			names[i] = l.Name()
		}
		sort.Strings(names)
		return nil, inputErrorf(name, "unrecognised graph format (known formats: %s; choose one explicitly)", strings.Join(names, ", "))
	}
	return best, nil
}

// Load reads a data graph from path in any registered format: LoadContext without cancellation.
func Load(path string, opts Options) (*graph.Graph, error) {
	return LoadContext(context.Background(), path, opts)
}

// fileReader is the reader handed to loaders by Load: buffered, with the underlying file reachable
// for loaders that map it instead (the snapshot). Nothing has been consumed from the buffer.
type fileReader struct {
	*bufio.Reader
	f *os.File
	// start is f's offset when the load began: the stream is f from there on (standard input
	// redirected from a file that a script read some of first).
	start int64
	ctx   context.Context // what Load was given: the reads of a mapped file check it (lineReader)
	// mapped is the file's mapping when a lineReader mapped it (mapRest), for loadGuarded.
	mapped mmapfile.Span
}

// LoadPattern reads a file as a pattern (at most pattern.MaxVertices vertices).
func LoadPattern(path string, opts Options) (*pattern.Pattern, error) {
	return LoadPatternContext(context.Background(), path, opts)
}

// patternOf turns a loaded graph into a pattern.
func patternOf(g *graph.Graph, name string, opts Options) (*pattern.Pattern, error) {
	if n := g.NumVertices(); n > pattern.MaxVertices {
		return nil, inputErrorf(name, "has %d vertices; a pattern may have at most %d (use it as the data graph instead?)", n, pattern.MaxVertices)
	}
	p, err := pattern.FromGraph(g)
	if err != nil {
		return nil, &InputError{Path: name, Msg: err.Error(), Err: err}
	}
	return p, nil
}

// build finishes a builder: builder errors become InputErrors naming the file, and dropped
// self-loops are reported.
func build(b *graph.Builder, path string, opts Options) (*graph.Graph, error) {
	return buildLocating(b, path, opts, nil)
}

// edgeLines finds, for an edge given with two labels, the first line giving it with each label
// (0 when unknown).
type edgeLines func(c *graph.EdgeLabelConflict) (first, second int)

// buildLocating is build, naming the lines of an edge given with two labels when lines can
// find them.
func buildLocating(b *graph.Builder, path string, opts Options, lines edgeLines) (*graph.Graph, error) {
	if b.SelfLoopsDropped > 0 {
		opts.warnf("%s: dropped %d self-loop(s)", path, b.SelfLoopsDropped)
	}
	g, err := b.BuildContext(opts.Context())
	if isCancel(err) {
		return nil, readError(path, 0, err) // (stopped while building: a large graph's second or so)
	}
	if err != nil {
		var c *graph.EdgeLabelConflict
		if errors.As(err, &c) && lines != nil {
			if l1, l2 := lines(c); l1 > 0 && l2 > 0 {
				return nil, &InputError{Path: path, Line: max(l1, l2), Err: err,
					Msg: fmt.Sprintf("edge %s-%s given with two labels: %d on line %d, %d on line %d", c.UName, c.VName, c.Labels[0], l1, c.Labels[1], l2)}
			}
		}
		return nil, &InputError{Path: path, Msg: err.Error(), Err: err}
	}
	return g, nil
}

// rescanEdges returns an edgeLines that reads the file behind r again from where its stream
// began (nothing when r is not a plain file: a pipe, a decompressed stream) and finds the edge's lines with parse
// and edge, which returns a data line's edge.
func rescanEdges(r io.Reader, path, comments string, parse parseFunc, edge func(*lineFields) (u, v int64, label uint32, ok bool)) edgeLines {
	return func(c *graph.EdgeLabelConflict) (first, second int) {
		fr, ok := r.(*fileReader)
		if !ok || fr.f == nil {
			return 0, 0
		}
		if _, err := fr.f.Seek(fr.start, io.SeekStart); err != nil {
			return 0, 0
		}
		lr := newLineReader(fr.f, path)
		for first == 0 || second == 0 {
			text, err := lr.nextData(comments)
			if err != nil {
				return first, second
			}
			var lf lineFields
			parse(text, &lf)
			u, v, l, ok := edge(&lf)
			if !ok || !(u == c.U && v == c.V || u == c.V && v == c.U) {
				continue
			}
			if l == c.Labels[0] && first == 0 {
				first = lr.line
			} else if l == c.Labels[1] && second == 0 {
				second = lr.line
			}
		}
		return first, second
	}
}

// selfLoopError is the error for a self-loop when they are not dropped.
func selfLoopError(lr *lineReader, v int64) error {
	return &InputError{Path: lr.path, Line: lr.line, Err: graph.ErrSelfLoop,
		Msg: fmt.Sprintf("self-loop on vertex %d (Options.DropSelfLoops drops it)", v)}
}

// hasExt reports whether path ends with ext (case-insensitive, ext includes the dot).
func hasExt(path, ext string) bool { return strings.EqualFold(filepath.Ext(path), ext) }

// firstDataLines returns up to max complete non-blank lines of head that are not comments,
// trimmed. The last line is dropped when head may be cut off inside it.
func firstDataLines(head []byte, comments string, max int) [][]byte {
	var lines [][]byte
	truncated := len(head) == headSize
	for len(head) > 0 && len(lines) < max {
		i := 0
		for i < len(head) && head[i] != '\n' {
			i++
		}
		if i == len(head) && truncated {
			break // possibly truncated
		}
		line := trimSpace(head[:i])
		if i < len(head) {
			i++
		}
		head = head[i:]
		if len(line) == 0 || (comments != "" && strings.IndexByte(comments, line[0]) >= 0) {
			continue
		}
		lines = append(lines, line)
	}
	return lines
}
