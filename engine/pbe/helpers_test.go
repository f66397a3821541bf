package pbe_test

import (
	"context"
	"errors"
	"iter"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/proptest"

	"github.com/submatch/submatch/internal/testenv"
)

var testingLong = testenv.Long()

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// largerCase is one of proptest's larger problems in one convention, with the cpu engine's count.
type largerCase struct {
	seed uint64
	c    proptest.Case
	sem  engine.Semantics
	prob *engine.Problem
	want uint64
}

// largerCases yields proptest's larger problems of seeds 0..n-1 in every convention, counted by
// the cpu engine on threads threads (0: the problem's default).
func largerCases(t *testing.T, n uint64, threads int) iter.Seq[largerCase] {
	return func(yield func(largerCase) bool) {
		cpu, err := engine.Lookup("cpu")
		if err != nil {
			t.Fatal(err)
		}
		for seed := range n {
			c := proptest.MakeLarger(seed)
			for _, sem := range proptest.AllSemantics {
				prob := &engine.Problem{Data: c.G, Pattern: c.P, Semantics: sem, Threads: threads}
				want, err := cpu.Count(context.Background(), prob)
				if err != nil {
					t.Fatal(err)
				}
				if !yield(largerCase{seed, c, sem, prob, want.Count}) {
					return
				}
			}
		}
	}
}
