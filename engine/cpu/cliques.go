package cpu

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/internal/cliques"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// Cliques of three or more vertices with uniform labels (asClique) are counted without the
// general search, by the shared clique counter (package engine/internal/cliques).

// minCliqueSize is the smallest clique the CPU engine counts with the clique counter: below
// plan.MinCliqueSize, triangles too, which the counter takes from each root's marked upward
// neighbours, every other member's upward list scanned against the marks (measured against the
// general search in docs/benchmarks.md, branch cputri).
const minCliqueSize = 3

// asClique is plan.AsClique for the CPU engine: the clique form of p in g when p is a clique of
// at least minCliqueSize vertices with uniform labels.
func asClique(g *graph.Graph, p *pattern.Pattern) (plan.Clique, bool) {
	return plan.CliqueOf(g, p, minCliqueSize)
}

// countCliquesApart turns the clique counter on; tests turn it off to check it against the
// general search.
var countCliquesApart = true

// countCliques counts the matches of a clique pattern (see plan.Clique) on all of p's threads.
func countCliques(ctx context.Context, p *engine.Problem, c plan.Clique, planTime time.Duration) (engine.Result, error) {
	start := time.Now()
	threads := p.ThreadCount()
	matrixMax := cliques.MatrixLimit
	if p.MemoryLimit > 0 {
		// Within the limit: smaller matrices (larger sets split first), then fewer workers.
		size := cliques.SizeOf(p.Data)
		table := 8*size.Vertices + c.GraphBytes(p.Data) // (and the graph of its labels, where that is a copy)
		var ok bool
		if table < p.MemoryLimit {
			matrixMax, ok = cliques.FitMatrix(size, c.K, p.MemoryLimit-table)
		}
		if !ok {
			return engine.Result{}, fmt.Errorf("cpu engine: %w: counting %d-cliques needs %d bytes, the limit is %d",
				engine.ErrMemory, c.K, table+cliques.WorkerMemory(size, c.K, 0), p.MemoryLimit)
		}
		threads = max(1, min(threads, int((p.MemoryLimit-table)/max(1, cliques.WorkerMemory(size, c.K, matrixMax)))))
	}
	o := c.Orient(p.Data, threads)
	planTime += time.Since(start)
	n := p.Data.NumVertices()
	total, err := cliques.Count(ctx, o, c.K, matrixMax, n, func(i int) uint32 { return uint32(i) }, threads, p.Progress)
	if err == nil || ctx.Err() != nil {
		var ok bool
		if total, ok = c.Embeddings(total, p.Semantics.Unique); !ok {
			err = engine.ErrOverflow
		}
	}
	if errors.Is(err, engine.ErrOverflow) {
		return engine.Result{}, err
	}
	if err != nil {
		return engine.Result{Count: total, Partial: true, PlanTime: planTime}, err
	}
	return engine.Result{Count: total, PlanTime: planTime}, nil
}
