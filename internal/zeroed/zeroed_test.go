package zeroed

import "testing"

func TestMake(t *testing.T) {
	for _, n := range []int{0, 1, 100, 1 << 20} {
		s := Make[uint64](n)
		if len(s) != n {
			t.Fatalf("len %d, want %d", len(s), n)
		}
		for i, x := range s {
			if x != 0 {
				t.Fatalf("n %d: element %d is %d", n, i, x)
			}
		}
	}
}
