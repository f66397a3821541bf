package dcsm

import (
	"context"
	"sync/atomic"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/formats/updates"
)

// The host's two parts per update, on two goroutines for a long stream: validate (the engine's
// edge table, csm.Net for other than edge updates between existing vertices, inherently in order;
// the host graph takes the changes on goroutines of its own, edges.go) fills chunks of what each
// update changed; book (the
// waves' edge versions and searches, the launches, the reports) consumes them in order on the
// caller's goroutine. Only validate touches the edge table, the graph and the Net while the
// stream runs; only book touches the waves, the store and the backend. The results are the inline order's exactly:
// every update is booked, launched and reported as it would be, only earlier validated.

// DefaultPipeMin is the shortest stream whose validation runs on a goroutine of its own (with
// more than one thread, Options.Threads, and no listing): shorter calls, such as the few updates that arrive
// while a wave runs at a low rate, stay on the caller's goroutine, where nothing waits for a
// chunk to fill.
const DefaultPipeMin = 4096

// pipeChunks chunks circulate between the two parts, of pipeChunkLen updates at most each
// (validate runs at most that far ahead).
const (
	pipeChunks   = 4
	pipeChunkLen = 1024
)

// change is a validated update as book needs it: the update, why it was skipped (err non-nil: its
// only record), or its timestamp, the graph's id bound after it, and its changed vertices and
// relevant pairs (ranges of the chunk's verts and pairs); ahead is the updates of the call from
// its stream update on (a new wave's size hint).
type change struct {
	u              updates.Update
	err            error
	t              uint32
	idBound, ahead int
	v0, v1, p0, p1 int
}

// pairRec is a changed pair the label filter keeps: its endpoints' dense ids, labels and degrees
// after the update, its states before and after, and whether both endpoints existed before it.
type pairRec struct {
	x, y, lx, ly, dx, dy uint32
	old, new             csm.PairState
	oldAlive             bool
}

// chunk is a run of validated updates; stop is the error that ended validation after them (nil:
// more may follow).
type chunk struct {
	recs  []change
	pairs []pairRec
	verts []csm.VertexChange
	stop  error
}

func (c *chunk) reset() {
	c.recs, c.pairs, c.verts, c.stop = c.recs[:0], c.pairs[:0], c.verts[:0], nil
}

// applyPiped validates the stream on a goroutine of its own, a chunk at a time, while the caller's
// goroutine books the chunks in order. After book's error (report's, the backend's) validation
// stops at the next update and is waited for: the graph is not changed after ApplyEach returns.
func (m *Matcher) applyPiped(ctx context.Context, stream []updates.Update, report func(u updates.Update, res *csm.Result) error) error {
	free := make(chan *chunk, pipeChunks)
	full := make(chan *chunk, pipeChunks)
	for i := range m.chunks {
		free <- &m.chunks[i]
	}
	var quit atomic.Bool
	var applyErr error // the start of the host graph's update (read after full is closed)
	go func() {
		defer close(full)
		defer func() { applyErr = m.ed.start(m.g, m.threads()) }()
		c := <-free
		c.reset()
		for i := range stream {
			if quit.Load() {
				break
			}
			if err := m.validate(&stream[i], len(stream)-i, c); err != nil {
				c.stop = err
				break
			}
			if len(c.recs) >= m.pipeLen && i+1 < len(stream) {
				full <- c
				c = <-free
				c.reset()
			}
		}
		full <- c
	}()
	// A panic in report (a caller that recovers it) must not leave the validator changing the
	// graph, nor blocked on free: it is told to stop and its chunks are taken and given back.
	defer func() {
		quit.Store(true)
		for c := range full {
			free <- c
		}
	}()
	var err error
	for c := range full {
		if err == nil {
			if err = m.bookChunk(ctx, c, report); err != nil {
				quit.Store(true)
			} else {
				err = c.stop
			}
		}
		free <- c // never blocks: it has room for every chunk
	}
	if applyErr != nil {
		err = applyErr // internal: it breaks the matcher, whatever came before
	}
	return err
}
