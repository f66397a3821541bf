package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/smg"
)

// TestCountCheckedSnapshot: count plans beside a snapshot's checks (loadDataChecking), so a
// snapshot that breaks the graph's rules under a valid checksum reaches the engines' plans; it
// must still end as the load's error (stats loads before anything else: the same status and
// message), with no count printed, whatever the engine and however many queries; a sound
// snapshot counts as its text form does.
func TestCountCheckedSnapshot(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 8, Seed: 5, VertexLabels: 3})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good, text := filepath.Join(dir, "g.smg"), filepath.Join(dir, "g.graph")
	for _, p := range []string{good, text} {
		if err := formats.WriteFile(p, g, ""); err != nil {
			t.Fatal(err)
		}
	}
	base, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	start, _ := smg.Starts(base)
	neighbours := start[smg.Neighbors]
	raw := g.Raw()
	v := 0
	for raw.Offsets[v+1]-raw.Offsets[v] < 2 || raw.Runs[raw.RunOffsets[v]].Start+1 >= raw.Offsets[v+1] {
		v++
	}
	at := neighbours + 4*raw.Offsets[v]
	broken := map[string]func(d []byte){
		"self-loop": func(d []byte) { le.PutUint32(d[at:], uint32(v)) },
		"unsorted": func(d []byte) {
			a, b := le.Uint32(d[at:]), le.Uint32(d[at+4:])
			le.PutUint32(d[at:], b)
			le.PutUint32(d[at+4:], a)
		},
		"relabelled": func(d []byte) {
			le.PutUint32(d[start[smg.VertexLabels]+4*uint64(v):], le.Uint32(d[start[smg.VertexLabels]+4*uint64(v):])+1)
		},
		"checksum": func(d []byte) { d[neighbours] ^= 1 },
	}
	queries := []string{"(a:0)-(b:1)-(c:2)-(a)", "(a:1)-(b:1)-(c)-(d:0)-(a), (b)-(d)", "(a)-(b)-(c)-(a)"}
	for name, mutate := range broken {
		data := slices.Clone(base)
		mutate(data)
		if name != "checksum" {
			smg.Seal(data) // only the graph's checks can refuse it
		}
		path := filepath.Join(dir, name+".smg")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		wantCode, _, wantErr := runCmd(t, "stats", path)
		if wantCode == exitOK {
			t.Fatalf("%s: stats loads the broken snapshot", name)
		}
		for _, eng := range []string{"cpu", "auto"} {
			for _, qs := range [][]string{queries[:1], queries[1:2], queries} {
				code, out, errOut := runCmd(t, append([]string{"count", "--engine", eng, path}, qs...)...)
				if code != wantCode || out != "" || errOut != wantErr {
					t.Errorf("%s, --engine %s, %d queries: status %d, stdout %q, stderr %q; want %d, nothing, %q",
						name, eng, len(qs), code, out, errOut, wantCode, wantErr)
				}
			}
		}
	}
	for _, eng := range []string{"cpu", "auto"} {
		args := append([]string{"count", "--engine", eng}, queries...)
		_, want, _ := runCmd(t, append(args[:3:3], append([]string{text}, queries...)...)...)
		code, got, errOut := runCmd(t, append(args[:3:3], append([]string{good}, queries...)...)...)
		if code != exitOK || countsOf(got) != countsOf(want) || countsOf(got) == "" {
			t.Errorf("--engine %s: the snapshot counts %q (status %d, %s), the text file %q", eng, countsOf(got), code, errOut, countsOf(want))
		}
	}
}

// countsOf returns the count column of count's output, one line a query.
func countsOf(out string) string {
	var s string
	for _, row := range tsv(out) {
		if len(row) > 1 {
			s += row[1] + "\n"
		}
	}
	return s
}

// TestLyingSnapshotHeader: a snapshot whose sealed header declares more entries than the file
// holds (2^40 vertices; neighbours past the end; a file cut short) is refused with one line
// naming the file and exit 2, mapped or read as a gzip stream, before anything the size of the
// declared counts is allocated.
func TestLyingSnapshotHeader(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 6, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "g.smg")
	if err := formats.WriteFile(good, g, ""); err != nil {
		t.Fatal(err)
	}
	base, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	lie := func(array int, count uint64) func([]byte) []byte {
		return func(d []byte) []byte {
			le.PutUint64(d[smg.CountsAt+8*array:], count)
			smg.Seal(d)
			return d
		}
	}
	for name, mutate := range map[string]func([]byte) []byte{
		"2^40 vertices":     lie(smg.VertexLabels, 1<<40),
		"2^62 neighbours":   lie(smg.Neighbors, 1<<62),
		"2^64-1 offsets":    lie(smg.Offsets, 1<<64-1),
		"cut in the middle": func(d []byte) []byte { return d[:len(d)/2] },
		"header only":       func(d []byte) []byte { return d[:smg.HeaderSize] },
	} {
		data := mutate(slices.Clone(base))
		path := filepath.Join(dir, "lie.smg")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		gz := filepath.Join(dir, "lie.smg.gz")
		if err := os.WriteFile(gz, gzipped(t, data), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{path, gz} {
			code, _, errOut := runCmd(t, "stats", p)
			if code != exitUsage || !strings.HasPrefix(errOut, "submatch: "+p+": corrupt or truncated snapshot") ||
				strings.Count(errOut, "\n") != 1 {
				t.Errorf("%s, %s: exit %d, stderr %q; want 2 and one line naming the file", name, filepath.Base(p), code, errOut)
			}
		}
	}
}

// gzipped returns data gzip-compressed.
func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
