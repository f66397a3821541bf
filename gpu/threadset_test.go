package gpu

import "testing"

// TestThreadSet: ids added are found, removed ones are not (one occurrence at a time), and
// adding and removing allocates nothing once the set has held that many threads.
func TestThreadSet(t *testing.T) {
	var s threadSet
	for _, id := range []int{7, 3, 9} {
		s.add(id)
	}
	s.remove(3)
	for id, want := range map[int]bool{7: true, 3: false, 9: true, 4: false} {
		if got := s.has(id); got != want {
			t.Errorf("has(%d) = %v, want %v", id, got, want)
		}
	}
	s.remove(4) // absent: nothing happens
	s.remove(7)
	s.remove(9)
	if s.has(7) || s.has(9) || len(s.ids) != 0 {
		t.Fatalf("after removing everything the set holds %v", s.ids)
	}
	if allocs := testing.AllocsPerRun(100, func() { s.add(11); s.add(12); s.remove(11); s.remove(12) }); allocs != 0 {
		t.Errorf("add and remove allocate %.1f times, want 0", allocs)
	}
}
