package formats

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/smg"
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
	start, _ := smg.Starts(base)
	raw := g.Raw()
	v := 0
	for raw.Offsets[v+1]-raw.Offsets[v] < 2 {
		v++ // a vertex with two neighbours in one run (R-MAT's hubs have many)
	}
	first := start[smg.Neighbors] + 4*raw.Offsets[v]
	mutations := map[string]func(d []byte){
		"self-loop":    func(d []byte) { le.PutUint32(d[first:], uint32(v)) },
		"out of range": func(d []byte) { le.PutUint32(d[first:], 1<<30) },
		"unsorted": func(d []byte) {
			a, b := le.Uint32(d[first:]), le.Uint32(d[first+4:])
			le.PutUint32(d[first:], b)
			le.PutUint32(d[first+4:], a)
		},
		"relabelled":   func(d []byte) { le.PutUint32(d[start[smg.VertexLabels]:], le.Uint32(d[start[smg.VertexLabels]:])+1) },
		"run offsets":  func(d []byte) { le.PutUint64(d[start[smg.RunOffsets]+8:], 1<<40) },
		"header count": func(d []byte) { le.PutUint64(d[smg.CountsAt+8*smg.Offsets:], 3) },
		"good":         func(d []byte) {},
	}
	for name, mutate := range mutations {
		for _, resum := range []bool{false, true} {
			data := slices.Clone(base)
			mutate(data)
			if resum { // the checksums of the mutated bytes: only the graph's checks can refuse it
				smg.Seal(data)
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

// TestSnapshotLateError: an error after the graph's checks started beside the decoding (no bytes
// cause one that late; testHookDecoded does) is returned only once those checks stopped reading
// the snapshot, which the loader then unmaps, and leaves no pending check; their verdict (a
// broken rule) comes first, as from LoadContext. The bytes are rewritten after the error: under
// -race that races with a check left running, and a mapped file's unmap would fault it.
func TestSnapshotLateError(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 14, Seed: 7, VertexLabels: 3})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteGraph(&buf, g, "smg"); err != nil {
		t.Fatal(err)
	}
	start, _ := smg.Starts(buf.Bytes())
	late := errors.New("late failure")
	testHookDecoded = func() error { return late }
	defer func() { testHookDecoded = nil }()
	for _, broken := range []bool{false, true} {
		data := alignedCopy(buf.Bytes())
		if broken { // vertex 0's first neighbour made vertex 0: a self-loop, found by the rules
			binary.LittleEndian.PutUint32(data[start[smg.Neighbors]:], 0)
			smg.Seal(data)
		}
		_, want := decodeSnapshot(alignedCopy(data), "s.smg", nil)
		if want == nil || (want == late) == broken {
			t.Fatalf("broken %v: decoding without pending checks says %v", broken, want)
		}
		var pending func() error
		_, err := decodeSnapshot(data, "s.smg", &pending)
		for i := range data {
			data[i] = ^data[i] // what an unmap or a reuse of the memory does under a check
		}
		if err == nil || err.Error() != want.Error() || pending != nil {
			t.Errorf("broken %v: decoding beside its checks says %v (pending left set: %v), want %v", broken, err, pending != nil, want)
		}
		if !broken {
			path := filepath.Join(t.TempDir(), "s.smg")
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, checked, err := LoadChecking(context.Background(), path, Options{}); !errors.Is(err, late) || checked != nil {
				t.Errorf("LoadChecking of a mapped file says %v, want %v", err, late)
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
