package stmatch

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/pattern"
)

// countPlaced counts prob with o on the GPU and compares with the CPU engine; the data graph's
// buffers must have gone to host or managed memory (when there is anything to count), and the
// device's share must have stayed within prob's GPUMemoryLimit.
func countPlaced(t *testing.T, name string, prob *engine.Problem, o Options) {
	t.Helper()
	want := cpuCountThreads(t, prob.Data, prob.Pattern, prob.Semantics, 0)
	res, st, err := CountOptions(context.Background(), prob, o)
	if err != nil || res.Partial {
		t.Errorf("%s: %v (partial %v)", name, err, res.Partial)
		return
	}
	record(t, name, want, res.Count, st)
	if res.Count != want {
		t.Errorf("%s: stmatch %d, cpu %d", name, res.Count, want)
	}
	// A plan with a pattern vertex without candidates counts 0 without the devices.
	if (st.HostBytes == 0 && want > 0) || (prob.GPUMemoryLimit > 0 && st.DeviceBytes > prob.GPUMemoryLimit) {
		t.Errorf("%s: %d bytes on the host, %d on the device (limit %d)", name, st.HostBytes, st.DeviceBytes, prob.GPUMemoryLimit)
	}
	t.Logf("%-44s %12d  kernel %8.3f ms  call %8.3f ms  warps %d  device %s  host %s", name, res.Count,
		ms(st.Kernel), ms(st.Total), st.Warps, gpu.FormatBytes(st.DeviceBytes), gpu.FormatBytes(st.HostBytes))
}

// TestGPUGraphMemory: with the data graph in mapped host memory (zero-copy) and in managed
// memory, the unchanged kernels count what the CPU engine counts: proptest's larger random
// graphs in every convention (with a candidate space and on the adjacency lists), and wiki-Vote
// within a --gpu-memory of a quarter of what the kernels read from the graph (GraphBytes), which
// the graph in device memory does not fit; its 4-cliques on the clique kernel with the CSR and
// upward runs on the host, and on the plan kernels within 256 KiB. The generic kernel for the
// plans, so that one compile serves every case.
func TestGPUGraphMemory(t *testing.T) {
	needGPU(t)
	places := []gpu.Placement{gpu.OnHost, gpu.OnManaged}
	for seed := uint64(1); seed <= 4; seed++ {
		c := proptest.MakeLarger(seed)
		for _, place := range places {
			o := Options{Graph: place, Kernel: KernelGeneric, NoSpace: seed%2 == 0, PlanCliques: true}
			for _, sem := range semantics {
				countPlaced(t, fmt.Sprintf("random seed %d %s %s", seed, place, sem),
					&engine.Problem{Data: c.G, Pattern: c.P, Semantics: sem}, o)
			}
		}
	}
	g := sharedtest.WikiVote(t)
	// A quarter of the candidate space leaves room for about 100 warps (of some 8,000 a full
	// H200 runs): the diamond's unique count keeps them short (TestGPUZTinyBudget runs it on 8).
	for _, q := range []struct{ name, pat string }{
		{"diamond", "(a)-(b)-(c)-(d)-(a), (a)-(c)"},
	} {
		p, err := pattern.Parse(q.pat)
		if err != nil {
			t.Fatal(err)
		}
		sem := engine.Semantics{Unique: true}
		pl, err := buildPlan(context.Background(), g, p, sem, Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem}
		need := GraphBytes(&engine.Workload{Problem: prob, Plan: pl})
		prob.GPUMemoryLimit = need / 4
		if _, _, err := CountOptions(context.Background(), prob, Options{Kernel: KernelGeneric}); !errors.Is(err, gpu.ErrBudget) {
			t.Errorf("wiki-Vote %s in device memory within %s: %v, want ErrBudget", q.name, gpu.FormatBytes(prob.GPUMemoryLimit), err)
		}
		for _, place := range places {
			countPlaced(t, fmt.Sprintf("wiki-Vote %s %s, 1/4 of %s", q.name, place, gpu.FormatBytes(need)), prob,
				Options{Graph: place, Kernel: KernelGeneric})
		}
	}
	// The clique kernel's bit matrices (up to 512 KiB a warp) need more than a quarter of
	// wiki-Vote's 0.9 MB of CSR; its graph is still read from host memory.
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)")
	if err != nil {
		t.Fatal(err)
	}
	for _, place := range places {
		prob := &engine.Problem{Data: g, Pattern: p, GPUMemoryLimit: 16 << 20}
		countPlaced(t, fmt.Sprintf("wiki-Vote 4-clique %s (clique kernel)", place), prob, Options{Graph: place})
	}
	// Below one block of the clique kernel's matrices, the plan kernels count the cliques.
	prob := &engine.Problem{Data: g, Pattern: p, Semantics: engine.Semantics{Unique: true}, GPUMemoryLimit: 256 << 10}
	countPlaced(t, "wiki-Vote 4-clique unique host, 256 KiB", prob, Options{Graph: gpu.OnHost, Kernel: KernelTiered})
}
