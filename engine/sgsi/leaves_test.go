package sgsi_test

import (
	"context"
	"errors"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/pattern"
)

// leafPatterns have many leaves (pattern vertices of degree one): stars, leaves on one parent
// and on several, labelled leaves sharing labels, wildcard labels, edge labels, cycles and
// walks with pendant vertices; and the small shapes at the edges of the leaf step (an edge, a
// wedge: one joined vertex).
var leafPatterns = []string{
	"(a)-(b)",
	"(c)-(a), (c)-(b)",
	"(c)-(a), (c)-(b), (c)-(d), (c)-(e)",
	"(c:0)-(a:1), (c)-(b:1), (c)-(d:0), (c)-(e)",
	"(c)-(a:1), (c)-(b:1), (c)-(d:1), (c)-(e:*), (c)-(f:0)",
	"(c)-[:1]-(a), (c)-[:0]-(b), (c)-(d), (c)-[:1]-(e)",
	"(a)-(b)-(c)-(d)",
	"(a:0)-(b:0), (a)-(x:1), (a)-(y:1), (b)-(z:1), (b)-(w)",
	"(a)-(b)-(c)-(a), (a)-(x), (b)-(y), (c)-(z)",
	"(a)-(b)-(c)-(a), (a)-(x:1), (a)-(y:1), (b)-(z:1), (c)-(w:0), (c)-(v)",
	"(a)-(b)-(c)-(d)-(a), (a)-(x), (b)-(y:1), (c)-(z:1), (c)-(w), (d)-[:1]-(v)",
	"(a)-(b)-(c)-(d)-(e), (b)-(x), (b)-(y), (d)-(z)",
	"(a)-(b), (a)-(c), (b)-(d), (b)-(e), (a)-(f:*), (b)-(g:*)",
	"(a)-(b)-(c)-(a), (d)-(e), (a)-(x), (a)-(y)",
}

// TestLeafStep counts leafPatterns with the host emulation under every convention, the leaves
// counted (the default) and joined (Options.JoinLeaves), in SGSI's order and the core order, in
// core and in a small region, against the brute-force oracle (the cpu engine where the oracle
// would enumerate too many); it checks that the leaf step ran
// (Stats.PerStep has a step past the joins) for every count but the induced ones of patterns
// with leaves.
func TestLeafStep(t *testing.T) {
	ctx := context.Background()
	graphs := []struct {
		name string
		g    *graph.Graph
	}{
		{"G(24, 0.2), 2 vertex labels", gen.RandomGraph(1, 24, 0.2, 2, 0)},
		{"G(20, 0.25), 2 vertex labels, 2 edge labels", gen.RandomGraph(2, 20, 0.25, 2, 2)},
		{"G(16, 0.3), unlabelled", gen.RandomGraph(3, 16, 0.3, 1, 0)},
	}
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	counted, big := 0, 0
	for _, src := range leafPatterns {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, gr := range graphs {
			for _, sem := range []engine.Semantics{{}, {Unique: true}, {Induced: true}, {Induced: true, Unique: true}} {
				want, ok := oracle.CountWithin(gr.g, p, sem, 1<<21)
				if !ok { // (too many matches to enumerate: the cpu engine's leaf groups)
					res, err := cpu.Count(ctx, &engine.Problem{Data: gr.g, Pattern: p, Semantics: sem})
					if err != nil {
						t.Fatal(err)
					}
					want = res.Count
					big++
				}
				for i, opts := range []sgsi.Options{{}, {CoreOrder: true}, {JoinLeaves: true}, {CoreOrder: true, Refine: true, HostBytes: 3000}} {
					opts.Host = true
					prob := &engine.Problem{Data: gr.g, Pattern: p, Semantics: sem}
					res, st, err := sgsi.Engine{Options: opts}.CountStats(ctx, prob)
					if errors.Is(err, engine.ErrMemory) && opts.HostBytes > 0 {
						continue
					}
					if err != nil || res.Count != want {
						t.Errorf("%s on %s, %v, options %d: sgsi %d (%v), oracle %d", src, gr.name, sem, i, res.Count, err, want)
						continue
					}
					leafStep := len(st.PerStep) > st.Steps
					if leafStep {
						counted++
					}
					if leafStep && (sem.Induced || opts.JoinLeaves) {
						t.Errorf("%s on %s, %v, options %d: a leaf step (%d steps, %d per step)", src, gr.name, sem, i, st.Steps, len(st.PerStep))
					}
				}
			}
		}
	}
	t.Logf("%d counts with a leaf step; %d problems against the cpu engine (too many matches for the oracle)", counted, big)
	if counted == 0 {
		t.Error("no count had a leaf step")
	}
}
