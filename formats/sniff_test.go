package formats

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/submatch/submatch/graph"
)

// TestSniffedHead loads inputs as files and as streams (read a byte at a time, or in full),
// with the head read whole at once as before (sniffSize = headSize) and with a first read of
// sniffSize bytes, under which a snapshot is detected from its magic number alone: the graphs
// and the errors are the same. The inputs: a snapshot, cut short at lengths around the header and
// the first read, with a byte flipped, with bytes after it, compressed; text graphs, short and
// longer than the first read, one detected only past it; an empty file; bytes of no format.
func TestSniffedHead(t *testing.T) {
	var long bytes.Buffer
	long.WriteString("t 300 299\n")
	for v := range 300 {
		long.WriteString("v " + strconv.Itoa(v) + " " + strconv.Itoa(v%3) + "\n")
	}
	for v := 1; v < 300; v++ {
		long.WriteString("e " + strconv.Itoa(v-1) + " " + strconv.Itoa(v) + "\n")
	}
	g, err := Read(context.Background(), bytes.NewReader(long.Bytes()), "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := writeSnapshot(&buf, g); err != nil {
		t.Fatal(err)
	}
	snap := buf.Bytes()
	inputs := map[string][]byte{"snapshot": snap, "trailing": append(bytes.Clone(snap), 0, 0, 0, 0, 0, 0, 0, 0),
		"empty": nil, "binary": []byte("\x00\x01\x02\x03"), "short text": []byte("t 2 1\nv 0 0\nv 1 0\ne 0 1\n"),
		"longer text": long.Bytes()}
	// Comments past the first read, then an edge list: detected from the whole head only.
	inputs["commented edge list"] = []byte(strings.Repeat("# a comment line of some length\n", 40) + "0 1\n1 2\n")
	for _, n := range []int{4, 8, 79, 80, 100, 511, 512, 513, len(snap) / 2, len(snap) - 1} {
		inputs["snapshot cut to "+strconv.Itoa(n)] = snap[:n]
	}
	for _, i := range []int{9, 40, 200, 600, len(snap) - 3} {
		bad := bytes.Clone(snap)
		bad[i] ^= 0x10
		inputs["snapshot with byte "+strconv.Itoa(i)+" flipped"] = bad
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(snap)
	zw.Close()
	inputs["gzipped snapshot"] = gz.Bytes()
	if len(long.Bytes()) <= sniffSize || len(snap) <= sniffSize {
		t.Fatalf("inputs of %d and %d bytes: not longer than the first read", len(long.Bytes()), len(snap))
	}

	dir := t.TempDir()
	// how: 0 a file, 1 a stream read a byte at a time, 2 a stream read in full.
	load := func(name string, data []byte, how int) (*graph.Graph, error) {
		switch how {
		case 1:
			return Read(context.Background(), iotest.OneByteReader(bytes.NewReader(data)), "", Options{Name: name})
		case 2:
			return Read(context.Background(), bytes.NewReader(data), "", Options{Name: name})
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return Load(path, Options{})
	}
	defer func(n int) { sniffSize = n }(sniffSize)
	for name, data := range inputs {
		for how := range 3 {
			sniffSize = headSize
			want, wantErr := load(name, data, how)
			sniffSize = 512
			got, gotErr := load(name, data, how)
			if errString(gotErr) != errString(wantErr) {
				t.Errorf("%s (read %d): error %q, head read whole %q", name, how, errString(gotErr), errString(wantErr))
			}
			if (got == nil) != (want == nil) || (got != nil && !rawEqual(got.Raw(), want.Raw())) {
				t.Errorf("%s (read %d): the graphs differ", name, how)
			}
		}
	}
	if got, err := load("snapshot", snap, 0); err != nil || !rawEqual(got.Raw(), g.Raw()) {
		t.Errorf("snapshot: %v, or not the graph written", err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
