package formats

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
)

// TestLoadCheckingSameVerdict: LoadChecking loads what LoadContext loads and, for a broken
// snapshot, reports LoadContext's error, either at once (a broken bound, a bad header) or from
// checked (a broken rule, a checksum mismatch); a snapshot that breaks only the graph's rules is
// returned before they are checked.
func TestLoadCheckingSameVerdict(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 7, Seed: 3, VertexLabels: 4})
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(t.TempDir(), "g.smg")
	if err := WriteFile(good, g, "smg"); err != nil {
		t.Fatal(err)
	}
	base, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	// The arrays' starts (the layout of snapshot.go), for the mutations below.
	var start [smgArrays]uint64
	off := uint64(smgHeaderSize)
	for i := range start {
		start[i] = off
		off = (off + le.Uint64(base[16+8*i:])*smgElem[i] + 7) &^ 7
	}
	raw := g.Raw()
	v := 0
	for raw.Offsets[v+1]-raw.Offsets[v] < 2 {
		v++ // a vertex with two neighbours in one run (R-MAT's hubs have many)
	}
	first := start[2] + 4*raw.Offsets[v]
	mutations := map[string]func(d []byte){
		"self-loop":    func(d []byte) { le.PutUint32(d[first:], uint32(v)) },
		"out of range": func(d []byte) { le.PutUint32(d[first:], 1<<30) },
		"unsorted": func(d []byte) {
			a, b := le.Uint32(d[first:]), le.Uint32(d[first+4:])
			le.PutUint32(d[first:], b)
			le.PutUint32(d[first+4:], a)
		},
		"relabelled":   func(d []byte) { le.PutUint32(d[start[0]:], le.Uint32(d[start[0]:])+1) },
		"run offsets":  func(d []byte) { le.PutUint64(d[start[4]+8:], 1<<40) },
		"header count": func(d []byte) { le.PutUint64(d[24:], 3) },
		"good":         func(d []byte) {},
	}
	for name, mutate := range mutations {
		for _, resum := range []bool{false, true} {
			data := slices.Clone(base)
			mutate(data)
			if resum { // the checksums of the mutated bytes: only the graph's checks can refuse it
				le.PutUint32(data[72:], crc32.Checksum(data[smgHeaderSize:], castagnoli))
				le.PutUint32(data[76:], crc32.Checksum(data[:76], castagnoli))
			}
			path := filepath.Join(t.TempDir(), "s.smg")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			want, wantErr := LoadContext(context.Background(), path, Options{})
			got, checked, err := LoadChecking(context.Background(), path, Options{})
			early := err != nil
			if err == nil {
				err = checked()
			}
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Errorf("%s, checksums fixed %v: LoadChecking says %v, LoadContext %v", name, resum, err, wantErr)
				continue
			}
			if err == nil && !graphsEqual(want, got) {
				t.Errorf("%s: LoadChecking's graph differs from LoadContext's", name)
			}
			if ruleOnly := resum && (name == "self-loop" || name == "unsorted" || name == "relabelled"); ruleOnly && early {
				t.Errorf("%s: refused before the graph was returned (%v): its rules were not checked beside the caller", name, err)
			}
		}
	}
}

// graphsEqual reports whether a and b hold the same arrays.
func graphsEqual(a, b *graph.Graph) bool {
	x, y := a.Raw(), b.Raw()
	return slices.Equal(x.VertexLabels, y.VertexLabels) && slices.Equal(x.Offsets, y.Offsets) &&
		slices.Equal(x.Neighbors, y.Neighbors) && slices.Equal(x.EdgeLabels, y.EdgeLabels) &&
		slices.Equal(x.RunOffsets, y.RunOffsets) && slices.Equal(x.Runs, y.Runs) && slices.Equal(x.OriginalIDs, y.OriginalIDs)
}
