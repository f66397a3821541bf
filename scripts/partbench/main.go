// Command partbench times partition.Partition (default options, multilevel, unless -method) on
// R-MAT graphs (edge factor -ef, default 16, seed 1) at pbe's budgets (fractions of GraphBytes), and prints the parts, the
// edge cut and the median of the runs; docs/benchmarks.md ("Partitioner speed-ups") used it, built
// from the commits before and after, to measure both in one script. -cpuprofile writes a pprof
// profile of the whole. -graphs adds graph files (formats.Load), each timed at the same budgets.
// Each run's process CPU time (user and system, all threads) is printed beside its wall time:
// the partitioner runs Options.Cuts seeds at once, so on a loaded machine the CPU seconds are
// the steadier figure.
//go:build unix

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
	"syscall"
	"time"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
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
	coarsen := flag.String("coarsen", "default", "partition.Coarsening names, comma-separated, each run with every -method, interleaved (default, pairs, clusters)")
	files := flag.String("graphs", "", "graph files (formats.Load), comma-separated, after the R-MAT scales")
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
		for _, cs := range strings.Split(*coarsen, ",") {
			if o.Coarsening, err = partition.ParseCoarsening(cs); err != nil {
				fail(err)
			}
			ms = append(ms, o)
		}
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
	type input struct {
		name string
		load func() (*graph.Graph, error)
	}
	var ins []input
	for _, s := range strings.Split(*scales, ",") {
		if s == "" {
			continue
		}
		sc, err := strconv.Atoi(s)
		if err != nil {
			fail(fmt.Errorf("-scales: %w", err))
		}
		ins = append(ins, input{"scale " + s, func() (*graph.Graph, error) {
			return gen.RMAT(gen.RMATOptions{Scale: sc, EdgeFactor: *ef, Seed: 1})
		}})
	}
	for _, f := range strings.Split(*files, ",") {
		if f != "" {
			ins = append(ins, input{f, func() (*graph.Graph, error) { return formats.Load(f, formats.Options{}) }})
		}
	}
	for _, in := range ins {
		g, err := in.load()
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
			cpus := make([][]float64, len(ms))
			res := make([]*partition.Partitioning, len(ms))
			for range *runs {
				for i, o := range ms {
					o.Budget = budget
					t0, c0 := time.Now(), processCPU()
					pt, err := partition.Partition(context.Background(), g, o)
					if err != nil {
						fail(err)
					}
					ts[i] = append(ts[i], time.Since(t0).Seconds())
					cpus[i] = append(cpus[i], processCPU()-c0)
					if maxb := pt.MaxBytes(); maxb > budget {
						fail(fmt.Errorf("%s 1/%d: a part needs %d bytes, over the budget %d", in.name, dv, maxb, budget))
					}
					res[i] = pt
				}
			}
			for i, o := range ms {
				pt := res[i]
				fmt.Printf("%v:%d:%v %s n %d m %d budget 1/%d parts %d cut %d (%.2f%%) maxbytes %.3f of budget median %.2fs runs %.2f cpu median %.2fs runs %.2f\n",
					o.Method, o.Passes, o.Coarsening, in.name, g.NumVertices(), g.NumEdges(), dv, len(pt.Parts), pt.EdgeCut, 100*float64(pt.EdgeCut)/float64(g.NumEdges()),
					float64(pt.MaxBytes())/float64(budget), median(ts[i]), ts[i], median(cpus[i]), cpus[i])
			}
		}
	}
}

// median is the middle of xs (the upper one of an even count).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// processCPU is the process's CPU seconds so far (user and system, all threads).
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail(fmt.Errorf("getrusage: %w", err))
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func fail(err error) {
	pprof.StopCPUProfile()
	fmt.Fprintln(os.Stderr, "partbench:", err)
	os.Exit(1)
}
