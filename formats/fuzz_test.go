package formats

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/smg"
	"github.com/submatch/submatch/pattern"
)

// fuzzText fuzzes one text loader: it must never panic, a failure must be an *InputError, and a
// graph it returns must be valid.
func fuzzText(f *testing.F, format string, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	l := lookup(format)
	f.Fuzz(func(t *testing.T, data []byte, drop bool) {
		g, err := l.Load(bytes.NewReader(data), "fuzz", Options{DropSelfLoops: drop})
		checkLoaded(t, g, err)
		checkErrorLine(t, data, "fuzz", err)
	})
}

// checkErrorLine fails t when err, an error for the text file path holding data, names a line
// the file does not have, or quotes a line ("..., got \"text\"") other than the one it names:
// the line numbers of a loader that parses blocks, not lines, must still be the file's.
func checkErrorLine(t *testing.T, data []byte, path string, err error) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) || ie.Path != path || ie.Line == 0 {
		return
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	if ie.Line < 0 || ie.Line > max(len(lines), 1) { // an empty file ends on its line 1
		t.Fatalf("error names line %d of a %d-line file: %v", ie.Line, len(lines), err)
	}
	i := strings.LastIndex(ie.Msg, `, got "`)
	if i < 0 {
		return
	}
	if ie.Line > len(lines) {
		t.Fatalf("error quotes a line of an empty file: %v", err)
	}
	line := bytes.TrimSuffix(lines[ie.Line-1], []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if want := quoteLine(trimSpace(line)); ie.Msg[i+len(", got "):] != want {
		t.Fatalf("error quotes %s, but line %d is %s: %v", ie.Msg[i+len(", got "):], ie.Line, want, err)
	}
}

// checkLoaded fails t unless err is an *InputError or, when err is nil, g is a valid graph.
func checkLoaded(t *testing.T, g *graph.Graph, err error) {
	t.Helper()
	if err != nil {
		checkInputError(t, err)
	} else if err := g.Validate(); err != nil {
		t.Fatalf("loaded an invalid graph: %v", err)
	}
}

// checkInputError fails t unless err is an *InputError.
func checkInputError(t *testing.T, err error) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error is not an InputError: %v", err)
	}
}

func FuzzSM(f *testing.F) {
	fuzzText(f, "sm",
		"t 3 2\nv 0 0 1\nv 1 1 2\nv 2 0 1\ne 0 1\ne 1 2 3\n",
		"t 2 1\nv 5 0\nv -7 1\ne 5 -7\n",
		"t 999999999999 5\nv 0 0\n",
		"t 2 2\nv 0 0\nv 1 0\ne 0 1 1\ne 1 0 2\n")
}

func FuzzGSI(f *testing.F) {
	fuzzText(f, "gsi",
		"t # 0\n3 2 2 1\nv 0 1\nv 1 2\nv 2 1\ne 0 1 1\ne 1 0 1\ne 1 2 1\nt # -1\n",
		"t # 0\n1 0 1 1\nv 0 1\nt # -1\nt # 1\n")
}

func FuzzEdgeList(f *testing.F) {
	fuzzText(f, "edgelist",
		"# c\n0 1\n1 2\n2 0\n",
		"7115 3\n30 1412\n30 3352\n3 28\n",
		"5 2\n0 1\n1 2\n",
		"1,2,3\n%x\n-5\t9\n",
		"0 0\n")
}

func FuzzLAD(f *testing.F) {
	fuzzText(f, "lad", "4\n3 0 1 2\n2 0 3\n2 0 3\n2 1 2\n", "3\n2 1 2\n2 0 2\n2 0 1\n", "0\n")
}

func FuzzVertexLabelledLAD(f *testing.F) {
	fuzzText(f, "vertexlabelledlad", "3\n7 2 1 2\n0 2 0 2\n7 2 0 1\n", "2\n1 1 1\n1 1 0\n", "1\n4294967295 0\n")
}

// loadExtensions are the file names FuzzLoad gives its input, so that detection by extension
// (LAD, CSV, MIVIA) and by content both run.
var loadExtensions = []string{"g", "g.lad", "g.csv", "g.grf", "g.graph", "g.txt"}

// FuzzLoad fuzzes loading a file end to end as the command does: format detection, the loader it
// picks, an optional vertex-labels file, and reading the file as a pattern. Every failure must be
// an *InputError; a graph or pattern it returns must be valid.
func FuzzLoad(f *testing.F) {
	for i, s := range []string{
		"t 3 2\nv 0 0 1\nv 1 1 2\nv 2 0 1\ne 0 1\ne 1 2 3\n",
		"t # 0\n2 1 1 1\nv 0 1\nv 1 1\ne 0 1 1\nt # -1\n",
		"# c\n0 1\n1 2\n2 0\n",
		"4\n3 0 1 2\n2 0 3\n2 0 3\n2 1 2\n",
		"a,b\nb,c,2\nc,,3\n",
		"2\n0 1\n1 1\n1\n0 1\n0\n",
		"",
	} {
		f.Add([]byte(s), uint8(i), []byte("0 5\n1 6\n"))
		f.Add([]byte(s), uint8(i+1), []byte{})
	}
	f.Fuzz(func(t *testing.T, data []byte, ext uint8, labels []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, loadExtensions[int(ext)%len(loadExtensions)])
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		opts := Options{DropSelfLoops: ext&8 != 0}
		if len(labels) > 0 {
			opts.VertexLabelsFile = filepath.Join(dir, "labels")
			if err := os.WriteFile(opts.VertexLabelsFile, labels, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		g, err := Load(path, opts)
		checkLoaded(t, g, err)
		checkErrorLine(t, data, path, err)
		p, err := LoadPattern(path, Options{DropSelfLoops: opts.DropSelfLoops})
		if err != nil {
			checkInputError(t, err)
			return
		}
		if p.NumVertices() > pattern.MaxVertices {
			t.Fatalf("pattern of %d vertices accepted", p.NumVertices())
		}
	})
}

func FuzzCSV(f *testing.F) {
	fuzzText(f, "csv", "a,b\nb,c,2\nc,,3\n", "1,2\n2,1\n", "a>b\n", "x,x\n", "01,1\n")
}

// fixChecksums rewrites the two checksums of a snapshot so that decoding gets past them.
func fixChecksums(data []byte) {
	if len(data) >= smg.HeaderSize {
		smg.Seal(data)
	}
}

func FuzzSnapshot(f *testing.F) {
	for _, src := range []string{"t 3 2\nv 0 0\nv 1 1\nv 2 0\ne 0 1 4\ne 1 2\n", "t 2 1\nv 7 0\nv 9 0\ne 7 9\n", "t 0 0\n"} {
		g, err := lookup("sm").Load(bytes.NewReader([]byte(src)), "seed", Options{})
		if err != nil {
			f.Fatal(err)
		}
		p := filepath.Join(f.TempDir(), "s.smg")
		if err := WriteSnapshot(p, g); err != nil {
			f.Fatal(err)
		}
		data, _ := os.ReadFile(p)
		f.Add(data, false)
		f.Add(data, true)
	}
	f.Fuzz(func(t *testing.T, data []byte, fix bool) {
		data = alignedCopy(data)
		if !fix {
			// As written on disk: anything but an intact snapshot is refused.
			g, err := decodeSnapshot(data, "fuzz", nil)
			checkLoaded(t, g, err)
			return
		}
		// Checksums forged to match: the trusted path must still keep every accessor in
		// bounds (it does not promise a valid graph).
		fixChecksums(data)
		g, err := decodeSnapshot(data, "fuzz", nil)
		if err != nil {
			checkInputError(t, err)
			return
		}
		touchGraph(g)
		_ = g.Validate()
	})
}

// touchGraph calls the accessors on every vertex, to surface out-of-bounds panics.
func touchGraph(g *graph.Graph) {
	for v := uint32(0); int(v) < g.NumVertices(); v++ {
		_ = g.OriginalID(v)
		for i := range g.Runs(v) {
			_ = g.RunNeighbors(v, i)
		}
		_ = g.NeighborEdgeLabels(v)
		for _, w := range g.Neighbors(v) {
			g.HasEdge(v, w)
		}
	}
}

func FuzzGraphMiner(f *testing.F) {
	le := binary.LittleEndian
	rows := binary.LittleEndian.AppendUint64(nil, 0)
	for _, r := range []uint64{1, 3, 4} {
		rows = le.AppendUint64(rows, r)
	}
	var cols []byte
	for _, c := range []uint32{1, 0, 2, 1} {
		cols = le.AppendUint32(cols, c)
	}
	f.Add("3\n4\n4 8 1 2\n2\n0\n2\n2\n", rows, cols, []byte{0, 1, 0}, []byte{1, 0, 1, 0, 2, 0, 2, 0})
	f.Add("3 4 4 8 1 2", rows, cols, []byte{}, []byte{1})
	f.Fuzz(func(t *testing.T, meta string, vertex, edge, vlabel, elabel []byte) {
		dir := t.TempDir()
		write := func(name string, data []byte) {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(gmMeta, []byte(meta))
		write("graph.vertex.bin", vertex)
		write("graph.edge.bin", edge)
		if len(vlabel) > 0 {
			write("graph.vlabel.bin", vlabel)
		}
		if len(elabel) > 0 {
			write("graph.elabel.bin", elabel)
		}
		g, err := Load(dir, Options{Format: "graphminer", DropSelfLoops: len(meta)%2 == 0})
		checkLoaded(t, g, err)
	})
}

// FuzzRead fuzzes the stream path (what LoadContext uses for standard input): any bytes, read
// raw, gzip-compressed or zstd-compressed, with a detected or a forced format, must give a valid
// graph or an *InputError, and the compressed reads must agree with the raw one.
func FuzzRead(f *testing.F) {
	for i, s := range []string{
		"t 3 2\nv 0 0 1\nv 1 1 2\nv 2 0 1\ne 0 1\ne 1 2 3\n",
		"FromNodeId\tToNodeId\n0\t1\n1 2 # c\n5\n",
		"a,b\nb,c,2\nc,,3\n",
		"0 1\r\r\n1 2\r\r\n",
		"\x1f\x8b\x08\x00",
		"\x89SMG\r\n\x1a\n",
		"",
	} {
		f.Add([]byte(s), uint8(i))
	}
	names := append([]string{""}, Names()...)
	f.Fuzz(func(t *testing.T, data []byte, pick uint8) {
		format := names[int(pick)%len(names)]
		if format == "graphminer" {
			format = ""
		}
		ctx := context.Background()
		read := func(in []byte) (*graph.Graph, error) {
			g, err := Read(ctx, bytes.NewReader(in), format, Options{DropSelfLoops: pick&0x80 != 0, Name: "fuzz"})
			checkLoaded(t, g, err)
			return g, err
		}
		g, err := read(data)
		if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b || len(data) >= 4 && string(data[:4]) == "\x28\xb5\x2f\xfd" {
			return // compressed already: its raw read is the decompressed one
		}
		checkErrorLine(t, data, "fuzz", err)
		for _, packed := range [][]byte{gzipped(t, string(data)), zstded(t, string(data))} {
			h, err2 := read(packed)
			if (err == nil) != (err2 == nil) {
				t.Fatalf("raw read: %v; compressed read: %v", err, err2)
			}
			if g != nil && (g.NumVertices() != h.NumVertices() || g.NumEdges() != h.NumEdges()) {
				t.Fatalf("compressed read differs: %d/%d vertices, %d/%d edges", h.NumVertices(), g.NumVertices(), h.NumEdges(), g.NumEdges())
			}
		}
	})
}
