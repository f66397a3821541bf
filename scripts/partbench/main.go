// Command partbench times partition.Partition (default options, multilevel) on R-MAT graphs
// (edge factor 16, seed 1) at pbe's budgets (fractions of GraphBytes), and prints the parts, the
// edge cut and the median of the runs; docs/benchmarks.md ("Partitioner speed-ups") used it, built
// from the commits before and after, to measure both in one script. -cpuprofile writes a pprof
// profile of the whole.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/partition"
)

func main() {
	scales := flag.String("scales", "16,18", "scales")
	divs := flag.String("divs", "4,16", "budget divisors")
	runs := flag.Int("runs", 3, "runs")
	cuts := flag.Int("cuts", 0, "Options.Cuts (0: the default)")
	prof := flag.String("cpuprofile", "", "file")
	flag.Parse()
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	for _, s := range strings.Split(*scales, ",") {
		sc, err := strconv.Atoi(s)
		if err != nil {
			fail(fmt.Errorf("-scales: %w", err))
		}
		g, err := gen.RMAT(gen.RMATOptions{Scale: sc, EdgeFactor: 16, Seed: 1})
		if err != nil {
			fail(err)
		}
		for _, d := range strings.Split(*divs, ",") {
			dv, err := strconv.Atoi(d)
			if err != nil || dv < 1 {
				fail(fmt.Errorf("-divs: want positive integers, got %q", d))
			}
			budget := partition.GraphBytes(g) / uint64(dv)
			var ts []float64
			var cut uint64
			var parts int
			var maxb uint64
			for range *runs {
				t0 := time.Now()
				pt, err := partition.Partition(context.Background(), g, partition.Options{Budget: budget, Cuts: *cuts})
				if err != nil {
					fail(err)
				}
				ts = append(ts, time.Since(t0).Seconds())
				cut, parts, maxb = pt.EdgeCut, len(pt.Parts), pt.MaxBytes()
				if maxb > budget {
					fail(fmt.Errorf("scale %d 1/%d: a part needs %d bytes, over the budget %d", sc, dv, maxb, budget))
				}
			}
			sorted := slices.Clone(ts)
			slices.Sort(sorted)
			fmt.Printf("scale %d n %d m %d budget 1/%d parts %d cut %d (%.2f%%) maxbytes %.3f of budget median %.2fs runs %v\n",
				sc, g.NumVertices(), g.NumEdges(), dv, parts, cut, 100*float64(cut)/float64(g.NumEdges()), float64(maxb)/float64(budget), sorted[len(sorted)/2], ts)
		}
	}
}

func fail(err error) {
	pprof.StopCPUProfile()
	fmt.Fprintln(os.Stderr, "partbench:", err)
	os.Exit(1)
}
