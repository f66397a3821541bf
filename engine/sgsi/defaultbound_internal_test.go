package sgsi

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
)

// TestDefaultBoundKeepsStore runs two counts without --memory on one graph on a host faked to
// have total bytes, less the store that sgsi keeps from one count of the graph to the next
// (storeFor): the second count's default bound must not charge that store twice, once as
// memory the host no longer has available and once as memory the count holds. The fake host's
// total is set so that the first count fits its default bound with room to spare (half the
// store), and the second would not if the store were charged twice.
func TestDefaultBoundKeepsStore(t *testing.T) {
	ctx := context.Background()
	g := gen.RandomGraph(7, 1500, 0.02, 2, 0)
	p, err := pattern.Parse("(a:0)-(b:1)-(c:0)-(d:1)-(a), (a)-(c)")
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Host: true, HostBytes: 1 << 20, Buffered: true}
	resetStore := func() {
		storeMu.Lock()
		storeGraph, storeLast = nil, nil
		storeMu.Unlock()
	}
	resetStore()
	t.Cleanup(resetStore)
	count := func(limit uint64) (uint64, error) {
		res, _, err := Engine{Options: opts}.CountStats(ctx, &engine.Problem{Data: g, Pattern: p, MemoryLimit: limit})
		return res.Count, err
	}
	want, err := count(1 << 40)
	if err != nil {
		t.Fatal(err)
	}
	S := storeFor(g, 0).bytes()
	// need: the least --memory that counts with the store built (steps of 1/64 of the store).
	step := max(1, S/64)
	need := uint64(0)
	for m := step; m < 1<<30; m += step {
		if n, err := count(m); err == nil {
			if n != want {
				t.Fatalf("--memory %d: %d, want %d", m, n, want)
			}
			need = m
			break
		}
	}
	if need == 0 {
		t.Fatal("no --memory counts")
	}
	total := (need + S/2) / 3 * 4
	old := hostShare
	t.Cleanup(func() { hostShare = old })
	hostShare = func(num, den uint64) uint64 {
		held := storeFor(g, 0).bytes() // what the fake host has given the store already
		return (total - min(total, held)) / den * num
	}
	resetStore()
	for i := range 2 {
		n, err := count(0)
		if err != nil {
			t.Fatalf("count %d without --memory (store %d bytes, --memory %d needed, host %d): %v", i+1, S, need, total, err)
		}
		if n != want {
			t.Fatalf("count %d: %d, want %d", i+1, n, want)
		}
	}
}
