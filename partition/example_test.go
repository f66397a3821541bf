package partition_test

import (
	"context"
	"fmt"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/partition"
)

func ExamplePartition() {
	g := gen.RandomGraphM(1, 1000, 4000, 2, 1)
	budget := partition.GraphBytes(g) / 4
	pt, err := partition.Partition(context.Background(), g, partition.Options{Budget: budget})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(pt.Parts) >= 4, pt.MaxBytes() <= budget)
	// Output: true true
}

// The multilevel partitioner (the default) against breadth-first growing on the same budget.
func ExampleMethod() {
	g := gen.RandomGraphM(2, 2000, 8000, 1, 1)
	budget := partition.GraphBytes(g) / 8
	ml, err := partition.Partition(context.Background(), g, partition.Options{Budget: budget})
	if err != nil {
		fmt.Println(err)
		return
	}
	gr, err := partition.Partition(context.Background(), g, partition.Options{Budget: budget, Method: partition.Grow})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ml.MaxBytes() <= budget, gr.MaxBytes() <= budget, ml.EdgeCut < gr.EdgeCut)
	// Output: true true true
}
