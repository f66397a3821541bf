package shapes

import (
	"context"
	"errors"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/plan"
)

// TestSumTimes: inducedFour's weighted sums report an overflow in any term, not only in the
// last one added (a product that overflows early stays an overflow).
func TestSumTimes(t *testing.T) {
	big := ^uint64(0)/2 + 1
	for _, c := range []struct {
		ts   []termTimes
		want uint64
		ok   bool
	}{
		{[]termTimes{{3, 4}, {5, 6}}, 42, true},
		{nil, 0, true},
		{[]termTimes{{big, 2}, {1, 1}}, 0, false}, // the first product overflows, the add after it does not
		{[]termTimes{{big, 1}, {big, 1}}, 0, false},
	} {
		got, ok := sumTimes(c.ts)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("sumTimes(%v) = %d, %v; want %d, %v", c.ts, got, ok, c.want, c.ok)
		}
	}
}

// TestWedgesAllocateNothing: the wedge pass's step from a vertex allocates nothing once a
// worker's list of touched ends has grown (4-cycles, houses with their supports, tailed 4-cycles
// with ext), nor does the edges' pass's step of a 4-path; over parts and over the whole graph
// (of nil).
func TestWedgesAllocateNothing(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 8, EdgeFactor: 8, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	n := g.NumVertices()
	parts := make([]uint32, n)
	for v := range parts {
		parts[v] = uint32(v % 3)
	}
	c := plan.Clique{K: 3}
	for _, of := range [][]uint32{parts, nil} {
		wedgesAllocateNothing(t, g, of, c)
	}
}

// wedgesAllocateNothing is TestWedgesAllocateNothing over the parts of of.
func wedgesAllocateNothing(t *testing.T, g *graph.Graph, of []uint32, c plan.Clique) {
	ctx := context.Background()
	n := g.NumVertices()
	for _, shape := range []Wedge{WedgeCycle, WedgeHouse, WedgeTailedCycle} {
		d := newEdgeCounter(g, of, c, edgeDiamonds)
		if _, err := spanningByWedges(ctx, d, shape, 1, nil); err != nil { // (d.sup, d.ext)
			t.Fatal(err)
		}
		ww := &wedgeWorker{w: make([]uint32, n), wp: make([]uint32, n), tau: make([]uint64, n), taup: make([]uint64, n)}
		step := func() {
			for a := range n {
				d.wedges(uint32(a), shape, ww)
			}
		}
		step()
		if allocs := testing.AllocsPerRun(5, step); allocs != 0 {
			t.Errorf("%v (parts %v): %v allocations a pass", shape, of != nil, allocs)
		}
	}
	d := newEdgeCounter(g, of, c, edgePaths)
	if _, err := spanningByEdges(ctx, d, 1, nil); err != nil {
		t.Fatal(err)
	}
	marks := plan.NewBitset(n)
	if allocs := testing.AllocsPerRun(5, func() {
		for x := range n {
			d.vertex(uint32(x), marks)
		}
	}); allocs != 0 {
		t.Errorf("4-paths (parts %v): %v allocations a pass", of != nil, allocs)
	}
}

// TestTimesAutOverflow: a count of instances whose embeddings do not fit a uint64 is
// engine.ErrOverflow, not a wrapped product; the unique count itself is returned as is.
func TestTimesAutOverflow(t *testing.T) {
	big := ^uint64(0)/4 + 1
	if _, err := timesAut(big, 8, false); !errors.Is(err, engine.ErrOverflow) {
		t.Errorf("timesAut(%d, 8) = %v; want ErrOverflow", big, err)
	}
	if _, err := timesAut(^uint64(0)/2+1, WedgeHouse.aut(), false); !errors.Is(err, engine.ErrOverflow) {
		t.Errorf("a house's embeddings: %v; want ErrOverflow", err)
	}
	if n, err := timesAut(big, 8, true); err != nil || n != big {
		t.Errorf("unique: %d, %v", n, err)
	}
}
