package pbe_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
)

// A count under a budget of a tenth of the graph: the parts' matches plus the inter-partition
// ones equal the in-memory count.
func ExampleEngine_CountStats() {
	g := gen.RandomGraphM(7, 2000, 10000, 1, 1)
	tri, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	prob := &engine.Problem{Data: g, Pattern: tri, Semantics: engine.Semantics{Unique: true}}
	e := &pbe.Engine{Budget: partition.GraphBytes(g) / 10}
	res, st, err := e.CountStats(context.Background(), prob)
	if err != nil {
		fmt.Println(err)
		return
	}
	cpu, _ := engine.Lookup("cpu")
	want, _ := cpu.Count(context.Background(), prob)
	fmt.Println(st.Parts >= 10, st.IntraMatches+st.InterMatches == res.Count, res.Count == want.Count)
	// Output: true true true
}

// The intra-partition stage on a GPU: every part counted by the GPU engine registered as
// "stmatch" (linked by the program, as cmd/submatch does), within 64 MiB of GPU memory, the parts
// made for half of it. Without a GPU the count fails with the device engine's error.
func ExampleDeviceBackend() {
	g := gen.RandomGraphM(7, 20000, 100000, 1, 1)
	tri, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	e := &pbe.Engine{Backend: &pbe.DeviceBackend{}}
	prob := &engine.Problem{Data: g, Pattern: tri, GPUMemoryLimit: 64 << 20}
	res, st, err := e.CountStats(context.Background(), prob)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Count, st.Parts, st.DeviceParts, st.UploadTime, st.KernelTime)
}

// MinBudget is the least budget a graph can be partitioned under.
func ExampleMinBudget() {
	g := gen.RandomGraphM(1, 100, 300, 1, 1)
	edge, _ := pattern.Parse("(a)-(b)")
	_, err := (&pbe.Engine{Budget: pbe.MinBudget(g) - 1}).Count(context.Background(), &engine.Problem{Data: g, Pattern: edge})
	fmt.Println(errors.Is(err, engine.ErrMemory))
	// Output: true
}
