package sgsi_test

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	_ "github.com/submatch/submatch/engine/stmatch"
	"github.com/submatch/submatch/internal/proptest"
)

// TestGPULimitAboveFree: --gpu-memory "lowers each GPU's memory budget" (engine.Problem);
// a limit above the device's free memory is a cap, not a demand: stmatch and sgsi count exactly
// with a 1 TiB limit (sgsi's region takes what is free, less the kernels' margin).
func TestGPULimitAboveFree(t *testing.T) {
	needGPU(t)
	c := proptest.MakeLarger(1)
	ctx := context.Background()
	cpu, _ := engine.Lookup("cpu")
	want, err := cpu.Count(ctx, &engine.Problem{Data: c.G, Pattern: c.P})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"stmatch", "sgsi"} {
		e, err := engine.Lookup(name)
		if name == "sgsi" {
			e = sgsi.Engine{}
		}
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Count(ctx, &engine.Problem{Data: c.G, Pattern: c.P, GPUMemoryLimit: 1 << 40})
		t.Logf("%s with --gpu-memory 1 TiB: count %d (cpu %d), err %v", name, res.Count, want.Count, err)
		if err != nil || res.Count != want.Count {
			t.Errorf("%s with --gpu-memory 1 TiB: count %d, want %d, err %v", name, res.Count, want.Count, err)
		}
	}
}
