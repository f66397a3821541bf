package pbe_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
)

// TestMeasureHostPeak prints, for the query SUBMATCH_PBE_PEAK_QUERY (induced where
// SUBMATCH_PBE_PEAK_INDUCED is set) on the graph SUBMATCH_PBE_PEAK_GRAPH, pbe's heap peak over
// the heap live before (heapPeak) under each --memory of SUBMATCH_PBE_PEAK_MIB (MiB, comma
// separated; the partition budget, as with the registered engine), beside what it charged (the
// partitioner's working memory, the partitioning held, the largest copy) and its count against the
// cpu engine's. It runs only with the variables set.
func TestMeasureHostPeak(t *testing.T) {
	path, query := os.Getenv("SUBMATCH_PBE_PEAK_GRAPH"), os.Getenv("SUBMATCH_PBE_PEAK_QUERY")
	if path == "" || query == "" {
		t.Skip("set SUBMATCH_PBE_PEAK_GRAPH, SUBMATCH_PBE_PEAK_QUERY and SUBMATCH_PBE_PEAK_MIB to measure")
	}
	g, err := formats.Load(path, formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g.VerticesWithLabel(0)
	p, err := pattern.Parse(query)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sem := engine.Semantics{Induced: os.Getenv("SUBMATCH_PBE_PEAK_INDUCED") != ""}
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	want, err := cpu.Count(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: sem})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("| --memory (MiB) | heap peak (MB) | peak / --memory | partitioner | work / held / largest copy (MB) | reduced | parts | count = cpu | time |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, f := range strings.Split(os.Getenv("SUBMATCH_PBE_PEAK_MIB"), ",") {
		mib, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatal(err)
		}
		limit := uint64(mib * (1 << 20))
		var st *pbe.Stats
		var res engine.Result
		t0 := time.Now()
		peak := heapPeak(func() {
			res, st, err = (&pbe.Engine{Partitioner: partition.Auto}).CountStats(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: sem, MemoryLimit: limit})
		})
		if err != nil {
			fmt.Printf("| %g | %.1f | %.2f | %s | %.1f / %.1f / %.1f | %v | %d | error: %v | %.2f s |\n", mib, float64(peak)/1e6, float64(peak)/float64(limit),
				st.PartitionMethod, float64(st.PartitionWorkBytes)/1e6, float64(st.PartitionHeldBytes)/1e6, float64(st.MaxCopyBytes)/1e6, st.Reduced, st.Parts, err, time.Since(t0).Seconds())
			continue
		}
		fmt.Printf("| %g | %.1f | %.2f | %s | %.1f / %.1f / %.1f | %v | %d | %v | %.2f s |\n", mib, float64(peak)/1e6, float64(peak)/float64(limit),
			st.PartitionMethod, float64(st.PartitionWorkBytes)/1e6, float64(st.PartitionHeldBytes)/1e6, float64(st.MaxCopyBytes)/1e6, st.Reduced, st.Parts,
			res.Count == want.Count, time.Since(t0).Seconds())
		if res.Count != want.Count {
			t.Errorf("--memory %g MiB: count %d, the cpu engine's %d", mib, res.Count, want.Count)
		}
	}
}
