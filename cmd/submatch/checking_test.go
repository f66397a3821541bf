package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
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
