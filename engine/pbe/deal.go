package pbe

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/checked"
	"github.com/submatch/submatch/internal/par"
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
	for i := range pt.Parts {
		if !holdsPattern(pt, i, patternVertices) {
			skipped++
			continue
		}
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(pt.Bytes[b], pt.Bytes[a]) })
	return order, skipped
}

// holdsPattern reports whether part i has as many vertices as the pattern: a smaller part holds
// no match of its own, and is not searched.
func holdsPattern(pt *partition.Partitioning, i, patternVertices int) bool {
	return len(pt.Parts[i]) >= patternVertices
}

// countIntra runs the intra-partition stage of a count: every part of order (dealOrder) counted
// by be, on as many workers at once as be has slots (one for a backend that is not a dealer),
// each free worker taking the largest part left. It returns the parts' counts summed, partial
// when a part was cut short; the first failure stops every worker (par.Each: its error wins over
// the cancellations it causes), as does the end of ctx.
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
	ctx, stop := context.WithCancel(ctx) // the producer's: it ends with the workers
	defer stop()
	var searched chan struct{}
	if e.oneAtATime(p) {
		searched = make(chan struct{}, len(order))
	}
	parts := e.subProblems(ctx, p, pt, order, len(slots), searched)
	var (
		mu   sync.Mutex
		sum  engine.Result
		done int
	)
	err := par.Each(ctx, len(slots), func(ctx context.Context, w int) error {
		for {
			var sp partProblem
			var ok bool
			select {
			case sp, ok = <-parts:
			case <-ctx.Done():
			}
			if !ok || ctx.Err() != nil {
				return nil
			}
			if sp.err != nil {
				return sp.err
			}
			sub := sp.sub
			sub.GPUs, sub.GPUMemoryLimit = slots[w].gpus, slots[w].limit
			r, err := be.CountPart(ctx, sub)
			if searched != nil {
				searched <- struct{}{}
			}
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
				return fmt.Errorf("pbe: %w", engine.ErrOverflow)
			case err != nil:
				return err
			case r.Partial:
				return errCutShort
			}
		}
	})
	switch {
	case err != nil: // a part failed or was cut short: the others were stopped
		sum.Partial = true
		if errors.Is(err, errCutShort) {
			err = nil
		}
	case done < len(order): // stopped between parts by the caller's context
		sum.Partial, err = true, parent.Err()
	}
	return sum, err
}

// errCutShort stands, among countIntra's workers, for a part cut short without an error.
var errCutShort = errors.New("pbe: a part was cut short")
