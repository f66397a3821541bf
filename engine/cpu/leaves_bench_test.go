package cpu

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
)

// BenchmarkLeafClasses counts, on one thread, patterns whose postponed vertices form the leaf
// classes that the leaf counter handles differently: a closing vertex memoised alone (K2,3) and
// with an isolated vertex (a 4-cycle and an isolated vertex, as embeddings), an isolated vertex
// alone (the same under unique, where the 4-cycle is enumerated), and a closing vertex whose
// parents are the last levels (a triangle's, not memoised) with isolated vertices, and a class of
// three groups of one leaf each (a triangle's leaves: the row's vertices used in each mask of
// groups, usedIn).
func BenchmarkLeafClasses(b *testing.B) {
	benchCounts(b, []benchCase{
		{"K23", "(a)-(x)-(b), (a)-(y)-(b), (a)-(z)-(b)", engine.Semantics{}},
		{"C4+iso", "(a)-(b)-(c)-(d)-(a), (e)", engine.Semantics{}},
		{"C4+iso-unique", "(a)-(b)-(c)-(d)-(a), (e)", engine.Semantics{Unique: true}},
		{"C3+2iso", "(a)-(b)-(c)-(a), (d), (e)", engine.Semantics{}},
		{"C3+3leaves", "(a)-(b)-(c)-(a), (a)-(x), (b)-(y), (c)-(z)", engine.Semantics{}},
	})
}

// BenchmarkKeyedSets counts, on one thread, two triangles sharing a vertex (STMatch's q1),
// whose last level is summed with the postponed vertex below it (lastSum) from tables kept for
// the earlier levels' data vertices (levelKey).
func BenchmarkKeyedSets(b *testing.B) {
	benchCounts(b, []benchCase{
		{"q1", "(a)-(b)-(c)-(a), (c)-(d)-(e)-(c)", engine.Semantics{}},
	})
}

// benchCase is a pattern counted under sem by benchCounts.
type benchCase struct {
	name, src string
	sem       engine.Semantics
}

// benchCounts counts each case, on one thread, on an R-MAT graph of 1,024 vertices.
func benchCounts(b *testing.B, cases []benchCase) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 10, EdgeFactor: 8, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			p, err := pattern.Parse(bc.src)
			if err != nil {
				b.Fatal(err)
			}
			prob := &engine.Problem{Data: g, Pattern: p, Semantics: bc.sem, Threads: 1}
			pl, err := buildPlan(context.Background(), prob, false)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := (Engine{}).CountPlan(context.Background(), prob, pl, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
