package cpu_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/auto"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
)

// TestCountCheckedBrokenGraph: CountChecked plans on a graph whose bounds are checked but not its
// rules (formats.LoadChecking's graph before its check ends), so the plan must survive any such
// graph: random graphs with one entry changed so that FromRawTrusted accepts them and FromRaw
// refuses them (a neighbour moved or renamed, a label changed, runs relabelled), random
// patterns, unique and not; CountChecked returns the check's error, without a panic, and with a
// passing check on a sound graph it counts as Count does. auto's Decide, which plans before the
// count waits for the check, must survive them too.
func TestCountCheckedBrokenGraph(t *testing.T) {
	errBroken := errors.New("broken")
	broken, sound := 0, 0
	for seed := uint64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		vl, el := 1+r.IntN(3), 1+r.IntN(2)
		g0 := gen.RandomGraph(seed, 10+r.IntN(50), []float64{0.1, 0.2, 0.4}[r.IntN(3)], vl, el)
		raw := g0.Raw()
		raw = graph.Raw{VertexLabels: slices.Clone(raw.VertexLabels), Offsets: raw.Offsets,
			Neighbors: slices.Clone(raw.Neighbors), EdgeLabels: raw.EdgeLabels, RunOffsets: raw.RunOffsets,
			Runs: slices.Clone(raw.Runs), OriginalIDs: raw.OriginalIDs}
		if len(raw.Neighbors) < 2 {
			continue
		}
		n := len(raw.VertexLabels)
		switch seed % 4 {
		case 0:
			i := r.IntN(len(raw.Neighbors) - 1)
			raw.Neighbors[i], raw.Neighbors[i+1] = raw.Neighbors[i+1], raw.Neighbors[i]
		case 1:
			raw.Neighbors[r.IntN(len(raw.Neighbors))] = uint32(r.IntN(n))
		case 2:
			raw.VertexLabels[r.IntN(n)] = uint32(r.IntN(vl + 1))
		case 3:
			k := r.IntN(len(raw.Runs))
			raw.Runs[k].VertexLabel, raw.Runs[k].EdgeLabel = uint32(r.IntN(vl+1)), uint32(r.IntN(el+1))
		}
		g, err := graph.FromRawTrusted(raw)
		if err != nil {
			t.Fatalf("seed %d: bounds broken by a rule-only change: %v", seed, err)
		}
		_, ruleErr := graph.FromRaw(raw)
		p := gen.RandomPattern(seed, 3+r.IntN(4), gen.PatternOptions{EdgeProb: r.Float64() * 0.6,
			VertexLabels: vl, EdgeLabels: el, Wildcard: []float64{0, 0.3}[r.IntN(2)]})
		prob := &engine.Problem{Data: g, Pattern: p, Semantics: engine.Semantics{Unique: seed%3 == 0}, Threads: 2}
		if ruleErr == nil { // the change kept the graph sound: the check passes, the count is Count's
			sound++
			want, werr := cpu.Engine{}.Count(context.Background(), prob)
			got, gerr := cpu.Engine{}.CountChecked(context.Background(), prob, func() error { return nil })
			if (werr == nil) != (gerr == nil) || got.Count != want.Count {
				t.Fatalf("seed %d: CountChecked %d, %v; Count %d, %v", seed, got.Count, gerr, want.Count, werr)
			}
			continue
		}
		broken++
		if _, err := (cpu.Engine{}).CountChecked(context.Background(), prob, func() error { return errBroken }); !errors.Is(err, errBroken) {
			t.Fatalf("seed %d (%v): CountChecked returned %v, not the check's error", seed, ruleErr, err)
		}
		if d, err := (auto.Engine{}).Decide(context.Background(), prob, false); err == nil {
			d.Release()
		}
	}
	if broken < 100 {
		t.Fatalf("only %d of the graphs broke a rule (%d sound): the test checks little", broken, sound)
	}
}
