package cpu_test

import (
	"context"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestRunPlan: --explain's plan is the one CountPlan runs: the unique count's embeddings plan
// (with the divisor said), the plan breaking all symmetry, or the built plan itself when neither
// is chosen; and a line when the count takes edge supports.
func TestRunPlan(t *testing.T) {
	g := gen.RandomGraph(3, 14, 0.6, 1, 1)
	run := func(src string, sem engine.Semantics) (*plan.Plan, *plan.Plan, string) {
		t.Helper()
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem}
		opts, err := cpu.PlanOptions(prob, false)
		if err != nil {
			t.Fatal(err)
		}
		pl := plan.Build(g, p, opts)
		got, note := cpu.Engine{}.RunPlan(context.Background(), prob, pl)
		return pl, got, note
	}
	cycle := "(a)-(b)-(c)-(d)-(a)"
	restore := cpu.UniqueByEmbeddings(1)
	pl, got, note := run(cycle, engine.Semantics{Unique: true})
	restore()
	if got == pl || !strings.Contains(note, "divides by |Aut| = 8") {
		t.Errorf("unique 4-cycle, embeddings plan forced: same plan %v, note %q", got == pl, note)
	}
	restore = cpu.UniqueByEmbeddings(-1)
	pl, got, note = run(cycle, engine.Semantics{Unique: true})
	restore()
	if got != pl || note != "" {
		t.Errorf("unique 4-cycle, embeddings plan refused: same plan %v, note %q", got == pl, note)
	}
	q9 := "(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (b)-(c), (b)-(d), (b)-(e), (b)-(f), (c)-(d)"
	restore = cpu.SymmetryBreak(1)
	pl, got, note = run(q9, engine.Semantics{})
	restore()
	if got == pl || got.Multiplier <= pl.Multiplier || !strings.Contains(note, "breaks all") {
		t.Errorf("q9, symmetry breaking forced: multipliers %d -> %d, note %q", pl.Multiplier, got.Multiplier, note)
	}
	restore = cpu.SymmetryBreak(-1)
	pl, got, note = run(q9, engine.Semantics{})
	restore()
	if got != pl || note != "" {
		t.Errorf("q9, symmetry breaking refused: same plan %v, note %q", got == pl, note)
	}
	q3 := "(a)-(b), (a)-(c), (a)-(e), (b)-(c), (b)-(d), (c)-(d), (c)-(e)"
	for _, mode := range []int{1, -1} {
		restore = cpu.Supports(mode, true)
		_, _, note = run(q3, engine.Semantics{})
		restore()
		if strings.Contains(note, "edge supports") != (mode == 1) {
			t.Errorf("q3, edge supports %d: note %q", mode, note)
		}
	}
}
