package graph

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestWithoutLabelsContext (review rev37): WithoutLabelsContext is WithoutLabels where its
// context does not end (the same lists, runs and labels; g itself where there is nothing to
// forget), and returns the context's error and no graph where it has ended, whatever it forgets.
func TestWithoutLabelsContext(t *testing.T) {
	labels := map[int64]uint32{}
	var edges []edge
	for v := range int64(600) { // (more than one range of 256 vertices)
		labels[v] = uint32(v % 3)
		for _, w := range []int64{(v + 1) % 600, (v * 7) % 600, (v * 13) % 600} {
			if w != v {
				edges = append(edges, edge{v, w, uint32((v + w) % 2)})
			}
		}
	}
	g := build(t, labels, edges)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, mode := range [][2]bool{{true, false}, {false, true}, {true, true}, {false, false}} {
		want := g.WithoutLabels(mode[0], mode[1])
		got, err := g.WithoutLabelsContext(context.Background(), mode[0], mode[1])
		if err != nil || !slices.Equal(got.neighbors, want.neighbors) || !slices.Equal(got.runs, want.runs) ||
			!slices.Equal(got.edgeLabels, want.edgeLabels) || !slices.Equal(got.vertexLabels, want.vertexLabels) || (got == g) != (want == g) {
			t.Errorf("forget %v: WithoutLabelsContext differs from WithoutLabels (%v)", mode, err)
		}
		if h, err := g.WithoutLabelsContext(ended, mode[0], mode[1]); h != nil || !errors.Is(err, context.Canceled) {
			t.Errorf("forget %v, the context ended: %p, %v; want no graph, context.Canceled", mode, h, err)
		}
	}
}
