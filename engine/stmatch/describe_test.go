package stmatch

import (
	"flag"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestPredict: without a candidate space the kernels cannot run a plan; with one the prediction
// grows with the estimated nodes and includes the start-up; cliques go to the clique kernel for
// counting only.
func TestPredict(t *testing.T) {
	g := gen.RandomGraphM(3, 150, 900, 1, 1)
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(a)")
	if err != nil {
		t.Fatal(err)
	}
	noSpace := plan.Build(g, p, plan.Options{SpaceLimit: -1})
	if pr := (Engine{}).Predict(&engine.Workload{Plan: noSpace}); pr.Eligible() {
		t.Errorf("a plan without a candidate space: %+v", pr)
	}
	pl := plan.Build(g, p, plan.Options{})
	small := Engine{}.Predict(&engine.Workload{Plan: pl, Estimate: &plan.Estimate{Nodes: 1e3}})
	large := Engine{}.Predict(&engine.Workload{Plan: pl, Estimate: &plan.Estimate{Nodes: 1e12}})
	if !small.Eligible() || small.Seconds < startSeconds || large.Seconds <= small.Seconds {
		t.Errorf("predictions %+v, %+v", small, large)
	}
	c := &plan.Clique{K: 5}
	prob := &engine.Problem{Data: g}
	if pr := (Engine{}).Predict(&engine.Workload{Problem: prob, Clique: c}); !pr.Eligible() {
		t.Errorf("counting a clique: %+v", pr)
	}
	if pr := (Engine{}).Predict(&engine.Workload{Problem: prob, Clique: c, Listing: true}); pr.Eligible() {
		t.Errorf("listing a clique: %+v", pr)
	}
}

func TestRegisterFlags(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	configure := Engine{}.RegisterFlags(fs)
	if err := fs.Parse([]string{"--stmatch-kernel", "query"}); err != nil {
		t.Fatal(err)
	}
	e, err := configure()
	if err != nil || e.(Engine).Options.Kernel != KernelQuery {
		t.Fatalf("engine %+v, error %v", e, err)
	}
	fs.Set("stmatch-kernel", "fast")
	if _, err := configure(); err == nil {
		t.Error("--stmatch-kernel fast accepted")
	}
}
