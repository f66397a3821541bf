package graph

import (
	"runtime"
	"testing"
)

// TestWithoutLabelsMemoryReview (review rev35 of wildshape): WithoutLabels allocates no more than
// WithoutLabelsBytes accounts, whichever labels it forgets, on a star whose hub's list holds
// runs of two vertex labels and three edge labels (a list of 2^16 entries: the copy sorted a
// key of 8 bytes an entry beside it, grown by appends, where one kind of label was kept).
func TestWithoutLabelsMemoryReview(t *testing.T) {
	const d = 1 << 16
	labels := map[int64]uint32{}
	var edges []edge
	for v := 1; v <= d; v++ {
		labels[int64(v)] = uint32(v % 2)
		edges = append(edges, edge{0, int64(v), uint32(v % 3)})
	}
	g := build(t, labels, edges)
	for _, mode := range [][2]bool{{true, false}, {false, true}, {true, true}} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		h := g.WithoutLabels(mode[0], mode[1])
		runtime.ReadMemStats(&after)
		allocated, accounted := after.TotalAlloc-before.TotalAlloc, g.WithoutLabelsBytes(mode[0], mode[1])
		// (Slack for the workers' goroutines and closures.)
		if allocated > accounted+accounted/64+64<<10 {
			t.Errorf("forget %v: allocated %d bytes, accounted %d", mode, allocated, accounted)
		}
		if err := h.Validate(); err != nil {
			t.Fatal(err)
		}
	}
}
