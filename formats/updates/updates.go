// Package updates owns update streams, the input of continuous matching: the CSM study's line
// format and JSON lines, read from a file or standard input as a sequence of Update values.
//
// Line format (one update a line, fields separated by spaces or tabs, `#` starts a comment line,
// blank lines are skipped):
//
//	e u v [label]     insert the edge u-v (edge label 0 when omitted)
//	-e u v [label]    delete the edge u-v (the label, when given, must be the edge's)
//	v id label        add a vertex
//	-v id             delete a vertex (its edges first)
//
// With Options.Timestamps every line ends with an integer timestamp (the label of an edge then
// stays optional: `e u v t` or `e u v label t`). A line that starts with `{` is a JSON object:
//
//	{"op":"e","u":1,"v":2,"label":3,"time":10}   op is one of e, -e, v, -v; a vertex is "id"
//
// Every malformed line is an error naming the file, the line and what was expected, and quoting
// the line (trimmed, shortened past 80 bytes).
package updates

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/internal/quote"
	"io"
	"iter"
	"math"
	"strconv"
)

// Kind is what an update does.
type Kind uint8

// The kinds of update.
const (
	InsertEdge Kind = iota
	DeleteEdge
	InsertVertex
	DeleteVertex
)

var kindNames = [...]string{"e", "-e", "v", "-v"}

// String is the kind's keyword in the line format.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "?"
}

// Update is one line of a stream.
type Update struct {
	Kind Kind
	// U and V are the edge's endpoints (original ids); U is the vertex of a vertex update.
	U, V int64
	// Label is the edge or vertex label; HasLabel says whether the line gave it (a deletion may
	// omit it; an insertion without one means 0).
	Label    uint32
	HasLabel bool
	// Time is the line's timestamp (with Options.Timestamps or a JSON "time").
	Time    int64
	HasTime bool
	// Line is the 1-based line number in the input.
	Line int
}

// String renders the update in the line format.
func (u Update) String() string {
	var b []byte
	b = u.AppendText(b)
	return string(b)
}

// AppendText appends the update in the line format (label always written for inserts).
func (u Update) AppendText(b []byte) []byte {
	b = append(b, u.Kind.String()...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, u.U, 10)
	switch u.Kind {
	case InsertEdge, DeleteEdge:
		b = append(b, ' ')
		b = strconv.AppendInt(b, u.V, 10)
		if u.HasLabel || u.Kind == InsertEdge {
			b = append(b, ' ')
			b = strconv.AppendUint(b, uint64(u.Label), 10)
		}
	case InsertVertex:
		b = append(b, ' ')
		b = strconv.AppendUint(b, uint64(u.Label), 10)
	}
	if u.HasTime {
		b = append(b, ' ')
		b = strconv.AppendInt(b, u.Time, 10)
	}
	return b
}

// Options tunes the reader.
type Options struct {
	// Timestamps: every text line ends with an integer timestamp.
	Timestamps bool
}

// Error is a malformed line: the file, the line and what was expected.
type Error struct {
	File string
	Line int
	Msg  string
	Err  error // an underlying read error, if any
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

func (e *Error) Unwrap() error { return e.Err }

// MaxLineBytes bounds one line; a longer one is an error, not an unbounded allocation.
const MaxLineBytes = 1 << 20

// Read parses the stream r; name is used in errors. The sequence ends at the end of r or at the
// first error (yielded with a zero Update).
func Read(r io.Reader, name string, opts Options) iter.Seq2[Update, error] {
	return func(yield func(Update, error) bool) {
		NewReader(r, name, opts).yieldAll(yield)
	}
}

// Reader parses a stream one update at a time on the caller's goroutine: Read as a pull
// iterator, without iter.Pull2's switches between goroutines.
type Reader struct {
	err   error // what ended the stream early (Err)
	br    *bufio.Reader
	name  string
	opts  Options
	line  int
	long  []byte
	done  bool
	close func() error
}

// NewReader returns a Reader of r; name is used in errors.
func NewReader(r io.Reader, name string, opts Options) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 1<<16), name: name, opts: opts}
}

// OpenReader is NewReader on the file path ("-": standard input), opened as ReadFile opens it;
// Close closes it.
func OpenReader(path string, opts Options) (*Reader, error) {
	return OpenReaderContext(context.Background(), path, opts)
}

// OpenReaderContext is OpenReader whose reads end with ctx's error (wrapped in the *Error naming
// the line) once ctx is done, also while standard input waits for a line.
func OpenReaderContext(ctx context.Context, path string, opts Options) (*Reader, error) {
	r, name, err := formats.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	rd := NewReader(r, name, opts)
	rd.close = r.Close
	return rd, nil
}

// Close closes the file of OpenReader (nothing for NewReader).
func (rd *Reader) Close() error {
	if rd.close == nil {
		return nil
	}
	c := rd.close
	rd.close = nil
	return c()
}

// Next returns the next update, or false at the end of the stream or at its first malformed
// line or read error, which Err then returns (as with bufio.Scanner).
func (rd *Reader) Next() (Update, bool) {
	for !rd.done {
		rd.line++
		line := rd.line
		text, err := rd.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			rd.long = append(rd.long[:0], text...)
			for errors.Is(err, bufio.ErrBufferFull) && len(rd.long) <= MaxLineBytes {
				text, err = rd.br.ReadSlice('\n')
				rd.long = append(rd.long, text...)
			}
			if len(rd.long) > MaxLineBytes {
				rd.done = true
				return rd.fail(&Error{File: rd.name, Line: line, Msg: fmt.Sprintf("line longer than %d bytes", MaxLineBytes)})
			}
			text = rd.long
		}
		rd.done = err != nil
		if err != nil && err != io.EOF {
			// The text read with the error is a line cut short ("-e 1 2" of "-e 1 23"): neither
			// an update nor a malformed line.
			return rd.fail(&Error{File: rd.name, Line: line, Msg: "read error: " + err.Error(), Err: err})
		}
		if len(text) > 0 {
			u, ok, perr := parseLine(text, rd.opts)
			if perr != "" {
				rd.done = true
				return rd.fail(&Error{File: rd.name, Line: line, Msg: perr})
			}
			if ok {
				u.Line = line
				return u, true
			}
		}
	}
	return Update{}, false
}

// fail ends the stream with err.
func (rd *Reader) fail(err error) (Update, bool) {
	rd.err, rd.done = err, true
	return Update{}, false
}

// Err returns the error that ended the stream, nil at its end.
func (rd *Reader) Err() error { return rd.err }

// yieldAll pushes the rest of the stream to yield, the error that ends it last (with a zero
// Update): the body of Read and ReadFile.
func (rd *Reader) yieldAll(yield func(Update, error) bool) {
	for {
		u, ok := rd.Next()
		if !ok {
			if err := rd.Err(); err != nil {
				yield(Update{}, err)
			}
			return
		}
		if !yield(u, nil) {
			return
		}
	}
}

// ReadFile is Read on the file path ("-": standard input), opened as formats.Open opens inputs:
// gzip and zstd decompressed, a FIFO or a device refused rather than waited on.
func ReadFile(path string, opts Options) iter.Seq2[Update, error] {
	return func(yield func(Update, error) bool) {
		rd, err := OpenReader(path, opts)
		if err != nil {
			yield(Update{}, err)
			return
		}
		defer rd.Close()
		rd.yieldAll(yield)
	}
}

const expected = "expected `e u v [label]`, `-e u v [label]`, `v id label` or `-v id`"

// parseLine parses one line; ok false for a blank or comment line; a non-empty message for an
// error.
func parseLine(text []byte, opts Options) (u Update, ok bool, msg string) {
	if !opts.Timestamps {
		if u, ok := edgeLine(text); ok {
			return u, true, ""
		}
	}
	return parseFields(text, opts)
}

// edgeLine reads the common line `e U V [L]` or `-e U V [L]` (single spaces, ids of at most 18
// digits, a label of at most 4294967295, nothing or a newline after) as parseFields does, in
// one pass; ok false for any other line (parseFields then reads it).
func edgeLine(text []byte) (u Update, ok bool) {
	i := 0
	u.Kind = InsertEdge
	if len(text) > 0 && text[0] == '-' {
		u.Kind, i = DeleteEdge, 1
	}
	if len(text) < i+2 || text[i] != 'e' || text[i+1] != ' ' {
		return u, false
	}
	i += 2
	var vals [3]uint64
	n := 0
	for {
		j := i
		var v uint64
		for j < len(text) && text[j]-'0' <= 9 {
			v = v*10 + uint64(text[j]-'0')
			j++
		}
		if j == i || j-i > 18 || n == len(vals) {
			return u, false
		}
		vals[n], n, i = v, n+1, j
		if i < len(text) && text[i] == ' ' {
			i++
			continue
		}
		break
	}
	if n < 2 || vals[2] > math.MaxUint32 || !(i == len(text) || i+1 == len(text) && text[i] == '\n') {
		return u, false
	}
	u.U, u.V = int64(vals[0]), int64(vals[1])
	if n == 3 {
		u.Label, u.HasLabel = uint32(vals[2]), true
	}
	return u, true
}

// parseFields is parseLine splitting the line into fields.
func parseFields(text []byte, opts Options) (u Update, ok bool, msg string) {
	for len(text) > 0 && (text[len(text)-1] == '\n' || text[len(text)-1] == '\r') {
		text = text[:len(text)-1]
	}
	i := skipSpace(text, 0)
	if i == len(text) || text[i] == '#' {
		return u, false, ""
	}
	if text[i] == '{' {
		if u, msg = parseJSON(text[i:]); msg != "" {
			msg += " in " + quoteLine(text)
		}
		return u, msg == "", msg
	}
	var fields [6][]byte
	nf := 0
	for i < len(text) {
		j := i
		for j < len(text) && text[j] != ' ' && text[j] != '\t' {
			j++
		}
		if nf == len(fields) {
			return u, false, expected + ", got too many fields in " + quoteLine(text)
		}
		fields[nf] = text[i:j]
		nf++
		i = skipSpace(text, j)
	}
	args := fields[1:nf]
	var known bool
	if u.Kind, known = kindOf(fields[0]); !known {
		return u, false, expected + ", got " + quoteLine(text)
	}
	if opts.Timestamps {
		if len(args) == 0 {
			return u, false, fmt.Sprintf("expected a timestamp at the end of the `%s` line, got %s", u.Kind, quoteLine(text))
		}
		t, err := strconv.ParseInt(string(args[len(args)-1]), 10, 64)
		if err != nil {
			return u, false, fmt.Sprintf("expected an integer timestamp at the end of the line, got %q in %s", clip(args[len(args)-1]), quoteLine(text))
		}
		u.Time, u.HasTime = t, true
		args = args[:len(args)-1]
	}
	var lo, hi int
	switch u.Kind {
	case InsertEdge, DeleteEdge:
		lo, hi = 2, 3
	case InsertVertex:
		lo, hi = 2, 2
	case DeleteVertex:
		lo, hi = 1, 1
	}
	if len(args) < lo || len(args) > hi {
		return u, false, fmt.Sprintf("expected %s, got %d fields after %s in %s", syntax(u.Kind, opts), nf-1, u.Kind, quoteLine(text))
	}
	var err error
	if u.U, err = parseID(args[0]); err != nil {
		return u, false, fmt.Sprintf("expected %s: bad vertex id %q in %s", syntax(u.Kind, opts), clip(args[0]), quoteLine(text))
	}
	rest := args[1:]
	if u.Kind == InsertEdge || u.Kind == DeleteEdge {
		if u.V, err = parseID(args[1]); err != nil {
			return u, false, fmt.Sprintf("expected %s: bad vertex id %q in %s", syntax(u.Kind, opts), clip(args[1]), quoteLine(text))
		}
		rest = args[2:]
	}
	if len(rest) == 1 {
		l, ok := parseDigits(rest[0])
		if !ok || l > math.MaxUint32 {
			return u, false, fmt.Sprintf("expected %s: bad label %q (an integer 0..%d) in %s", syntax(u.Kind, opts), clip(rest[0]), uint32(math.MaxUint32), quoteLine(text))
		}
		u.Label, u.HasLabel = uint32(l), true
	}
	return u, true, ""
}

// syntax is the expected form of a line of kind k, for error messages.
func syntax(k Kind, opts Options) string {
	var s string
	switch k {
	case InsertEdge, DeleteEdge:
		s = k.String() + " u v [label]"
	case InsertVertex:
		s = "v id label"
	default:
		s = "-v id"
	}
	if opts.Timestamps {
		s += " time"
	}
	return "`" + s + "`"
}

func parseID(b []byte) (int64, error) {
	if v, ok := parseDigits(b); ok && v <= math.MaxInt64 {
		return int64(v), nil
	}
	return strconv.ParseInt(string(b), 10, 64) // signs, and the error
}

// parseDigits parses a plain decimal number of at most 19 digits.
func parseDigits(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

// quoteLine quotes a malformed line, without its surrounding blanks and shortened when long, for
// a message: a field alone can mislead (the "0" of "0 1").
func quoteLine(text []byte) string {
	return quote.Line(string(bytes.Trim(text, " \t\r\n")))
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

type jsonUpdate struct {
	Op    *string `json:"op"`
	U     *int64  `json:"u"`
	V     *int64  `json:"v"`
	ID    *int64  `json:"id"`
	Label *uint32 `json:"label"`
	Time  *int64  `json:"time"`
}

func parseJSON(text []byte) (u Update, msg string) {
	var j jsonUpdate
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return u, "expected a JSON object {\"op\":...}: " + err.Error()
	}
	if dec.More() {
		return u, "expected one JSON object on the line"
	}
	if j.Op == nil {
		return u, `expected "op" (one of "e", "-e", "v", "-v")`
	}
	var ok bool
	if u.Kind, ok = kindOf(*j.Op); !ok {
		return u, fmt.Sprintf(`expected "op" one of "e", "-e", "v", "-v", got %q`, *j.Op)
	}
	switch u.Kind {
	case InsertEdge, DeleteEdge:
		if j.U == nil || j.V == nil || j.ID != nil {
			return u, `expected "u" and "v" (and no "id") for an edge`
		}
		u.U, u.V = *j.U, *j.V
	default:
		if j.ID == nil || j.U != nil || j.V != nil {
			return u, `expected "id" (and no "u" or "v") for a vertex`
		}
		u.U = *j.ID
		if u.Kind == InsertVertex && j.Label == nil {
			return u, `expected "label" for a vertex insertion`
		}
		if u.Kind == DeleteVertex && j.Label != nil {
			return u, `expected no "label" for a vertex deletion`
		}
	}
	if j.Label != nil {
		u.Label, u.HasLabel = *j.Label, true
	}
	if j.Time != nil {
		u.Time, u.HasTime = *j.Time, true
	}
	return u, ""
}

// kindOf reads an update's operation as both formats write it: e, -e, v or -v (a []byte is
// compared without a copy).
func kindOf[S string | []byte](op S) (Kind, bool) {
	switch string(op) {
	case "e":
		return InsertEdge, true
	case "-e":
		return DeleteEdge, true
	case "v":
		return InsertVertex, true
	case "-v":
		return DeleteVertex, true
	}
	return 0, false
}
