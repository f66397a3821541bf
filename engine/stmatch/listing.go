package stmatch

// Listing (Engine.Matches): rows written by the kernel into a bounded buffer per device, yielded
// between launches; with several devices their batches meet in fanIn.

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"sync/atomic"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
)

// rowSink receives the rows a listing launch wrote: L words each, in level order.
type rowSink struct {
	buf  *gpu.Buffer
	cap  uint64 // rows
	L    int
	host []uint32
	// emit hands rows (whole rows, level order) to the consumer; false when it stopped or the
	// run is being cancelled. The rows are only read until emit returns true; after false the
	// device stops and never writes them again.
	emit func(rows []uint32) bool
	// stopped is set when the consumer stopped the sequence; err when a copy failed.
	stopped bool
	err     error
}

// drain copies n rows to the host and emits them; false when the consumer stopped or the copy
// failed (err).
func (s *rowSink) drain(n uint64) bool {
	words := s.host[:n*uint64(s.L)]
	if err := gpu.CopyToHost(words, s.buf, 0); err != nil {
		s.err = fmt.Errorf("stmatch: reading matches: %w", err)
		return false
	}
	if !s.emit(words) {
		s.stopped = true
		return false
	}
	return true
}

// rowYielder yields rows in level order as matches in pattern vertex order.
type rowYielder struct {
	order []int    // order[level] = pattern vertex
	match []uint32 // one match, handed to yield
	yield func([]uint32, error) bool
}

func (y *rowYielder) rows(words []uint32) bool {
	L := len(y.order)
	for k := 0; k+L <= len(words); k += L {
		for level, v := range y.order {
			y.match[v] = words[k+level]
		}
		if !y.yield(y.match, nil) {
			return false
		}
	}
	return true
}

// listRows is the output buffer's size in rows: at least the longest last-level set (so that a
// launch that starts with an empty buffer always makes progress) and about 64 MiB otherwise.
func listRows(fp *flatPlan) uint64 {
	return max(fp.Cap[fp.L-1], (64<<20)/uint64(4*fp.L))
}

// Matches implements engine.Engine: the kernel writes the matches of each time slice into a
// bounded buffer (a launch also ends when it is full, its warps queueing what they hold), and the
// host yields them in pattern vertex order between launches, so any number of matches streams in
// fixed memory. Listing runs on every GPU of the problem, as a count does (listOn); the plan
// enumerates every vertex (no leaf counting) and is the same one the CPU engine lists with.
func (e Engine) Matches(ctx context.Context, p *engine.Problem) iter.Seq2[[]uint32, error] {
	return func(yield func([]uint32, error) bool) {
		if p.Data == nil || p.Pattern == nil {
			yield(nil, fmt.Errorf("stmatch engine: problem needs a data graph and a pattern"))
			return
		}
		devs, err := devices(ctx, p)
		if err != nil {
			yield(nil, err)
			return
		}
		o := e.Options
		o.NoLeaves = true
		o.V1 = false // listing is the v2 kernel's (the v1 kernel only counts)
		o.searchThreads = p.Threads
		pl, err := buildPlan(ctx, p.Data, p.Pattern, p.Semantics, o, nil)
		if err != nil {
			yield(nil, err)
			return
		}
		if pl.Empty {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
			}
			return
		}
		match := make([]uint32, p.Pattern.NumVertices())
		if len(pl.Levels) == 1 { // one vertex: its candidates are the matches
			for _, c := range pl.Candidates[pl.Levels[0].Vertex] {
				match[pl.Levels[0].Vertex] = c
				if !yield(match, nil) {
					return
				}
			}
			return
		}
		fp, err := flattenOn(p.Data, pl, o.flatOptionsWithin(true, p.GPUMemoryLimit, len(pl.Levels)))
		if err != nil {
			yield(nil, err)
			return
		}
		y := &rowYielder{match: match, yield: yield}
		for _, lv := range pl.Levels {
			y.order = append(y.order, lv.Vertex)
		}
		if err := listOn(ctx, replicate(devs, o.replicas), p, fp, o, y); err != nil {
			yield(nil, err)
		}
	}
}

// listOn lists the plan's matches on devs into y. Each device takes ranges of the work units as a
// count's do and writes its rows into its own buffer; fanIn brings the devices' batches to this
// goroutine. The error is nil when the consumer stopped.
func listOn(ctx context.Context, devs []*gpu.Device, p *engine.Problem, fp *flatPlan, o Options, y *rowYielder) error {
	units := fp.makeUnits(gridWarps(devs), !o.NoSplit)
	disp := newDispenser(uint64(len(units)), devs)
	if len(devs) == 1 {
		_, err := listOnDevice(ctx, devs[0], p, fp, o, units, disp, y.rows)
		return err
	}
	return fanIn(ctx, len(devs), func(ctx context.Context, k int, emit func([]uint32) bool) (bool, error) {
		return listOnDevice(ctx, devs[k], p, fp, o, units, disp, emit)
	}, y.rows)
}

// fanIn runs n producers concurrently and hands every batch they emit to consume, on the calling
// goroutine, one at a time: a producer's emit returns once consume has finished with the batch
// (so the producer may reuse its buffer) with consume's answer, or false when the run is being
// stopped (the producer must then stop without touching the batch again: consume may still be
// reading it). A producer returns whether its emit was answered false (the consumer stopped) and its
// error. When the consumer stops, or a producer fails, the others are cancelled through their
// context. fanIn returns nil when the consumer stopped or everything finished, else the first
// producer error that is not a cancellation, else a cancellation (the caller's context ended).
func fanIn(ctx context.Context, n int, produce func(ctx context.Context, k int, emit func([]uint32) bool) (stopped bool, err error), consume func([]uint32) bool) error {
	type batch struct {
		rows []uint32
		done chan bool // the consumer's answer: go on
	}
	batches := make(chan batch)
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	var cut atomic.Bool // an emit was refused because the run was being stopped
	var wg sync.WaitGroup
	for k := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// done has room for the answer, so that the consumer never waits on a producer that
			// has left: a producer also stops waiting when the run is cancelled, which fanIn's
			// deferred cancel does even when consume panics.
			done := make(chan bool, 1)
			emit := func(rows []uint32) bool {
				select {
				case batches <- batch{rows, done}:
				case <-ctx.Done():
					cut.Store(true)
					return false
				}
				select {
				case ok := <-done:
					return ok
				case <-ctx.Done():
					cut.Store(true)
					return false
				}
			}
			stopped, err := produce(ctx, k, emit)
			errs[k] = err
			if err != nil || stopped {
				cancel() // the other producers stop too
			}
		}()
	}
	go func() {
		wg.Wait()
		close(batches)
	}()
	consuming := true
	for b := range batches {
		consuming = consuming && consume(b.rows)
		b.done <- consuming
	}
	if !consuming {
		return nil
	}
	// A producer's own failure wins over the cancellations it caused on the others.
	var ctxErr error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			if ctxErr == nil {
				ctxErr = err
			}
		default:
			return err
		}
	}
	if ctxErr == nil && cut.Load() {
		// Rows were refused, so the listing is incomplete: only the caller's context can have
		// stopped it here (no producer failed, the consumer did not stop).
		ctxErr = parent.Err()
		if ctxErr == nil {
			ctxErr = context.Canceled
		}
	}
	return ctxErr
}

// listOnDevice runs the listing kernel on d, handing its rows to emit; stopped reports that emit
// returned false.
func listOnDevice(ctx context.Context, d *gpu.Device, p *engine.Problem, fp *flatPlan, o Options, units []uint64, disp *unitDispenser, emit func([]uint32) bool) (stopped bool, err error) {
	r := newDeviceRun(d, p.GPUMemoryLimit, o)
	defer r.free()
	sink := &rowSink{cap: listRows(fp), L: fp.L, emit: emit}
	if r.mem.Limit > 0 {
		// Leave the output buffer room within --gpu-memory.
		sink.cap = max(fp.Cap[fp.L-1], min(sink.cap, r.mem.Limit/4/uint64(4*fp.L)))
	}
	if sink.buf, err = r.mem.Alloc("match buffer", sink.cap*uint64(4*fp.L)); err != nil {
		return false, err
	}
	sink.host = make([]uint32, sink.cap*uint64(fp.L))
	if err := r.prepare(ctx, p, fp, o, units); err != nil {
		return false, err
	}
	if _, _, err = r.run(ctx, p, fp, o, disp, sink); err != nil && !sink.stopped {
		return false, err
	}
	return sink.stopped, nil
}
