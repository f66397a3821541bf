package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats/updates"
)

// errReported stops a stream whose result could not be recorded (the exit status is kept).
var errReported = errors.New("watch: result not recorded")

// errKilled stops a stream dead at the tests' kill hook (watchKillAfter).
var errKilled = errors.New("watch: killed (test hook)")

// streamChunk is the most updates watch reads ahead and hands a per-update engine at once (with
// --rate: those that have arrived, up to this).
const streamChunk = 1 << 16

// listChunk is streamChunk with --emit matches: an interrupt or --timeout is seen between
// chunks, and listing a chunk's matches takes longer than counting them.
const listChunk = 1 << 10

// checkStream refuses the options a per-update engine (csm.Streamer) does not take: it reports
// every update and batches them itself.
func (f *watchFlags) checkStream() error {
	switch {
	case f.batch != 1:
		return usagef("--batch: the %s engine reports every update (it overlaps them itself); leave --batch at 1", f.engine)
	case f.interval > 0:
		return usagef("--batch-interval: the %s engine reports every update, not the net change of an interval's batch (use --engine cpu)", f.engine)
	case f.window > 0 && f.induced:
		// An expiry is one batch of deletions. Without --induced a deletion only destroys
		// matches, so its deletions' deltas add up to the batch's; with it a deletion can create
		// an induced match that the next one destroys, counted by neither of the batch's totals.
		return usagef("--window with --induced: the %s engine gives each expired edge's delta, and under --induced their sum is not an expiry's net change (use --engine cpu)", f.engine)
	}
	return nil
}

// nextAfter returns the stream's next update after line after (a resumed run skips the lines
// its checkpoint covers); false at the end of the stream or on an error (rd.Err).
func nextAfter(rd *updates.Reader, after int) (updates.Update, bool) {
	for {
		u, ok := rd.Next()
		if !ok || u.Line > after {
			return u, ok
		}
	}
}

// readUpdate reads the stream's next update after line resumeLine (nextAfter), for watch's
// loops: ok is false at the end of the stream or on an error. err is errReadStopped when the
// read was cut short by Ctrl-C or --timeout; the read error (an inputError) on a line that does
// not parse; errNoTime for an update without the timestamp that needTime asks for (--window,
// --batch-interval). The loops apply and report the updates read before a bad line, then fail
// with its error (readFailed): what a run reports does not depend on how the stream was cut
// into batches or chunks.
func readUpdate(ctx context.Context, rd *updates.Reader, resumeLine int, needTime bool, name string) (u updates.Update, ok bool, err error) {
	if u, ok = nextAfter(rd, resumeLine); !ok {
		if ctx.Err() != nil {
			return u, false, errReadStopped
		}
		if err := rd.Err(); err != nil {
			return u, false, &inputError{err: err}
		}
		return u, false, nil
	}
	if needTime && !u.HasTime {
		return u, false, errNoTime(name, u)
	}
	return u, true, nil
}

// errReadStopped is readUpdate's error when Ctrl-C or --timeout cut the read short.
var errReadStopped = errors.New("the read was stopped")

// readFailed is the exit status of a run whose stream read failed with err (readUpdate): partial
// when it was stopped, else err's, reported on stderr.
func readFailed(err error, stderr io.Writer) int {
	if errors.Is(err, errReadStopped) {
		return exitPartial
	}
	return exitCode(stderr, err)
}

// matchStreamer is a csm.Streamer that also lists every update's signed matches, all of them
// before the update is reported (dcsm's host emulation).
type matchStreamer interface {
	ApplyEachMatches(ctx context.Context, stream []updates.Update, emit csm.Emit, report func(u updates.Update, res *csm.Result) error) error
}

// streamLoop feeds a per-update engine: chunks of the stream (with --rate, the updates that have
// arrived while the engine worked on the last ones), every update reported as a batch of one.
func (st *watchState) streamLoop(ctx context.Context, sm csm.Streamer, rd *updates.Reader, name string, prog *watchProgress, stderr io.Writer) int {
	chunk := streamChunk
	if st.flushEach { // stdin: updates may come slowly; never wait for more than one
		chunk = 1
	}
	if st.f.checkpoint != "" { // a checkpoint goes between two chunks, when the engine is idle
		chunk = min(chunk, st.f.checkpointEvery)
	}
	if st.f.emit == "matches" { // a chunk is listed whole before an interrupt is seen: keep it short
		chunk = min(chunk, listChunk)
	}
	resumeLine := st.line // with --resume, the stream's lines up to the checkpoint are skipped
	sinceCP := 0
	var pend []updates.Update
	eof := false
	var readErr error                   // the read's error at eof (readUpdate)
	apply := context.WithoutCancel(ctx) // a chunk in progress finishes: the graph and totals stay exact
	one := make([]updates.Update, 1)
	var code int
	next := 0 // pend's first update not yet reported
	report := func(u updates.Update, res *csm.Result) error {
		st.seq++
		one[0] = u
		if code != exitOK { // an engine that reports after report's error: the first error stands
			return errReported
		}
		if code = st.record(one, res, false, stderr); code != exitOK {
			return errReported
		}
		if st.win != nil {
			st.win.Observe(one, res) // a vertex deletion's edges come as deletions of their own
		}
		if watchKillAfter > 0 && st.batches-st.resumedAt >= watchKillAfter {
			return errKilled
		}
		// The summary counts stream updates as reported (a vertex deletion's edges come first).
		if next < len(pend) && u == pend[next] {
			next++
			st.updates++
			st.line = u.Line
		}
		return nil
	}
	// emit prints an update's signed matches, all before report records the update (its seq
	// is the one report gives it).
	st.werr = nil
	emit := func(m csm.SignedMatch) bool {
		st.seq++
		ok := st.emitMatch(m)
		st.seq--
		return ok
	}
	for {
		if ctx.Err() != nil {
			return exitPartial
		}
		for !eof && len(pend) < chunk {
			u, ok, err := readUpdate(ctx, rd, resumeLine, st.win != nil, name)
			if errors.Is(err, errReadStopped) {
				return exitPartial
			}
			if !ok {
				eof, readErr = true, err
				break
			}
			pend = append(pend, u)
		}
		if len(pend) == 0 {
			if readErr != nil { // the updates before the bad line are reported: now its error
				return readFailed(readErr, stderr)
			}
			if l, ok := st.m.(interface{ LogStats(*slog.Logger) }); ok && st.f.verbose {
				l.LogStats(st.log) // the engine's own figures (dcsm: waves, searches, memory)
			}
			if st.replay != nil && st.f.verbose {
				st.replay.log(st.log)
			}
			return exitOK
		}
		n := len(pend)
		if st.replay != nil {
			var err error
			if n, err = st.replay.arriveUpTo(ctx, n); err != nil {
				return exitPartial
			}
		}
		// With --window, the chunk goes in runs (csm.Window.Run): before each, the expiries due
		// at its first update's time, applied when the engine has reported every update before
		// them (its graph is then the stream's).
		for s := 0; s < n; {
			e := n
			if st.win != nil {
				if code := st.expireStream(apply, sm, pend[s].Time, name, stderr); code != exitOK {
					return code
				}
				e = s + st.win.Run(pend[s:n])
			}
			next = s
			err := st.applyEach(apply, sm, pend[s:e], emit, report)
			if st.werr != nil {
				return exitCode(stderr, fmt.Errorf("writing the result: %w", st.werr))
			}
			if err == errReported {
				return code
			}
			if errors.Is(err, errKilled) {
				return -1
			}
			if err != nil {
				return st.applyError(err, name, stderr)
			}
			s = e
		}
		if st.replay != nil {
			st.replay.done()
		}
		pend = pend[:copy(pend, pend[n:])]
		sinceCP += n
		if st.f.checkpoint != "" && sinceCP >= st.f.checkpointEvery {
			if err := st.writeCheckpoint(st.f.checkpoint); err != nil {
				return exitCode(stderr, fmt.Errorf("--checkpoint: %w", err))
			}
			sinceCP = 0
		}
		prog.update(st.updates)
		if st.flushEach {
			if err := st.out.Flush(); err != nil {
				return exitCode(stderr, fmt.Errorf("writing the result: %w", err))
			}
		}
		if st.gc != nil {
			st.gc.check()
		}
	}
}

// applyEach hands a run of updates to a per-update engine: listing their signed matches (emit)
// with --emit matches, counting otherwise.
func (st *watchState) applyEach(ctx context.Context, sm csm.Streamer, run []updates.Update, emit csm.Emit, report func(updates.Update, *csm.Result) error) error {
	if st.f.emit != "matches" {
		return sm.ApplyEach(ctx, run, report)
	}
	lm, ok := sm.(matchStreamer)
	if !ok {
		return usagef("--emit matches: the %s engine counts only (use --engine cpu to list)", st.f.engine)
	}
	return lm.ApplyEachMatches(ctx, run, emit, report)
}

// expireStream applies to a per-update engine the window's expiries due at time now, reported as
// one batch 'expire' (as the CPU engine does): the sum of the deletions' deltas, which is the
// batch's net change when no deletion can create a match (checkStream refuses --induced).
func (st *watchState) expireStream(ctx context.Context, sm csm.Streamer, now int64, name string, stderr io.Writer) int {
	st.expired = st.win.Expire(now, st.m.Graph(), st.expired[:0])
	if len(st.expired) == 0 {
		return exitOK
	}
	sum := &st.expiry
	sum.Deltas = append(sum.Deltas[:0], make([]csm.Delta, len(st.pats))...)
	sum.Applied, sum.Skipped, sum.Invalid = 0, 0, sum.Invalid[:0]
	report := func(_ updates.Update, res *csm.Result) error {
		for i, d := range res.Deltas {
			c, ok1 := addChecked(sum.Deltas[i].Created, d.Created)
			x, ok2 := addChecked(sum.Deltas[i].Destroyed, d.Destroyed)
			if !ok1 || !ok2 {
				return engine.ErrOverflow
			}
			sum.Deltas[i] = csm.Delta{Created: c, Destroyed: x}
		}
		sum.Applied += res.Applied
		sum.Skipped += res.Skipped
		sum.Invalid = append(sum.Invalid, res.Invalid...)
		return nil
	}
	st.seq++ // the expiry's matches are listed under its own number
	st.werr = nil
	err := st.applyEach(ctx, sm, st.expired, st.emitMatch, report)
	return st.finish(st.expired, sum, err, name, stderr, true)
}
