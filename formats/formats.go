// Package formats owns reading and writing graph files: a registry of loaders with content
// auto-detection, and the .smg binary snapshot.
//
// Built-in formats (see Names): sm, gsi, edgelist, graphminer, lad, vertexlabelledlad, csv, grf
// (detected and refused: directed) and smg. Every error caused by bad input is an *InputError
// naming the file, the line for text formats, and what was expected.
package formats

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// Options controls how a file is read.
type Options struct {
	Format           string           // "" or "auto": detect from content; else a registered loader name
	VertexLabelsFile string           // optional `id label` file for edge-list formats (SNAP)
	DropSelfLoops    bool             // drop self-loops (counted, reported through Warn) instead of failing
	Warn             func(msg string) // optional: non-fatal warnings (e.g. "dropped 3 self-loops"); may be nil
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

// Detect returns the name of the format path appears to be in.
func Detect(path string) (string, error) {
	r, head, err := open(path)
	if err != nil {
		return "", err
	}
	if r != nil {
		defer r.f.Close()
	}
	l, err := detect(path, head)
	if err != nil {
		return "", err
	}
	return l.Name(), nil
}

// open opens path for detection and loading. For a file, r reads it from the start (the caller
// closes r.f) and head holds its first headSize bytes; for a directory both are nil.
func open(path string) (r *fileReader, head []byte, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if st.IsDir() {
		return nil, nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	br := bufio.NewReaderSize(f, headSize)
	head, err = br.Peek(headSize)
	if err != nil && err != io.EOF {
		f.Close()
		return nil, nil, &InputError{Path: path, Msg: "read failed", Err: err}
	}
	return &fileReader{Reader: br, f: f}, head, nil
}

func detect(path string, head []byte) (Loader, error) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	var best Loader
	bestScore := NoMatch
	for _, l := range registry {
		if s := l.Detect(path, head); s > bestScore {
			best, bestScore = l, s
		}
	}
	if best == nil && head != nil && len(trimSpace(head)) == 0 {
		return nil, inputErrorf(path, "empty file")
	}
	if best == nil {
		names := make([]string, len(registry))
		for i, l := range registry {
			names[i] = l.Name()
		}
		sort.Strings(names)
		return nil, inputErrorf(path, "unrecognised graph format (known formats: %s; choose one explicitly)", strings.Join(names, ", "))
	}
	return best, nil
}

// Load reads a data graph from path in any registered format.
func Load(path string, opts Options) (*graph.Graph, error) {
	fr, head, err := open(path)
	if err != nil {
		return nil, err
	}
	var r io.Reader // stays a nil interface for a directory
	if fr != nil {
		defer fr.f.Close()
		r = fr
	}
	var l Loader
	if opts.Format == "" || opts.Format == "auto" {
		if l, err = detect(path, head); err != nil {
			return nil, err
		}
	} else if l = lookup(opts.Format); l == nil {
		return nil, fmt.Errorf("unknown format %q (known formats: %s)", opts.Format, strings.Join(Names(), ", "))
	}
	if opts.VertexLabelsFile != "" && l.Name() != "edgelist" {
		return nil, inputErrorf(path, "a vertex labels file was given, but %s files carry their own vertex labels (the labels file is for edge lists)", l.Name())
	}
	if _, dir := l.(DirectoryLoader); dir {
		r = nil
	} else if r == nil {
		return nil, inputErrorf(path, "is a directory; format %s reads a file", l.Name())
	}
	return l.Load(r, path, opts)
}

// fileReader is the reader handed to loaders by Load: buffered, with the underlying file reachable
// for loaders that map it instead (the snapshot). Nothing has been consumed from the buffer.
type fileReader struct {
	*bufio.Reader
	f *os.File
}

// LoadPattern reads a file as a pattern (at most pattern.MaxVertices vertices).
func LoadPattern(path string, opts Options) (*pattern.Pattern, error) {
	g, err := Load(path, opts)
	if err != nil {
		return nil, err
	}
	if n := g.NumVertices(); n > pattern.MaxVertices {
		return nil, inputErrorf(path, "has %d vertices; a pattern may have at most %d (use it as the data graph instead?)", n, pattern.MaxVertices)
	}
	p, err := pattern.FromGraph(g)
	if err != nil {
		return nil, &InputError{Path: path, Msg: err.Error(), Err: err}
	}
	return p, nil
}

// build finishes a builder: builder errors become InputErrors naming the file, and dropped
// self-loops are reported.
func build(b *graph.Builder, path string, opts Options) (*graph.Graph, error) {
	if b.SelfLoopsDropped > 0 {
		opts.warnf("%s: dropped %d self-loop(s)", path, b.SelfLoopsDropped)
	}
	g, err := b.Build()
	if err != nil {
		return nil, &InputError{Path: path, Msg: err.Error(), Err: err}
	}
	return g, nil
}

// selfLoopError is the error for a self-loop when they are not dropped.
func selfLoopError(lr *lineReader, v int64) error {
	return &InputError{Path: lr.path, Line: lr.line, Err: graph.ErrSelfLoop,
		Msg: fmt.Sprintf("self-loop on vertex %d (drop self-loops to load it anyway)", v)}
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
