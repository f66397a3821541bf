package sgsi

import "testing"

// TestSegmentsBeyond32Bits cuts a label graph of more than 2^32 adjacency entries (SGSI's FR
// size, 3.6e9 entries, has them) into segments at the kernels' limit. Only the offsets are
// read, so no list is allocated: every segment must stay within maxKernelIndex words, the
// segments must cover every entry once in order, and each local offset (the u32 the kernels
// read) must equal the 64-bit offset less the segment's start.
func TestSegmentsBeyond32Bits(t *testing.T) {
	// Vertex 2 alone has 3e9 entries (cut into parts); the others straddle 2^32.
	offsets := []uint64{0, 5, 1 << 31, 1<<31 + 3e9, 1<<32 + 3e9, 1<<32 + 3e9 + 7, 1<<33 + 1}
	lg := &labelGraph{offsets: offsets}
	for _, maxWords := range []uint64{maxKernelIndex, maxKernelIndex / 3} {
		segs := segments(lg, maxWords)
		next := uint64(0)
		var buf []uint32
		for i, sg := range segs {
			if sg.words() > maxWords {
				t.Fatalf("max %d: segment %d has %d words", maxWords, i, sg.words())
			}
			if sg.elo != next || sg.ehi <= sg.elo {
				t.Fatalf("max %d: segment %d covers [%d, %d), want it to start at %d", maxWords, i, sg.elo, sg.ehi, next)
			}
			next = sg.ehi
			buf = sg.localOffsets(buf)
			for j, o := range buf {
				want := min(max(offsets[sg.lo+uint32(j)], sg.elo), sg.ehi) - sg.elo
				if uint64(o) != want {
					t.Fatalf("max %d: segment %d local offset %d is %d, want %d", maxWords, i, j, o, want)
				}
			}
		}
		if next != offsets[len(offsets)-1] {
			t.Fatalf("max %d: segments end at %d of %d entries", maxWords, next, offsets[len(offsets)-1])
		}
	}
}
