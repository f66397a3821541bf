// Command submatch-chart draws the chart of a benchmark run: it reads DIR/results.csv, written by
// `submatch bench --out DIR`, and writes DIR/chart.png (the geometric mean match time and
// speedup of every group of cases, one series per thread count). It is a command of its own so
// that the plotting library stays out of submatch.
//
// Usage: go run ./cmd/submatch-chart DIR
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/submatch/submatch/bench"
	"github.com/submatch/submatch/bench/chart"
	"github.com/submatch/submatch/formats"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: submatch-chart DIR  (reads DIR/results.csv, writes DIR/chart.png)")
		os.Exit(2)
	}
	if err := draw(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "submatch-chart:", err)
		os.Exit(1)
	}
}

func draw(dir string) error {
	in, err := os.Open(filepath.Join(dir, bench.CSVFile))
	if err != nil {
		return err
	}
	defer in.Close()
	rs, err := bench.ReadCSV(in)
	if err != nil {
		return fmt.Errorf("%s: %w", in.Name(), err)
	}
	if len(rs) == 0 {
		return fmt.Errorf("%s: no results", in.Name())
	}
	out := filepath.Join(dir, bench.ChartFile)
	if err := formats.WriteAtomic(out, func(w io.Writer) error { return chart.Write(w, rs) }); err != nil {
		return err
	}
	fmt.Println(out)
	return nil
}
