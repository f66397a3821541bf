package main

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/formats/updates"
)

// Two threads on a stream whose patterns have exact labels: a pipeline. Most of a light
// stream's time is the graph's upkeep (validating each update, changing the lists), not the
// searches, and the searches read only the edges whose endpoints' labels some pattern pair has.
// So the main goroutine (M) validates and applies every batch on the whole graph (csm.Net) and
// prints the lines, and a second one (S) keeps a copy of the graph that holds only those edges
// and runs the searches of the batches that change it (csm.ChangeApplier: the change
// Restricted to that copy), in order. A batch that changes no such edge creates and destroys
// nothing, and M reports it without S. The output is the one-thread output line for line.

// pipeRecord is a batch that M applied (a stream batch, or one edge deletion of a vertex
// deletion's), its result once complete (done), and last for a stream batch's last record.
type pipeRecord struct {
	batch []updates.Update
	res   csm.Result
	err   error
	last  bool
	done  atomic.Bool
}

// pipeItem is a batch's change for S.
type pipeItem struct {
	rec *pipeRecord
	vs  []csm.VertexChange
	ps  []csm.PairChange
}

// pipeLoop applies the batches of all (the whole stream, read) as the pipeline above: M on
// st.m's graph, S with s (over the Filtered copy), relevant being s's label filter.
func (st *watchState) pipeLoop(ctx context.Context, stderr io.Writer, all []updates.Update, s csm.ChangeApplier, relevant func(l0, l1 uint32) bool) int {
	f := st.f
	name := f.updatesPath
	skip := f.onInvalid == "skip"
	g := st.m.Graph()
	net := csm.NewNet(g)
	zeros := make([]csm.Delta, len(st.pats))
	apply := context.WithoutCancel(ctx) // a batch in progress finishes (see loop)

	work := make(chan *pipeItem, 1<<12)
	var wg sync.WaitGroup
	var searched atomic.Int64
	var busy time.Duration // S's time in ApplyChange
	wg.Add(1)
	go func() {
		defer wg.Done()
		var res csm.Result
		for it := range work {
			t0 := time.Now()
			err := s.ApplyChange(apply, it.vs, it.ps, nil, &res)
			busy += time.Since(t0)
			it.rec.res.Deltas = append([]csm.Delta(nil), res.Deltas...)
			it.rec.err = err
			it.rec.done.Store(true)
			searched.Add(1)
		}
	}()
	start := time.Now()
	prog := newWatchProgress(stderr)
	defer prog.finish()
	var (
		recs  []*pipeRecord // not printed yet, in order
		free  []*pipeRecord // printed, to be used again
		slab  []pipeRecord  // new records are taken from it, allocated 256 at a time
		vs    []csm.VertexChange
		ps    []csm.PairChange
		res   csm.Result
		edges []updates.Update
		code  = exitOK
	)
	// print prints the complete records at the front of recs; a record's error ends the run.
	print := func() {
		k := 0
		for ; k < len(recs) && code == exitOK && recs[k].done.Load(); k++ {
			r := recs[k]
			st.seq++
			st.werr = nil
			if code = st.finish(r.batch, &r.res, r.err, name, stderr, false); code == exitOK && r.last {
				code = st.advance(r.batch, prog, stderr)
			}
		}
		if k > 0 {
			free = append(free, recs[:k]...) // S is done with them
			recs = recs[:copy(recs, recs[k:])]
		}
	}
	// step validates and applies one batch on the whole graph and passes its change to S; false
	// when the batch fails (its record then holds the error).
	step := func(b []updates.Update, last bool) bool {
		var r *pipeRecord
		if n := len(free); n > 0 {
			// A record used again (the pages of new ones would cost more than the records).
			r, free = free[n-1], free[:n-1]
			r.res = csm.Result{Invalid: r.res.Invalid[:0]}
			r.err = nil
			r.done.Store(false)
		} else {
			if len(slab) == 0 {
				slab = make([]pipeRecord, 256)
			}
			r, slab = &slab[0], slab[1:]
		}
		r.batch, r.last = b, last
		recs = append(recs, r)
		if err := net.ComputeApply(b, skip, &res); err != nil {
			r.err = err
			r.done.Store(true)
			return false
		}
		r.res.Applied, r.res.Skipped = res.Applied, res.Skipped
		r.res.Invalid = append(r.res.Invalid, res.Invalid...)
		vs, ps = net.Restrict(relevant, vs[:0], ps[:0])
		net.Reset()
		if len(vs) == 0 && len(ps) == 0 {
			r.res.Deltas = zeros // nothing S's graph holds changed: no match either
			r.done.Store(true)
			return true
		}
		work <- &pipeItem{rec: r, vs: append([]csm.VertexChange(nil), vs...), ps: append([]csm.PairChange(nil), ps...)}
		return true
	}
	for i := 0; i < len(all) && code == exitOK; i += f.batch {
		if ctx.Err() != nil {
			code = exitPartial
			break
		}
		b := all[i:min(i+f.batch, len(all))]
		ok := true
		if len(b) == 1 && b[0].Kind == updates.DeleteVertex {
			// Per update, a vertex deletion reports its edges' deletions first, one line each.
			edges = csm.IncidentDeletions(g, b[0], nil)
			for j := 0; j < len(edges) && ok; j++ {
				ok = step(edges[j:j+1], false)
			}
		}
		if !ok || !step(b, true) {
			break
		}
		if len(recs) >= 64 && recs[0].done.Load() {
			print()
		}
	}
	produced := time.Since(start)
	close(work)
	wg.Wait()
	st.log.Debug("pipelined the stream", "batches", (len(all)+f.batch-1)/f.batch, "searched", searched.Load(), "first goroutine", produced.Round(time.Microsecond),
		"searches", busy.Round(time.Microsecond), "elapsed", time.Since(start).Round(time.Microsecond))
	partial := code == exitPartial
	code = exitOK
	print()
	if code == exitOK && partial {
		code = exitPartial
	}
	return code
}
