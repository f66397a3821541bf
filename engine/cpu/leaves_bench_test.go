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
// parents are the last levels (a triangle's, not memoised) with isolated vertices.
func BenchmarkLeafClasses(b *testing.B) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 10, EdgeFactor: 8, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name, src string
		sem       engine.Semantics
	}{
		{"K23", "(a)-(x)-(b), (a)-(y)-(b), (a)-(z)-(b)", engine.Semantics{}},
		{"C4+iso", "(a)-(b)-(c)-(d)-(a), (e)", engine.Semantics{}},
		{"C4+iso-unique", "(a)-(b)-(c)-(d)-(a), (e)", engine.Semantics{Unique: true}},
		{"C3+2iso", "(a)-(b)-(c)-(a), (d), (e)", engine.Semantics{}},
	} {
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
