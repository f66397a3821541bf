package auto_test

import (
	"context"
	"fmt"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/auto"
	_ "github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
)

// Decide chooses without counting; it may already have started preparing the chosen GPU
// engine's count (engine.Preparer), which CountWith takes over. A caller that only wants the
// choice releases it.
func ExampleEngine_Decide() {
	ctx := context.Background()
	g := gen.RandomGraphM(1, 100, 600, 1, 1)
	p, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	prob := &engine.Problem{Data: g, Pattern: p, Threads: 1}
	var a auto.Engine
	d, err := a.Decide(ctx, prob, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Release()
	fmt.Println(d.Engine)
	// Output: cpu
}
