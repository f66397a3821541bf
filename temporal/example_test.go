package temporal_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/submatch/submatch/temporal"
)

func Example() {
	g, _ := temporal.Read(strings.NewReader("1 2 10\n2 3 11\n3 1 12\n1 2 40\n"), "example")
	p, _ := temporal.Parse("a->b, b->c, c->a")
	n, _ := temporal.Count(context.Background(), g, p, temporal.Options{Delta: 5})
	fmt.Println(n)
	for sel := range temporal.Matches(context.Background(), g, p, temporal.Options{Delta: 5}) {
		fmt.Println(sel)
	}
	// Output:
	// 1
	// [0 1 2]
}

func ExampleGrid() {
	g, _ := temporal.Read(strings.NewReader("1 2 10\n2 1 11\n1 2 12\n"), "example")
	grid, _ := temporal.Grid(context.Background(), g, temporal.Options{Delta: 100})
	fmt.Println(temporal.GridMotifs[4][0], grid[4][0])
	// Output: a->b, b->a, a->b 1
}

// Device Auto counts on the GPU when there is one, else on the CPU: the count is the same.
func ExampleParseDevice() {
	dev, _ := temporal.ParseDevice("auto")
	g, _ := temporal.Read(strings.NewReader("1 2 10\n2 3 11\n3 1 12\n1 2 40\n"), "example")
	p, _ := temporal.Parse("a->b, b->c, c->a")
	n, err := temporal.Count(context.Background(), g, p, temporal.Options{Delta: 5, Device: dev})
	fmt.Println(dev, n, err)
	// Output: auto 1 <nil>
}

// With Device Auto a call that does not fit within GPUMemory on the GPU (here 64 bytes) runs on
// the CPU, with the same result: the two cyclic triples of events within 25 time units.
func ExampleOptions() {
	b := temporal.NewBuilder()
	for i, e := range [][2]int64{{1, 2}, {2, 3}, {3, 1}, {1, 2}} {
		b.Add(e[0], e[1], int64(10*i))
	}
	g := b.Build()
	p, _ := temporal.Parse("a->b, b->c, c->a")
	n, err := temporal.Count(context.Background(), g, p, temporal.Options{Delta: 25, Device: temporal.Auto, GPUMemory: 64})
	fmt.Println(n, err)
	// Output: 2 <nil>
}
