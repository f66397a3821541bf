package sgsi

import (
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
)

// TestPredict: sgsi is predicted only out of core, and then from the host's time on one thread.
func TestPredict(t *testing.T) {
	g := gen.RandomGraphM(3, 150, 900, 1, 1)
	need := GraphBytes(g)
	w := &engine.Workload{Problem: &engine.Problem{Data: g}, Threads: 4, HostSeconds: 1}
	if pr := (Engine{}).Predict(w); pr.Eligible() {
		t.Errorf("unknown memory (in core): %+v", pr)
	}
	w.GPUMemory = 2 * need
	if pr := (Engine{}).Predict(w); pr.Eligible() {
		t.Errorf("in core: %+v", pr)
	}
	w.GPUMemory = need
	pr := Engine{}.Predict(w)
	if want := startSeconds + OneThreadSlowdown*4.0; !pr.OutOfCore || pr.Seconds != want {
		t.Errorf("out of core: %+v, want %v s", pr, want)
	}
	w.HostSeconds = 0
	if pr := (Engine{}).Predict(w); pr.Eligible() {
		t.Errorf("no host prediction: %+v", pr)
	}
}
