package gcsm_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/csm/gcsm"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

// The GCSM engine is opened through the registry like every continuous-matching engine; on a
// machine without a GPU it refuses with gpu.ErrNoGPU.
func Example() {
	e, _ := csm.Lookup("gcsm")
	g := dynamic.FromGraph(gen.RandomGraph(1, 50, 0.2, 1, 1))
	tri := gen.RandomPattern(1, 3, gen.PatternOptions{EdgeProb: 1})
	m, err := e.Open(g, []*pattern.Pattern{tri}, csm.Options{GPUMemory: 64 << 20})
	if errors.Is(err, gpu.ErrNoGPU) {
		return // no GPU here: use the "cpu" engine
	}
	if err != nil {
		panic(err)
	}
	var res csm.Result
	batch := []updates.Update{{Kind: updates.InsertEdge, U: 0, V: 1}}
	if err := m.Apply(context.Background(), batch, nil, &res); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Deltas[0].Created, res.Deltas[0].Destroyed)
}

func ExampleParseMode() {
	for _, s := range []string{"", "zerocopy", "degree", "unified", "um"} {
		m, err := gcsm.ParseMode(s)
		fmt.Println(m, err)
	}
	// Output:
	// cache <nil>
	// zerocopy <nil>
	// degree <nil>
	// unified <nil>
	// cache gcsm: unknown mode "um"; modes: [cache zerocopy degree device cache-bytes cache-density unified cache-sampled]
}
