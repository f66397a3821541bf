package formats

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/submatch/submatch/internal/mmapfile"
	"github.com/submatch/submatch/internal/quote"
)

// lineReader streams the lines of a text file, counting them for error messages. Lines may be
// of any length; the returned slice is valid until the next call.
type lineReader struct {
	r    *bufio.Reader
	path string
	line int    // number of the line last returned (1-based)
	long []byte // holds a line longer than the bufio buffer

	comments string          // of the last blocks call: what records parses a fast block with
	parse    parseFunc       // (line by line)
	size     int64           // the size of the file read, or -1 (not a regular file)
	store    []uint32        // a file read whole: the room for its edges (edgeStorage)
	text     []uint32        // and its text (takeText)
	f        *os.File        // the file r reads from its current position on, or nil (see mapRest)
	ctx      context.Context // what the load was given: a mapped file's blocks check it
	unmap    func()          // releases the mapping of the file (mapRest), once the blocks are done
	mapped   mmapfile.Span   // the mapping's addresses
	fr       *fileReader     // what r is, when it is one
}

func newLineReader(r io.Reader, path string) *lineReader {
	var br *bufio.Reader
	switch r := r.(type) {
	case *bufio.Reader:
		br = r
	case *fileReader:
		br = r.Reader
	default:
		br = bufio.NewReaderSize(r, 1<<16)
	}
	lr := &lineReader{r: br, path: path, size: inputSize(r), ctx: context.Background()}
	if fr, ok := r.(*fileReader); ok && lr.size >= 0 {
		lr.f, lr.fr = fr.f, fr
		if fr.ctx != nil {
			lr.ctx = fr.ctx
		}
	}
	return lr
}

// next returns the next line without its line terminator (LF or CRLF); io.EOF after the last.
// A line longer than MaxLineBytes is an error.
func (lr *lineReader) next() ([]byte, error) {
	b, err := lr.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		lr.long = append(lr.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(lr.long) > MaxLineBytes {
				return nil, lr.tooLong(lr.line + 1)
			}
			b, err = lr.r.ReadSlice('\n')
			lr.long = append(lr.long, b...)
		}
		b = lr.long
	}
	if err != nil && err != io.EOF {
		return nil, readError(lr.path, lr.line+1, err)
	}
	if len(b) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	lr.line++
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b, nil
}

// nextData returns the next line that is neither blank nor a comment (first non-blank byte in
// comments); io.EOF after the last.
func (lr *lineReader) nextData(comments string) ([]byte, error) {
	for {
		b, err := lr.next()
		if err != nil {
			return nil, err
		}
		b = trimSpace(b)
		if len(b) == 0 || (comments != "" && strings.IndexByte(comments, b[0]) >= 0) {
			continue
		}
		return b, nil
	}
}

// tooLong is the error for a line longer than MaxLineBytes.
func (lr *lineReader) tooLong(line int) error {
	return &InputError{Path: lr.path, Line: line, Msg: fmt.Sprintf("line longer than %d MiB: not a text graph, or the wrong format", MaxLineBytes>>20)}
}

// endErrorf returns an InputError for input that ended where more was expected. It names the
// last line read, the line where the input ended (line 1 for an empty file), so that every
// message of a text loader has a line, and one the file has.
func (lr *lineReader) endErrorf(format string, args ...any) *InputError {
	return &InputError{Path: lr.path, Line: max(lr.line, 1), Msg: fmt.Sprintf(format, args...)}
}

// emptyError is endErrorf for input with no data line at all: "empty file" when it has no
// line, "no data" when it holds only blank or comment lines; want is what the first line holds.
func (lr *lineReader) emptyError(want string) *InputError {
	if lr.line == 0 {
		return lr.endErrorf("empty file, expected %s", want)
	}
	return lr.endErrorf("no data before the end of the file (only blank or comment lines), expected %s", want)
}

// errorf returns an InputError for the current line.
func (lr *lineReader) errorf(format string, args ...any) *InputError {
	return &InputError{Path: lr.path, Line: lr.line, Msg: fmt.Sprintf(format, args...)}
}

// expected returns the error `path:line: expected "<want>" [or "<want>"...], got "<line>"`.
func (lr *lineReader) expected(got []byte, want ...string) *InputError {
	var b strings.Builder
	for i, w := range want {
		if i > 0 {
			b.WriteString(" or ")
		}
		b.WriteString(strconv.Quote(w))
	}
	return lr.errorf("expected %s, got %s", b.String(), quoteLine(got))
}

// wrap turns err (from the graph builder) into an InputError for the current line.
func (lr *lineReader) wrap(err error) error {
	if err == nil {
		return nil
	}
	return &InputError{Path: lr.path, Line: lr.line, Msg: err.Error(), Err: err}
}

// quoteLine quotes a line for an error message, shortening a long one (quote.Line).
func quoteLine(b []byte) string { return quote.Line(string(b)) }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// tokens splits a line into fields without allocating. Fields are separated by blanks and, when
// commas is set, by commas too.
type tokens struct {
	s      []byte
	commas bool
}

func (t *tokens) sep(c byte) bool { return isSpace(c) || (t.commas && c == ',') }

// next returns the next field, or false when there is none.
func (t *tokens) next() ([]byte, bool) {
	i := 0
	for i < len(t.s) && t.sep(t.s[i]) {
		i++
	}
	if i == len(t.s) {
		t.s = nil
		return nil, false
	}
	j := i
	for j < len(t.s) && !t.sep(t.s[j]) {
		j++
	}
	f := t.s[i:j]
	t.s = t.s[j:]
	return f, true
}

// ints parses every remaining field as an int64 into dst (reset first). ok is false if a field is
// not an integer or there are more than len(dst) fields.
func (t *tokens) ints(dst []int64) (n int, ok bool) {
	for {
		f, more := t.next()
		if !more {
			return n, true
		}
		if n == len(dst) {
			return n, false
		}
		v, ok := parseInt(f)
		if !ok {
			return n, false
		}
		dst[n] = v
		n++
	}
}

// parseInt parses a decimal int64 with an optional sign, refusing overflow.
func parseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var u uint64
	for _, c := range b {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		u = u*10 + uint64(d)
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// label converts a parsed integer to a uint32 label.
func label(v int64) (uint32, bool) {
	if v < 0 || v > math.MaxUint32 {
		return 0, false
	}
	return uint32(v), true
}

// lineInts reads the fields of a data line into dst; it returns the count, or an "expected"
// error naming want when a field is not an integer or there are too many.
func (lr *lineReader) lineInts(line []byte, commas bool, dst []int64, minN int, want string) (int, error) {
	t := tokens{s: line, commas: commas}
	n, ok := t.ints(dst)
	if !ok || n < minN {
		return 0, lr.expected(line, want)
	}
	return n, nil
}
