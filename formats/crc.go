package formats

import (
	"hash/crc32"

	"github.com/submatch/submatch/internal/par"
	"github.com/submatch/submatch/internal/smg"
)

// crcChunk is how many bytes one goroutine checksums at a time when a snapshot is verified: a
// power of two (see chunkOperator), about 0.02 ms of work, so that a snapshot of a few MB (wiki-
// Vote's 1.5 MB: 6 chunks) spreads over the cores too (its check is serial time of every count).
const crcChunk = 256 << 10

// parallelCRC returns crc32.Checksum(data, smg.Castagnoli) computed on all cores: chunks are
// checksummed independently (which also spreads a memory-mapped file's page faults over the
// cores) and their checksums combined in order. The first chunk takes the remainder, so that
// every later one is crcChunk bytes long and joins the others by one precomputed operator.
func parallelCRC(data []byte) uint32 {
	n := (len(data) + crcChunk - 1) / crcChunk
	if n <= 1 {
		return crc32.Checksum(data, smg.Castagnoli)
	}
	first := len(data) - (n-1)*crcChunk
	sums := make([]uint32, n)
	par.For(n, 0, func(i int) {
		lo, hi := 0, first
		if i > 0 {
			lo = first + (i-1)*crcChunk
			hi = lo + crcChunk
		}
		sums[i] = crc32.Checksum(data[lo:hi], smg.Castagnoli)
	})
	crc := sums[0]
	for i := 1; i < n; i++ {
		crc = gf2Times(&chunkOperator, crc) ^ sums[i] // crcCombine(crc, sums[i], crcChunk)
	}
	return crc
}

// chunkOperator advances a CRC-32C over crcChunk zero bytes: zeroOperator(18), written out
// (TestChunkOperator checks it), since computing it took about 0.06 ms of every snapshot load.
var chunkOperator = [32]uint32{
	0x68175a0a, 0xd02eb414, 0xa5b11ed9, 0x4e8e4b43, 0x9d1c9686, 0x3fd55bfd, 0x7faab7fa, 0xff556ff4,
	0xfb46a919, 0xf36124c3, 0xe32e3f77, 0xc3b0081f, 0x828c66cf, 0x00f4bb6f, 0x01e976de, 0x03d2edbc,
	0x07a5db78, 0x0f4bb6f0, 0x1e976de0, 0x3d2edbc0, 0x7a5db780, 0xf4bb6f00, 0xec9aa8f1, 0xdcd92713,
	0xbc5e38d7, 0x7d50075f, 0xfaa00ebe, 0xf0ac6b8d, 0xe4b4a1eb, 0xcc853527, 0x9ce61cbf, 0x3c204f8f,
}

// zeroOperator returns the GF(2) operator that advances a CRC-32C over 2^k zero bytes: the
// operator of one zero bit squared 3 + k times.
func zeroOperator(k int) [32]uint32 {
	var op [32]uint32
	op[0] = crc32.Castagnoli // reflected polynomial: the operator of one zero bit
	row := uint32(1)
	for i := 1; i < 32; i++ {
		op[i] = row
		row <<= 1
	}
	for range 3 + k {
		var sq [32]uint32
		gf2Square(&sq, &op)
		op = sq
	}
	return op
}

// crcCombine returns the CRC-32C of A followed by B from crcA = CRC(A), crcB = CRC(B) and
// lenB = len(B) (zlib's crc32_combine for the Castagnoli polynomial): crcA is advanced over
// lenB zero bytes by the operators of one zero byte, two, four, ... that the bits of lenB name,
// then xored with crcB (the CRC's pre- and post-inversion cancel in the xor).
func crcCombine(crcA, crcB uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return crcA
	}
	op := zeroOperator(0)
	for ; lenB > 0; lenB >>= 1 {
		if lenB&1 != 0 {
			crcA = gf2Times(&op, crcA)
		}
		var sq [32]uint32
		gf2Square(&sq, &op)
		op = sq
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
