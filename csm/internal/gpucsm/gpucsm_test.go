package gpucsm

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/pattern"
)

func TestPutAligns(t *testing.T) {
	var b []byte
	if at := Put(&b, []uint32{1, 2, 3}); at != 0 || len(b) != 12 {
		t.Fatalf("first section at %d, %d bytes", at, len(b))
	}
	if at := Put(&b, []uint64{7}); at != 16 || len(b) != 24 || b[16] != 7 {
		t.Fatalf("second section at %d, %d bytes", at, len(b))
	}
	if at := Put(&b, []uint32(nil)); at != 24 || len(b) != 24 {
		t.Fatalf("empty section at %d, %d bytes", at, len(b))
	}
}

func TestLevelPut(t *testing.T) {
	l := Level{VLAny: 0, VL: 1, NPar: 2, NonAdj: 3, Inj: 4, Above: 5, Below: 6, PPos: 7, PELAny: 9, PEL: 11}
	r := make([]uint32, 13)
	l.Put(r, csm.LevelSpec{Label: pattern.Label{Value: 5}, Inj: []int{0, 2}, Above: []int{1}, NonAdj: []int{3},
		Parents: []csm.EdgeCheckSpec{{Pos: 2, Label: pattern.Label{Any: true}}, {Pos: 0, Label: pattern.Label{Value: 3}}}})
	want := []uint32{0, 5, 2, 8, 5, 2, 0, 2, 0, 1, 0, 0, 3}
	for i := range want {
		if r[i] != want[i] {
			t.Fatalf("record %v, want %v", r, want)
		}
	}
}

func TestListGroups(t *testing.T) {
	counts := []uint64{0, 2, 3, 0, 9, 1, 1, 4, 0}
	var got []string
	err := ListGroups(counts, 5, func(lo, hi int, sum uint64, host bool) error {
		got = append(got, fmt.Sprint(lo, hi, sum, host))
		return nil
	})
	// 2+3 fill the buffer (the empty search after them joins the group); 9 alone on the host;
	// 1+1 (adding 4 would exceed 5), then 4 with the empty one after it
	want := []string{"1 4 5 false", "4 5 9 true", "5 7 2 false", "7 9 4 false"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("groups %q, want %q (err %v)", got, want, err)
	}
	stop := errors.New("stop")
	if err := ListGroups(counts, 5, func(int, int, uint64, bool) error { return stop }); err != stop {
		t.Fatalf("error %v, want %v", err, stop)
	}
}
