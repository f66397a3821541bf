package huge

import (
	"testing"
	"unsafe"
)

func TestMake(t *testing.T) {
	for _, n := range []int{0, 1, 1000, Page/4 - 1, Page / 4, Page/4 + 3, 3 * Page / 4} {
		b := Make[uint32](n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("n %d: len %d cap %d", n, len(b), cap(b))
		}
		for i := range b {
			if b[i] != 0 {
				t.Fatalf("n %d: not zeroed at %d", n, i)
			}
			b[i] = uint32(i)
		}
		if n*4 >= Page && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%Page != 0 {
			t.Fatalf("n %d: not aligned", n)
		}
	}
	type pair struct {
		p *int
		x uint64
	}
	v := 7
	ps := Make[pair](Page / 8)
	ps[len(ps)-1].p = &v
	if *ps[len(ps)-1].p != 7 {
		t.Fatal("pointer element")
	}
}
