package sgsi_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/internal/proptest"
)

// TestMemoryLimitTiny: engine.Problem.MemoryLimit ("--memory") bounds what an engine
// allocates beyond the data graph: with a 4 KiB limit, sgsi's spilled tables (PeakHost) and
// signature table stay within it, or the count stops with ErrMemory.
func TestMemoryLimitTiny(t *testing.T) {
	c := proptest.MakeLarger(3)
	const limit = 4 << 10
	prob := &engine.Problem{Data: c.G, Pattern: c.P, MemoryLimit: limit}
	_, st, err := sgsi.Engine{Options: sgsi.Options{Host: true, HostBytes: 1 << 16}}.CountStats(context.Background(), prob)
	if errors.Is(err, engine.ErrMemory) {
		return
	}
	sigBytes := uint64(16 * c.G.NumVertices())
	if st.PeakHost+sigBytes > limit {
		t.Fatalf("MemoryLimit %d bytes, but sgsi kept %d bytes of spilled tables and %d of signatures (err %v)", limit, st.PeakHost, sigBytes, err)
	}
}

// TestFilterAreaTinyRegion: a region that holds the bitsets but not the query's signatures and
// labels (5 words a query vertex) and one filter chunk stops with ErrMemory, not with a copy
// outside the region (a 14-vertex pattern in a region of bitsets + 64 words).
func TestFilterAreaTinyRegion(t *testing.T) {
	b := graph.NewBuilder(graph.BuilderOptions{})
	for i := int64(0); i < 20; i++ {
		b.AddEdge(i, (i+1)%20, 0)
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	src := "(v0)"
	for i := 1; i < 14; i++ {
		src += fmt.Sprintf("-(v%d)", i)
	}
	p, err := pattern.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	words := uint64(14*1 + 64) // fixed (14 bitsets of 1 word) + 64: passes the check
	_, err = sgsi.Engine{Options: sgsi.Options{Host: true, HostBytes: 4 * words}}.Count(context.Background(), &engine.Problem{Data: g, Pattern: p})
	if err != nil && !errors.Is(err, engine.ErrMemory) {
		t.Fatalf("region of %d words for a 14-vertex pattern: %v (want ErrMemory)", words, err)
	}
}
