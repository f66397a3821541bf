package stmatch

import (
	"context"
	"errors"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/pattern"
)

// TestGPUZTinyBudget runs last (it lowers the device's budget for the rest of the process, and
// this file's name sorts after every other test file's, whose tests go first): a budget that
// leaves room for two blocks' buffers, then one that leaves none. Both counts run without hub
// bitmaps, which take what the budget leaves and would make the blocks' share vary.
func TestGPUZTinyBudget(t *testing.T) {
	d := needGPU(t)
	g := sharedtest.WikiVote(t)
	p, _ := pattern.Parse("(a)-(b)-(c)-(d)-(a), (a)-(c)")
	sem := engine.Semantics{Unique: true}
	noHubs := Options{NoHubs: true}
	full := compareWith(t, "wiki-Vote diamond unique", g, p, sem, -1, nil, noHubs)
	fixed := full.DeviceBytes - full.BufferBytes - uint64(full.Warps)*8 - full.QueueSlots*taskBytes
	perBlock := full.PerWarpBytes * warpsPerBlock
	limit := d.Budget().Used() + fixed + perBlock*5/2
	d.SetMemoryLimit(limit)
	t.Logf("budget lowered to %s", gpu.FormatBytes(limit))
	st := compareWith(t, "wiki-Vote diamond tiny budget", g, p, sem, -1, nil, noHubs)
	if st.Blocks != 2 {
		t.Errorf("tiny budget: %d blocks, want 2 (full run: %d)", st.Blocks, full.Blocks)
	}
	d.SetMemoryLimit(d.Budget().Used() + fixed + perBlock/2)
	_, err := Engine{Options: noHubs}.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: sem})
	if !errors.Is(err, gpu.ErrBudget) {
		t.Errorf("budget below one block: %v, want ErrBudget", err)
	}
	t.Logf("below one block: %v", err)
}
