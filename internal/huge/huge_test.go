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
		_ uint64
	}
	v := 7
	ps := Make[pair](Page / 8)
	ps[len(ps)-1].p = &v
	if *ps[len(ps)-1].p != 7 {
		t.Fatal("pointer element")
	}
}

// TestPopulate: populating pages changes no byte (the loader writes beside it), and only whole
// pages are advised.
func TestPopulate(t *testing.T) {
	b := Make[byte](3*Page + 123)
	for i := range b {
		b[i] = byte(i * 7)
	}
	for _, m := range [][]byte{b, b[1:], b[4095 : 3*4096+5], b[10:20], nil} {
		a := pageAligned(m)
		if len(a) > 0 {
			start := uintptr(unsafe.Pointer(unsafe.SliceData(a)))
			if start%4096 != 0 || len(a)%4096 != 0 {
				t.Fatalf("pageAligned: start %#x, length %d", start, len(a))
			}
		}
		if len(a) > len(m) {
			t.Fatalf("pageAligned grew %d bytes to %d", len(m), len(a))
		}
		if canPopulate && !populate(a) {
			t.Log("MADV_POPULATE_WRITE refused (a kernel before 5.14): PopulateAsync does nothing here")
		}
	}
	for i := range b {
		if b[i] != byte(i*7) {
			t.Fatalf("byte %d changed", i)
		}
	}
	if got := len(Bytes([]uint64{1, 2, 3})); got != 24 {
		t.Fatalf("Bytes: %d bytes, want 24", got)
	}
}
