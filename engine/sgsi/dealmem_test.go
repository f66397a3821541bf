package sgsi_test

import (
	"context"
	"errors"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
)

// TestDealSharesLabelGraphs: a count dealt to four runners shares the store its first runner
// builds (the label graphs) and the candidates, so a host bound that a single runner's count fits
// with its label graphs built fits a dealt count given twice as much: the label graphs were
// charged against one runner's quarter of the rest (hostLimit = store + (limit - store)/n, the
// store's bytes taken before the label graphs were built), and a dealt count needing no more
// failed with ErrMemory. Without --memory the bound is the host's (sysmem): a count that one GPU
// ran failed on several.
func TestDealSharesLabelGraphs(t *testing.T) {
	ctx := context.Background()
	p, err := pattern.Parse("(a)-(b)-(c)-(a), (c)-(d)-(a)")
	if err != nil {
		t.Fatal(err)
	}
	opts := sgsi.Options{Host: true, HostBytes: 1 << 20}
	count := func(gpus []int, limit uint64) (uint64, error) {
		g := gen.RandomGraph(5, 3000, 0.008, 1, 0) // a new graph: a new store, its label graphs built by the count
		res, _, err := sgsi.Engine{Options: opts}.CountStats(ctx, &engine.Problem{Data: g, Pattern: p, GPUs: gpus, MemoryLimit: limit})
		return res.Count, err
	}
	want, err := count(nil, 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	need := uint64(0)
	for m := uint64(4 << 10); m < 64<<20; m += 4 << 10 {
		n, err := count(nil, m)
		if errors.Is(err, engine.ErrMemory) {
			continue
		}
		if err != nil || n != want {
			t.Fatalf("--memory %d: %d, %v; want %d", m, n, err, want)
		}
		need = m
		break
	}
	if need == 0 {
		t.Fatal("no --memory counts on one runner")
	}
	n, err := count([]int{0, 0, 0, 0}, 2*need)
	if err != nil || n != want {
		t.Errorf("four runners, --memory %d (one runner counts within %d): %d, %v; want %d", 2*need, need, n, err, want)
	}
}
