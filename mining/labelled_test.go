package mining

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/pattern"
)

// TestLabelledCensus checks every labelled class against the oracle matcher (its pattern read
// back from the printed inline form), and the classes of each shape against the unlabelled census.
func TestLabelledCensus(t *testing.T) {
	for seed := range uint64(6) {
		g := gen.RandomGraph(seed+200, 9+int(seed%3), []float64{0.35, 0.6}[seed%2], 2+int(seed%2), 1)
		for k := 3; k <= 5; k++ {
			lm, err := CountLabelled(context.Background(), g, Options{K: k})
			if err != nil {
				t.Fatal(err)
			}
			sums := map[uint64][2]uint64{}
			for _, m := range lm {
				p, err := pattern.Parse(m.Pattern)
				if err != nil {
					t.Fatalf("%q: %v", m.Pattern, err)
				}
				ni := oracle.Count(g, p, engine.Semantics{Unique: true})
				in := oracle.Count(g, p, engine.Semantics{Unique: true, Induced: true})
				emb := oracle.Count(g, p, engine.Semantics{})
				if m.NonInduced != ni || m.Induced != in || m.NonInduced*m.Automorphisms != emb {
					t.Errorf("seed %d %s %q: %d %d (aut %d), oracle %d %d (embeddings %d)", seed, m.Name, m.Pattern, m.NonInduced, m.Induced, m.Automorphisms, ni, in, emb)
				}
				s := sums[m.Shape.Code()]
				sums[m.Shape.Code()] = [2]uint64{s[0] + m.NonInduced, s[1] + m.Induced}
			}
			c, err := Count(context.Background(), g, Options{K: k})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range c.Motifs {
				if s := sums[m.Shape.Code()]; s != [2]uint64{m.NonInduced, m.Induced} {
					t.Errorf("seed %d k=%d %s: labelled classes sum to %v, census %d %d", seed, k, m.Name, s, m.NonInduced, m.Induced)
				}
			}
		}
	}
}
