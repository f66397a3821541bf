package cpu

import (
	"context"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
)

// TestStealingKeepsCounts runs problems many times on several workers with the stealing poll
// made very frequent, so that subtrees change hands at every depth, and checks every count
// against one worker. (A stolen task once forgot to rebuild the shared set of its own level.)
func TestStealingKeepsCounts(t *testing.T) {
	defer func(m uint32, d time.Duration) { pollMask, rampUpDelay = m, d }(pollMask, rampUpDelay)
	pollMask, rampUpDelay = 0, 0
	g := gen.RandomGraph(3487, 22, 0.8, 4, 2)
	patterns := []*pattern.Pattern{
		gen.RandomPattern(3487, 5, gen.PatternOptions{Components: 1, EdgeProb: 0.08, VertexLabels: 4, EdgeLabels: 2, Wildcard: 1}),
	}
	for _, src := range []string{"(a)-(b)-(c)-(a), (c)-(d)-(a)", "(a)-(b)-(c)-(d)-(e)", "(a)-(b)-(c)-(a), (d)"} {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		patterns = append(patterns, p)
	}
	reps := 40
	if testing.Short() {
		reps = 10
	}
	for _, p := range patterns {
		for _, sem := range []engine.Semantics{{}, {Induced: true}, {Unique: true}, {Unique: true, Induced: true}} {
			prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 1}
			want, err := Engine{}.Count(context.Background(), prob)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < reps; i++ {
				prob.Threads = 2 + i%3
				got, err := Engine{}.Count(context.Background(), prob)
				if err != nil || got.Count != want.Count {
					t.Fatalf("%s %s threads %d: %d (%v), one worker: %d", p, sem, prob.Threads, got.Count, err, want.Count)
				}
			}
		}
	}
}
