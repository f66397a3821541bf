package cpu_test

import (
	"context"
	"errors"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/auto"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/internal/proptest"
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
		b, ok := proptest.MakeBroken(seed, 1)
		if !ok {
			continue
		}
		g, p, ruleErr := b.G, b.P, b.RuleErr
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
