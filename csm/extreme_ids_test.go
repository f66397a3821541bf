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

// TestExtremeIDs: batches of edge and vertex updates over vertices of extreme original ids (new
// ones among them, created by an edge insertion or a vertex insertion, deleted and added again)
// list exactly the brute-force difference of the match sets, and the running total stays the
// static count, in every convention.
func TestExtremeIDs(t *testing.T) {
	ctx := context.Background()
	static, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	index := func(id int64) uint32 { return uint32(slices.Index(extremeIDs, id)) }
	set := func(g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, auts [][]int) matchSet {
		out := matchSet{}
		f := make([]int64, p.NumVertices())
		for _, m := range oracle.List(g, p, sem) {
			for i, v := range m {
				f[i] = int64(index(g.OriginalID(v)))
			}
			out[keyOfMatch(f, auts)]++
		}
		return out
	}
	checked := 0
	for seed := range uint64(24) {
		r := rand.New(rand.NewPCG(seed, 41))
		sem := conventions[seed%4]
		p := gen.RandomPattern(seed, 2+r.IntN(3), gen.PatternOptions{EdgeProb: 0.6, VertexLabels: 2, EdgeLabels: 1, Wildcard: 0.3})
		var auts [][]int
		if sem.Unique {
			auts = oracle.Automorphisms(p)
		}
		// The initial graph: a few of the ids, with labels and edges.
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
		m, err := Open(dynamic.FromGraph(g0), []*pattern.Pattern{p}, Options{Semantics: sem, Threads: 1 + int(seed%2), SkipInvalid: true})
		if err != nil {
			t.Fatal(err)
		}
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
			before, err := m.Graph().Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			got := [2]matchSet{{}, {}}
			f := make([]int64, p.NumVertices())
			var res Result
			err = m.Apply(ctx, batch, func(sm SignedMatch) bool {
				for i, id := range sm.Vertices {
					f[i] = int64(index(id))
				}
				got[(sm.Sign+1)/2][keyOfMatch(f, auts)]++
				return true
			}, &res)
			if err != nil {
				t.Fatal(err)
			}
			after, err := m.Graph().Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			desc := fmt.Sprintf("seed %d step %d %s %s batch %v", seed, step, p, sem, batch)
			oldSet, newSet := set(before, p, sem, auts), set(after, p, sem, auts)
			if msg := sameSet(got[1], minus(newSet, oldSet)); msg != "" {
				t.Fatalf("%s: created: %s", desc, msg)
			}
			if msg := sameSet(got[0], minus(oldSet, newSet)); msg != "" {
				t.Fatalf("%s: destroyed: %s", desc, msg)
			}
			d := res.Deltas[0]
			if d.Created != uint64(len(got[1])) || d.Destroyed != uint64(len(got[0])) {
				t.Fatalf("%s: counted %+v, listed %d/%d", desc, d, len(got[1]), len(got[0]))
			}
			want, err := static.Count(ctx, &engine.Problem{Data: after, Pattern: p, Semantics: sem, Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			if uint64(len(newSet)) != want.Count {
				t.Fatalf("%s: static count %d, oracle %d", desc, want.Count, len(newSet))
			}
			checked += len(got[0]) + len(got[1])
		}
	}
	if checked < 100 {
		t.Fatalf("only %d signed matches checked", checked)
	}
}
