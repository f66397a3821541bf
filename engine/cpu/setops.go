package cpu

import "github.com/submatch/submatch/internal/setops"

// The search's set kernels are the shared ones (package engine/internal/setops); these short
// forms inline.

func intersect(a, b, out []uint32) []uint32 { return setops.Intersect(a, b, out) }

func lowerBound(s []uint32, from int, x uint32) int { return setops.LowerBound(s, from, x) }

func intersectAll(sets [][]uint32, buf, tmp *[]uint32) []uint32 {
	return setops.IntersectAll(sets, buf, tmp)
}
