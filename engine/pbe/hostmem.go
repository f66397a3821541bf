package pbe

import (
	"fmt"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/partition"
)

// Host memory under --memory (Problem.MemoryLimit). Beside the reduced subgraph (reduce.go), a
// count takes on the host: the partitioner's working memory (partition.WorkingBytes, its result
// included), the partitioning it keeps through the count (Partitioning.HeldBytes; pbe reads no
// halo list, so they are not made: partition.Options.NoHalos), and, where --memory is the
// partition budget (oneAtATime), one part's copy at a time (graph.InducedPartBytes: up to about
// 3 times the partition model's bytes where every run of a list holds about one entry, plus a
// 4-byte id table of the whole graph) and the CPU engine's buffers on it, which get what is left
// (subProblem). So:
//
//   - the partitioner runs only where its working memory fits --memory: the configured method,
//     else a lighter one (partition.Lighter: Multilevel, Grow, Ranges), else engine.ErrMemory;
//   - where --memory is the partition budget, the parts are made for a budget in the model that
//     the copies fit (copyBudget: --memory less the partitioning and the copy's fixed tables, of
//     which HostReserve is kept for the CPU engine's buffers, over the whole graph's copy bytes
//     per model byte), and checked after: where the largest copy does not fit, the budget is
//     lowered by the excess and the graph partitioned again (copyAttempts in all), else
//     engine.ErrMemory;
//   - the CPU engine on a part runs within --memory less the partitioning and the part's copy,
//     and the inter stage's buffers within --memory less the partitioning.

// copyAttempts is the most partitionings made to fit the parts' copies under --memory.
const copyAttempts = 3

// HostReserve is the share of what --memory leaves beside the partitioning and a copy's fixed
// tables that is kept for the CPU engine's buffers on a part (its candidate sets: about 4 bytes
// a vertex a pattern vertex, and its workers' lists), where --memory is the partition budget:
// the copies are made for the rest.
const HostReserve = 0.5

// copyRoom is what a part's copy may take beyond its fixed tables (graph.InducedPartBytes of no
// vertex) under limit beside a partitioning holding held bytes: the rest less HostReserve; 0
// where nothing is left.
func copyRoom(g *graph.Graph, limit, held uint64, top uint32) uint64 {
	fixed := g.InducedPartBytes(0, 0, 0, top) + held
	if fixed >= limit {
		return 0
	}
	return uint64((1 - HostReserve) * float64(limit-fixed))
}

// partitionerWithin is opts with the method whose working memory fits limit (the configured one,
// else the lighter ones in turn) and that memory, or an error wrapping engine.ErrMemory when not
// even the lightest fits.
func partitionerWithin(g *graph.Graph, opts partition.Options, limit uint64) (partition.Options, uint64, error) {
	opts.Method = partition.Resolve(opts.Method, g.NumEdges())
	for {
		work := partition.WorkingBytes(g, opts)
		if work <= limit {
			return opts, work, nil
		}
		lighter, ok := partition.Lighter(opts.Method)
		if !ok {
			return opts, work, fmt.Errorf("pbe: %w: partitioning %d vertices and %d edges needs up to %d bytes (%v, the lightest partitioner), --memory is %d",
				engine.ErrMemory, g.NumVertices(), g.NumEdges(), work, opts.Method, limit)
		}
		opts.Method = lighter
	}
}

// maxLabel is g's largest vertex label.
func maxLabel(g *graph.Graph) uint32 {
	var m uint32
	for _, l := range g.Raw().VertexLabels {
		m = max(m, l)
	}
	return m
}

// copyBytes is, for every part of pt, the memory InducedPart takes at its peak to copy it
// (graph.InducedPartBytes of its vertices' whole lists and runs: an upper bound); none where pt
// has one part (the stages run on g itself).
func copyBytes(g *graph.Graph, pt *partition.Partitioning, top uint32) []uint64 {
	out := make([]uint64, len(pt.Parts))
	if len(pt.Parts) == 1 {
		return out
	}
	for i, vs := range pt.Parts {
		out[i] = partCopyBytes(g, vs, top)
	}
	return out
}

// partCopyBytes is graph.InducedPartBytes for the part of vertices vs (top: g's largest label).
func partCopyBytes(g *graph.Graph, vs []uint32, top uint32) uint64 {
	var entries, runs uint64
	for _, v := range vs {
		entries += uint64(g.Degree(v))
		runs += uint64(len(g.Runs(v)))
	}
	return g.InducedPartBytes(len(vs), entries, runs, top)
}

// copyBudget is the partition budget (in the partition model) for parts whose copies fit limit
// beside a partitioning of g (its part ids and lists: 8 bytes a vertex): copyRoom over the whole
// graph's copy bytes (graph.InducedPartBytes) per model byte (partition.GraphBytes); limit itself
// where g fits it whole (one part, no copy). An error wraps engine.ErrMemory where nothing is
// left for a copy.
func copyBudget(g *graph.Graph, limit uint64, top uint32) (uint64, error) {
	n := uint64(g.NumVertices())
	model := partition.GraphBytes(g)
	if model+8*n <= limit {
		return limit, nil
	}
	room := copyRoom(g, limit, 8*n, top)
	if room == 0 {
		return 0, fmt.Errorf("pbe: %w: copying a part of a %d-vertex graph needs over %d bytes (its id table and the partitioning's), --memory is %d",
			engine.ErrMemory, n, g.InducedPartBytes(0, 0, 0, top)+8*n, limit)
	}
	var runs uint64
	for v := range uint32(n) {
		runs += uint64(len(g.Runs(v)))
	}
	whole := g.InducedPartBytes(int(n), 2*g.NumEdges(), runs, top) - g.InducedPartBytes(0, 0, 0, top)
	perModel := max(1, float64(whole)/float64(max(model, 1)))
	return min(limit, uint64(float64(room)/perModel)), nil
}

// limitLeft is limit less used, at least 1 (a MemoryLimit of 0 would be none).
func limitLeft(limit, used uint64) uint64 {
	if used >= limit {
		return 1
	}
	return limit - used
}
