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
