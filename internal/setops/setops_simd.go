//go:build goexperiment.simd && amd64

package setops

import (
	"math/bits"
	"simd/archsimd"
)

// simdIntersect is set when the AVX2 block intersection is compiled in and the CPU has AVX2.
var simdIntersect = archsimd.X86.AVX2()

// rotateByOne rotates the eight lanes of a vector by one.
var rotateByOne = [8]uint32{1, 2, 3, 4, 5, 6, 7, 0}

// intersectBlocks intersects a and b eight elements at a time (all-pairs compare of two blocks
// with seven lane rotations, AVX2), appending matches to out. It stops when either input has
// fewer than eight elements left and returns the positions reached; the caller merges the tails.
func intersectBlocks(a, b, out []uint32) ([]uint32, int, int) {
	rot := archsimd.LoadUint32x8(&rotateByOne)
	i, j := 0, 0
	for i+8 <= len(a) && j+8 <= len(b) {
		va := archsimd.LoadUint32x8Slice(a[i : i+8])
		vb := archsimd.LoadUint32x8Slice(b[j : j+8])
		m := va.Equal(vb)
		for r := 0; r < 7; r++ {
			vb = vb.Permute(rot)
			m = m.Or(va.Equal(vb))
		}
		for found := m.ToBits(); found != 0; found &= found - 1 {
			out = append(out, a[i+bits.TrailingZeros8(found)])
		}
		amax, bmax := a[i+7], b[j+7]
		if amax <= bmax {
			i += 8
		}
		if bmax <= amax {
			j += 8
		}
	}
	return out, i, j
}
