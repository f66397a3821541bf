//go:build !(goexperiment.simd && amd64)

package setops

// simdIntersect is false: this build has no SIMD path (build with GOEXPERIMENT=simd on amd64).
const simdIntersect = false

// intersectBlocks is the scalar build's stand-in: it consumes nothing.
func intersectBlocks(a, b, out []uint32) ([]uint32, int, int) { return out, 0, 0 }
