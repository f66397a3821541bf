package pbe_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
)

// heapPeak runs f and returns the most heap its objects took while it ran, less what they took
// (live, after a GC) before: runtime/metrics' /memory/classes/heap/objects:bytes (objects not yet
// swept included: what the process holds of the heap), read every 200 µs.
func heapPeak(f func()) uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(s); return s[0].Value.Uint64() }
	runtime.GC()
	base := read()
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	}()
	f()
	close(done)
	<-stopped
	if v := read(); v > peak.Load() {
		peak.Store(v)
	}
	return peak.Load() - min(peak.Load(), base)
}

// TestMeasureReduceMemory prints, for labelled queries on the graph SUBMATCH_PBE_MEM_GRAPH (an
// R-MAT graph with zipf vertex labels and edge labels, e.g. scale 20), what pbe's reduction is
// charged against --memory beside the heap it took: making it (graph.InducedBytes or
// EdgeKindsBytes against the heap's peak), holding it (ReducedBytes against what a GC leaves), and
// a whole count's heap peak against what the count charged (the reduction, the largest part and
// the inter stage's buffers), with no limit and with --memory a byte below the reduction's
// making (the count then runs on the whole graph); the engine partitions as the registered one
// (partition.Auto). It runs only with the variable set;
// SUBMATCH_PBE_MEM_ONLY keeps the queries whose "query induced" (true or false) contains it.
func TestMeasureReduceMemory(t *testing.T) {
	path := os.Getenv("SUBMATCH_PBE_MEM_GRAPH")
	if path == "" {
		t.Skip("set SUBMATCH_PBE_MEM_GRAPH to a labelled graph to measure")
	}
	g, err := formats.Load(path, formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g.VerticesWithLabel(0) // (the data graph's label index, built once, before the measures)
	ctx := context.Background()
	fmt.Printf("| query | convention | --memory | reduced | charged making / heap peak (MB) | charged held / live (MB) | count: charged / heap peak (MB) | parts | time |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range []struct {
		query string
		sem   engine.Semantics
	}{
		{"(a:0)-[:*]-(b:1)-[:*]-(c:0)-[:*]-(a)", engine.Semantics{Induced: true}},
		{"(a:0)-[:*]-(b:1)-[:*]-(c:2)-[:*]-(d:3)-[:*]-(a)", engine.Semantics{}},
		{"(a:0)-[:*]-(b:1)-[:*]-(c:2)-[:*]-(d:3)-[:*]-(a)", engine.Semantics{Induced: true}},
	} {
		if only := os.Getenv("SUBMATCH_PBE_MEM_ONLY"); only != "" && !strings.Contains(c.query+" "+fmt.Sprint(c.sem.Induced), only) {
			continue
		}
		p, err := pattern.Parse(c.query)
		if err != nil {
			t.Fatal(err)
		}
		// The reduction alone, as reduce makes it.
		labels := labelsOf(p)
		slices.Sort(labels)
		labels = slices.Compact(labels)
		var making, held uint64
		makePeak := heapPeak(func() {
			kinds := patternKinds(p)
			if kinds != nil && !c.sem.Induced {
				c := 0
				for _, l := range labels {
					c += len(g.VerticesWithLabel(l))
				}
				h, size, _ := g.SubgraphByEdgeKindsWithin(kinds, g.NumEdges(), 0)
				h.VerticesWithLabel(labels[0])
				making, held = g.EdgeKindsBytes(c, size), size.Bytes(g.HasEdgeLabels())
				runtime.KeepAlive(h)
				return
			}
			s := g.InducedSize(labels)
			h := g.InducedByVertexLabels(labels)
			h.VerticesWithLabel(labels[0])
			making, held = g.InducedBytes(s), s.Bytes(g.HasEdgeLabels())
			runtime.KeepAlive(h)
		})
		var live uint64
		{
			runtime.GC()
			var h0, h1 runtime.MemStats
			runtime.ReadMemStats(&h0)
			sub := reducedOf(g, p, c.sem)
			sub.VerticesWithLabel(labels[0])
			runtime.GC()
			runtime.ReadMemStats(&h1)
			live = h1.HeapAlloc - min(h1.HeapAlloc, h0.HeapAlloc)
			runtime.KeepAlive(sub)
		}
		for _, limit := range []uint64{0, making - 1} {
			var st *pbe.Stats
			var res engine.Result
			t0 := time.Now()
			peak := heapPeak(func() {
				res, st, err = (&pbe.Engine{Partitioner: partition.Auto}).CountStats(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: c.sem, MemoryLimit: limit})
			})
			if err != nil {
				t.Fatalf("%s, --memory %d: %v", c.query, limit, err)
			}
			charged := st.ReducedBytes + st.MaxPartBytes + st.InterHostBytes
			conv := "embeddings"
			if c.sem.Induced {
				conv = "induced"
			}
			fmt.Printf("| `%s` | %s | %d | %v | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %d | %.2f s (count %d) |\n", c.query, conv, limit, st.Reduced,
				float64(making)/1e6, float64(makePeak)/1e6, float64(held)/1e6, float64(live)/1e6,
				float64(charged)/1e6, float64(peak)/1e6, st.Parts, time.Since(t0).Seconds(), res.Count)
		}
	}
}
