package sgsi

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/proptest"
)

// TestPacer: a chunk over chunkTarget scales the next one to the target (never below
// leastChunkItems), a fast chunk that used its limit doubles it, a fast small one keeps it.
func TestPacer(t *testing.T) {
	var p pacer
	if got := p.limit(); got != firstChunkItems {
		t.Fatalf("first limit %d, want %d", got, firstChunkItems)
	}
	p.took(1<<20, 4*chunkTarget)
	if got := p.limit(); got != 1<<18 {
		t.Errorf("after a chunk of 2^20 entries at 4x the target: limit %d, want 2^18", got)
	}
	p.took(1<<18, chunkTarget/10)
	if got := p.limit(); got != 1<<19 {
		t.Errorf("after a fast full chunk: limit %d, want 2^19", got)
	}
	p.took(10, chunkTarget/10)
	if got := p.limit(); got != 1<<19 {
		t.Errorf("after a fast small chunk: limit %d, want it kept at 2^19", got)
	}
	p.took(5, time.Hour)
	if got := p.limit(); got != leastChunkItems {
		t.Errorf("after a very slow chunk: limit %d, want %d", got, leastChunkItems)
	}
	for range 40 {
		p.took(p.limit(), 0)
	}
	if got := p.limit(); got > maxKernelIndex {
		t.Errorf("limit grew to %d, over maxKernelIndex", got)
	}
}

// TestPacedChunksExact: steps cut into chunks of a few buffer entries (as the pacer cuts a slow
// step) count what the oracle counts, in core, under every convention.
func TestPacedChunksExact(t *testing.T) {
	defer func(v uint64) { firstChunkItems = v }(firstChunkItems)
	seeds, _ := proptest.Seeds(t, 60, 25)
	cases := 0
	for o := range proptest.WithOracle(seeds, nil) {
		prob := &engine.Problem{Data: o.G, Pattern: o.P, Semantics: o.Sem}
		e := Engine{Options: Options{Host: true, HostBytes: 1 << 24}}
		firstChunkItems = firstChunkItemsDefault
		_, ref, err := e.CountStats(context.Background(), prob)
		if err != nil {
			t.Fatalf("%s: %v", o.Describe(o.Sem, "sgsi", "paced"), err)
		}
		firstChunkItems = 2
		res, st, err := e.CountStats(context.Background(), prob)
		if err != nil || res.Count != o.Want {
			t.Fatalf("%s: chunks of 2 entries: %d, %v; the oracle %d", o.Describe(o.Sem, "sgsi", "paced"), res.Count, err, o.Want)
		}
		if st.Chunks > ref.Chunks {
			cases++
		}
	}
	if cases == 0 {
		t.Error("no case took more chunks with 2-entry chunks: the test no longer cuts steps")
	}
}

// TestDefaultMemoryBound: without --memory, a count is bounded by a share of the host's
// available memory: with the share made tiny, a count whose tables need more stops with
// engine.ErrMemory (and the message names the bound) instead of growing.
func TestDefaultMemoryBound(t *testing.T) {
	defer func(v [2]uint64) { defaultMemoryShare = v }(defaultMemoryShare)
	c := proptest.MakeLarger(3)
	prob := &engine.Problem{Data: c.G, Pattern: c.P}
	e := Engine{Options: Options{Host: true, HostBytes: 1 << 16}}
	if _, err := e.Count(context.Background(), prob); err != nil {
		t.Fatalf("with the default share: %v", err)
	}
	defaultMemoryShare = [2]uint64{1, 1 << 30} // a few bytes of any machine's memory
	_, err := e.Count(context.Background(), prob)
	if !errors.Is(err, engine.ErrMemory) {
		t.Fatalf("with a tiny default bound: %v, want engine.ErrMemory", err)
	}
	t.Log(err)
}
