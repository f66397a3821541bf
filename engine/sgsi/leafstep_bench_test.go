package sgsi_test

import (
	"context"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
)

// BenchmarkLeafStep counts, with the host emulation on one thread, patterns whose counted
// vertices exercise each kind of the leaf step's factors (rowLeaves): leaves on several parents
// in one collision class, a tail, a chain and a pair of tails, on a labelled R-MAT graph. The
// leaf step's own time (leaf-ns/op) is reported beside the count's.
func BenchmarkLeafStep(b *testing.B) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 12, EdgeFactor: 8, Seed: 1, VertexLabels: 4})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, src string }{
		{"class", "(a:0)-(b)-(c)-(a), (a)-(x), (b)-(y)"},
		{"tail", "(a:0)-(b:1)-(c:0)-(d:1)-(a), (a)-(x:2)-(y:2)"},
		{"chain", "(v0:0)-(v1:1)-(v2:0)-(v0), (v0)-(a:2)-(c:3)-(b:2)"},
		{"pair", "(v0:0)-(v1:1)-(v2:0)-(v0), (v0)-(a1:1)-(b1:2), (v0)-(a2:1)-(b2:3)"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			p, err := pattern.Parse(bc.src)
			if err != nil {
				b.Fatal(err)
			}
			prob := &engine.Problem{Data: g, Pattern: p, Threads: 1}
			e := sgsi.Engine{Options: sgsi.Options{Host: true, HostBytes: 32 << 20}}
			var leaf time.Duration
			for b.Loop() {
				_, st, err := e.CountStats(context.Background(), prob)
				if err != nil {
					b.Fatal(err)
				}
				if len(st.PerStep) <= st.Steps {
					b.Fatal("no leaf step")
				}
				for _, s := range st.PerStep[st.Steps:] {
					leaf += s.Time
				}
			}
			b.ReportMetric(float64(leaf.Nanoseconds())/float64(b.N), "leaf-ns/op")
		})
	}
}
