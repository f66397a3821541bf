// Package smg is the layout of the .smg graph snapshot that package formats reads and writes: the
// header's fields, the arrays' order, element sizes and alignment, and the checksums, in one
// place for formats and for the tests (of formats and of the command) that build broken
// snapshots byte by byte.
//
// Layout (all integers little-endian):
//
//	0   magic "\x89SMG\r\n\x1a\n"
//	8   version uint32 (1), flags uint32: 0, or 1 when a names section follows the arrays
//	16  element counts, 7 x uint64: VertexLabels, Offsets, Neighbors, EdgeLabels, RunOffsets,
//	    Runs, OriginalIDs (0 for an absent EdgeLabels or OriginalIDs)
//	72  CRC-32C of everything after the header, uint32
//	76  CRC-32C of bytes 0..75, uint32
//	80  the arrays in that order, each starting at a multiple of 8 and zero-padded to one;
//	    element sizes 4, 8, 4, 4, 8, 16 (Run: VertexLabel u32, EdgeLabel u32, Start u64), 8.
//
// Names section (flag 1; the graph has string vertex names, from CSV): count uint64 (= the number
// of vertices), count+1 uint64 byte offsets, the names' bytes, zero-padded to a multiple of 8. The
// data checksum covers it. The file ends exactly after the last array or the names section.
package smg

import (
	"encoding/binary"
	"hash/crc32"
)

const (
	Magic      = "\x89SMG\r\n\x1a\n"
	Version    = 1
	HeaderSize = 80
	Arrays     = 7 // the number of arrays
	FlagNames  = 1 // a names section follows the arrays

	// Where the header's fields start.
	VersionAt   = 8
	FlagsAt     = 12
	CountsAt    = 16 // Arrays x uint64
	DataSumAt   = 72
	HeaderSumAt = 76
)

// The arrays, in file order.
const (
	VertexLabels = iota
	Offsets
	Neighbors
	EdgeLabels
	RunOffsets
	Runs
	OriginalIDs
)

var (
	// Castagnoli is the CRC-32C table of both checksums.
	Castagnoli = crc32.MakeTable(crc32.Castagnoli)
	// ElemSize is each array's element size in bytes.
	ElemSize = [Arrays]uint64{4, 8, 4, 4, 8, 16, 8}
	// Names names each array in messages.
	Names = [Arrays]string{"vertex labels", "offsets", "neighbours", "edge labels", "run offsets", "runs", "original ids"}
)

// Count returns array i's element count in header h.
func Count(h []byte, i int) uint64 { return binary.LittleEndian.Uint64(h[CountsAt+8*i:]) }

// Pad8 rounds n up to a multiple of 8 (where the next array starts).
func Pad8(n uint64) uint64 { return (n + 7) &^ 7 }

// Starts returns where each array of a snapshot with header h starts, and where the last one's
// padding ends, from the header's counts as they are (unchecked: for a snapshot known to be
// sound, such as one a test has just written).
func Starts(h []byte) (starts [Arrays]uint64, end uint64) {
	end = HeaderSize
	for i := range starts {
		starts[i] = end
		end = Pad8(end + Count(h, i)*ElemSize[i])
	}
	return starts, end
}

// HeaderSum returns the checksum of header h's bytes before HeaderSumAt.
func HeaderSum(h []byte) uint32 { return crc32.Checksum(h[:HeaderSumAt], Castagnoli) }

// Seal sets both checksums of snapshot d (at least a header long) to those of its bytes as they
// are: for tests that change a snapshot and want it refused, if at all, by the graph's checks.
func Seal(d []byte) {
	binary.LittleEndian.PutUint32(d[DataSumAt:], crc32.Checksum(d[HeaderSize:], Castagnoli))
	binary.LittleEndian.PutUint32(d[HeaderSumAt:], HeaderSum(d))
}
