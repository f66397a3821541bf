package sgsi

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/submatch/submatch/graph"
)

// flipCtx is a context whose Err is nil on its first call and Canceled on every later one: a
// stop that arrives just after a step has looked at its context.
type flipCtx struct {
	context.Context
	calls atomic.Int64
}

func (c *flipCtx) Err() error {
	if c.calls.Add(1) == 1 {
		return nil
	}
	return context.Canceled
}

// TestLeafStepStops: the leaf step looks at the context by the list entries it reads, not only
// every leafRows rows: rows on two hubs whose leaves form one collision class read both hubs'
// lists each (classLeaves), and 1,000 of them, under one check of the context, read 4e6 entries
// (a stop waited for the whole batch: on hubs of 10^5-10^6 entries, seconds). A stop that comes
// after the step's first check must leave rows uncounted.
func TestLeafStepStops(t *testing.T) {
	const m = 2000 // vertices besides the two hubs 0 and 1, each adjacent to both
	b := graph.NewBuilder(graph.BuilderOptions{})
	if err := b.AddEdge(0, 1, 0); err != nil {
		t.Fatal(err)
	}
	for z := int64(2); z < m+2; z++ {
		if b.AddEdge(0, z, 0) != nil || b.AddEdge(1, z, 0) != nil {
			t.Fatal("AddEdge")
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	p, q, s, cands, bits, bitWords := leafSetup(t, g)
	// Rows (a, b) = (0, 1) and (1, 0) in turn (each row's sets differ from the last row's:
	// none is reused without the memos), in q.order's columns, 1,000 of them (under leafRows).
	// (Build numbers vertices by degree: the hubs are found by theirs.)
	var hubs, others []uint32
	for v := range g.NumVertices() {
		if g.Degree(uint32(v)) == m+1 {
			hubs = append(hubs, uint32(v))
		} else {
			others = append(others, uint32(v))
		}
	}
	if len(hubs) != 2 {
		t.Fatalf("setup: hubs %v", hubs)
	}
	at := map[string]uint32{"a": hubs[0], "b": hubs[1]}
	var table []uint32
	for i, z := range others[:1000] {
		at["a"], at["b"] = hubs[i%2], hubs[1-i%2]
		for _, u := range q.order[:q.joined] {
			v, ok := at[p.Name(u)]
			if !ok {
				v = z
			}
			table = append(table, v)
		}
	}
	run := func(ctx context.Context) (uint64, error) {
		// (--memory of one byte: no memo, whose second level would hold both rows' counts
		// after the first two rows, so that every row reads both hubs' lists.)
		r := &runner{ctx: ctx, s: s, q: q, cands: cands, bitsHost: bits, bitWords: bitWords, threads: 1, hostLimit: 1}
		err := r.leafCount(table)
		return r.total, err
	}
	full, err := run(context.Background())
	if err != nil || full == 0 {
		t.Fatalf("leaf step: %d, %v", full, err)
	}
	part, err := run(&flipCtx{Context: context.Background()})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped leaf step: %v, want Canceled", err)
	}
	if part >= full {
		t.Errorf("stopped leaf step counted %d of %d: every row, the stop unseen until the batch ended", part, full)
	}
}
