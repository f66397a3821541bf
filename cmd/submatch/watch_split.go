package main

import (
	"context"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/formats/updates"
)

// Two threads on a stream of many light batches (most of a stream's updates take microseconds,
// too little to share one among threads): the stream is cut in two. The main goroutine (A)
// applies the batches from the start on the graph; a second one (B) builds another copy of the
// graph as loaded (from the loader's arrays, while A starts: A never waits for it), then
// replays the batches from the start on it without searching (validation and the graph change only,
// a fraction of a batch's cost) until it is about halfway through the work left to A, then
// applies the rest of the stream itself, keeping each batch's result. When A reaches the cut, it
// prints B's results in order, with the running totals. The output is that of one thread, line
// for line: the cut only moves work. When A takes the last batch before B cuts (B late, the
// second core busy), B's work is dropped.
//
// The cut is chosen while both run: B stops replaying at batch j once j >= (n + a) / 2, a being
// the batches A has taken (so both have about as many left), and only if A has not taken batch j
// yet; A and B agree on it through one atomic word (the cut in the high half, the batches A has
// taken in the low half), so A never applies a batch past the cut and B never one before it.

// splitMinBatches is the least number of batches for which watch cuts the stream.
const splitMinBatches = 256

// splitMaxBytes bounds the stream file that watch reads whole (about 64 bytes of memory an
// update), and the data graph's file, of which it keeps a second, filtered or whole, copy.
const splitMaxBytes = 1 << 26

// splitEligible reports whether a run may cut its stream in two: counts only, from a file
// (read whole) long enough for splitMinBatches batches, batches by count, two threads or more,
// the CPU engine, none of the options that follow the stream as it comes (windows, time
// batches, rate, checkpoints), a data graph file of at most splitMaxBytes.
func (f *watchFlags) splitEligible(data string) bool {
	threads := f.threads
	if threads == 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if threads < 2 || f.engine != csm.DefaultEngine || f.updatesPath == "-" || f.emit != "counts" || f.window > 0 ||
		f.interval > 0 || f.rate > 0 || f.checkpoint != "" || f.resume != "" || watchKillAfter > 0 {
		return false
	}
	st, err := os.Stat(f.updatesPath)
	if err != nil || !st.Mode().IsRegular() || st.Size() > splitMaxBytes || st.Size() < int64(6*splitMinBatches*f.batch) {
		return false // (an update line has 6 bytes or more)
	}
	dt, err := os.Stat(data)
	return err == nil && dt.Size() <= splitMaxBytes
}

// preread reads a whole stream file on its own goroutine (while the graph loads).
type preread struct {
	done chan struct{}
	all  []updates.Update
	err  error // the stream's error: the cut is then not made (the normal loop reports it)
}

func startPreread(path string, opts updates.Options) *preread {
	p := &preread{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		rd, err := updates.OpenReader(path, opts)
		if err != nil {
			p.err = err
			return
		}
		defer rd.Close()
		if st, err := os.Stat(path); err == nil {
			// Room for lines of 8 bytes (most have more): the slice is not grown and copied
			// again and again, and the pages of the part never written are never touched.
			p.all = make([]updates.Update, 0, st.Size()/8+16)
		}
		for {
			u, ok := rd.Next()
			if !ok {
				p.err = rd.Err()
				return
			}
			p.all = append(p.all, u)
		}
	}()
	return p
}

// wait returns the stream's updates, or nil when it could not be read whole.
func (p *preread) wait() []updates.Update {
	<-p.done
	if p.err != nil {
		return nil
	}
	return p.all
}

// splitRecord is a batch that B applied: the batch (a stream batch, or one edge deletion of a
// vertex deletion's), a copy of its result and its error; last marks a stream batch's last record.
type splitRecord struct {
	batch  []updates.Update
	deltas []csm.Delta
	res    csm.Result // Applied, Skipped, Invalid (copied); Deltas in deltas
	err    error
	last   bool
}

const splitLow = 1<<32 - 1

// watchSplitCut, when positive, is the batch at which watch cuts the stream, fixed in advance
// (tests: the cut chosen while running depends on timing).
var watchSplitCut int

// splitLoop applies the batches of all (the whole stream, read) with A on st.m and B on the
// matcher that open2 opens (over another copy of the graph as loaded, which B builds while A
// goes on), and prints every batch's lines as the normal loop does. B starts once A's stream
// promises to last longer than worth (projected from A's pace so far): a copy and a replay
// cost about as much as the load, which a short stream does not repay (and B would take CPU
// time from A on a busy machine). A nil open2: A applies every batch.
func (st *watchState) splitLoop(ctx context.Context, stderr io.Writer, all []updates.Update, open2 func() (csm.Matcher, error), worth time.Duration) int {
	f := st.f
	name := f.updatesPath
	nb := (len(all) + f.batch - 1) / f.batch
	batch := func(i int) []updates.Update { return all[i*f.batch : min((i+1)*f.batch, len(all))] }
	var state atomic.Uint64 // the cut << 32 | the batches A has taken
	state.Store(uint64(nb) << 32)
	if watchSplitCut > 0 && watchSplitCut < nb && open2 != nil {
		state.Store(uint64(watchSplitCut) << 32)
	}
	var stop atomic.Bool
	var recs []splitRecord
	var m2 csm.Matcher
	var wg sync.WaitGroup
	var bTimes [3]time.Duration // B's copy, replay and own part
	start := time.Now()
	started := false
	startB := func() {
		started = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			var err error
			if m2, err = open2(); err != nil {
				return // (no cut: A applies every batch)
			}
			bTimes[0] = time.Since(t0)
			recs = splitB(ctx, m2, nb, batch, &state, &stop, f.onInvalid == "skip", bTimes[1:])
		}()
	}
	if open2 != nil && (worth <= 0 || state.Load()>>32 < uint64(nb)) {
		startB() // (a cut fixed in advance: tests)
	}

	prog := newWatchProgress(stderr)
	defer prog.finish()
	apply := context.WithoutCancel(ctx)
	var edges []updates.Update
	var res csm.Result
	code := exitOK
	for code == exitOK {
		old := state.Load()
		i := old & splitLow
		if i >= old>>32 {
			break
		}
		if !state.CompareAndSwap(old, old+1) {
			continue // B has just cut the stream
		}
		if ctx.Err() != nil {
			code = exitPartial
			break
		}
		if !started && open2 != nil && i > 0 && i%32 == 0 {
			if el := time.Since(start); time.Duration(float64(el)*float64(uint64(nb)-i)/float64(i)) >= worth {
				startB()
			}
		}
		b := batch(int(i))
		if code = st.applyBatch(apply, b, &edges, &res, name, stderr); code == exitOK {
			code = st.advance(b, prog, stderr)
		}
	}
	if cut := state.Load() >> 32; code != exitOK || cut == uint64(nb) {
		// A error, or A applied every batch before B cut: B's work is not needed. It stops at
		// its next batch; A does not wait for it (it may be building its copy still).
		stop.Store(true)
		st.log.Debug("the stream was not cut", "batches", nb, "second goroutine", started, "elapsed", time.Since(start).Round(time.Microsecond))
		return code
	}
	aTime := time.Since(start)
	wg.Wait()
	st.log.Debug("cut the stream", "batches", nb, "cut", state.Load()>>32, "first part", aTime.Round(time.Microsecond),
		"copy", bTimes[0].Round(time.Microsecond), "replay", bTimes[1].Round(time.Microsecond), "second part", bTimes[2].Round(time.Microsecond))
	st.m = m2 // the graph as the stream leaves it (the summary's)
	// B's batches, in order, as if A had applied them.
	for i := range recs {
		r := &recs[i]
		if ctx.Err() != nil {
			return exitPartial
		}
		st.seq++
		st.werr = nil
		r.res.Deltas = r.deltas
		if code := st.finish(r.batch, &r.res, r.err, name, stderr, false); code != exitOK {
			return code
		}
		if r.last {
			if code := st.advance(r.batch, prog, stderr); code != exitOK {
				return code
			}
		}
	}
	return exitOK
}

// splitB is B: it replays batches on m2's graph until it cuts the stream, then applies the
// batches from the cut to the end and returns their records (none when it made no cut: A then
// applies every batch).
func splitB(ctx context.Context, m2 csm.Matcher, nb int, batch func(int) []updates.Update, state *atomic.Uint64, stop *atomic.Bool, skip bool, times []time.Duration) []splitRecord {
	start := time.Now()
	defer func() { times[1] = time.Since(start) - times[0] }()
	g := m2.Graph()
	net := csm.NewNet(g)
	var res csm.Result
	j := 0
	for ; j < nb; j++ {
		if stop.Load() || ctx.Err() != nil {
			return nil
		}
		old := state.Load()
		if old>>32 == uint64(j) {
			break // the cut fixed in advance
		}
		if a := old & splitLow; old>>32 == uint64(nb) && uint64(j) >= a && uint64(j) >= (uint64(nb)+a)/2 && state.CompareAndSwap(old, uint64(j)<<32|a) {
			break
		}
		// Replay: the graph change alone. A batch that fails here fails A too, which reports it.
		if net.ComputeApply(batch(j), skip, &res) != nil {
			net.Reset()
			return nil
		}
		net.Reset()
	}
	times[0] = time.Since(start)
	if j == nb {
		return nil
	}
	var recs []splitRecord
	var edges []updates.Update
	keep := func(b []updates.Update, err error, last bool) bool {
		r := splitRecord{batch: b, deltas: append([]csm.Delta(nil), res.Deltas...), err: err, last: last,
			res: csm.Result{Applied: res.Applied, Skipped: res.Skipped, Invalid: append([]csm.Invalid(nil), res.Invalid...)}}
		recs = append(recs, r)
		return err == nil
	}
	apply := context.WithoutCancel(ctx)
	for ; j < nb; j++ {
		if stop.Load() || ctx.Err() != nil {
			return recs
		}
		b := batch(j)
		if len(b) == 1 && b[0].Kind == updates.DeleteVertex {
			edges = csm.IncidentDeletions(g, b[0], nil)
			for i := range edges {
				err := m2.Apply(apply, edges[i:i+1], nil, &res)
				if !keep(edges[i:i+1], err, false) {
					return recs
				}
			}
		}
		if !keep(b, m2.Apply(apply, b, nil, &res), true) {
			return recs
		}
	}
	return recs
}
