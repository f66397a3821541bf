// Command partbench times partition.Partition (default options, multilevel, unless -method) on
// R-MAT graphs (edge factor -ef, default 16, seed 1) at pbe's budgets (fractions of GraphBytes), and prints the parts, the
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
	methods := flag.String("method", "multilevel", "partition.Method names, each with :PASSES (Options.Passes) or not, comma-separated, run interleaved (multilevel, grow, ranges, auto)")
	ef := flag.Int("ef", 16, "R-MAT edge factor")
	flag.Parse()
	var ms []partition.Options
	for _, spec := range strings.Split(*methods, ",") {
		name, passes, ok := strings.Cut(spec, ":")
		m, err := partition.ParseMethod(name)
		if err != nil {
			fail(err)
		}
		o := partition.Options{Method: m, Cuts: *cuts}
		if ok {
			if o.Passes, err = strconv.Atoi(passes); err != nil {
				fail(fmt.Errorf("-method %s: %w", spec, err))
			}
		}
		ms = append(ms, o)
	}
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
		g, err := gen.RMAT(gen.RMATOptions{Scale: sc, EdgeFactor: *ef, Seed: 1})
		if err != nil {
			fail(err)
		}
		for _, d := range strings.Split(*divs, ",") {
			dv, err := strconv.Atoi(d)
			if err != nil || dv < 1 {
				fail(fmt.Errorf("-divs: want positive integers, got %q", d))
			}
			budget := partition.GraphBytes(g) / uint64(dv)
			ts := make([][]float64, len(ms))
			res := make([]*partition.Partitioning, len(ms))
			for range *runs {
				for i, o := range ms {
					o.Budget = budget
					t0 := time.Now()
					pt, err := partition.Partition(context.Background(), g, o)
					if err != nil {
						fail(err)
					}
					ts[i] = append(ts[i], time.Since(t0).Seconds())
					if maxb := pt.MaxBytes(); maxb > budget {
						fail(fmt.Errorf("scale %d 1/%d: a part needs %d bytes, over the budget %d", sc, dv, maxb, budget))
					}
					res[i] = pt
				}
			}
			for i, o := range ms {
				pt := res[i]
				sorted := slices.Clone(ts[i])
				slices.Sort(sorted)
				fmt.Printf("%v:%d scale %d n %d m %d budget 1/%d parts %d cut %d (%.2f%%) maxbytes %.3f of budget median %.2fs runs %.2f\n",
					o.Method, o.Passes, sc, g.NumVertices(), g.NumEdges(), dv, len(pt.Parts), pt.EdgeCut, 100*float64(pt.EdgeCut)/float64(g.NumEdges()),
					float64(pt.MaxBytes())/float64(budget), sorted[len(sorted)/2], ts[i])
			}
		}
	}
}

func fail(err error) {
	pprof.StopCPUProfile()
	fmt.Fprintln(os.Stderr, "partbench:", err)
	os.Exit(1)
}
