package plan

import "github.com/submatch/submatch/internal/setops"

// Window is a symmetry-breaking window: the levels whose data vertex a level's (Level) or a
// postponed group's members' (LeafGroup, with Options.GroupWindows) data vertex must be greater
// than (Lower) and smaller than (Upper). Given the levels' data vertices it is one range of data
// vertex ids, so a set may be narrowed through any superset it is then filtered from (a prefix of
// its intersections, a list before a hub row filters it).
//
// Its methods are the one statement of the rule for the engines' shortcuts: Narrow, Range and
// Contains apply it; a shortcut that cannot apply it refuses by Bounded (or BoundedFrom, for the
// levels it counts itself).
type Window struct {
	Lower, Upper []int
}

// Bounded reports whether the window bounds the data vertex at all: a counting shortcut that
// cannot narrow to the window must not be taken when it does.
func (w *Window) Bounded() bool { return len(w.Lower)+len(w.Upper) > 0 }

// BoundedFrom reports whether some level from level on bounds the window: a shortcut that counts
// those levels' data vertices together with this one, and applies the window through Range for
// the earlier levels only, must not be taken when it does.
func (w *Window) BoundedFrom(level int) bool {
	for _, j := range w.Lower {
		if j >= level {
			return true
		}
	}
	for _, j := range w.Upper {
		if j >= level {
			return true
		}
	}
	return false
}

// Range returns the window as the data vertex ids [lo, hi) given the levels' data vertices m,
// leaving out the bound of level skip (-1: none); hi is 1<<32, above every id, without an upper
// bound.
func (w *Window) Range(m []uint32, skip int) (lo, hi uint64) {
	hi = 1 << 32
	for _, j := range w.Lower {
		if j != skip {
			lo = max(lo, uint64(m[j])+1)
		}
	}
	for _, j := range w.Upper {
		if j != skip {
			hi = min(hi, uint64(m[j]))
		}
	}
	return lo, hi
}

// Contains reports whether data vertex x lies in the window given the levels' data vertices m.
func (w *Window) Contains(x uint32, m []uint32) bool {
	lo, hi := w.Range(m, -1)
	return uint64(x) >= lo && uint64(x) < hi
}

// Narrow returns the part of sorted set s in the window given the levels' data vertices m,
// leaving out the bound of level skip (-1: none): a subslice, found by binary search. An
// unbounded window returns s at the cost of a length test.
func (w *Window) Narrow(s, m []uint32, skip int) []uint32 {
	if !w.Bounded() {
		return s
	}
	return w.narrow(s, m, skip)
}

// narrow is Narrow past its test (which inlines alone into the search's levels).
func (w *Window) narrow(s, m []uint32, skip int) []uint32 {
	lo, hi := w.Range(m, skip)
	return Clip(s, lo, hi)
}

// Clip returns the part of sorted set s in the data vertex ids [lo, hi) (Window.Range): a
// subslice, binary-searched only at an end that lies outside.
func Clip(s []uint32, lo, hi uint64) []uint32 {
	if len(s) > 0 && uint64(s[0]) < lo {
		if lo > uint64(s[len(s)-1]) {
			return s[:0]
		}
		s = s[setops.LowerBound(s, 0, uint32(lo)):]
	}
	if len(s) > 0 && uint64(s[len(s)-1]) >= hi {
		s = s[:setops.LowerBound(s, 0, uint32(hi))]
	}
	return s
}
