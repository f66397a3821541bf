package dcsm

import (
	"context"
	"math"
	"testing"

	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/graph/dynamic"
)

// extremeID maps the small ids of the random cases one to one onto ids at the ends of int64 and
// beyond 2^32 (where an original id no longer fits a dense uint32), in three disjoint ranges.
func extremeID(id int64) int64 {
	switch id % 3 {
	case 0:
		return math.MinInt64 + id
	case 1:
		return math.MaxInt64 - id
	}
	return 1<<32 + id
}

// TestEmuExtremeIDs: the random cases of TestEmuRandom with every original id moved to the ends
// of int64 or beyond 2^32 give the CPU engine's per-update deltas (the versions, the incident
// deletions in the order of the neighbours' original ids, the vertices added by an edge).
func TestEmuExtremeIDs(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(40) {
		c := newRandomCase(seed)
		if c.pats = usable(c.pats); len(c.pats) == 0 {
			continue
		}
		base, err := c.g().Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		b := graph.NewBuilder(graph.BuilderOptions{})
		for v := range uint32(base.NumVertices()) {
			if err := b.SetVertexLabel(extremeID(base.OriginalID(v)), base.VertexLabel(v)); err != nil {
				t.Fatal(err)
			}
			for _, w := range base.Neighbors(v) {
				if v < w {
					l, _ := base.HasEdge(v, w)
					if err := b.AddEdge(extremeID(base.OriginalID(v)), extremeID(base.OriginalID(w)), l); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		moved, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		c.g = func() *dynamic.Graph { return dynamic.FromGraph(moved) }
		stream := make([]updates.Update, len(c.stream))
		for i, u := range c.stream {
			u.U = extremeID(u.U)
			if u.Kind == updates.InsertEdge || u.Kind == updates.DeleteEdge {
				u.V = extremeID(u.V)
			}
			stream[i] = u
		}
		c.stream = stream
		sem := conventions[seed%4]
		if _, err := compare(ctx, c, sem, openEmu); err != nil {
			t.Fatalf("seed %d, %v, wave %d, pipe %d, patterns %v: %v", seed, sem, c.wave, c.pipe, c.pats, err)
		}
	}
}
