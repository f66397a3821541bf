package csm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/pattern"
)

// extremeIDs are original vertex ids at the ends of int64 and around 2^32 (where an id no
// longer fits a dense uint32), and small ones: the vertices a stream may name that the
// initial graph does not have.
var extremeIDs = []int64{math.MinInt64, math.MinInt64 + 1, -(1 << 32), -1, 0, 1, 2, 3, 1<<32 - 1, 1 << 32, 1<<32 + 1, math.MaxInt64 - 1, math.MaxInt64}

// batchChecker applies batches to a matcher of one pattern and checks each against brute force:
// the signed matches listed are the difference of the oracle's match sets before and after (in
// vertex ids mapped by index to small numbers), the counts are the listing's, and the static
// engine's count after is the oracle's.
type batchChecker struct {
	m      Matcher
	p      *pattern.Pattern
	sem    engine.Semantics
	auts   [][]int
	index  func(id int64) uint32
	static engine.Engine
	signed int // signed matches checked
}

func newBatchChecker(t *testing.T, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, threads int, index func(int64) uint32) *batchChecker {
	t.Helper()
	static, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Open(dynamic.FromGraph(g), []*pattern.Pattern{p}, Options{Semantics: sem, Threads: threads, SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	c := &batchChecker{m: m, p: p, sem: sem, index: index, static: static}
	if sem.Unique {
		c.auts = oracle.Automorphisms(p)
	}
	return c
}

func (c *batchChecker) set(g *graph.Graph) matchSet {
	out := matchSet{}
	f := make([]int64, c.p.NumVertices())
	for _, m := range oracle.List(g, c.p, c.sem) {
		for i, v := range m {
			f[i] = int64(c.index(g.OriginalID(v)))
		}
		out[keyOfMatch(f, c.auts)]++
	}
	return out
}

// apply applies batch and checks it; desc names the case in failures.
func (c *batchChecker) apply(t *testing.T, batch []updates.Update, desc string) {
	t.Helper()
	ctx := context.Background()
	before, err := c.m.Graph().Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	got := [2]matchSet{{}, {}}
	f := make([]int64, c.p.NumVertices())
	var res Result
	err = c.m.Apply(ctx, batch, func(sm SignedMatch) bool {
		for i, id := range sm.Vertices {
			f[i] = int64(c.index(id))
		}
		got[(sm.Sign+1)/2][keyOfMatch(f, c.auts)]++
		return true
	}, &res)
	if err != nil {
		t.Fatal(err)
	}
	after, err := c.m.Graph().Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	desc = fmt.Sprintf("%s: %s %s batch %v", desc, c.p, c.sem, batch)
	oldSet, newSet := c.set(before), c.set(after)
	if msg := sameSet(got[1], minus(newSet, oldSet)); msg != "" {
		t.Fatalf("%s: created: %s", desc, msg)
	}
	if msg := sameSet(got[0], minus(oldSet, newSet)); msg != "" {
		t.Fatalf("%s: destroyed: %s", desc, msg)
	}
	if d := res.Deltas[0]; d.Created != uint64(len(got[1])) || d.Destroyed != uint64(len(got[0])) {
		t.Fatalf("%s: counted %+v, listed %d/%d", desc, d, len(got[1]), len(got[0]))
	}
	want, err := c.static.Count(ctx, &engine.Problem{Data: after, Pattern: c.p, Semantics: c.sem, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(newSet)) != want.Count {
		t.Fatalf("%s: static count %d, oracle %d", desc, want.Count, len(newSet))
	}
	c.signed += len(got[0]) + len(got[1])
}

// TestExtremeIDs: batches of edge and vertex updates over vertices of extreme original ids (new
// ones among them, created by an edge insertion or a vertex insertion, deleted and added again)
// list exactly the brute-force difference of the match sets, and the running total stays the
// static count, in every convention.
func TestExtremeIDs(t *testing.T) {
	index := func(id int64) uint32 { return uint32(slices.Index(extremeIDs, id)) }
	checked := 0
	for seed := range uint64(24) {
		r := rand.New(rand.NewPCG(seed, 41))
		p := gen.RandomPattern(seed, 2+r.IntN(3), gen.PatternOptions{EdgeProb: 0.6, VertexLabels: 2, EdgeLabels: 1, Wildcard: 0.3})
		// The initial graph: a few of the ids, with labels and no edges.
		b := graph.NewBuilder(graph.BuilderOptions{})
		for _, id := range extremeIDs[:5+r.IntN(5)] {
			if err := b.SetVertexLabel(id, uint32(r.IntN(2))); err != nil {
				t.Fatal(err)
			}
		}
		g0, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		c := newBatchChecker(t, g0, p, conventions[seed%4], 1+int(seed%2), index)
		pick := func() int64 { return extremeIDs[r.IntN(len(extremeIDs))] }
		line := 0
		for step := range 20 {
			batch := make([]updates.Update, 1+r.IntN([]int{1, 3, 12}[step%3]))
			for i := range batch {
				line++
				u := updates.Update{U: pick(), V: pick(), Line: line, HasLabel: true}
				switch x := r.IntN(10); {
				case x < 5:
					u.Kind = updates.InsertEdge
				case x < 8:
					u.Kind, u.HasLabel = updates.DeleteEdge, false
				case x < 9:
					u.Kind, u.V, u.Label = updates.InsertVertex, 0, uint32(r.IntN(2))
				default:
					u.Kind, u.V, u.HasLabel = updates.DeleteVertex, 0, false
				}
				batch[i] = u
			}
			c.apply(t, batch, fmt.Sprintf("seed %d step %d", seed, step))
		}
		checked += c.signed
	}
	if checked < 100 {
		t.Fatalf("only %d signed matches checked", checked)
	}
}
