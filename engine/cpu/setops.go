package cpu

// Sorted-set kernels used by the search. Inputs are strictly increasing uint32 slices.

// gallopThreshold is the size ratio above which intersect switches from a linear merge to
// galloping (exponential then binary search of the larger list).
const gallopThreshold = 32

// intersect writes a ∩ b into out (reusing its storage) and returns it.
func intersect(a, b, out []uint32) []uint32 {
	out = out[:0]
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) == 0 {
		return out
	}
	if len(b) > gallopThreshold*len(a) {
		return intersectGallop(a, b, out)
	}
	return intersectMerge(a, b, out)
}

// simdMinLen is the shortest input for which the SIMD block intersection pays off.
const simdMinLen = 16

// intersectMerge is the merge intersection: SIMD blocks while both inputs are long enough (when
// compiled in), then a scalar merge of the rest.
func intersectMerge(a, b, out []uint32) []uint32 {
	i, j := 0, 0
	if simdIntersect && len(a) >= simdMinLen && len(b) >= simdMinLen {
		out, i, j = intersectBlocks(a, b, out)
	}
	return mergeFrom(a, b, i, j, out)
}

// mergeFrom is the scalar merge intersection of a[i:] and b[j:].
func mergeFrom(a, b []uint32, i, j int, out []uint32) []uint32 {
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		switch {
		case x < y:
			i++
		case x > y:
			j++
		default:
			out = append(out, x)
			i++
			j++
		}
	}
	return out
}

// intersectGallop is intersect for a much smaller than b.
func intersectGallop(a, b, out []uint32) []uint32 {
	lo := 0
	for _, x := range a {
		lo = lowerBound(b, lo, x)
		if lo == len(b) {
			break
		}
		if b[lo] == x {
			out = append(out, x)
			lo++
		}
	}
	return out
}

// lowerBound returns the first index i >= from with s[i] >= x (len(s) if none), galloping from
// from.
func lowerBound(s []uint32, from int, x uint32) int {
	step := 1
	hi := from
	for hi < len(s) && s[hi] < x {
		from = hi + 1
		hi += step
		step <<= 1
	}
	hi = min(hi, len(s))
	for from < hi {
		mid := int(uint(from+hi) >> 1)
		if s[mid] < x {
			from = mid + 1
		} else {
			hi = mid
		}
	}
	return from
}

// intersectCount returns |a ∩ b|.
func intersectCount(a, b []uint32) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	n := 0
	if len(b) > gallopThreshold*len(a) {
		lo := 0
		for _, x := range a {
			lo = lowerBound(b, lo, x)
			if lo == len(b) {
				break
			}
			if b[lo] == x {
				n++
				lo++
			}
		}
		return n
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		switch {
		case x < y:
			i++
		case x > y:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}
