package gcsm

import (
	"context"
	"slices"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

// TestHostGraphEdgeCases: batches the random streams never draw, each followed by a check of
// every alive vertex's host list against the graph and of the deltas against the CPU engine's:
// a list emptied by edits and grown back with other edge labels, an edge's label changed within
// a batch (an edit that sets it), a vertex deleted and inserted again with another label in one
// batch (its id kept: a relabelled vertex), a vertex deleted in one batch and inserted again in a
// later one, and a batch of duplicates (an existing edge inserted, an edge inserted and deleted).
func TestHostGraphEdgeCases(t *testing.T) {
	base := gen.RandomGraph(11, 14, 0.45, 2, 2)
	var pats []*pattern.Pattern
	for _, s := range []string{"(a)-(b)-(c)-(a)", "(a)-(b)-(c)", "(a:1)-(b)-(c:0)-(a)"} {
		p, err := pattern.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		pats = append(pats, p)
	}
	for _, sem := range []engine.Semantics{{}, {Induced: true}, {Unique: true}} {
		opts := csm.Options{Semantics: sem, SkipInvalid: true, Threads: 1}
		ref, err := csm.Open(dynamic.FromGraph(base), pats, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := openEmu(dynamic.FromGraph(base), pats, opts, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		m := got.(*Matcher)
		g := m.g
		// The state before a batch, by original ids.
		edges := func(id int64) (nbrs []int64, labels []uint32) {
			v, _ := g.Lookup(id)
			for _, r := range g.Runs(v) {
				for _, w := range r.Neighbors {
					nbrs = append(nbrs, g.OriginalID(w))
					labels = append(labels, r.EdgeLabel)
				}
			}
			return nbrs, labels
		}
		byDegree := slices.Clone(g.Vertices())
		slices.SortStableFunc(byDegree, func(a, b uint32) int { return g.Degree(b) - g.Degree(a) })
		a, b, c := g.OriginalID(byDegree[0]), g.OriginalID(byDegree[1]), g.OriginalID(byDegree[2])
		apply := func(name string, batch []updates.Update) {
			t.Helper()
			var want, have csm.Result
			if err := ref.Apply(context.Background(), batch, nil, &want); err != nil {
				t.Fatalf("%v, %s: cpu: %v", sem, name, err)
			}
			if err := got.Apply(context.Background(), batch, nil, &have); err != nil {
				t.Fatalf("%v, %s: gcsm: %v", sem, name, err)
			}
			if !slices.Equal(want.Deltas, have.Deltas) || want.Skipped != have.Skipped {
				t.Fatalf("%v, %s: cpu %v (skipped %d), gcsm %v (skipped %d)", sem, name, want.Deltas, want.Skipped, have.Deltas, have.Skipped)
			}
			checkHostGraph(t, name, &m.h, g)
		}
		del := func(u, v int64) updates.Update { return updates.Update{Kind: updates.DeleteEdge, U: u, V: v} }
		ins := func(u, v int64, l uint32) updates.Update {
			return updates.Update{Kind: updates.InsertEdge, U: u, V: v, Label: l, HasLabel: true}
		}

		// a's list emptied by edits, then grown back with the other edge labels.
		nbrs, labels := edges(a)
		var batch []updates.Update
		for _, w := range nbrs {
			batch = append(batch, del(a, w))
		}
		apply("a emptied", batch)
		if v, _ := g.Lookup(a); m.h.ln[v] != 0 || slices.Contains(m.ch.full, v) || len(m.ch.edits) != 2*len(nbrs) {
			t.Fatalf("a's list: %d entries after every edge was deleted, written in full %v, %d edits for %d edges",
				m.h.ln[v], slices.Contains(m.ch.full, v), len(m.ch.edits), len(nbrs))
		}
		batch = batch[:0]
		for i, w := range nbrs {
			batch = append(batch, ins(a, w, 1-labels[i]))
		}
		apply("a grown back", batch)

		// b's first edge takes the other label within one batch.
		nb, lb := edges(b)
		apply("b's edge relabelled", []updates.Update{del(b, nb[0]), ins(b, nb[0], 1-lb[0])})

		// b deleted and inserted again with the other vertex label, its edges back, in one batch.
		nb, lb = edges(b)
		bv, _ := g.Lookup(b)
		batch = []updates.Update{{Kind: updates.DeleteVertex, U: b}, {Kind: updates.InsertVertex, U: b, Label: 1 - g.Label(bv), HasLabel: true}}
		for i, w := range nb {
			batch = append(batch, ins(b, w, lb[i]))
		}
		apply("b relabelled", batch)

		// c deleted, then inserted again (same label) with its edges in a later batch.
		nc, lc := edges(c)
		cv, _ := g.Lookup(c)
		cl := g.Label(cv)
		apply("c deleted", []updates.Update{{Kind: updates.DeleteVertex, U: c}})
		batch = []updates.Update{{Kind: updates.InsertVertex, U: c, Label: cl, HasLabel: true}}
		for i, w := range nc {
			batch = append(batch, ins(c, w, lc[i]))
		}
		apply("c back", batch)

		// Duplicates: an existing edge inserted again (skipped), a new edge inserted and deleted.
		na, la := edges(a)
		var fresh int64 = -1
		for _, v := range g.Vertices() {
			if id := g.OriginalID(v); id != a && !slices.Contains(na, id) {
				fresh = id
				break
			}
		}
		batch = []updates.Update{ins(a, na[0], la[0])}
		if fresh >= 0 {
			batch = append(batch, ins(a, fresh, 0), del(a, fresh), ins(fresh, a, 1))
		}
		apply("duplicates", batch)
		got.(*Matcher).Close()
	}
}

// checkHostGraph checks every alive vertex's host list (keys, edge labels, label) against g.
func checkHostGraph(t *testing.T, name string, h *hostGraph, g *dynamic.Graph) {
	t.Helper()
	for _, v := range g.Vertices() {
		var want []entry
		for _, r := range g.Runs(v) {
			for _, w := range r.Neighbors {
				want = append(want, entry{key: uint64(r.VertexLabel)<<32 | uint64(w), el: r.EdgeLabel})
			}
		}
		slices.SortFunc(want, func(a, b entry) int {
			if a.key < b.key {
				return -1
			}
			if a.key > b.key {
				return 1
			}
			return 0
		})
		keys, els := h.list(v)
		if h.labels[v] != g.Label(v) || len(keys) != len(want) {
			t.Fatalf("%s: vertex %d: label %d, %d entries; the graph's %d, %d", name, g.OriginalID(v), h.labels[v], len(keys), g.Label(v), len(want))
		}
		for i, e := range want {
			if keys[i] != e.key || els[i] != e.el {
				t.Fatalf("%s: vertex %d, entry %d: %x/%d, the graph's %x/%d", name, g.OriginalID(v), i, keys[i], els[i], e.key, e.el)
			}
		}
	}
}
