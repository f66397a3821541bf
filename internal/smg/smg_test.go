package smg_test

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/smg"
)

// TestLayout: the layout is the one package formats writes: Starts finds every array of a
// written snapshot (its bytes are the graph's, little-endian) and ends where the file does, and
// Seal leaves an intact snapshot's bytes as they are.
func TestLayout(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 6, Seed: 1, VertexLabels: 3, EdgeLabels: 2})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := formats.WriteGraph(&buf, g, "smg"); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	starts, end := smg.Starts(data)
	if end != uint64(len(data)) {
		t.Fatalf("the arrays end at %d, the file at %d", end, len(data))
	}
	le := binary.LittleEndian
	raw := g.Raw()
	u32 := func(a, n int) []uint32 {
		s := make([]uint32, n)
		for i := range s {
			s[i] = le.Uint32(data[starts[a]+4*uint64(i):])
		}
		return s
	}
	u64 := func(a, n int) []uint64 {
		s := make([]uint64, n)
		for i := range s {
			s[i] = le.Uint64(data[starts[a]+8*uint64(i):])
		}
		return s
	}
	if !slices.Equal(u32(smg.VertexLabels, len(raw.VertexLabels)), raw.VertexLabels) ||
		!slices.Equal(u64(smg.Offsets, len(raw.Offsets)), raw.Offsets) ||
		!slices.Equal(u32(smg.Neighbors, len(raw.Neighbors)), raw.Neighbors) ||
		!slices.Equal(u32(smg.EdgeLabels, len(raw.EdgeLabels)), raw.EdgeLabels) ||
		!slices.Equal(u64(smg.RunOffsets, len(raw.RunOffsets)), raw.RunOffsets) {
		t.Fatal("an array is not where Starts says")
	}
	sealed := slices.Clone(data)
	smg.Seal(sealed)
	if !bytes.Equal(sealed, data) {
		t.Fatal("Seal changed an intact snapshot's checksums")
	}
}
