package plan

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWindow checks Window's narrowing, membership, range and bound tests against the rule
// itself (above every Lower level's data vertex, below every Upper level's, the skipped level's
// bound left out): fixed cases, then random sorted sets, windows and data vertices, among them
// the largest id.
func TestWindow(t *testing.T) {
	s := []uint32{1, 3, 5, 7, 9, 11}
	m := []uint32{3, 9, 4, 20}
	for _, c := range []struct {
		lower, upper []int
		want         []uint32
	}{
		{nil, nil, s},
		{[]int{0}, nil, []uint32{5, 7, 9, 11}},
		{[]int{0, 2}, []int{1}, []uint32{5, 7}},
		{nil, []int{1, 3}, []uint32{1, 3, 5, 7}},
		{[]int{1}, []int{0}, []uint32{}},
	} {
		w := Window{Lower: c.lower, Upper: c.upper}
		if got := w.Narrow(s, m, -1); !slices.Equal(got, c.want) {
			t.Errorf("window above %v below %v: %v, want %v", c.lower, c.upper, got, c.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	in := func(w *Window, x uint32, m []uint32, skip int) bool {
		for _, j := range w.Lower {
			if j != skip && x <= m[j] {
				return false
			}
		}
		for _, j := range w.Upper {
			if j != skip && x >= m[j] {
				return false
			}
		}
		return true
	}
	for range 2000 {
		universe := uint32(1 + r.IntN(100))
		var s []uint32
		for x := range universe {
			if r.IntN(3) == 0 {
				s = append(s, x)
			}
		}
		m := make([]uint32, 5)
		for j := range m {
			m[j] = r.Uint32N(universe + 2)
			if r.IntN(20) == 0 {
				m[j] = math.MaxUint32
			}
		}
		var w Window
		deepest := -1
		for j := range m {
			switch r.IntN(4) {
			case 0:
				w.Lower = append(w.Lower, j)
				deepest = j
			case 1:
				w.Upper = append(w.Upper, j)
				deepest = j
			}
		}
		skip := r.IntN(len(m)+1) - 1
		var want []uint32
		for _, x := range s {
			if in(&w, x, m, skip) {
				want = append(want, x)
			}
		}
		if got := w.Narrow(s, m, skip); !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("%v narrowed to %+v, m %v, skip %d: %v, want %v", s, w, m, skip, got, want)
		}
		for x := range universe + 2 {
			if w.Contains(x, m) != in(&w, x, m, -1) {
				t.Fatalf("%+v, m %v: Contains(%d) = %v", w, m, x, !in(&w, x, m, -1))
			}
		}
		if w.Bounded() != (deepest >= 0) {
			t.Fatalf("%+v: Bounded %v", w, w.Bounded())
		}
		for level := range len(m) + 1 {
			if w.BoundedFrom(level) != (deepest >= level) {
				t.Fatalf("%+v: BoundedFrom(%d) %v", w, level, w.BoundedFrom(level))
			}
		}
	}
}
