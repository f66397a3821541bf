package cpu

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/internal/cliques"
	"github.com/submatch/submatch/plan"
)

// Cliques of three or more vertices with uniform labels (asClique) are counted without the
// general search, by the shared clique counter (package engine/internal/cliques).

// countCliquesApart turns the clique counter on; tests turn it off to check it against the
// general search.
var countCliquesApart = true

// minCliqueSize is the smallest clique the CPU engine counts with the clique counter: below
// plan.MinCliqueSize, triangles too, which the counter takes from each root's marked upward
// neighbours, every other member's upward list scanned against the marks (2.5-3.7 times less CPU
// time than the general search on R-MAT scales 16-20: docs/benchmarks.md, branch cputri).
const minCliqueSize = 3

// asClique is plan.AsClique for the CPU engine: the clique form of p's pattern in its data graph
// when it is a clique of at least minCliqueSize vertices with uniform labels, but for a triangle
// only where the clique counter fits p.MemoryLimit (cliqueBudget); the general search, which
// needs no orientation table, counts it otherwise, where a larger clique is ErrMemory.
func asClique(p *engine.Problem) (plan.Clique, bool) {
	c, ok := plan.CliqueOf(p.Data, p.Pattern, minCliqueSize)
	if !ok || c.K > 3 {
		return c, ok
	}
	_, _, err := cliqueBudget(p, c)
	return c, err == nil
}

// cliqueBudget returns the largest bit matrix and the number of workers with which the clique
// counter counts c within p.MemoryLimit (where set): smaller matrices (larger sets split first),
// then fewer workers; ErrMemory when one worker does not fit beside the orientation table.
func cliqueBudget(p *engine.Problem, c plan.Clique) (matrixMax, threads int, err error) {
	matrixMax, threads = cliques.MatrixLimit, p.ThreadCount()
	if p.MemoryLimit == 0 {
		return matrixMax, threads, nil
	}
	size := cliques.SizeOf(p.Data)
	table := 8*size.Vertices + c.GraphBytes(p.Data) // (and the graph of its labels, where that is a copy)
	var ok bool
	if table < p.MemoryLimit {
		matrixMax, ok = cliques.FitMatrix(size, c.K, p.MemoryLimit-table)
	}
	if !ok {
		return 0, 0, fmt.Errorf("cpu engine: %w: counting %d-cliques needs %d bytes, the limit is %d",
			engine.ErrMemory, c.K, table+cliques.WorkerMemory(size, c.K, 0), p.MemoryLimit)
	}
	threads = max(1, min(threads, int((p.MemoryLimit-table)/max(1, cliques.WorkerMemory(size, c.K, matrixMax)))))
	return matrixMax, threads, nil
}

// countCliques counts the matches of a clique pattern (see plan.Clique) on all of p's threads.
func countCliques(ctx context.Context, p *engine.Problem, c plan.Clique, planTime time.Duration) (engine.Result, error) {
	start := time.Now()
	matrixMax, threads, err := cliqueBudget(p, c)
	if err != nil {
		return engine.Result{}, err
	}
	g, err := c.GraphContext(ctx, p.Data) // (the copy without a wildcard's labels: seconds on a large graph)
	if err != nil {
		return engine.Result{Partial: true, PlanTime: planTime + time.Since(start)}, err
	}
	o := c.Orient(g, threads)
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
