package formats

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// Writers. Every registered text writer produces a file its loader reads back as the same graph
// (same vertices, labels, edges and, where the format can hold them, original ids or names),
// except where noted:
//
//	sm        `t N M` / `v id label degree` / `e u v [label]`. Ids are 0..N-1: the original ids
//	          when they are exactly 0..N-1, else the dense ids.
//	edgelist  `u v [label]` with the original ids. Vertex labels and isolated vertices cannot be
//	          written: WriteGraph refuses a graph that has them (see Lossy). String names (from
//	          CSV) are written as they are, for tools that read them (networkx); this package's
//	          edge list loader reads integer ids only.
//	csv       Glasgow's `a,b[,label]` and `a,,label`, with the original ids or names; isolated
//	          and labelled vertices get an `a,,label` line.
//	graphml   GraphML (undirected) with a "label" data key on nodes and edges; node ids are the
//	          original ids or names.
//	smg       the binary snapshot (WriteSnapshot).

// WriteFormats returns the names of the formats WriteGraph writes.
func WriteFormats() []string { return []string{"csv", "edgelist", "graphml", "sm", "smg"} }

// FormatForPath returns the format a file name asks for by its extension (a compression suffix
// is not supported on output): .smg; .graph, .sm, .tve (t/v/e text); .txt, .el, .edges, .tsv
// (edge list); .csv; .graphml. ok is false for any other name.
func FormatForPath(path string) (format string, ok bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".smg":
		return "smg", true
	case ".graph", ".sm", ".tve":
		return "sm", true
	case ".txt", ".el", ".edges", ".edgelist", ".tsv", ".snap":
		return "edgelist", true
	case ".csv":
		return "csv", true
	case ".graphml":
		return "graphml", true
	}
	return "", false
}

// Lossy returns what writing g in format would lose, one phrase a loss ("vertex labels"), or
// nil. WriteGraph refuses to lose anything.
func Lossy(g *graph.Graph, format string) []string {
	if format != "edgelist" {
		return nil
	}
	var lost []string
	if l, ok := g.UniformVertexLabel(); g.NumVertices() > 0 && (!ok || l != 0) {
		lost = append(lost, "vertex labels")
	}
	for v := range g.NumVertices() {
		if g.Degree(uint32(v)) == 0 {
			lost = append(lost, "isolated vertices")
			break
		}
	}
	return lost
}

// WriteGraph writes g to w in format (one of WriteFormats). It fails when the format cannot hold
// all of g (see Lossy), and returns the first write error.
func WriteGraph(w io.Writer, g *graph.Graph, format string) error {
	if lost := Lossy(g, format); lost != nil {
		return fmt.Errorf("an edge list cannot hold the graph's %s: choose sm, csv, graphml or smg", strings.Join(lost, " and "))
	}
	switch format {
	case "sm":
		return writeSM(w, newGraphSource(g))
	case "edgelist":
		return writeEdgeList(w, g)
	case "csv":
		return writeCSV(w, g)
	case "graphml":
		return writeGraphML(w, g)
	case "smg":
		return writeSnapshot(w, g)
	}
	return fmt.Errorf("no writer for format %q (writers: %s)", format, strings.Join(WriteFormats(), ", "))
}

// WriteScratch bounds the memory that WriteGraph (and WriteFile) takes in format beside the
// graph itself, for a graph of n vertices whose arrays take graphBytes: the text writers' vertex
// orders (13 bytes a vertex at most: the t/v/e writer's ids check and order, the others' order by
// id), a snapshot's encoded copy of the arrays on a host that cannot write them as they are
// (big-endian), and the write buffers. The file's pages are the kernel's page cache, not the
// process's.
func WriteScratch(format string, n, graphBytes uint64) uint64 {
	const buffers = 4 << 20
	if format == "smg" {
		if nativeLE {
			return buffers
		}
		return graphBytes + buffers
	}
	return 13*n + buffers
}

// WriteSM writes g in the t/v/e text format (sm) with g's dense ids as the vertex ids (so that a
// program reading the file numbers vertices as g does; WriteGraph writes the original ids where
// it can). Edge labels are written only when the graph has some.
func WriteSM(w io.Writer, g *graph.Graph) error { return writeSM(w, graphSource{g: g}) }

// WritePatternSM writes p in the t/v/e format. Every label of p must be exact: the format has no
// wildcard.
func WritePatternSM(w io.Writer, p *pattern.Pattern) error {
	for u := 0; u < p.NumVertices(); u++ {
		if p.VertexLabel(u).Any {
			return fmt.Errorf("pattern vertex %s has a wildcard label, which the t/v/e format cannot express", p.Name(u))
		}
	}
	for _, e := range p.Edges() {
		if e.Label.Any {
			return fmt.Errorf("pattern edge %s-%s has a wildcard label, which the t/v/e format cannot express", p.Name(e.U), p.Name(e.V))
		}
	}
	return writeSM(w, patternSource{p})
}

// WriteFile writes g to path in format ("" or "auto": from the path's extension, see
// FormatForPath). It writes a temporary file in the same folder and renames it into place, so
// that path never holds a partial graph, with the mode of the file it replaces (a new one: 0666
// less the umask). path must be a regular file or not exist: writing over a device, a FIFO or a
// folder is refused. A format that cannot hold all of g (Lossy) is refused before anything is
// written, with an *InputError (the caller's choice of format is the bad input).
func WriteFile(path string, g *graph.Graph, format string) error {
	return WriteFileContext(context.Background(), path, g, format, true)
}

// WriteFileContext is WriteFile (WriteFileUnsynced unless sync) stopping once ctx is done: the
// text writers' writes fail from then on (the snapshot writer, which writes the file in
// parallel and quickly, is checked after it), the temporary file is removed, path is left as it
// was, and the error wraps ctx's.
func WriteFileContext(ctx context.Context, path string, g *graph.Graph, format string, sync bool) error {
	if format == "" || format == "auto" {
		f, ok := FormatForPath(path)
		if !ok {
			return fmt.Errorf("%s: cannot tell the output format from the name (use an extension such as .smg, .graph, .txt, .csv or .graphml, or name the format)", path)
		}
		format = f
	}
	if !slices.Contains(WriteFormats(), format) {
		return fmt.Errorf("no writer for format %q (writers: %s)", format, strings.Join(WriteFormats(), ", "))
	}
	if lost := Lossy(g, format); lost != nil {
		return inputErrorf(path, "an edge list cannot hold the graph's %s: choose sm, csv, graphml or smg", strings.Join(lost, " and "))
	}
	return writeAtomic(path, sync, func(w io.Writer) error {
		if format != "smg" {
			w = ContextWriter{Ctx: ctx, W: w}
		}
		if err := WriteGraph(w, g, format); err != nil {
			return err
		}
		return ctx.Err()
	})
}

// ContextWriter is W whose writes fail with Ctx's error once Ctx is done.
type ContextWriter struct {
	Ctx context.Context
	W   io.Writer
}

func (c ContextWriter) Write(p []byte) (int, error) {
	if err := c.Ctx.Err(); err != nil {
		return 0, err
	}
	return c.W.Write(p)
}

// WriteFileUnsynced is WriteFile without waiting for the file to reach the disk (no fsync before
// the rename): for files that can be made again, such as a generated benchmark graph of tens of
// GB, which later processes read from the page cache long before the disk has it all. After a
// crash the file may be missing or damaged (a snapshot's checksum then refuses it).
func WriteFileUnsynced(path string, g *graph.Graph, format string) error {
	return WriteFileContext(context.Background(), path, g, format, false)
}

// WriteAtomic creates or replaces the regular file path with what write writes, as WriteFile
// does: through a temporary file in the same folder renamed into place, with the replaced
// file's mode (a new one: 0666 less the umask); nothing is left behind when write or the file
// system fails.
func WriteAtomic(path string, write func(w io.Writer) error) error {
	return writeAtomic(path, true, write)
}

// ErrNotRegular is returned (wrapped) when an output path exists and is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// writeAtomic writes a file through a temporary file renamed into place, synced to the disk
// first when sync is set.
func writeAtomic(path string, sync bool, write func(w io.Writer) error) error {
	f, err := CreateAtomic(path, sync)
	if err != nil {
		return err
	}
	// The *os.File itself: the snapshot writer writes a file at offsets on all cores.
	if err := write(f.File); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// AtomicFile is a file written under a temporary name in its target's folder and renamed over
// the target by Commit, for writers that stream (list -o): a reader of the old file, one that
// has it memory-mapped included, keeps the old contents (the old inode) whatever is written,
// and the target never holds a partial file.
type AtomicFile struct {
	*os.File
	path string
	sync bool
	mode os.FileMode // the replaced file's permission bits, or 0666 less the umask
}

// CreateAtomic starts replacing the regular file path (or creating it): writes go to a new
// temporary file in the same folder until Commit or Abort. A symbolic link is kept: the file
// it points to is replaced (or created), in that file's folder. A path that exists and is not
// a regular file is refused (ErrNotRegular), and so is an open descriptor's name (/dev/stdout,
// /dev/fd/N, /proc/self/fd/N), whatever file it names: those are written in place. With sync,
// Commit waits for the file to reach the disk before the rename. The file keeps the permission
// bits of the one it replaces (as one rewritten in place would); a new one gets 0666 less the
// umask.
func CreateAtomic(path string, sync bool) (*AtomicFile, error) {
	target, st, err := replaced(path)
	if err != nil {
		return nil, err
	}
	mode := 0o666 &^ umask()
	if st != nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp*")
	if err != nil {
		return nil, err
	}
	addTemporary(tmp.Name())
	return &AtomicFile{File: tmp, path: target, sync: sync, mode: mode}, nil
}

// maxLinks is how many symbolic links replaced follows before it gives up (ELOOP's usual 40).
const maxLinks = 40

// replaced returns the file that CreateAtomic replaces for path: path, or the end of its chain
// of symbolic links, with its FileInfo (nil when it does not exist yet). Each link is read with
// its folder's links resolved first, so that a name under /proc (an open descriptor's link
// such as /dev/stdout's /proc/self/fd/1, or /dev/fd's) is seen as one.
func replaced(path string) (string, fs.FileInfo, error) {
	notRegular := &fs.PathError{Op: "write", Path: path, Err: ErrNotRegular}
	p := path
	for range maxLinks {
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			return p, nil, nil // no such folder: CreateTemp says so
		}
		if p = filepath.Join(dir, filepath.Base(p)); strings.HasPrefix(filepath.ToSlash(p), "/proc/") {
			return "", nil, notRegular
		}
		st, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return p, nil, nil
		case err != nil:
			return "", nil, err
		case st.Mode().IsRegular():
			return p, st, nil
		case st.Mode()&fs.ModeSymlink == 0:
			return "", nil, notRegular
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(dir, link)
		}
		p = link
	}
	return "", nil, &fs.PathError{Op: "write", Path: path, Err: errors.New("too many levels of symbolic links")}
}

// Commit renames the temporary file over the target (with the mode CreateAtomic chose), or
// removes it and returns why it could not.
func (f *AtomicFile) Commit() error {
	err := f.Chmod(f.mode)
	if err == nil && f.sync {
		err = f.Sync()
	}
	if err == nil {
		err = f.Close()
	} else {
		f.Close()
	}
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	dropTemporary(f.Name())
	return err
}

// Abort closes and removes the temporary file; the target is left as it was.
func (f *AtomicFile) Abort() {
	f.Close()
	os.Remove(f.Name())
	dropTemporary(f.Name())
}

// sortedByID returns the vertices in order of original id (names order like their ids).
func sortedByID(g *graph.Graph) []uint32 {
	order := make([]uint32, g.NumVertices())
	for v := range order {
		order[v] = uint32(v)
	}
	if g.HasOriginalIDs() {
		slices.SortFunc(order, func(a, b uint32) int { return cmp.Compare(g.OriginalID(a), g.OriginalID(b)) })
	}
	return order
}

// vertexName appends the name of v: its name if the graph has names, else its original id.
func vertexName(buf []byte, g *graph.Graph, v uint32) []byte {
	if g.HasVertexNames() {
		return append(buf, g.VertexName(v)...)
	}
	return strconv.AppendInt(buf, g.OriginalID(v), 10)
}

// forEdges calls f for every edge once (from its end with the smaller original id), in order of
// that end's original id.
func forEdges(g *graph.Graph, order []uint32, f func(u, w uint32, label uint32)) {
	for _, v := range order {
		labels := g.NeighborEdgeLabels(v)
		for i, w := range g.Neighbors(v) {
			if g.OriginalID(w) < g.OriginalID(v) {
				continue
			}
			var l uint32
			if labels != nil {
				l = labels[i]
			}
			f(v, w, l)
		}
	}
}

func writeEdgeList(w io.Writer, g *graph.Graph) error {
	if err := checkNames(g, " \t,#%", "an edge list (it has a blank, a comma or a comment sign): choose csv or graphml"); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	writeEdgeLines(bw, g, sortedByID(g), ' ')
	return bw.Flush()
}

func writeCSV(w io.Writer, g *graph.Graph) error {
	if err := checkNames(g, ",>\n\r", "CSV (it has a comma, a '>' or surrounding blanks): choose graphml"); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var buf []byte
	order := sortedByID(g)
	for _, v := range order {
		if l := g.VertexLabel(v); l != 0 || g.Degree(v) == 0 {
			buf = vertexName(buf[:0], g, v)
			buf = append(buf, ",,"...)
			if l != 0 {
				buf = strconv.AppendUint(buf, uint64(l), 10)
			}
			buf = append(buf, '\n')
			bw.Write(buf)
		}
	}
	writeEdgeLines(bw, g, order, ',')
	return bw.Flush()
}

// checkNames refuses vertex names that are empty, have blanks around them or hold a byte of bad:
// the format (named in where) could not read them back.
func checkNames(g *graph.Graph, bad, where string) error {
	for _, n := range g.VertexNames() {
		if n == "" || strings.ContainsAny(n, bad) || n != string(trimSpace([]byte(n))) {
			return fmt.Errorf("vertex name %q cannot be written in %s", n, where)
		}
	}
	return nil
}

// writeEdgeLines writes a line `u<sep>v[<sep>label]` for every edge (labels when the graph has
// some). A write error sticks in bw and is returned by its Flush.
func writeEdgeLines(bw *bufio.Writer, g *graph.Graph, order []uint32, sep byte) {
	var buf []byte
	labelled := g.HasEdgeLabels()
	forEdges(g, order, func(u, v, l uint32) {
		buf = vertexName(buf[:0], g, u)
		buf = append(buf, sep)
		buf = vertexName(buf, g, v)
		if labelled {
			buf = append(buf, sep)
			buf = strconv.AppendUint(buf, uint64(l), 10)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	})
}

// appendEscapedXML appends s escaped as encoding/xml's EscapeText escapes it, so that it may
// stand in an attribute value or in text: the five markup characters and tab, newline and
// carriage return as character references, and any byte that is not valid UTF-8 or a rune
// outside XML's character range as U+FFFD. (Not encoding/xml itself: its package initialisation
// ran at every start of the command line for this one call.)
func appendEscapedXML(dst, s []byte) []byte {
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		switch {
		case r == '"':
			dst = append(dst, "&#34;"...)
		case r == '\'':
			dst = append(dst, "&#39;"...)
		case r == '&':
			dst = append(dst, "&amp;"...)
		case r == '<':
			dst = append(dst, "&lt;"...)
		case r == '>':
			dst = append(dst, "&gt;"...)
		case r == '\t':
			dst = append(dst, "&#x9;"...)
		case r == '\n':
			dst = append(dst, "&#xA;"...)
		case r == '\r':
			dst = append(dst, "&#xD;"...)
		case r == utf8.RuneError && n == 1, !xmlChar(r):
			dst = utf8.AppendRune(dst, utf8.RuneError)
		default:
			dst = append(dst, s[:n]...)
		}
		s = s[n:]
	}
	return dst
}

// xmlChar reports whether r is in XML 1.0's Char production.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

func writeGraphML(w io.Writer, g *graph.Graph) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">` + "\n" +
		`  <key id="vl" for="node" attr.name="label" attr.type="long"><default>0</default></key>` + "\n" +
		`  <key id="el" for="edge" attr.name="label" attr.type="long"><default>0</default></key>` + "\n" +
		`  <graph edgedefault="undirected">` + "\n")
	var buf, name []byte
	attr := func(v uint32) []byte {
		name = vertexName(name[:0], g, v)
		return appendEscapedXML(buf, name)
	}
	order := sortedByID(g)
	for _, v := range order {
		buf = append(buf[:0], `    <node id="`...)
		buf = attr(v)
		if l := g.VertexLabel(v); l != 0 {
			buf = append(buf, `"><data key="vl">`...)
			buf = strconv.AppendUint(buf, uint64(l), 10)
			buf = append(buf, "</data></node>\n"...)
		} else {
			buf = append(buf, "\"/>\n"...)
		}
		bw.Write(buf)
	}
	forEdges(g, order, func(u, v, l uint32) {
		buf = append(buf[:0], `    <edge source="`...)
		buf = attr(u)
		buf = append(buf, `" target="`...)
		buf = attr(v)
		if l != 0 {
			buf = append(buf, `"><data key="el">`...)
			buf = strconv.AppendUint(buf, uint64(l), 10)
			buf = append(buf, "</data></edge>\n"...)
		} else {
			buf = append(buf, "\"/>\n"...)
		}
		bw.Write(buf)
	})
	bw.WriteString("  </graph>\n</graphml>\n")
	return bw.Flush()
}

// smSource is what the t/v/e writer needs of a graph or a pattern.
type smSource interface {
	numVertices() int
	numEdges() uint64
	// id is the id v is written with (0..numVertices-1, a permutation).
	id(v int) int
	vertexLabel(v int) uint32
	degree(v int) int
	// edgesAbove calls f for every edge v-w with id(w) > id(v).
	edgesAbove(v int, f func(w int, label uint32))
	edgeLabelled() bool
}

func writeSM(w io.Writer, s smSource) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var buf []byte
	line := func(tag byte, nums ...uint64) {
		buf = append(buf[:0], tag)
		for _, x := range nums {
			buf = append(buf, ' ')
			buf = strconv.AppendUint(buf, x, 10)
		}
		buf = append(buf, '\n')
		bw.Write(buf) // a write error sticks in bw and is returned by Flush
	}
	n := s.numVertices()
	byID := make([]int, n) // byID[id] = v
	for v := range n {
		byID[s.id(v)] = v
	}
	line('t', uint64(n), s.numEdges())
	for _, v := range byID {
		line('v', uint64(s.id(v)), uint64(s.vertexLabel(v)), uint64(s.degree(v)))
	}
	labelled := s.edgeLabelled()
	for _, v := range byID {
		s.edgesAbove(v, func(w int, label uint32) {
			if labelled {
				line('e', uint64(s.id(v)), uint64(s.id(w)), uint64(label))
			} else {
				line('e', uint64(s.id(v)), uint64(s.id(w)))
			}
		})
	}
	return bw.Flush()
}

// graphSource writes the original ids when they are 0..n-1, else the dense ids.
type graphSource struct {
	g        *graph.Graph
	original bool
}

func newGraphSource(g *graph.Graph) graphSource {
	n := int64(g.NumVertices())
	if !g.HasOriginalIDs() || g.HasVertexNames() {
		return graphSource{g: g}
	}
	seen := make([]bool, n)
	for v := range g.NumVertices() {
		id := g.OriginalID(uint32(v))
		if id < 0 || id >= n || seen[id] {
			return graphSource{g: g}
		}
		seen[id] = true
	}
	return graphSource{g: g, original: true}
}

func (s graphSource) numVertices() int         { return s.g.NumVertices() }
func (s graphSource) numEdges() uint64         { return s.g.NumEdges() }
func (s graphSource) vertexLabel(v int) uint32 { return s.g.VertexLabel(uint32(v)) }
func (s graphSource) degree(v int) int         { return s.g.Degree(uint32(v)) }
func (s graphSource) edgeLabelled() bool       { return s.g.HasEdgeLabels() }

func (s graphSource) id(v int) int {
	if s.original {
		return int(s.g.OriginalID(uint32(v)))
	}
	return v
}

func (s graphSource) edgesAbove(v int, f func(int, uint32)) {
	labels := s.g.NeighborEdgeLabels(uint32(v))
	for i, w := range s.g.Neighbors(uint32(v)) {
		if s.id(int(w)) <= s.id(v) {
			continue
		}
		var l uint32
		if labels != nil {
			l = labels[i]
		}
		f(int(w), l)
	}
}

type patternSource struct{ p *pattern.Pattern }

func (s patternSource) numVertices() int         { return s.p.NumVertices() }
func (s patternSource) numEdges() uint64         { return uint64(s.p.NumEdges()) }
func (s patternSource) id(v int) int             { return v }
func (s patternSource) vertexLabel(v int) uint32 { return s.p.VertexLabel(v).Value }
func (s patternSource) degree(v int) int         { return s.p.Degree(v) }

func (s patternSource) edgeLabelled() bool {
	for _, e := range s.p.Edges() {
		if e.Label.Value != 0 {
			return true
		}
	}
	return false
}

func (s patternSource) edgesAbove(v int, f func(int, uint32)) {
	for w := v + 1; w < s.p.NumVertices(); w++ {
		if l, ok := s.p.EdgeLabel(v, w); ok {
			f(w, l.Value)
		}
	}
}
