package submatch_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"slices"
	"strings"
	"time"

	"github.com/submatch/submatch"
)

// A small SNAP-style edge list: a 4-clique {1, 2, 3, 4} with a tail 4-5.
const edges = `# a 4-clique and a tail
1 2
1 3
1 4
2 3
2 4
3 4
4 5
`

// Count triangles under the three conventions.
func ExampleCount() {
	ctx := context.Background()
	g, err := submatch.Read(ctx, strings.NewReader(edges), "")
	if err != nil {
		log.Fatal(err)
	}
	triangle, err := submatch.ParsePattern("(a)-(b)-(c)-(a)")
	if err != nil {
		log.Fatal(err)
	}
	for _, opts := range []*submatch.Options{nil, {Unique: true}} {
		res, err := submatch.Count(ctx, g, triangle, opts)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Count, res.Partial)
	}
	// Output:
	// 24 false
	// 4 false
}

// List the distinct paths of two edges whose middle vertex is 4, with the input's vertex ids.
// The slice is reused between matches: clone it to keep it.
func ExampleMatches() {
	ctx := context.Background()
	g, err := submatch.Read(ctx, strings.NewReader(edges), "edgelist")
	if err != nil {
		log.Fatal(err)
	}
	path, err := submatch.ParsePattern("(a)-(b)-(c)")
	if err != nil {
		log.Fatal(err)
	}
	var found [][]int64
	for m, err := range submatch.Matches(ctx, g, path, &submatch.Options{Unique: true, Induced: true}) {
		if err != nil {
			log.Fatal(err)
		}
		if m[1] == 4 {
			found = append(found, slices.Clone(m))
		}
	}
	slices.SortFunc(found, slices.Compare)
	fmt.Println(path.VertexNames(), found)
	// Output:
	// [a b c] [[5 4 1] [5 4 2] [5 4 3]]
}

// A count stops when its context ends, and says that the count it returns is partial.
func ExampleCount_cancel() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	time.Sleep(2 * time.Millisecond) // the deadline has passed before the count starts
	g, _ := submatch.Read(context.Background(), strings.NewReader(edges), "")
	p, _ := submatch.ParsePattern("(a)-(b)")
	res, err := submatch.Count(ctx, g, p, nil)
	fmt.Println(res.Partial, errors.Is(err, context.DeadlineExceeded))
	// Output:
	// true true
}
