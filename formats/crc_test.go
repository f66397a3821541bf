package formats

import (
	"hash/crc32"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/submatch/submatch/internal/smg"
)

func TestCRCCombine(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 5000)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	for range 200 {
		a, b := r.IntN(len(data)+1), r.IntN(len(data)+1)
		lo, hi := min(a, b), max(a, b)
		cut := lo + r.IntN(hi-lo+1)
		want := crc32.Checksum(data[lo:hi], smg.Castagnoli)
		got := crcCombine(crc32.Checksum(data[lo:cut], smg.Castagnoli), crc32.Checksum(data[cut:hi], smg.Castagnoli), int64(hi-cut))
		if got != want {
			t.Fatalf("combine of [%d,%d) and [%d,%d) = %08x, want %08x", lo, cut, cut, hi, got, want)
		}
	}
}

func TestParallelCRC(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, crcChunk - 1, crcChunk, crcChunk + 1, 3*crcChunk + 12345} {
		data := make([]byte, n)
		for i := 0; i < n; i += 97 {
			data[i] = byte(r.Uint32())
		}
		if got, want := parallelCRC(data), crc32.Checksum(data, smg.Castagnoli); got != want {
			t.Errorf("parallelCRC of %d bytes = %08x, want %08x", n, got, want)
		}
	}
}

// TestChunkOperator checks the written-out operator of parallelCRC against its computation.
func TestChunkOperator(t *testing.T) {
	if crcChunk != 1<<bits.TrailingZeros(crcChunk) {
		t.Fatalf("crcChunk %d is not a power of two", crcChunk)
	}
	if want := zeroOperator(bits.TrailingZeros(crcChunk)); chunkOperator != want {
		t.Fatalf("chunkOperator = %#v, want %#v", chunkOperator, want)
	}
}
