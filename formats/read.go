package formats

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/smg"
	"github.com/submatch/submatch/pattern"
)

// Stdin is the path that names standard input for LoadContext and LoadPatternContext.
const Stdin = "-"

// stdinName is how standard input is named in messages.
const stdinName = "<stdin>"

// MaxLineBytes bounds one line of a text format: a longer line (a binary file, or /dev/zero read
// as text) is refused instead of growing without limit.
const MaxLineBytes = 64 << 20

// maxDecodedWindow bounds the memory a zstd frame may ask for.
const maxDecodedWindow = 1 << 30

// LoadContext reads a data graph from path in any registered format, like Load, and stops with
// ctx's error (not an *InputError) when ctx is cancelled. The path "-" (Stdin) reads standard
// input. gzip and zstd files are decompressed transparently (by content, whatever their name);
// a ".gz" or ".zst" suffix is ignored when the format is detected from the name. Only regular
// files, folders (for folder formats) and standard input are read: a FIFO or a device is refused
// rather than waited on.
func LoadContext(ctx context.Context, path string, opts Options) (*graph.Graph, error) {
	opts.ctx = ctx
	if path == Stdin {
		return readStream(ctx, stdin(ctx), stdinName, "", opts)
	}
	st, err := statInput(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() || readsFolder(path, opts.Format) {
		return loadDir(path, opts)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	return readStream(ctx, f, path, path, opts)
}

// LoadChecking is LoadContext for a caller that can start on the graph before all of its checks
// end: a snapshot returns once its arrays' bounds are checked (graph.FromRawTrusted), so that
// every accessor stays in range, while its data checksum and the graph's rules (sorted runs, no
// self-loops, symmetry: most of a snapshot's load) are still checked on all cores. The graph
// may then be read, say to plan a search, but nothing computed from it is a result until checked
// returns nil: checked waits for those checks and returns the error LoadContext would have
// returned for the file (nil when it would have loaded). Every other format is checked in full
// before LoadChecking returns (checked then returns nil at once), and so is a snapshot when the
// process has one P (runtime.GOMAXPROCS): nothing would run beside the caller. checked may be
// called any number of times, from any goroutine. A failed check leaves the snapshot mapped.
func LoadChecking(ctx context.Context, path string, opts Options) (g *graph.Graph, checked func() error, err error) {
	var pending func() error
	if runtime.GOMAXPROCS(0) > 1 {
		opts.pending = &pending
	}
	if g, err = LoadContext(ctx, path, opts); err != nil {
		return nil, nil, err
	}
	if pending == nil {
		return g, func() error { return nil }, nil
	}
	return g, pending, nil
}

// Read reads a graph from r. format is a registered loader name, or "" or "auto" to detect it
// from the content (and from opts.Name's extension); a non-empty format overrides opts.Format.
// opts.Name names r in messages ("<input>" when empty). gzip and zstd streams are decompressed
// transparently. Folder formats (graphminer) cannot be read from a stream. Cancelling ctx stops
// the read with ctx's error.
func Read(ctx context.Context, r io.Reader, format string, opts Options) (*graph.Graph, error) {
	if format != "" {
		opts.Format = format
	}
	opts.ctx = ctx
	name := opts.Name
	if name == "" {
		name = "<input>"
	}
	return readStream(ctx, r, name, opts.Name, opts)
}

// LoadPatternContext reads a file (or "-", standard input) as a pattern, like LoadPattern.
func LoadPatternContext(ctx context.Context, path string, opts Options) (*pattern.Pattern, error) {
	g, err := LoadContext(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	return patternOf(g, displayName(path), opts)
}

// ReadPattern reads a pattern from r, like Read.
func ReadPattern(ctx context.Context, r io.Reader, format string, opts Options) (*pattern.Pattern, error) {
	g, err := Read(ctx, r, format, opts)
	if err != nil {
		return nil, err
	}
	name := opts.Name
	if name == "" {
		name = "<input>"
	}
	return patternOf(g, name, opts)
}

func displayName(path string) string {
	if path == Stdin {
		return stdinName
	}
	return path
}

// statInput stats an input path: a missing file is an *InputError saying so (without the
// "stat" prefix of *fs.PathError), and anything but a regular file or a folder is refused.
func statInput(path string) (fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, openError(path, err)
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		return nil, notRegular(path, st)
	}
	return st, nil
}

// statRegular is statInput for a path that must be a regular file.
func statRegular(path string) (fs.FileInfo, error) {
	st, err := statInput(path)
	if err == nil && st.IsDir() {
		return nil, inputErrorf(path, "is a folder, expected a file")
	}
	return st, err
}

func notRegular(path string, st fs.FileInfo) error {
	kind := "not a regular file"
	switch m := st.Mode(); {
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	}
	return inputErrorf(path, "is %s; only regular files are read (use - to read standard input)", kind)
}

// openError turns an error opening or statting path into an *InputError with a plain message.
func openError(path string, err error) error {
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = pe.Err.Error()
	}
	if errors.Is(err, fs.ErrNotExist) {
		msg = "no such file"
	}
	return &InputError{Path: path, Msg: msg, Err: err}
}

// openRegular opens a file that must be regular, decompressing it if it is compressed. The
// returned close function closes both.
func openRegular(ctx context.Context, path string) (*bufio.Reader, func(), error) {
	if _, err := statRegular(path); err != nil {
		return nil, nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, openError(path, err)
	}
	br, closeDec, err := decompress(bufio.NewReaderSize(ctxReader{ctx, f}, headSize), path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return br, func() { closeDec(); f.Close() }, nil
}

// decompress returns a reader of br's content: br itself, or a decompressor when br starts
// with the gzip or zstd magic bytes. The close function releases the decompressor.
func decompress(br *bufio.Reader, path string) (*bufio.Reader, func(), error) {
	magic, err := br.Peek(4)
	if err != nil && err != io.EOF {
		return nil, nil, readError(path, 0, err)
	}
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, &InputError{Path: path, Msg: "bad gzip header", Err: err}
		}
		return bufio.NewReaderSize(decodeErrors{zr, path, "gzip"}, headSize), func() { zr.Close() }, nil
	case bytes.Equal(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxDecodedWindow),
			zstd.WithDecoderMaxMemory(maxDecodedWindow))
		if err != nil {
			return nil, nil, &InputError{Path: path, Msg: "bad zstd stream", Err: err}
		}
		return bufio.NewReaderSize(decodeErrors{zr, path, "zstd"}, headSize), zr.Close, nil
	}
	return br, func() {}, nil
}

// decodeErrors marks decompression errors as bad input (a corrupt or truncated file).
type decodeErrors struct {
	r          io.Reader
	path, kind string
}

func (d decodeErrors) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF && !isCancel(err) {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("truncated %s data: %w", d.kind, err)
		} else {
			err = fmt.Errorf("corrupt %s data: %w", d.kind, err)
		}
	}
	return n, err
}

// sniffSize is how much the first read of an input takes: enough for the magic numbers of the
// compressed streams and of the snapshot, which is mapped rather than read, so that a snapshot's
// load does not read 64 KiB into a fresh buffer for nothing (the copy and 16 page faults). Any
// other input reads the rest of its head next. A variable for tests (headSize: the head is read
// whole at once, as before).
var sniffSize = 512

// sniffFirst limits the first Read from r to n bytes.
type sniffFirst struct {
	r       io.Reader
	n       int
	sniffed bool
}

func (s *sniffFirst) Read(p []byte) (int, error) {
	if !s.sniffed {
		s.sniffed = true
		p = p[:min(len(p), s.n)]
	}
	return s.r.Read(p)
}

// ctxReader fails reads once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// readError is the error for a failed read of path at line (0: no line): the context's error,
// wrapped, when the read was cancelled (so that callers can tell it from bad input), else an
// *InputError.
func readError(path string, line int, err error) error {
	if isCancel(err) {
		return fmt.Errorf("%s: loading stopped: %w", path, err)
	}
	return &InputError{Path: path, Line: line, Msg: "read failed: " + err.Error(), Err: err}
}

// detectName is the name detection by extension sees: path without a compression suffix.
func detectName(path string) string {
	for _, ext := range []string{".gz", ".gzip", ".zst", ".zstd"} {
		if hasExt(path, ext) {
			return strings.TrimSuffix(path, filepath.Ext(path))
		}
	}
	return path
}

// readStream reads a graph from r (a file when r is an *os.File): detection, decompression and
// the loader. name names r in messages; extName (maybe "") is used for detection by extension.
func readStream(ctx context.Context, r io.Reader, name, extName string, opts Options) (*graph.Graph, error) {
	opts.ctx = ctx
	f, _ := r.(*os.File)
	var start int64 // where f's stream begins (standard input may be redirected at an offset)
	if f != nil {
		if pos, err := f.Seek(0, io.SeekCurrent); err == nil {
			start = pos
		} else {
			f = nil // not seekable: read as a stream
		}
	}
	br := bufio.NewReaderSize(&sniffFirst{r: ctxReader{ctx, r}, n: sniffSize}, headSize)
	dr, closeDec, err := decompress(br, name)
	if err != nil {
		return nil, err
	}
	defer closeDec()
	if dr != br {
		f = nil // the loader sees decompressed bytes, not the file
	}
	head, _ := dr.Peek(dr.Buffered())
	if !bytes.HasPrefix(head, []byte(smg.Magic)) { // a snapshot's magic number is all detection needs
		head, err = dr.Peek(headSize)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return nil, readError(name, 0, err)
		}
	}
	var l Loader
	if opts.Format == "" || opts.Format == "auto" {
		if l, err = detect(detectName(extName), head, name); err != nil {
			if dir, ok := graphMinerDir(filepath.Dir(extName)); ok && extName != "" {
				return nil, inputErrorf(name, "is one file of the GraphMiner graph in %s: give the folder", dir)
			}
			return nil, err
		}
	} else if l = lookup(opts.Format); l == nil {
		return nil, fmt.Errorf("unknown format %q (known formats: %s)", opts.Format, strings.Join(Names(), ", "))
	}
	if opts.VertexLabelsFile != "" && l.Name() != "edgelist" {
		return nil, inputErrorf(name, "a vertex labels file was given, but %s files carry their own vertex labels (the labels file is for edge lists)", l.Name())
	}
	if _, dir := l.(DirectoryLoader); dir {
		return nil, inputErrorf(name, "format %s reads a folder, not a file or a stream", l.Name())
	}
	if f != nil {
		if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
			f = nil // standard input from a pipe: no mapping
		}
	}
	size := int64(-1)
	if f != nil {
		if st, err := f.Stat(); err == nil {
			size = st.Size()
		}
	}
	// A snapshot read from a file is mapped, not parsed: it allocates nothing in proportion to
	// the file, and raising the heap goal (stops of the world and a metrics read: 35-70 µs in a
	// fresh process, about a tenth of its load) would buy it nothing.
	if _, mapped := l.(smgLoader); !mapped || f == nil {
		defer relaxGC(gcHeadroom(size))()
	}
	return loadGuarded(l, &fileReader{Reader: dr, f: f, start: start, ctx: ctx}, name, opts)
}

// loadGuarded runs l.Load, turning a fault in reading a mapped text file that shrank meanwhile
// into an error (see faultError).
func loadGuarded(l Loader, r *fileReader, name string, opts Options) (g *graph.Graph, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if ferr := faultError(name, recover(), r.mapped); ferr != nil {
			g, err = nil, ferr
		}
	}()
	return l.Load(r, name, opts)
}

// readsFolder reports whether the file path is to be read by a folder format: format names one,
// or format is auto and a folder format recognises the path (GraphMiner's graph.meta.txt).
func readsFolder(path, format string) bool {
	if format != "" && format != "auto" {
		_, dir := lookup(format).(DirectoryLoader)
		return dir
	}
	registryMu.RLock()
	defer registryMu.RUnlock()
	for _, l := range registry {
		if _, dir := l.(DirectoryLoader); dir && l.Detect(path, nil) > NoMatch {
			return true
		}
	}
	return false
}

// loadDir reads a folder (or a file of a folder format) with a folder format.
func loadDir(path string, opts Options) (*graph.Graph, error) {
	var l Loader
	var err error
	if opts.Format == "" || opts.Format == "auto" {
		if l, err = detect(path, nil, path); err != nil {
			return nil, inputErrorf(path, "is a folder, not a GraphMiner graph (no %s in it): give a graph file", gmMeta)
		}
	} else if l = lookup(opts.Format); l == nil {
		return nil, fmt.Errorf("unknown format %q (known formats: %s)", opts.Format, strings.Join(Names(), ", "))
	}
	if _, dir := l.(DirectoryLoader); !dir {
		return nil, inputErrorf(path, "is a directory; format %s reads a file", l.Name())
	}
	if opts.VertexLabelsFile != "" {
		return nil, inputErrorf(path, "a vertex labels file was given, but %s files carry their own vertex labels (the labels file is for edge lists)", l.Name())
	}
	return l.Load(nil, path, opts)
}

// Context returns the context LoadContext or Read was given (Background for Load): a loader,
// this package's or one registered from another, stops its own work (its graph's build) when it
// ends.
func (o Options) Context() context.Context {
	if o.ctx != nil {
		return o.ctx
	}
	return context.Background()
}

// inputSize returns the size of the file r reads (from a Load of a regular file), or -1.
func inputSize(r io.Reader) int64 {
	if fr, ok := r.(*fileReader); ok && fr.f != nil {
		if st, err := fr.f.Stat(); err == nil && st.Mode().IsRegular() {
			return st.Size()
		}
	}
	return -1
}
