package graph_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/partition"
)

// TestInducedPartTiming times building every part's subgraph of a partitioned graph with
// InducedPart against the Builder (what package pbe did before), interleaved A/B rounds, and logs
// the medians. It runs only when SUBMATCH_INDUCED_GRAPH names a graph file;
// SUBMATCH_INDUCED_PARTS (default 5) sets the budget to the graph's bytes over that, and
// SUBMATCH_INDUCED_ROUNDS (default 3) the rounds, SUBMATCH_INDUCED_METHOD the partitioner
// (a partition.Method's number; default Auto, as pbe's). Timings are logged, never asserted.
func TestInducedPartTiming(t *testing.T) {
	path := os.Getenv("SUBMATCH_INDUCED_GRAPH")
	if path == "" {
		t.Skip("SUBMATCH_INDUCED_GRAPH not set")
	}
	div, rounds := envInt(t, "SUBMATCH_INDUCED_PARTS", 5), envInt(t, "SUBMATCH_INDUCED_ROUNDS", 3)
	g, err := formats.Load(path, formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	pt, err := partition.Partition(context.Background(), g, partition.Options{
		Budget: partition.GraphBytes(g) / uint64(div), Method: partition.Method(envInt(t, "SUBMATCH_INDUCED_METHOD", int(partition.Auto)))})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d vertices, %d edges; %d parts, %d cut edges, partitioned in %v",
		g.NumVertices(), g.NumEdges(), len(pt.Parts), pt.EdgeCut, time.Since(t0))
	all := func(f func(vs []uint32, p uint32) *graph.Graph) (time.Duration, uint64) {
		t0 := time.Now()
		var edges uint64
		for p, vs := range pt.Parts {
			edges += f(vs, uint32(p)).NumEdges()
		}
		return time.Since(t0), edges
	}
	var old, cur []time.Duration
	for range rounds {
		d, eo := all(func(vs []uint32, p uint32) *graph.Graph { return graph.InducedByBuilder(t, g, vs, pt.Of, p) })
		old = append(old, d)
		d, en := all(func(vs []uint32, p uint32) *graph.Graph { return g.InducedPart(vs, pt.Of, p) })
		cur = append(cur, d)
		if eo != en {
			t.Fatalf("builder: %d edges in the parts, InducedPart: %d", eo, en)
		}
	}
	t.Logf("all parts' subgraphs: builder %v (median of %v), InducedPart %v (median of %v)",
		median(old), old, median(cur), cur)
}

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a non-negative integer", name, s)
	}
	return n
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	slices.Sort(s)
	return s[len(s)/2]
}
