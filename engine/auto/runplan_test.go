package auto_test

import (
	"context"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/engine/internal/predicttest"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/pattern"
)

// TestHostPredictsThePlanItRuns checks that the CPU engine's prediction reads an estimate of the
// plan it counts with: STMatch's q11 on wiki-Vote, which the CPU engine counts with the plan that
// breaks all of its symmetry (cpu.Engine.RunPlan), and q2 with a tail, which it counts with the
// plan built (q2 itself, a house, is a shape since branch cpushapes: no plan, no predictions).
func TestHostPredictsThePlanItRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("estimates two plans of wiki-Vote")
	}
	wv := sharedtest.WikiVote(t)
	a := h200Auto()
	for _, c := range []struct {
		name, src string
		other     bool
	}{
		{"q11", "(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(e), (c)-(d), (c)-(e), (c)-(f), (d)-(e)", true},
		{"q2 with a tail", "(a)-(b), (a)-(c), (a)-(e), (b)-(c), (b)-(d), (d)-(e), (e)-(f)", false},
	} {
		pat, err := pattern.Parse(c.src)
		if err != nil {
			t.Fatal(err)
		}
		p := &engine.Problem{Data: wv, Pattern: pat, Threads: 16}
		d, err := a.Decide(context.Background(), p, false)
		if err != nil {
			t.Fatal(err)
		}
		d.Release()
		// q11, counted by the pair sum with its pendant as a factor (branch cpudense), is
		// decided below the GPU threshold on the nodes of the plan the CPU engine runs, without
		// predictions: that the reason names those nodes is then the check.
		predicted := len(d.Predictions) > 0
		if !d.Estimated || (!predicted && !(c.other && strings.Contains(d.Reason, "in the plan cpu runs"))) {
			t.Fatalf("%s: not estimated or no predictions: %s", c.name, d.Reason)
		}
		run, note := cpu.Engine{}.RunPlan(context.Background(), p, d.Plan())
		if got := d.RunPlan != nil; got != c.other || (note != "") != c.other {
			t.Fatalf("%s: RunPlan set %v, cpu's note %q; want another plan %v", c.name, got, note, c.other)
		}
		w := &engine.Workload{Problem: p, Plan: d.Plan(), Bound: d.Bound, Estimate: &d.Estimate, Threads: 16}
		if c.other {
			if d.RunPlan.Describe() != run.Describe() {
				t.Errorf("%s: auto estimated\n%s\nthe CPU engine runs\n%s", c.name, d.RunPlan.Describe(), run.Describe())
			}
			w.Plan, w.Bound, w.Estimate = d.RunPlan, d.RunPlan.NodeBound(), &d.RunEstimate
		}
		if !predicted {
			continue
		}
		if want := predicttest.Must(t, cpu.Engine{}, w).Seconds; d.Predictions[0].Engine != "cpu" || d.Predictions[0].Seconds != want {
			t.Errorf("%s: host prediction %+v, want cpu %g s", c.name, d.Predictions[0], want)
		}
	}
}
