package pbe

import (
	"context"
	"fmt"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/partition"
)

// layoutRow is the partitioning of a graph under one budget, as `submatch stats --formats`
// reports it.
type layoutRow struct {
	Fraction     string  `json:"fraction"` // of GraphBytes
	Budget       uint64  `json:"budget_bytes"`
	Parts        int     `json:"parts"`
	EdgeCut      uint64  `json:"edge_cut"`
	CutShare     float64 `json:"cut_share"`
	MaxPartBytes uint64  `json:"max_part_bytes"`
	HaloVertices uint64  `json:"halo_vertices"`
	PartitionMS  float64 `json:"partition_ms"`
}

type layoutStats struct {
	GraphBytes uint64      `json:"graph_bytes"`
	Method     string      `json:"method"`
	Budgets    []layoutRow `json:"budgets"`
}

// MinBudget is the smallest budget g can be partitioned under: the largest of its vertices' bytes
// with their whole halo.
func MinBudget(g *graph.Graph) uint64 {
	var b uint64
	for v := range uint32(g.NumVertices()) {
		b = max(b, partition.VertexCost(g, v)+uint64(g.Degree(v))*partition.HaloBytes)
	}
	return b
}

// LayoutReport implements engine.LayoutReporter: the parts the engine's partitioner makes of g
// under budgets of 1/4 and 1/16 of its bytes (raised to MinBudget where that is below).
func (e *Engine) LayoutReport(ctx context.Context, g *graph.Graph) (engine.Layout, error) {
	f := &layoutStats{GraphBytes: partition.GraphBytes(g), Method: e.Partitioner.String()}
	lines := []string{fmt.Sprintf("graph bytes %d (CSR entries %d B a vertex, %d B an adjacency entry; halo %d B a vertex)",
		f.GraphBytes, partition.VertexBytes, partition.EntryBytes, partition.HaloBytes)}
	for _, div := range []uint64{4, 16} {
		budget := max(f.GraphBytes/div, MinBudget(g))
		t0 := time.Now()
		pt, err := partition.Partition(ctx, g, partition.Options{Budget: budget, Passes: e.Passes, Method: e.Partitioner})
		if err != nil {
			return engine.Layout{}, fmt.Errorf("pbe: partitioning: %w", err)
		}
		r := layoutRow{Fraction: fmt.Sprintf("1/%d", div), Budget: budget, Parts: len(pt.Parts), EdgeCut: pt.EdgeCut,
			MaxPartBytes: pt.MaxBytes(), PartitionMS: float64(time.Since(t0).Microseconds()) / 1000}
		if m := g.NumEdges(); m > 0 {
			r.CutShare = float64(pt.EdgeCut) / float64(m)
		}
		r.HaloVertices = pt.HaloVertices
		f.Budgets = append(f.Budgets, r)
		lines = append(lines, fmt.Sprintf("budget %s (%d B): %d parts, %d cut edges (%.1f%%), largest part %d B, %d halo vertices, %.1f ms",
			r.Fraction, r.Budget, r.Parts, r.EdgeCut, 100*r.CutShare, r.MaxPartBytes, r.HaloVertices, r.PartitionMS))
	}
	return engine.Layout{Title: "pbe's partitions (" + f.Method + " partitioner)", Lines: lines, Data: f}, nil
}
