package gcsm

import (
	"context"
	"testing"
	"time"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
)

func TestTmpCost(t *testing.T) {
	g0, err := gen.RMAT(gen.RMATOptions{Scale: envInt("S", 16), VertexLabels: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	mk, stream := rmatStream(t, g0, 4*512)
	diamond := mustPattern(t, []uint32{0, 1, 2, 3}, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}})
	house := mustPattern(t, []uint32{0, 1, 2, 3, 0}, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 4}, {1, 4}})
	for _, c := range []struct {
		name string
		p    []*pattern.Pattern
	}{{"dh", []*pattern.Pattern{diamond, house}}, {"kite6", []*pattern.Pattern{kite6(t)}}} {
		m, err := csm.Open(mk(), c.p, csm.Options{SkipInvalid: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range []int{64, 64, 512, 512} {
			var res csm.Result
			t0 := time.Now()
			if err := m.Apply(context.Background(), stream[i*512:i*512+b], nil, &res); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s batch %d: %v %v", c.name, b, time.Since(t0), res.Deltas)
		}
	}
}
