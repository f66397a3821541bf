package csm_test

import (
	"fmt"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/pattern"
)

// Program shows the delta program the CPU engine runs (and the GPU engines lower): a triangle
// has 3 vertex items and 3 edge items, so 6 terms; a pair term anchors two levels.
func ExampleProgram() {
	tri, _ := pattern.New([]pattern.Label{pattern.Wildcard, pattern.Wildcard, pattern.Wildcard},
		[]pattern.Edge{{U: 0, V: 1}, {U: 1, V: 2}, {U: 0, V: 2}}, nil)
	prog := csm.Program(tri, engine.Semantics{})
	fmt.Println(len(prog.Pairs), len(prog.Terms))
	t := prog.Terms[3] // the first pair term: edge 0-1
	fmt.Println(t.Pair, t.Levels[0].Vertex, t.Levels[1].Vertex, len(t.Levels[2].Parents))
	// Output:
	// 3 6
	// 0 0 1 2
}
