package pbe

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/checked"
	"github.com/submatch/submatch/partition"
)

// slot is one worker of the intra-partition stage: every part it takes is searched with the
// problem's GPUs replaced by gpus and its GPUMemoryLimit by limit.
type slot struct {
	gpus  []int
	limit uint64
}

// dealer is a Backend that searches several parts at once, one per slot (DeviceBackend: its
// workers on every GPU of the problem).
type dealer interface {
	slots(ctx context.Context, p *engine.Problem) ([]slot, error)
}

// dealOrder returns the parts to search, largest first (by their bytes, adjacency and halo: the
// predicted work), so that the workers, each taking the next part when it is free, finish
// together; and the number of parts too small for the pattern.
func dealOrder(pt *partition.Partitioning, patternVertices int) (order []int, skipped int) {
	order = make([]int, 0, len(pt.Parts))
	for i, vs := range pt.Parts {
		if len(vs) < patternVertices {
			skipped++
			continue
		}
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(pt.Bytes[b], pt.Bytes[a]) })
	return order, skipped
}

// countIntra runs the intra-partition stage of a count: every part of order (dealOrder) counted
// by be, on as many workers at once as be has slots (one for a backend that is not a dealer),
// each free worker taking the largest part left. It returns the parts' counts summed, partial
// when a part was cut short; the first failure stops every worker (its error wins over the
// cancellations it causes), as does the end of ctx.
func (e *Engine) countIntra(ctx context.Context, p *engine.Problem, pt *partition.Partitioning, order []int, be Backend) (engine.Result, error) {
	slots := []slot{{gpus: p.GPUs, limit: p.GPUMemoryLimit}} // one worker, the problem's settings
	if d, ok := be.(dealer); ok && len(order) > 1 {
		s, err := d.slots(ctx, p)
		if err != nil {
			return engine.Result{}, err
		}
		slots = s
	}
	parent := ctx
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	parts := e.subProblems(ctx, p, pt, order, len(slots))
	var (
		mu     sync.Mutex
		sum    engine.Result
		failed bool  // a part failed or was cut short: the others were stopped
		first  error // its error (nil for a part cut short without one)
		done   int
		wg     sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if !failed {
			failed, first = true, err
		}
		sum.Partial = true
		mu.Unlock()
		stop()
	}
	for _, s := range slots {
		wg.Go(func() {
			for {
				var sp partProblem
				var ok bool
				select {
				case sp, ok = <-parts:
				case <-ctx.Done():
				}
				if !ok || ctx.Err() != nil {
					return
				}
				if sp.err != nil {
					fail(sp.err)
					return
				}
				sub := sp.sub
				sub.GPUs, sub.GPUMemoryLimit = s.gpus, s.limit
				r, err := be.CountPart(ctx, sub)
				mu.Lock()
				sum.PlanTime += r.PlanTime
				sum.DeviceTime += r.DeviceTime
				c, ok := checked.Add(sum.Count, r.Count)
				sum.Count = c
				done++
				if ok && err == nil && !r.Partial && p.Progress != nil {
					p.Progress(0.5 * float64(done) / float64(len(order)))
				}
				mu.Unlock()
				switch {
				case !ok:
					fail(fmt.Errorf("pbe: %w", engine.ErrOverflow))
					return
				case err != nil || r.Partial:
					fail(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if !failed && done < len(order) {
		// Stopped between parts by the caller's context.
		sum.Partial, first = true, parent.Err()
	}
	return sum, first
}
