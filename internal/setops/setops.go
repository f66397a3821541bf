// Package setops owns the sorted-set kernels every host-side search shares (the CPU engine, the
// clique counter, continuous matching, mining, stats): intersection by merge, galloping or AVX2
// blocks (with GOEXPERIMENT=simd on amd64), intersection sizes, lower bounds, and the
// intersection of several sets. Inputs are strictly increasing
// uint32 slices; outputs reuse the caller's storage, so the kernels allocate nothing once it has
// grown.
package setops

// GallopThreshold is the size ratio above which the intersections switch from a linear merge to
// galloping (exponential then binary search of the larger list). Cost models of these
// intersections (triangles.Forward.Work) price the same switch.
const GallopThreshold = 32

// Intersect writes a ∩ b into out (reusing its storage) and returns it.
func Intersect(a, b, out []uint32) []uint32 {
	out = out[:0]
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) == 0 {
		return out
	}
	if len(b) > GallopThreshold*len(a) {
		return intersectGallop(a, b, out)
	}
	return intersectMerge(a, b, out)
}

// IntersectCount returns |a ∩ b| without writing it out (merge, or galloping when one list is
// much longer).
func IntersectCount(a, b []uint32) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) == 0 {
		return 0
	}
	n := 0
	if len(b) > GallopThreshold*len(a) {
		lo := 0
		for _, x := range a {
			if lo = LowerBound(b, lo, x); lo >= len(b) {
				break
			}
			if b[lo] == x {
				n++
				lo++
			}
		}
		return n
	}
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch x, y := a[i], b[j]; {
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

// IntersectEach calls fn(i, j) for every common element a[i] == b[j], in ascending order: a
// merge, or galloping searches of the shorter list's elements in the longer when one is much
// longer (as IntersectCount). It allocates nothing.
func IntersectEach(a, b []uint32, fn func(i, j int)) {
	switch {
	case len(b) > GallopThreshold*len(a):
		gallopEach(a, b, fn)
	case len(a) > GallopThreshold*len(b):
		gallopEach(b, a, func(j, i int) { fn(i, j) })
	default:
		for i, j := 0, 0; i < len(a) && j < len(b); {
			switch x, y := a[i], b[j]; {
			case x < y:
				i++
			case x > y:
				j++
			default:
				fn(i, j)
				i++
				j++
			}
		}
	}
}

// gallopEach is IntersectEach for a much shorter than b.
func gallopEach(a, b []uint32, fn func(i, j int)) {
	lo := 0
	for i, x := range a {
		if lo = LowerBound(b, lo, x); lo == len(b) {
			return
		}
		if b[lo] == x {
			fn(i, lo)
			lo++
		}
	}
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

// intersectGallop is Intersect for a much smaller than b.
func intersectGallop(a, b, out []uint32) []uint32 {
	lo := 0
	for _, x := range a {
		lo = LowerBound(b, lo, x)
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

// LowerBound returns the first index i >= from with s[i] >= x (len(s) if none), galloping from
// from.
func LowerBound(s []uint32, from int, x uint32) int {
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

// IntersectAll intersects every set, smallest first so that each intermediate result stays small,
// using *buf and *tmp as ping-pong storage (grown as needed, kept for reuse). It reorders sets.
func IntersectAll(sets [][]uint32, buf, tmp *[]uint32) []uint32 {
	if len(sets) == 1 {
		return sets[0]
	}
	for a := 1; a < len(sets); a++ {
		for b := a; b > 0 && len(sets[b]) < len(sets[b-1]); b-- {
			sets[b], sets[b-1] = sets[b-1], sets[b]
		}
	}
	cur := Intersect(sets[0], sets[1], *buf)
	*buf = cur
	for k := 2; k < len(sets) && len(cur) > 0; k++ {
		next := Intersect(cur, sets[k], *tmp)
		*tmp, *buf = cur, next
		cur = next
	}
	return cur
}
