package sgsi_test

import (
	"context"
	"fmt"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
)

// A count within a region of an eighth of the graph, on the host emulation of the device (the
// GPU engine is sgsi.Engine{} with Problem.GPUMemoryLimit set): the label graph streams through
// in segments, the tables in chunks, and the count equals the cpu engine's.
func ExampleEngine_CountStats() {
	g := gen.RandomGraphM(7, 20000, 100000, 4, 1)
	p, _ := pattern.Parse("(a:0)-(b:1)-(c:2)-(a), (c)-(d:3)")
	prob := &engine.Problem{Data: g, Pattern: p}
	e := sgsi.Engine{Options: sgsi.Options{Host: true, HostBytes: sgsi.GraphBytes(g) / 8}}
	res, st, err := e.CountStats(context.Background(), prob)
	if err != nil {
		fmt.Println(err)
		return
	}
	cpu, _ := engine.Lookup("cpu")
	want, _ := cpu.Count(context.Background(), prob)
	fmt.Println(st.InCore, st.Segments > 1, res.Count == want.Count)
	// Output: false true true
}
