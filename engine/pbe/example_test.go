package pbe_test

import (
	"context"
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
