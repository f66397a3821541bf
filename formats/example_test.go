package formats_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/submatch/submatch/formats"
)

// Read takes any reader: here a gzip-compressed SNAP edge list with a header line, detected from
// its content.
func ExampleRead() {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("FromNodeId\tToNodeId\n10\t20\n20\t30\n30\t10\n"))
	zw.Close()
	var warnings []string
	g, err := formats.Read(context.Background(), &gz, "", formats.Options{
		Name: "triangle.txt.gz",
		Warn: func(msg string) { warnings = append(warnings, msg) },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.NumVertices(), "vertices,", g.NumEdges(), "edges")
	fmt.Println(warnings[0])
	// Output:
	// 3 vertices, 3 edges
	// triangle.txt.gz:1: skipped the header line "FromNodeId\tToNodeId"
}

// WriteGraph writes a graph in any text format; CSV keeps string vertex names.
func ExampleWriteGraph() {
	g, err := formats.Read(context.Background(), strings.NewReader("alice,bob,1\nbob,carol\n"), "csv", formats.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	formats.WriteGraph(os.Stdout, g, "csv")
	// Output:
	// alice,bob,1
	// bob,carol,0
}

// LoadContext reads a file in any format; cancelling the context stops it.
func ExampleLoadContext() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "g.graph")
	os.WriteFile(path, []byte("t 3 2\nv 0 1\nv 1 2\nv 2 1\ne 0 1\ne 1 2\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g, err := formats.LoadContext(ctx, path, formats.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	format, _ := formats.Detect(path)
	fmt.Println(format, g.NumVertices(), g.NumEdges())
	// Output: sm 3 2
}
