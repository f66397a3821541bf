// Package csmtest holds the test fixtures that the continuous-matching engines' tests share
// (csm/gcsm, csm/dcsm): the four match conventions and the public email10 workload
// (../shared/testdata/csm-email10; skipped when absent, failed in CI, as package testenv does).
package csmtest

import (
	"path/filepath"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// Conventions are the four match conventions: embeddings, --unique, --induced, both.
var Conventions = []engine.Semantics{{}, {Unique: true}, {Induced: true}, {Induced: true, Unique: true}}

// Email10 loads csm-email10: a maker of fresh copies of its initial graph, its update stream, and
// the named queries (queries/NAME.graph) by name.
func Email10(t testing.TB, queries ...string) (func() *dynamic.Graph, []updates.Update, map[string]*pattern.Pattern) {
	t.Helper()
	dir := testenv.Path(t, "csm-email10")
	mk, stream := Workload(t, dir)
	pats := map[string]*pattern.Pattern{}
	for _, q := range queries {
		p, err := formats.LoadPattern(filepath.Join(dir, "queries", q+".graph"), formats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		pats[q] = p
	}
	return mk, stream, pats
}

// Workload loads a workload directory (initial.graph, updates.stream): a maker of fresh copies of
// its initial graph, and its update stream.
func Workload(t testing.TB, dir string) (func() *dynamic.Graph, []updates.Update) {
	t.Helper()
	g, err := formats.Load(filepath.Join(dir, "initial.graph"), formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var stream []updates.Update
	for u, err := range updates.ReadFile(filepath.Join(dir, "updates.stream"), updates.Options{}) {
		if err != nil {
			t.Fatal(err)
		}
		stream = append(stream, u)
	}
	return func() *dynamic.Graph { return dynamic.FromGraph(g) }, stream
}

// PairOps are the updates of the engines' exhaustive tests of short batches and streams over
// PairGraphs: over vertices 0..3 and a new vertex 4, every edge inserted with label 0 or 1,
// deleted without a label or naming label 1, every vertex added with label 0 or 1 and deleted,
// edges to the new vertex, a self-loop.
func PairOps() []updates.Update {
	var ops []updates.Update
	for u := int64(0); u < 4; u++ {
		for v := u + 1; v < 4; v++ {
			for l := range uint32(2) {
				ops = append(ops, updates.Update{Kind: updates.InsertEdge, U: v, V: u, Label: l, HasLabel: true})
			}
			ops = append(ops, updates.Update{Kind: updates.DeleteEdge, U: u, V: v},
				updates.Update{Kind: updates.DeleteEdge, U: u, V: v, Label: 1, HasLabel: true})
		}
	}
	for u := int64(0); u <= 4; u++ {
		for l := range uint32(2) {
			ops = append(ops, updates.Update{Kind: updates.InsertVertex, U: u, Label: l, HasLabel: true})
		}
		ops = append(ops, updates.Update{Kind: updates.DeleteVertex, U: u})
	}
	return append(ops, updates.Update{Kind: updates.InsertEdge, U: 0, V: 4, HasLabel: true},
		updates.Update{Kind: updates.InsertEdge, U: 4, V: 2, Label: 1, HasLabel: true},
		updates.Update{Kind: updates.InsertEdge, U: 1, V: 1, HasLabel: true})
}

// PairGraphs are the small labelled graphs over vertices 0..3 that PairOps change: a triangle
// with a pendant vertex, and a 4-cycle.
func PairGraphs(t testing.TB) []*graph.Graph {
	t.Helper()
	var out []*graph.Graph
	for _, s := range []struct {
		labels []uint32
		edges  [][3]int64 // u, v, label
	}{
		{[]uint32{0, 1, 0, 1}, [][3]int64{{0, 1, 0}, {1, 2, 1}, {0, 2, 0}}},
		{[]uint32{1, 0, 0, 0}, [][3]int64{{0, 1, 1}, {1, 2, 0}, {2, 3, 0}, {0, 3, 0}}},
	} {
		b := graph.NewBuilder(graph.BuilderOptions{})
		for v, l := range s.labels {
			if err := b.SetVertexLabel(int64(v), l); err != nil {
				t.Fatal(err)
			}
		}
		for _, e := range s.edges {
			if err := b.AddEdge(e[0], e[1], uint32(e[2])); err != nil {
				t.Fatal(err)
			}
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}
