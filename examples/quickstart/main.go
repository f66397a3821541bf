// Command quickstart uses submatch the way a Go program that imports it would: it counts the
// triangles of a small graph, lists a pattern's matches and cancels a count. The repository's
// tests build and run it as a module of its own (TestExternalModule).
package main

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/submatch/submatch"
)

func main() {
	ctx := context.Background()
	g, err := submatch.Read(ctx, strings.NewReader("1 2\n2 3\n3 1\n3 4\n"), "")
	if err != nil {
		log.Fatal(err)
	}
	triangle, err := submatch.ParsePattern("(a)-(b)-(c)-(a)")
	if err != nil {
		log.Fatal(err)
	}
	res, err := submatch.Count(ctx, g, triangle, &submatch.Options{Unique: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("triangles:", res.Count)

	edge, _ := submatch.ParsePattern("(a)-(b)")
	n := 0
	for m, err := range submatch.Matches(ctx, g, edge, &submatch.Options{Unique: true}) {
		if err != nil {
			log.Fatal(err)
		}
		_ = m // m[0], m[1]: the input's ids; reused from one match to the next
		n++
	}
	fmt.Println("edges listed:", n)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	res, err = submatch.Count(cancelled, g, triangle, nil)
	fmt.Println("cancelled:", res.Partial, err != nil)
}
