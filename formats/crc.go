package formats

import (
	"hash/crc32"

	"github.com/submatch/submatch/internal/par"
)

// crcChunk is how many bytes one goroutine checksums at a time when a snapshot is verified.
const crcChunk = 8 << 20

// parallelCRC returns crc32.Checksum(data, castagnoli) computed on all cores: chunks are
// checksummed independently (which also spreads a memory-mapped file's page faults over the
// cores) and their checksums combined in order.
func parallelCRC(data []byte) uint32 {
	n := (len(data) + crcChunk - 1) / crcChunk
	if n <= 1 {
		return crc32.Checksum(data, castagnoli)
	}
	sums := make([]uint32, n)
	par.For(n, 0, func(i int) {
		sums[i] = crc32.Checksum(data[i*crcChunk:min((i+1)*crcChunk, len(data))], castagnoli)
	})
	crc := sums[0]
	for i := 1; i < n; i++ {
		crc = crcCombine(crc, sums[i], int64(min(crcChunk, len(data)-i*crcChunk)))
	}
	return crc
}

// crcCombine returns the CRC-32C of A followed by B from crcA = CRC(A), crcB = CRC(B) and
// lenB = len(B) (zlib's crc32_combine for the Castagnoli polynomial): crcA is advanced over
// lenB zero bytes by repeated squaring of the one-zero-bit operator over GF(2), then xored
// with crcB (the CRC's pre- and post-inversion cancel in the xor).
func crcCombine(crcA, crcB uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return crcA
	}
	var odd, even [32]uint32
	odd[0] = crc32.Castagnoli // reflected polynomial: the operator of one zero bit
	row := uint32(1)
	for i := 1; i < 32; i++ {
		odd[i] = row
		row <<= 1
	}
	gf2Square(&even, &odd) // two zero bits
	gf2Square(&odd, &even) // four zero bits
	// Square up to the operators of one zero byte, two, four, ..., applying those the bits of
	// lenB name.
	op, prev := &even, &odd
	for ; lenB > 0; lenB >>= 1 {
		gf2Square(op, prev)
		if lenB&1 != 0 {
			crcA = gf2Times(op, crcA)
		}
		op, prev = prev, op
	}
	return crcA ^ crcB
}

// gf2Times multiplies the 32x32 GF(2) matrix m (one column a word) by the vector v.
func gf2Times(m *[32]uint32, v uint32) uint32 {
	var sum uint32
	for i := 0; v != 0; i, v = i+1, v>>1 {
		if v&1 != 0 {
			sum ^= m[i]
		}
	}
	return sum
}

// gf2Square sets sq to m times m.
func gf2Square(sq, m *[32]uint32) {
	for i := range m {
		sq[i] = gf2Times(m, m[i])
	}
}
