package mining_test

import (
	"context"
	"fmt"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/mining"
)

// A triangle with a pendant edge: one triangle, and two 3-paths that are induced.
func Example() {
	b := graph.NewBuilder(graph.BuilderOptions{})
	for _, e := range [][2]int64{{0, 1}, {1, 2}, {2, 0}, {2, 3}} {
		b.AddEdge(e[0], e[1], 0)
	}
	g, _ := b.Build()
	c, err := mining.Count(context.Background(), g, mining.Options{K: 3})
	if err != nil {
		panic(err)
	}
	for _, m := range c.Motifs {
		fmt.Printf("%s: %d non-induced, %d induced (%s)\n", m.Name, m.NonInduced, m.Induced, m.Pattern)
	}
	// Output:
	// 3-path: 5 non-induced, 2 induced ((a)-(b), (a)-(c))
	// triangle: 1 non-induced, 1 induced ((a)-(b), (a)-(c), (b)-(c))
}

func ExampleCountPerVertex() {
	b := graph.NewBuilder(graph.BuilderOptions{})
	for _, e := range [][2]int64{{0, 1}, {1, 2}, {2, 0}, {2, 3}} {
		b.AddEdge(e[0], e[1], 0)
	}
	g, _ := b.Build()
	vc, err := mining.CountPerVertex(context.Background(), g, mining.Options{K: 3})
	if err != nil {
		panic(err)
	}
	for v := range g.NumVertices() {
		fmt.Println(g.OriginalID(uint32(v)), vc.Induced[v])
	}
	// Unordered output:
	// 0 [2 1 0 1]
	// 1 [2 1 0 1]
	// 2 [3 0 2 1]
	// 3 [1 2 0 0]
}

func ExampleShape_Name() {
	s, _ := mining.ShapeOf("(a)-(b)-(c)-(d)-(a), (a)-(c)")
	fmt.Println(s.Name(), s.Automorphisms())
	// Output: diamond 4
}

// With Device Auto the heavy local counts run on the GPU when there is one, else on the CPU.
func ExampleParseDevice() {
	dev, _ := mining.ParseDevice("auto")
	b := graph.NewBuilder(graph.BuilderOptions{})
	for _, e := range [][2]int64{{0, 1}, {1, 2}, {2, 0}, {2, 3}} {
		b.AddEdge(e[0], e[1], 0)
	}
	g, _ := b.Build()
	c, err := mining.Count(context.Background(), g, mining.Options{K: 4, Device: dev})
	if err != nil {
		panic(err)
	}
	m, _ := c.Find(c.Motifs[2].Shape)
	fmt.Println(m.Name, m.NonInduced, m.Induced)
	// Output: tailed triangle 1 1
}

// Five-vertex orbits: in a 5-cycle with one chord (a house), the vertices of the roof's
// triangle take the house's orbits 52 (the roof) and 53, the others orbit 51.
func ExampleCountPerVertex_fiveVertices() {
	b := graph.NewBuilder(graph.BuilderOptions{})
	for _, e := range [][2]int64{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}, {1, 4}} {
		b.AddEdge(e[0], e[1], 0)
	}
	g, _ := b.Build()
	vc, err := mining.CountPerVertex(context.Background(), g, mining.Options{K: 5})
	if err != nil {
		panic(err)
	}
	for v := range g.NumVertices() {
		for i, o := range vc.Orbits[15:] {
			if x := vc.Induced[v][15+i]; x > 0 {
				fmt.Println(g.OriginalID(uint32(v)), o.ORCA, o.Name, x)
			}
		}
	}
	// Unordered output:
	// 0 52 house 1
	// 1 53 house 1
	// 4 53 house 1
	// 2 51 house 1
	// 3 51 house 1
}

// Bounds: with Device Auto a census whose local counts do not fit within GPUMemory on the GPU
// (here 4 KiB, less than the graph takes) runs them on the CPU; Memory bounds the CPU workers'
// dense per-vertex scratch (fewer workers, never fewer than one). The counts are the same.
func ExampleOptions() {
	b := graph.NewBuilder(graph.BuilderOptions{})
	for _, e := range [][2]int64{{0, 1}, {1, 2}, {2, 0}, {2, 3}, {3, 4}, {4, 0}} {
		b.AddEdge(e[0], e[1], 0)
	}
	g, _ := b.Build()
	c, err := mining.Count(context.Background(), g, mining.Options{K: 5, Device: mining.Auto, GPUMemory: 4 << 10, Memory: 1 << 20})
	if err != nil {
		panic(err)
	}
	for _, m := range c.Motifs {
		if m.NonInduced > 0 && m.Name == "5-cycle" {
			fmt.Println(m.Name, m.NonInduced, m.Induced)
		}
	}
	// Output: 5-cycle 1 0
}
