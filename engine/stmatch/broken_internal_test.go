package stmatch

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/proptest"
)

// TestPrepareBrokenGraph: --engine auto starts stmatch's preparation (PrepareCount: the plan,
// flattened, the roots' weights and the hub bitmaps, on a goroutine of its own) before the count
// waits for a snapshot's rules to be checked (formats.LoadChecking), so it must survive any graph
// whose bounds hold: a panic there would end the process before the check's error is reported.
// Every list gets a hub bitmap (hubMin 1), with the candidate space and without.
func TestPrepareBrokenGraph(t *testing.T) {
	broken := 0
	for seed := uint64(1); seed <= 300; seed++ {
		b, ok := proptest.MakeBroken(seed, 8)
		if !ok {
			continue
		}
		if b.RuleErr != nil {
			broken++
		}
		prob := &engine.Problem{Data: b.G, Pattern: b.P, Threads: 2,
			Semantics: engine.Semantics{Unique: seed%3 == 0, Induced: seed%5 == 0}}
		for _, o := range []Options{{hubMin: 1}, {hubMin: 1, NoSpace: true}} {
			func() {
				defer func() {
					if x := recover(); x != nil {
						t.Fatalf("%s (%v), options %+v: prepare panicked: %v", b.Recipe, b.RuleErr, o, x)
					}
				}()
				prepare(context.Background(), prob, o, nil)
			}()
		}
	}
	if broken < 150 {
		t.Fatalf("only %d of the graphs broke a rule: the test checks little", broken)
	}
}
