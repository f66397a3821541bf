package sgsi

import (
	"fmt"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/checked"
	"github.com/submatch/submatch/internal/par"
)

// The direct count's overlapped pipeline (Options.Overlap, issue 21): the serial direct count
// queues a block's uploads and its kernel on the device's one (default) stream, so the upload of
// block i+1 waits for block i's kernel, and the host, whose 8 MiB staging buffer fills long
// before a block's upload ends, waits for it too. Overlapped, the region holds two slots: block
// i+1 (or piece: generated rows) goes up into the other slot on a copy stream, from a ring of
// pinned staging buffers that the host fills directly (no staging copy), while block i's kernel
// runs on a compute stream. Events order them: a kernel waits for every copy queued before it
// (Last), and the host waits for a slot's last kernel (WaitSlot) before it queues copies into
// the slot, and for a staging buffer's last copy (WaitStage) before it fills the buffer again.
// Each slot has its own counter, read (and zeroed by a queued copy) when its slot is taken again
// for a new block, so at most one block's count is pending in each.

// pipeQueue is the device side of the pipeline: the GPU's two streams (gpuPipe), the host
// emulation's immediate calls (hostPipe), or the tests' model of two streams that runs work
// only when the host waits for it.
type pipeQueue interface {
	// Begin waits for the work queued before on the default stream (the filter, the steps
	// before), so that the streams start after it.
	Begin() error
	// Stages returns the ring of staging buffers (pinned on a GPU), all of one length.
	Stages() [][]uint32
	// Copy queues on the copy stream the copy of stage i's first n words to region word off,
	// and marks stage i after it.
	Copy(i int, off, n uint64) error
	// WaitStage blocks until the last copy from stage i has run (at once when none is queued).
	WaitStage(i int) error
	// Last queues, on the compute stream and after every copy queued so far, the kernel Last,
	// and marks slot s after it.
	Last(s int, a lastArgs) error
	// WaitSlot blocks until slot s's last kernel has run (at once when none is queued).
	WaitSlot(s int) error
	// Read copies region words at off into dst and waits for the copy; no queued work may
	// write them.
	Read(dst []uint32, off uint64) error
	// Drain waits for both streams and returns the device times of the copies, the kernels and
	// their overlap since Begin (zero where the queue does not time them).
	Drain() (pipeTimes, error)
}

// pipeTimes are the device times of a pipeline's copies and kernels, and the time during which
// a copy and a kernel ran together.
type pipeTimes struct{ copies, kernels, overlap time.Duration }

// piper is a backend that has a pipeline (the GPU backend with streams, the host emulation);
// ok is false when it has none (a driver without streams), and the serial direct count runs.
type piper interface {
	pipe() (q pipeQueue, ok bool, err error)
}

// pipeline is the runner's side: the staging ring's cursor and the slots' state.
type pipeline struct {
	q      pipeQueue
	st     *Stats // the queue's calls are Driver time, copies Comm, kernels Comp (host time)
	stages [][]uint32
	next   int // the stage to fill next
	// busy: slot s has a kernel the host has not waited for; pending: its counter may hold a
	// count not yet read; counter: the counter's region word (two words, even).
	busy, pending [2]bool
	counter       [2]uint64
	zero          [2]uint32
	ids           []int // upload's stages of a batch, reused
}

// newPipeline starts a pipeline on q with the slots' counters at counters, counters+2 (zeroed),
// its calls counted in st.
func newPipeline(q pipeQueue, counters uint64, st *Stats) (*pipeline, error) {
	p := &pipeline{q: q, st: st, stages: q.Stages(), counter: [2]uint64{counters, counters + 2}}
	if len(p.stages) == 0 || len(p.stages[0]) == 0 {
		return nil, fmt.Errorf("sgsi: a pipeline without staging buffers")
	}
	if err := p.call(nil, q.Begin); err != nil {
		return nil, err
	}
	for s := range p.counter {
		if err := p.copyIn(p.counter[s], p.zero[:]); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// call runs f, a call of the queue, as Driver time, and as Comm or Comp time when into is set.
func (p *pipeline) call(into *time.Duration, f func() error) error {
	t := time.Now()
	err := f()
	d := time.Since(t)
	p.st.Driver += d
	if into != nil {
		*into += d
	}
	return err
}

// copy queues the copy of stage i's first n words to region word off.
func (p *pipeline) copy(i int, off, n uint64) error {
	p.st.BytesToGPU += 4 * n
	p.st.CopiesToGPU++
	p.st.PeakDevice = max(p.st.PeakDevice, 4*(off+n))
	return p.call(&p.st.Comm, func() error { return p.q.Copy(i, off, n) })
}

// take returns the next staging buffer of the ring once its last copy has run.
func (p *pipeline) take() (int, error) {
	i := p.next
	p.next = (p.next + 1) % len(p.stages)
	return i, p.call(nil, func() error { return p.q.WaitStage(i) })
}

// copyIn queues the upload of src to region word off, through the staging buffers.
func (p *pipeline) copyIn(off uint64, src []uint32) error {
	for len(src) > 0 {
		i, err := p.take()
		if err != nil {
			return err
		}
		n := copy(p.stages[i], src)
		if err := p.copy(i, off, uint64(n)); err != nil {
			return err
		}
		off, src = off+uint64(n), src[n:]
	}
	return nil
}

// upload queues u's words to region word at: batches of up to half the ring's buffers, each
// filled directly by its own goroutine (up to u.workers), then copied in order; a batch is
// filled while the one before is copied.
func (p *pipeline) upload(at uint64, u *listUpload) error {
	cw := uint64(len(p.stages[0]))
	nw := par.Workers(int((u.words+cw-1)/cw), u.workers, 1)
	nw = max(1, min(nw, len(p.stages)/2))
	ids := p.ids[:0]
	defer func() { p.ids = ids }()
	for base := uint64(0); base < u.words; base += uint64(nw) * cw {
		k := int(min(uint64(nw), (u.words-base+cw-1)/cw))
		ids = ids[:0]
		for range k {
			i, err := p.take()
			if err != nil {
				return err
			}
			ids = append(ids, i)
		}
		n := func(j int) uint64 { return min(cw, u.words-base-uint64(j)*cw) }
		par.For(k, k, func(j int) { u.fill(p.stages[ids[j]][:n(j)], base+uint64(j)*cw) })
		for j, i := range ids {
			if err := p.copy(i, at+base+uint64(j)*cw, n(j)); err != nil {
				return err
			}
		}
	}
	return nil
}

// free waits until slot s's last kernel has run, so that its words may be overwritten.
func (p *pipeline) free(s int) error {
	if !p.busy[s] {
		return nil
	}
	p.busy[s] = false
	return p.call(nil, func() error { return p.q.WaitSlot(s) })
}

// settle frees slot s and adds its counter, when it may hold a count, to *total (then queues
// its zeroing, which the next kernels wait for).
func (p *pipeline) settle(s int, total *uint64) error {
	if err := p.free(s); err != nil || !p.pending[s] {
		return err
	}
	var c [2]uint32
	p.st.BytesFromGPU += 8
	p.st.CopiesFromGPU++
	if err := p.call(&p.st.Comm, func() error { return p.q.Read(c[:], p.counter[s]) }); err != nil {
		return err
	}
	p.pending[s] = false
	var ok bool
	if *total, ok = checked.Add(*total, uint64(c[0])|uint64(c[1])<<32); !ok {
		return engine.ErrOverflow
	}
	return p.copyIn(p.counter[s], p.zero[:])
}

// last queues the kernel a, counting into slot s's counter, after the copies queued so far.
func (p *pipeline) last(s int, a lastArgs) error {
	a.Total = p.counter[s]
	p.busy[s], p.pending[s] = true, true
	p.st.Launches++
	p.st.Pipelined++
	return p.call(&p.st.Comp, func() error { return p.q.Last(s, a) })
}

// finish settles both slots and waits for both streams.
func (p *pipeline) finish(total *uint64) (pipeTimes, error) {
	err := p.settle(0, total)
	if e := p.settle(1, total); err == nil {
		err = e
	}
	var t pipeTimes
	if e := p.call(nil, func() (e error) { t, e = p.q.Drain(); return e }); err == nil {
		err = e
	}
	return t, err
}

// hostPipe is the host emulation's pipeline: every call runs at once, in order.
type hostPipe struct {
	be     *HostBackend
	stages [][]uint32
}

// pipe implements piper: four staging buffers of a 16th of the region (16 words to streamWords).
func (h *HostBackend) pipe() (pipeQueue, bool, error) {
	if h.hp == nil {
		h.hp = newHostPipe(h, 4, max(16, min(streamWords, h.Words()/16)))
	}
	return h.hp, true, nil
}

func newHostPipe(be *HostBackend, stages int, words uint64) *hostPipe {
	p := &hostPipe{be: be, stages: make([][]uint32, stages)}
	for i := range p.stages {
		p.stages[i] = make([]uint32, words)
	}
	return p
}

func (p *hostPipe) Begin() error                        { return nil }
func (p *hostPipe) Stages() [][]uint32                  { return p.stages }
func (p *hostPipe) Copy(i int, off, n uint64) error     { return p.be.Put(off, p.stages[i][:n]) }
func (p *hostPipe) WaitStage(int) error                 { return nil }
func (p *hostPipe) Last(_ int, a lastArgs) error        { return p.be.Last(a) }
func (p *hostPipe) WaitSlot(int) error                  { return nil }
func (p *hostPipe) Read(dst []uint32, off uint64) error { return p.be.Get(dst, off) }
func (p *hostPipe) Drain() (pipeTimes, error)           { return pipeTimes{}, nil }

// interval is a copy's or a kernel's device time, from a common origin.
type interval struct{ from, to time.Duration }

// overlap returns the time during which an interval of a and one of b both ran: a and b each in
// order and disjoint (the copies of one stream, the kernels of another).
func overlap(a, b []interval) time.Duration {
	var sum time.Duration
	for i, j := 0, 0; i < len(a) && j < len(b); {
		lo, hi := max(a[i].from, b[j].from), min(a[i].to, b[j].to)
		if hi > lo {
			sum += hi - lo
		}
		if a[i].to < b[j].to {
			i++
		} else {
			j++
		}
	}
	return sum
}
