package formats

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/mmapfile"
)

// loadResult is what a load gives: the graph's arrays and names, or the error's text, and the
// warnings.
type loadResult struct {
	raw   any
	names []string
	err   string
	warns []string
}

// loadVia loads data in format through one of the text paths: "map" (a file, mapped), "read" (a
// file read whole into memory), "stream" (a reader: blocks read one after another) and "slow"
// (a mapped file, every block parsed line by line). block, when positive, is the bytes of each
// block cut from a file.
func loadVia(t *testing.T, path, how, format string, data []byte, opts Options, block int) loadResult {
	t.Helper()
	defer func(nm, so bool, tb int) { noMap, slowOnly, testBlockBytes = nm, so, tb }(noMap, slowOnly, testBlockBytes)
	noMap, slowOnly, testBlockBytes = how == "read", how == "slow", block
	var r loadResult
	opts.Format = format
	opts.Warn = func(m string) { r.warns = append(r.warns, m) }
	var err error
	if how == "stream" {
		opts.Name = path
		g, e := Read(t.Context(), struct{ *bytes.Reader }{bytes.NewReader(data)}, format, opts)
		if e == nil {
			r.raw, r.names = g.Raw(), g.VertexNames()
		}
		err = e
	} else {
		g, e := Load(path, opts)
		if e == nil {
			r.raw, r.names = g.Raw(), g.VertexNames()
		}
		err = e
	}
	if err != nil {
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Fatalf("%s: error is not an InputError: %v", how, err)
		}
		r.err = err.Error()
	}
	return r
}

// The text paths of the block-parsing loaders (sm, gsi, edge lists) give the same graph, or the
// same first error and warnings, whether the file is mapped or read, whole or as a stream, in
// blocks of any size (down to a line a block, so that the odd and bad lines fall on every
// block boundary), with the fast parsers or line by line.
func TestTextPathsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	path := filepath.Join(t.TempDir(), "g")
	loaded, failed := 0, 0
	for round := range 60 {
		format := fastFormats[round%len(fastFormats)]
		size := []int{60, 700, 5000, 40_000}[r.IntN(4)]
		n := []int{5, 300, 50_000}[r.IntN(3)]
		odd := []int{0, 500, 40, 8}[r.IntN(4)]
		data := randomLines(r, format, size, n, odd)
		if r.IntN(4) == 0 {
			data = bytes.TrimRight(data, "\n") // no newline at the end
		}
		opts := Options{DropSelfLoops: r.IntN(2) == 0}
		block := []int{1, 1 + r.IntN(40), 1 + r.IntN(2000), 0}[r.IntN(4)]
		if want := checkTextPaths(t, path, format, data, opts, block); want.err == "" {
			loaded++
		} else {
			failed++
		}
	}
	if loaded < 10 || failed < 10 {
		t.Errorf("%d loads, %d errors: the rounds should give plenty of both", loaded, failed)
	}
}

// checkTextPaths writes data to path and fails unless every text path loads it as a file read
// whole does (blocks of block bytes where positive); it returns that load.
func checkTextPaths(t *testing.T, path, format string, data []byte, opts Options, block int) loadResult {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	want := loadVia(t, path, "read", format, data, opts, 0)
	for _, how := range []string{"map", "read", "slow", "stream"} {
		got := loadVia(t, path, how, format, data, opts, block)
		if how == "stream" && strings.Contains(want.err, "given with two labels") {
			// Only a file is read again to name the lines of an edge's two labels.
			got.err, got.warns = want.err, want.warns
		}
		if got.err != want.err {
			t.Fatalf("%s, %d bytes, blocks of %d: %s gives error %q, a file read whole %q", format, len(data), block, how, got.err, want.err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s, %d bytes, blocks of %d: %s gives another graph or warnings than a file read whole", format, len(data), block, how)
		}
	}
	return want
}

// FuzzTextPaths: every text path (mapped, read whole, streamed; blocks of a few bytes; fast
// parsers or line by line) loads any input as a file read whole does.
func FuzzTextPaths(f *testing.F) {
	for _, s := range []string{
		"0 1\n1 2\n2 0\n", "7115 3\n30 1412\n30 3352\n3 28", "1 2 x\n3 4\n", "0 1\n1 1\n",
		"t 3 2\nv 0 0 1\nv 1 1 2\nv 2 0 1\ne 0 1\ne 1 2 3\n", "t 2 1\nv 0 0\ne 0 1\nv 1 0\n",
		"t 2 1\r\nv 0 0 5\r\nv 1 0 99\r\ne 1 0\r\n", "t 2 1\nv 0 0\nv 1 0\ne 0 1 1\ne 1 0 2\n",
		"t # 0\n3 2 2 1\nv 0 1\nv 1 2\nv 2 1\ne 0 1 1\ne 1 0 1\ne 1 2 1\nt # -1\n",
	} {
		for i := range fastFormats {
			f.Add([]byte(s), uint8(i), false, uint8(3))
			f.Add([]byte(s), uint8(i), true, uint8(0))
		}
	}
	path := filepath.Join(f.TempDir(), "g")
	f.Fuzz(func(t *testing.T, data []byte, format uint8, drop bool, block uint8) {
		checkTextPaths(t, path, fastFormats[int(format)%len(fastFormats)], data, Options{DropSelfLoops: drop}, int(block))
	})
}

// stdinAt makes standard input the file at path (written with skip then rest) read from past
// skip, as when a script read some of it first, until the test ends.
func stdinAt(t *testing.T, path string, skip, rest []byte) {
	t.Helper()
	if err := os.WriteFile(path, append(slices.Clip(skip), rest...), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(int64(len(skip)), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	saved := os.Stdin
	os.Stdin = f
	t.Cleanup(func() { os.Stdin = saved; f.Close() })
}

// Standard input redirected from a file whose offset is past its start (a script read some of
// it first) is mapped from that offset on: the load sees what a read would.
func TestMappedStdinAtOffset(t *testing.T) {
	rest := "t 3 2\nv 0 1\nv 1 2\nv 2 1\ne 0 1\ne 1 2\n"
	stdinAt(t, filepath.Join(t.TempDir(), "g"), []byte("words no loader reads\n"), []byte(rest))
	got, err := Load(Stdin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Read(t.Context(), bytes.NewReader([]byte(rest)), "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Raw(), want.Raw()) {
		t.Fatalf("standard input at an offset gives another graph")
	}
}

// A mapped text file that shrinks while it is read is an error naming it, not a crash: on the
// cutter's and the parsers' goroutines (the load) and on the loader's (loadGuarded).
func TestMappedFileShrinks(t *testing.T) {
	dir := t.TempDir()
	// Where text files are not mapped (mmapfile.Map: Linux only), none can shrink under a load.
	path := filepath.Join(dir, "g")
	if err := os.WriteFile(path, bytes.Repeat([]byte("0 1\n"), 10_000), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, unmap, err := mmapfile.Map(f, 40_000, false)
	if err != nil {
		t.Skip("no mapping here:", err)
	}
	defer unmap()
	var body bytes.Buffer
	for i := range 40_000 {
		fmt.Fprintf(&body, "e %d %d\n", i, i+1)
	}
	for _, format := range fastFormats {
		data := body.Bytes()
		switch format {
		case "edgelist":
			data = bytes.ReplaceAll(data, []byte("e "), nil)
		case "sm":
			var v bytes.Buffer
			fmt.Fprintf(&v, "t 40001 40000\n")
			for i := range 40_001 {
				fmt.Fprintf(&v, "v %d 0\n", i)
			}
			data = append(v.Bytes(), data...)
		case "gsi":
			continue // (the same blocks as sm)
		}
		path := filepath.Join(dir, format)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		afterMap = func() {
			if err := os.Truncate(path, 100); err != nil {
				t.Error(err)
			}
		}
		_, err := Load(path, Options{Format: format})
		afterMap = nil
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "shrank while it was read") {
			t.Fatalf("%s: got %v, want the error for a file that shrank", format, err)
		}
	}
	// The loader's own goroutine.
	if err := os.Truncate(path, 100); err != nil {
		t.Fatal(err)
	}
	_, err = loadGuarded(touchLoader{data}, &fileReader{mapped: mmapfile.SpanOf(data)}, path, Options{})
	if !strings.Contains(fmt.Sprint(err), "shrank while it was read") {
		t.Fatalf("loader's goroutine: got %v, want the error for a file that shrank", err)
	}
	// A parser's goroutine.
	lr := &lineReader{path: path, mapped: mmapfile.SpanOf(data)}
	blk := &lineBlock{text: data[len(data)-8:]}
	lr.parseBlock(blk, fastEdges, parseEdge, edgeComments)
	if !strings.Contains(fmt.Sprint(blk.err), "shrank while it was read") || blk.fast || len(blk.recs) > 0 {
		t.Fatalf("parser: got %v, want the error for a file that shrank, and no lines", blk.err)
	}
	// A fault outside the mapping is not taken for it.
	defer func() {
		if recover() == nil {
			t.Fatal("a fault outside the mapping was recovered")
		}
	}()
	loadGuarded(touchLoader{data}, &fileReader{}, path, Options{})
}

// touchLoader's Load reads the last byte of its data (into touched).
type touchLoader struct{ data []byte }

var touched byte

func (touchLoader) Name() string              { return "touch" }
func (touchLoader) Detect(string, []byte) int { return NoMatch }
func (l touchLoader) Load(io.Reader, string, Options) (*graph.Graph, error) {
	touched = l.data[len(l.data)-1]
	return nil, nil
}

// An edge given with two labels on standard input at an offset is reported at its lines in the
// stream (the rescan that finds them starts where the stream began, not at the file's start).
func TestStdinAtOffsetConflictLines(t *testing.T) {
	skip := []byte("0 1 7\n0 1 8\n") // the same edge with other labels, before the stream
	stdinAt(t, filepath.Join(t.TempDir(), "g"), skip, []byte("0 1\n1 2 1\n2 1 2\n"))
	_, err := Load(Stdin, Options{Format: "edgelist"})
	if want := "edge 1-2 given with two labels: 1 on line 2, 2 on line 3"; !strings.Contains(fmt.Sprint(err), want) {
		t.Fatalf("got %v, want an error with %q", err, want)
	}
}

// A snapshot on standard input at an offset is the snapshot from there on (the file's earlier
// bytes are not part of it).
func TestSnapshotStdinAtOffset(t *testing.T) {
	dir := t.TempDir()
	want, err := Read(t.Context(), strings.NewReader("t 3 2\nv 0 1\nv 1 2\nv 2 1\ne 0 1\ne 1 2\n"), "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, "g.smg")
	if err := WriteSnapshot(snap, want); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	for _, skip := range []int{3, 8} {
		stdinAt(t, filepath.Join(dir, "at"), bytes.Repeat([]byte{'x'}, skip), data)
		got, err := Load(Stdin, Options{})
		if err != nil {
			t.Fatalf("skip %d: %v", skip, err)
		}
		if !reflect.DeepEqual(got.Raw(), want.Raw()) {
			t.Fatalf("skip %d: the snapshot at an offset gives another graph", skip)
		}
	}
}
