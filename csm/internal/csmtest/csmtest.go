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
