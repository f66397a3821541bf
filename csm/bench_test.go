package csm

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

// BenchmarkGithubQ3: github split 90/10 (as TestGithubSplit), Q_3; one iteration streams the 10%
// in, one update a batch, then out again (so the graph is back to the 90% for the next).
func BenchmarkGithubQ3(b *testing.B) {
	for _, sem := range []engine.Semantics{{}, {Induced: true}} {
		b.Run(sem.String(), func(b *testing.B) {
			g := loadShared(b, "github-gmatch/data.graph")
			p := loadPattern(b, "github-gmatch/query_graph/Q_3.graph")
			initial, stream := split(b, g, "insert", 1)
			m, err := Open(dynamic.FromGraph(initial), []*pattern.Pattern{p}, Options{Semantics: sem, Threads: 1})
			if err != nil {
				b.Fatal(err)
			}
			back := make([]updates.Update, len(stream))
			for i, u := range stream {
				u.Kind = updates.DeleteEdge
				back[i] = u
			}
			ctx := context.Background()
			var res Result
			for b.Loop() {
				for _, s := range [][]updates.Update{stream, back} {
					for i := range s {
						if err := m.Apply(ctx, s[i:i+1], nil, &res); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			b.ReportMetric(float64(2*len(stream))*float64(b.N)/b.Elapsed().Seconds(), "updates/s")
		})
	}
}
