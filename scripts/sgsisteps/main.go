// Command sgsisteps counts queries with sgsi's host emulation and prints each join step's
// table (rows, buffer entries, output rows, bytes, host time) and the join order beside the cpu
// engine's plan order and count (issue 21: long random walks).
//
//	go run ./scripts/sgsisteps [-timeout 60s] [-buffered] [-core] [-refine] [-joinleaves] [-induced] [-div 4] DATA QUERY...
//
// -div N gives the emulated region a 1/N of sgsi.GraphBytes (out of core: -div 4 is "a quarter
// of its layout"); without it the region is the emulation's default (256 MiB, in core for
// R-MAT up to scale 20 or so). Each count then prints its phases and its traffic (chunks,
// segment uploads, spilled bytes) and the process's CPU time.
//
// A count's leaves (pattern vertices of degree one) are counted by the leaf step after the
// joins unless -joinleaves: its row reads "leaves [vertices]", its rows the joined vertices'
// matches, its items the list entries it read, its output the count before |Aut(p)|. Where the
// count weighed its plan, "sgsi weighed" prints that estimate (sgsi.Weighed).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/pprof"
	"time"

	"github.com/submatch/submatch"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/plan"
)

func main() {
	timeout := flag.Duration("timeout", time.Minute, "cut each count after this long")
	buffered := flag.Bool("buffered", false, "count sgsi's last step with buffers (its entries then show)")
	noCPU := flag.Bool("nocpu", false, "skip the cpu engine's count")
	paper := flag.Bool("paper", false, "sgsi's --sgsi-paper-order (SGSI's join order; default: the core order)")
	refine := flag.Bool("refine", false, "sgsi's --sgsi-refine")
	induced := flag.Bool("induced", false, "count induced matches (sgsi then joins every leaf)")
	joinLeaves := flag.Bool("joinleaves", false, "sgsi's --sgsi-join-leaves (the leaves joined, not counted by the leaf step)")
	div := flag.Uint64("div", 0, "emulated region: sgsi.GraphBytes / div (0: the emulation's default)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	g, err := submatch.Load(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	for _, qf := range flag.Args()[1:] {
		p, err := submatch.LoadPattern(qf)
		if err != nil {
			log.Fatal(err)
		}
		prob := &engine.Problem{Data: g.Internal(), Pattern: p.Internal(), Semantics: engine.Semantics{Induced: *induced}}
		fmt.Printf("== %s (%d vertices, %d edges)\n", qf, p.Internal().NumVertices(), p.Internal().NumEdges())
		opts, err := cpu.PlanOptions(prob, false)
		if err != nil {
			log.Fatal(err)
		}
		pl := plan.Build(g.Internal(), p.Internal(), opts)
		cands := make([]int, len(pl.Candidates))
		for u, c := range pl.Candidates {
			cands[u] = len(c)
		}
		fmt.Printf("cpu plan order %v, candidates %v\n", pl.Order(), cands)
		if !*noCPU {
			ctx, cancel := context.WithTimeout(context.Background(), *timeout)
			t := time.Now()
			res, err := cpu.Engine{}.Count(ctx, prob)
			cancel()
			fmt.Printf("cpu count %d partial %v in %v (err %v)\n", res.Count, res.Partial, time.Since(t).Round(time.Millisecond), err)
		}
		o := sgsi.Options{Host: true, Buffered: *buffered, PaperOrder: *paper, Refine: *refine, JoinLeaves: *joinLeaves}
		if *div > 0 {
			o.HostBytes = sgsi.GraphBytes(g.Internal()) / *div
		}
		cpu0 := testenv.CPUTime()
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		res, st, err := sgsi.Engine{Options: o}.CountStats(ctx, prob)
		cancel()
		fmt.Printf("sgsi count %d partial %v in %v (err %v) order %v\n", res.Count, res.Partial, st.Total.Round(time.Millisecond), err, st.Order)
		fmt.Printf("sgsi region %d B (in core %v, cache %d B), cpu %v: setup %v layout %v (search %v) filter %v group %v refs %v tables %v driver %v (comm %v comp %v) other %v\n",
			st.RegionBytes, st.InCore, st.CacheBytes, (testenv.CPUTime() - cpu0).Round(time.Millisecond),
			st.Setup.Round(time.Millisecond), st.Layout.Round(time.Millisecond), st.Search.Round(time.Millisecond), st.Filter.Round(time.Millisecond),
			st.Group.Round(time.Millisecond), st.Refs.Round(time.Millisecond), st.Tables.Round(time.Millisecond),
			st.Driver.Round(time.Millisecond), st.Comm.Round(time.Millisecond), st.Comp.Round(time.Millisecond), st.Other().Round(time.Millisecond))
		fmt.Printf("sgsi chunks %d windows %d (retries %d) segments %d (hits %d, parts %d, gathered %d, merged %d, sparse %d) tiled %d blocks %d; to device %.1f MB in %d copies, from device %.1f MB in %d; launches %d; peak host tables %.1f MB (grown by copying %.1f MB)\n",
			st.Chunks, st.Windows, st.WindowRetries, st.Segments, st.SegmentHits, st.Parts, st.Gathered, st.Merged, st.Sparse, st.Tiled, st.Blocks,
			float64(st.BytesToGPU)/1e6, st.CopiesToGPU, float64(st.BytesFromGPU)/1e6, st.CopiesFromGPU, st.Launches, float64(st.PeakHost)/1e6, float64(st.TableCopied)/1e6)
		fmt.Printf("sgsi layout: store %v, label graphs %v: %v\n", st.Store.Round(time.Millisecond), st.LabelGraphs.Round(time.Millisecond), st.LabelBuilds)
		if w := st.Weighed; w.Work > 0 {
			fmt.Printf("sgsi weighed %.3g: join rows %.3g, leaf rows %.3g, leaf recounts %.3g, leaf entries %.3g\n", w.Work, w.Rows, w.LeafRows, w.LeafLookups, w.LeafEntries)
		}
		fmt.Printf("sgsi candidates %v (refinement removed %d, filter %v)\n", st.Candidates, st.Refined, st.Filter.Round(time.Millisecond))
		fmt.Printf("  step vertex       rows      items        out   table MB  buffer MB   time\n")
		for i, s := range st.PerStep {
			if i == st.Steps { // the leaf step: its rows are the joined vertices' matches
				fmt.Printf("  leaves %v %10d %10d %10d %10.1f %10s %6v\n", st.Order[i+1:], s.Rows, s.Items, s.Out,
					float64(s.Rows)*float64(4*(i+1))/1e6, "", s.Time.Round(time.Millisecond))
				continue
			}
			fmt.Printf("  %4d %6d %10d %10d %10d %10.1f %10.1f %6v\n", i, st.Order[i+1], s.Rows, s.Items, s.Out,
				float64(s.Rows)*float64(4*(i+1))/1e6, float64(s.Items)*4/1e6, s.Time.Round(time.Millisecond))
		}
	}
}
