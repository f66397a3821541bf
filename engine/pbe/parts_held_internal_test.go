package pbe

import (
	"context"
	"iter"
	"sync/atomic"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
)

// heldBackend is the host backend that records, as each part's search ends, the most parts
// built (partBuilt) and not yet searched: the parts' subgraphs held at once.
type heldBackend struct {
	HostBackend
	built, searched, most atomic.Int64
}

func (b *heldBackend) CountPart(ctx context.Context, sub *engine.Problem) (engine.Result, error) {
	time.Sleep(2 * time.Millisecond) // (time for a producer that runs ahead to do so)
	if h := b.built.Load() - b.searched.Load(); h > b.most.Load() {
		b.most.Store(h)
	}
	r, err := b.HostBackend.CountPart(ctx, sub)
	b.searched.Add(1)
	return r, err
}

func (b *heldBackend) MatchesPart(ctx context.Context, sub *engine.Problem) iter.Seq2[[]uint32, error] {
	return b.HostBackend.MatchesPart(ctx, sub)
}

// TestPartsHeldWithinMemory checks that, where --memory is the partition budget (no Budget, no
// GPU limit), the intra stage holds one part's subgraph at a time (subProblems builds the next
// once the last was searched), while under a Budget it builds ahead; the counts are the cpu
// engine's either way. Before, the next two parts were built beside the one searched, each up to
// the limit.
func TestPartsHeldWithinMemory(t *testing.T) {
	g := gen.RandomGraphM(4, 3000, 40000, 1, 1)
	p, err := pattern.Parse("(a)-(b)-(c)-(a)")
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	prob := &engine.Problem{Data: g, Pattern: p, Threads: 2}
	want, err := cpu.Count(context.Background(), prob)
	if err != nil {
		t.Fatal(err)
	}
	var be *heldBackend
	partBuilt = func() { be.built.Add(1) }
	defer func() { partBuilt = nil }()
	// --memory as the budget holds the partitioning (12 bytes a vertex with a copy's id table)
	// and a part's copy (graph.InducedPartBytes), the partitioner's working memory before: a third
	// of the graph's model bytes beside.
	limit := 12*uint64(g.NumVertices()) + 48<<10 + partition.GraphBytes(g)/3
	for _, c := range []struct {
		e       *Engine
		memory  uint64
		maxHeld int64
	}{
		{&Engine{wholeGraph: true}, limit, 1},
		{&Engine{wholeGraph: true, Budget: MinBudget(g) * 2}, 1 << 30, 3},
	} {
		be = &heldBackend{}
		c.e.Backend = be
		q := *prob
		q.MemoryLimit = c.memory
		res, st, err := c.e.CountStats(context.Background(), &q)
		if err != nil || res.Count != want.Count {
			t.Fatalf("budget %d: count %d, want %d, err %v", c.e.Budget, res.Count, want.Count, err)
		}
		if st.Parts < 4 {
			t.Fatalf("budget %d: %d parts, too few to tell", c.e.Budget, st.Parts)
		}
		if got := be.most.Load(); got > c.maxHeld || (c.e.Budget > 0 && got < 2) {
			t.Errorf("budget %d, --memory %d, %d parts: at most %d parts held at once (at most %d expected)", c.e.Budget, c.memory, st.Parts, got, c.maxHeld)
		}
	}
}
