// Command oocprof times the out-of-core engines' phases on the host (issue 21): it loads a data
// graph (any format; .smg snapshots are memory-mapped) and a query, then runs pbe (host backend)
// and sgsi (host emulation) at a byte budget a fraction of the graph, printing the load, the
// engine's phases and the count, each under an optional pprof CPU profile of its own.
//
//	go run ./scripts/oocprof -data g.smg -query q.graph -div 4 -engines pbe,sgsi -profile /tmp/p
//
// writes /tmp/p-load.prof, /tmp/p-pbe.prof and /tmp/p-sgsi.prof. -timeout cuts each count.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/submatch/submatch"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/auto"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/partition"
)

func main() {
	data := flag.String("data", "", "data graph")
	query := flag.String("query", "", "query graph file")
	div := flag.Uint64("div", 4, "budget: GraphBytes / div")
	engines := flag.String("engines", "pbe,sgsi", "engines, comma separated (pbe, pbe-part: partitioning only, sgsi, sgsi-buffered: its last step with buffers, cpu, auto: its decision alone)")
	prof := flag.String("profile", "", "profile prefix (empty: none)")
	timeout := flag.Duration("timeout", time.Minute, "limit per count")
	threads := flag.Int("threads", 0, "threads (0: all cores)")
	passes := flag.Int("passes", 0, "partition.Options.Passes (0: the default)")
	method := flag.String("partitioner", "auto", "pbe's partitioner (multilevel, grow, auto)")
	triangles := flag.Bool("triangles", false, "multilevel with triangle edge weights (partition.Options.Triangles)")
	flag.Parse()
	if *data == "" || *query == "" {
		fail(errors.New("-data and -query are required"))
	}
	var g *submatch.Graph
	profiled(*prof, "load", func() error {
		t0 := time.Now()
		var err error
		g, err = submatch.Load(*data)
		if err == nil {
			fmt.Printf("load: %d vertices, %d edges in %.2f s\n", g.NumVertices(), g.NumEdges(), time.Since(t0).Seconds())
		}
		return err
	})
	m, err := partition.ParseMethod(*method)
	if err != nil {
		fail(err)
	}
	q, err := submatch.LoadPattern(*query)
	if err != nil {
		fail(err)
	}
	for _, name := range strings.Split(*engines, ",") {
		p := &engine.Problem{Data: g.Internal(), Pattern: q.Internal(), Threads: *threads}
		profiled(*prof, name, func() error {
			ctx, cancel := context.WithTimeout(context.Background(), *timeout)
			defer cancel()
			t0 := time.Now()
			switch name {
			case "pbe-part":
				b := partition.GraphBytes(p.Data) / *div
				pt, err := partition.Partition(ctx, p.Data, partition.Options{Budget: b, Method: m, Passes: *passes, Triangles: *triangles})
				if err != nil {
					return err
				}
				fmt.Printf("pbe-part: budget %d, %d parts, cut %d (%.1f%%), %d moves, %.2f s\n", b, len(pt.Parts), pt.EdgeCut,
					100*float64(pt.EdgeCut)/float64(p.Data.NumEdges()), pt.Moves, time.Since(t0).Seconds())
			case "pbe":
				p.GPUMemoryLimit = partition.GraphBytes(p.Data) / *div
				r, st, err := (&pbe.Engine{Partitioner: m, Triangles: *triangles}).CountStats(ctx, p)
				fmt.Printf("pbe: count %d partial %v, %.2f s: reduce %.2f s (%v: %d vertices, %d edges), partition %.2f s, %d parts, cut %d, intra %.2f s (%d), inter %.2f s (%d, %d seeds, %d nodes)\n",
					r.Count, r.Partial, time.Since(t0).Seconds(), st.ReduceTime.Seconds(), st.Reduced, st.ReducedVertices, st.ReducedEdges,
					st.PartitionTime.Seconds(), st.Parts, st.EdgeCut,
					st.IntraTime.Seconds(), st.IntraMatches, st.InterTime.Seconds(), st.InterMatches, st.Seeds, st.InterNodes)
				return err
			case "sgsi", "sgsi-buffered":
				p.GPUMemoryLimit = sgsi.GraphBytes(p.Data) / *div
				r, st, err := sgsi.Engine{Options: sgsi.Options{Host: true, Buffered: name == "sgsi-buffered"}}.CountStats(ctx, p)
				fmt.Printf("sgsi: count %d partial %v, %.2f s: layout %.2f s, filter %.2f s, comp %.2f s, comm %.2f s, %d chunks, %d launches, peak host tables %d\n"+
					"  to GPU %d B in %d copies (segment offsets %d B, %d sparse), %d back, %d segments (%d gathered, %d merged, %d hits), %d windows (%d retried), %d parts, %d tiled\n"+
					"  direct: %d blocks, %d rows, %d pieces, %d units buffered\n"+
					"  host: group %.2f s, refs %.2f s, tables %.2f s, driver %.2f s, other %.2f s\n",
					r.Count, r.Partial, time.Since(t0).Seconds(), st.Layout.Seconds(), st.Filter.Seconds(), st.Comp.Seconds(),
					st.Comm.Seconds(), st.Chunks, st.Launches, st.PeakHost,
					st.BytesToGPU, st.CopiesToGPU, st.OffsetBytes, st.Sparse, st.CopiesFromGPU, st.Segments, st.Gathered, st.Merged, st.SegmentHits, st.Windows, st.WindowRetries, st.Parts, st.Tiled,
					st.Blocks, st.BlockRows, st.Pieces, st.BlockFallbacks,
					st.Group.Seconds(), st.Refs.Seconds(), st.Tables.Seconds(), st.Driver.Seconds(), st.Other().Seconds())
				return err
			case "cpu":
				r, err := cpu.Engine{}.Count(ctx, p)
				fmt.Printf("cpu: count %d partial %v, %.2f s\n", r.Count, r.Partial, time.Since(t0).Seconds())
				return err
			case "auto":
				d, err := auto.Engine{}.Decide(ctx, p, false)
				d.Release()
				fmt.Printf("auto: %.2f s to decide: %s\n%s", time.Since(t0).Seconds(), d, d.Explain())
				return err
			default:
				return fmt.Errorf("unknown engine %q", name)
			}
			return nil
		})
	}
}

// profiled runs f under a CPU profile written to prefix-name.prof (none when prefix is empty).
func profiled(prefix, name string, f func() error) {
	if prefix != "" {
		out, err := os.Create(prefix + "-" + name + ".prof")
		if err != nil {
			fail(err)
		}
		defer out.Close()
		if err := pprof.StartCPUProfile(out); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	if err := f(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "oocprof:", err)
	os.Exit(1)
}
