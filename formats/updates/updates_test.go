package updates

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/submatch/submatch/internal/testenv"
)

func collect(t *testing.T, text string, opts Options) ([]Update, error) {
	t.Helper()
	var out []Update
	for u, err := range Read(strings.NewReader(text), "s.stream", opts) {
		if err != nil {
			return out, err
		}
		out = append(out, u)
	}
	return out, nil
}

func TestRead(t *testing.T) {
	text := "# comment\n\ne 1 2\n-e 1 2 5\r\nv 7 3\n-v 7\n\t e  3 4 9 \n{\"op\":\"e\",\"u\":5,\"v\":6,\"label\":2,\"time\":11}\n{\"op\":\"-v\",\"id\":5}\n"
	got, err := collect(t, text, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Update{
		{Kind: InsertEdge, U: 1, V: 2, Line: 3},
		{Kind: DeleteEdge, U: 1, V: 2, Label: 5, HasLabel: true, Line: 4},
		{Kind: InsertVertex, U: 7, Label: 3, HasLabel: true, Line: 5},
		{Kind: DeleteVertex, U: 7, Line: 6},
		{Kind: InsertEdge, U: 3, V: 4, Label: 9, HasLabel: true, Line: 7},
		{Kind: InsertEdge, U: 5, V: 6, Label: 2, HasLabel: true, Time: 11, HasTime: true, Line: 8},
		{Kind: DeleteVertex, U: 5, Line: 9},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d updates, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("update %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if s := want[1].String(); s != "-e 1 2 5" {
		t.Errorf("String: %q", s)
	}
}

func TestTimestamps(t *testing.T) {
	got, err := collect(t, "e 1 2 100\ne 1 3 4 101\n-v 1 102\n", Options{Timestamps: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].HasLabel || got[0].Time != 100 || got[1].Label != 4 || got[1].Time != 101 || got[2].Time != 102 {
		t.Fatalf("got %+v", got)
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"e 1 2\nx 1 2\n", "s.stream:2: expected `e u v [label]`"},
		{"e 1\n", "s.stream:1: expected `e u v [label]`, got 1 fields"},
		{"e 1 2 3 4\n", "s.stream:1: expected `e u v [label]`, got 4 fields"},
		{"v 1\n", "s.stream:1: expected `v id label`"},
		{"-v 1 2\n", "s.stream:1: expected `-v id`"},
		{"e a 2\n", "bad vertex id \"a\""},
		{"e 1 2 -3\n", "bad label \"-3\""},
		{"{\"op\":\"x\"}\n", "s.stream:1: expected \"op\" one of"},
		{"{\"op\":\"e\",\"u\":1}\n", "expected \"u\" and \"v\""},
		{"{\"op\":\"v\",\"id\":1}\n", "expected \"label\""},
		{"{\"op\":\"e\",\"u\":1,\"v\":2,\"w\":3}\n", "unknown field"},
		{"{\"op\":\"e\"\n", "expected a JSON object"},
		// The whole line is quoted, trimmed and shortened, not its first field alone.
		{"e 1 2\n  0 1 \r\n", "s.stream:2: " + expected + `, got "0 1"`},
		{"x " + strings.Repeat("9", 100) + "\n", "s.stream:1: " + expected + `, got "x ` + strings.Repeat("9", 78) + `"...`},
		{"e 1 2 3 4 5 6 7\n", "s.stream:1: " + expected + `, got too many fields in "e 1 2 3 4 5 6 7"`},
		{"e 1\n", "s.stream:1: expected `e u v [label]`, got 1 fields after e in \"e 1\""},
		{"e 1 a\n", `s.stream:1: expected ` + "`e u v [label]`" + `: bad vertex id "a" in "e 1 a"`},
		{"{\"op\":\"x\"}\n", `in "{\"op\":\"x\"}"`},
	} {
		_, err := collect(t, c.text, Options{})
		var ue *Error
		if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.text, err, c.want)
		}
	}
	_, err := collect(t, "e 1 2\n", Options{Timestamps: true})
	if err == nil || !strings.Contains(err.Error(), "expected `e u v [label] time`, got 2 fields") {
		t.Errorf("missing timestamp: %v", err)
	}
}

func TestLongLine(t *testing.T) {
	_, err := collect(t, "e 1 2\n"+strings.Repeat("9", MaxLineBytes+10)+"\n", Options{})
	if err == nil || !strings.Contains(err.Error(), "s.stream:2: line longer") {
		t.Fatalf("error %v", err)
	}
	// A long (but allowed) comment line is skipped.
	got, err := collect(t, "#"+strings.Repeat("x", 100000)+"\ne 1 2", Options{})
	if err != nil || len(got) != 1 || got[0].Line != 2 {
		t.Fatalf("got %+v %v", got, err)
	}
}

func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "u.stream")
	if err := os.WriteFile(path, []byte("e 1 2\n-e 2 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range ReadFile(path, Options{}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 2 {
		t.Fatalf("%d updates", n)
	}
	for _, err := range ReadFile(filepath.Join(t.TempDir(), "missing"), Options{}) {
		if err == nil || !strings.Contains(err.Error(), "missing") {
			t.Fatalf("missing file: %v", err)
		}
	}
}

// TestEmailStream reads the public email10 stream whole.
func TestEmailStream(t *testing.T) {
	path := filepath.Join(testenv.Dir(), "csm-email10", "updates.stream")
	if _, err := os.Stat(path); err != nil {
		t.Skip("no shared test data:", err)
	}
	ins, del := 0, 0
	for u, err := range ReadFile(path, Options{}) {
		if err != nil {
			t.Fatal(err)
		}
		switch u.Kind {
		case InsertEdge:
			ins++
		case DeleteEdge:
			del++
		}
	}
	if ins != 3068 || del != 6083 {
		t.Fatalf("%d inserts, %d deletions; want 3068 and 6083 (README)", ins, del)
	}
}

// FuzzRead: any input yields updates or one error naming a line, never a panic; an update
// printed with String reads back as itself.
func FuzzRead(f *testing.F) {
	for _, s := range []string{"e 1 2\n", "-e 1 2 3\n", "v 1 2\n-v 1\n", "# x\n", "{\"op\":\"e\",\"u\":1,\"v\":2}\n", "e 1 2 3 4\n"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, ts bool) {
		opts := Options{Timestamps: ts}
		for u, err := range Read(strings.NewReader(text), "f", opts) {
			if err != nil {
				var ue *Error
				if !errors.As(err, &ue) || ue.Line < 1 {
					t.Fatalf("error without a line: %v", err)
				}
				return
			}
			back, err := collect(t, u.String()+"\n", Options{Timestamps: u.HasTime})
			if err != nil || len(back) != 1 {
				t.Fatalf("%q reads back as %v %v", u.String(), back, err)
			}
			b := back[0]
			if b.Kind != u.Kind || b.U != u.U || (u.Kind <= DeleteEdge && b.V != u.V) || b.Label != u.Label || b.Time != u.Time {
				t.Fatalf("%+v reads back as %+v", u, b)
			}
		}
	})
}

type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestReaderReadError: the updates read before a read error come first, then the error naming
// the line, then the end. The text read with the error is a line cut short (a truncated gzip
// stream: "-e 1 2" may have been "-e 1 23"): it is neither taken as an update nor called
// malformed.
func TestReaderReadError(t *testing.T) {
	for _, cut := range []string{"-e 1 2", "-e 1", "-"} {
		rd := NewReader(&failingReader{data: []byte("e 1 2\n# c\n" + cut), err: io.ErrUnexpectedEOF}, "s", Options{})
		var got []string
		for u, ok := rd.Next(); ok; u, ok = rd.Next() {
			got = append(got, u.String())
		}
		if err := rd.Err(); !slices.Equal(got, []string{"e 1 2 0"}) || err == nil || err.Error() != "s:3: read error: unexpected EOF" {
			t.Errorf("cut %q: got %q, then %v", cut, got, err)
		}
	}
	boom := errors.New("boom")
	rd := NewReader(&failingReader{data: []byte("e 1 2\n# c\n-e 1 2\n"), err: boom}, "s", Options{})
	var got []string
	for {
		u, ok := rd.Next()
		if !ok {
			break
		}
		got = append(got, fmt.Sprintf("%d:%s", u.Line, u))
	}
	if err := rd.Err(); err != nil {
		got = append(got, err.Error())
		if !errors.Is(err, boom) {
			t.Fatalf("error %v does not wrap the read error", err)
		}
	}
	want := []string{"1:e 1 2 0", "3:-e 1 2", "s:4: read error: boom"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if _, ok := rd.Next(); ok {
		t.Fatal("Next after the end")
	}
	if err := rd.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestEdgeLine: the one-pass reader of `e U V [L]` lines takes exactly what it says it takes,
// as the field splitter reads it, on random lines near that shape (signs, blanks, long numbers,
// labels past 2^32, carriage returns, extra fields), and takes the common ones.
func TestEdgeLine(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	parts := []string{"e", "-e", "v", "-", " ", "  ", "\t", "0", "7", "12", "4294967295", "4294967296",
		"123456789012345678", "1234567890123456789", "\n", "\r", "x", "+1"}
	taken := 0
	for range 200000 {
		var b strings.Builder
		if r.IntN(2) == 0 {
			b.WriteString([]string{"e ", "-e "}[r.IntN(2)])
			for k := range 2 + r.IntN(3) {
				if k > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(strconv.FormatUint(r.Uint64N(1<<(1+r.IntN(63))), 10))
			}
			if r.IntN(2) == 0 {
				b.WriteByte('\n')
			}
		}
		for range r.IntN(3) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		line := []byte(b.String())
		u, ok := edgeLine(line)
		if !ok {
			continue
		}
		taken++
		want, wok, msg := parseFields(line, Options{})
		if !wok || u != want {
			t.Fatalf("%q: edgeLine %+v, parseFields %+v %v %q", line, u, want, wok, msg)
		}
	}
	if taken < 10000 {
		t.Fatalf("edgeLine took %d lines", taken)
	}
	for _, line := range []string{"e 1 38 0\n", "-e 1 57 0\n", "e 5 6", "-e 5 6 3"} {
		if _, ok := edgeLine([]byte(line)); !ok {
			t.Errorf("%q not taken", line)
		}
	}
}
