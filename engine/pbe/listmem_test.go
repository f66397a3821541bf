package pbe_test

import (
	"context"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
)

// TestListInterWithinMemory checks that a listing's inter stage holds its buffers to --memory as
// a count's does (where --memory is not the partition budget: a Budget): with a limit a byte below
// what the count's stage reports on one thread (Stats.InterHostBytes), both fail with
// engine.ErrMemory naming the inter stage; with that limit both run, the listing the cpu engine's
// matches. Before, the listing's stage ran beyond the limit.
func TestListInterWithinMemory(t *testing.T) {
	g := gen.RandomGraphM(7, 3000, 9000, 1, 1)
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(a)")
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e := pbe.SeededSearch(&pbe.Engine{Budget: pbe.MinBudget(g) * 8})
	prob := &engine.Problem{Data: g, Pattern: p, Threads: 1}
	_, st, err := e.CountStats(ctx, prob)
	if err != nil || st.Parts < 2 || st.InterHostBytes == 0 {
		t.Fatalf("no limit: %d parts, inter stage %d bytes, err %v", st.Parts, st.InterHostBytes, err)
	}
	// (The partitioning, held through the count, is charged beside the stage's buffers; the
	// engine's cached partitioning is reused, no partitioner charged.)
	need := st.InterHostBytes + st.PartitionHeldBytes
	q := *prob
	q.MemoryLimit = need - 1
	if _, _, err := e.CountStats(ctx, &q); !errorsIs(err, engine.ErrMemory) || !strings.Contains(err.Error(), "inter stage") {
		t.Errorf("count, --memory %d (the inter stage needs %d): err %v", need-1, need, err)
	}
	if _, err := engine.CollectMatches(ctx, e, &q, 0); !errorsIs(err, engine.ErrMemory) || !strings.Contains(err.Error(), "inter stage") {
		t.Errorf("listing, --memory %d (the inter stage needs %d): err %v", need-1, need, err)
	}
	q.MemoryLimit = need
	got := matchSet(t, e, &q, "pbe within the inter stage's bytes")
	if want := matchSet(t, cpu, prob, "cpu"); len(got) != len(want) {
		t.Errorf("listing, --memory %d: %d matches, the cpu engine %d", need, len(got), len(want))
	}
}
