package sgsi

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/submatch/submatch/gpu"
)

// gpuPipe is the GPU backend's pipeline (pipe.go): uploads on a copy stream from a ring of
// pinned staging buffers, the direct count's kernels on a compute stream, both non-blocking
// streams of package gpu. Every copy and kernel is timed by a pair of events, read once the
// host has waited past them, as intervals from an origin recorded at Begin: their sums are the
// copies' and the kernels' device times, and the intersection of the two streams' intervals the
// time they overlapped.
type gpuPipe struct {
	b             *gpuBackend
	copies, comp  *gpu.Stream
	pinned        *gpu.HostBuffer // the staging buffers, one after the other
	words         [][]uint32      // the staging buffers
	staged        []*gpu.Event    // stage i's last copy
	stagedSet     []bool
	slot          [2]*gpu.Event // slot s's last kernel
	slotSet       [2]bool
	copied        *gpu.Event // the copies queued before a kernel
	origin        *gpu.Event
	free          []*gpu.Event
	marks         []pipeMark // recorded, not read (the marks recorded before them: read)
	read          int        // marks read so far
	fence         [2]int     // the marks recorded before slot s's last kernel's mark
	copyIv, kerIv []interval
	times         pipeTimes // read so far, summed over Drains
}

// pipeMark is an event pair around one copy or kernel.
type pipeMark struct {
	start, stop *gpu.Event
	kernel      bool
}

// pipeStages is the most staging buffers of the ring (streamWords each: 64 MiB pinned, in one
// allocation).
const pipeStages = 16

// pipe implements piper: the backend's pipeline, made at its first use; ok is false when the
// driver has no streams.
func (b *gpuBackend) pipe() (_ pipeQueue, _ bool, err error) {
	if b.gp != nil {
		return b.gp, true, nil
	}
	p := &gpuPipe{b: b}
	if p.copies, err = b.d.NewStream(); err != nil {
		if errors.Is(err, gpu.ErrNoStreams) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("sgsi: the copy stream: %w", err)
	}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	if p.comp, err = b.d.NewStream(); err != nil {
		return nil, false, fmt.Errorf("sgsi: the compute stream: %w", err)
	}
	n := min(2*runtime.GOMAXPROCS(0), pipeStages)
	if p.pinned, err = b.d.AllocHost(4 * streamWords * uint64(n)); err != nil {
		return nil, false, fmt.Errorf("sgsi: the pipeline's pinned staging buffers: %w", err)
	}
	all := words(p.pinned)
	for i := range n {
		p.words = append(p.words, all[i*streamWords:(i+1)*streamWords:(i+1)*streamWords])
		e, err := p.event()
		if err != nil {
			return nil, false, err
		}
		p.staged = append(p.staged, e)
	}
	p.stagedSet = make([]bool, n)
	for _, e := range []**gpu.Event{&p.slot[0], &p.slot[1], &p.copied, &p.origin} {
		if *e, err = p.event(); err != nil {
			return nil, false, err
		}
	}
	b.gp = p
	return p, true, nil
}

// event returns a free event, or a new one.
func (p *gpuPipe) event() (*gpu.Event, error) {
	if n := len(p.free); n > 0 {
		e := p.free[n-1]
		p.free = p.free[:n-1]
		return e, nil
	}
	return p.b.d.NewEvent()
}

// Begin waits for the default stream (the stager's queue, with its marks read), then records
// the origin of the intervals.
func (p *gpuPipe) Begin() error {
	if err := p.b.q.catchUp(); err != nil {
		return err
	}
	return p.origin.RecordOn(p.copies)
}

func (p *gpuPipe) Stages() [][]uint32 { return p.words }

// timed runs f, which queues a copy or a kernel on s, between two recorded events.
func (p *gpuPipe) timed(s *gpu.Stream, kernel bool, f func() error) error {
	m := pipeMark{kernel: kernel}
	var err error
	if m.start, err = p.event(); err != nil {
		return err
	}
	if m.stop, err = p.event(); err != nil {
		p.free = append(p.free, m.start)
		return err
	}
	p.marks = append(p.marks, m)
	if err := m.start.RecordOn(s); err != nil {
		return err
	}
	if err := f(); err != nil {
		return err
	}
	return m.stop.RecordOn(s)
}

func (p *gpuPipe) Copy(i int, off, n uint64) error {
	err := p.timed(p.copies, false, func() error {
		return gpu.CopyToDeviceOn(p.copies, p.b.region, 4*off, p.pinned, 4*uint64(i)*streamWords, 4*n)
	})
	if err != nil {
		return err
	}
	p.stagedSet[i] = true
	return p.staged[i].RecordOn(p.copies)
}

func (p *gpuPipe) WaitStage(i int) error {
	if !p.stagedSet[i] {
		return nil
	}
	p.stagedSet[i] = false
	return p.staged[i].Wait()
}

func (p *gpuPipe) Last(s int, a lastArgs) error {
	if err := p.copied.RecordOn(p.copies); err != nil {
		return err
	}
	if err := p.comp.WaitEvent(p.copied); err != nil {
		return err
	}
	if err := p.timed(p.comp, true, func() error { return p.b.lastOn(p.comp, a) }); err != nil {
		return err
	}
	p.fence[s] = p.read + len(p.marks)
	p.slotSet[s] = true
	return p.slot[s].RecordOn(p.comp)
}

func (p *gpuPipe) WaitSlot(s int) error {
	if !p.slotSet[s] {
		return nil
	}
	p.slotSet[s] = false
	if err := p.slot[s].Wait(); err != nil {
		return err
	}
	// Every mark before the slot's kernel's stop has run: the kernel waited for the copies
	// queued before it, and the kernels before it ran before it.
	return p.readMarks(p.fence[s])
}

// readMarks reads the marks up to upto (of all recorded) into the intervals.
func (p *gpuPipe) readMarks(upto int) error {
	k := upto - p.read
	if k <= 0 {
		return nil
	}
	var first error
	for _, m := range p.marks[:k] {
		from, err1 := m.start.Since(p.origin)
		to, err2 := m.stop.Since(p.origin)
		if err := errors.Join(err1, err2); err != nil && first == nil {
			first = err
		}
		if m.kernel {
			p.kerIv = append(p.kerIv, interval{from, to})
			p.times.kernels += to - from
		} else {
			p.copyIv = append(p.copyIv, interval{from, to})
			p.times.copies += to - from
		}
		p.free = append(p.free, m.start, m.stop)
	}
	p.marks = append(p.marks[:0], p.marks[k:]...)
	p.read = upto
	return first
}

// Read copies back on the default stream, which waits for nothing of the pipeline's: the slot
// the words belong to has been waited for (pipeline.settle).
func (p *gpuPipe) Read(dst []uint32, off uint64) error {
	return gpu.CopyToHost(dst, p.b.region, 4*off)
}

// Drain waits for both streams and returns the times since the last Drain.
func (p *gpuPipe) Drain() (pipeTimes, error) {
	err := errors.Join(p.copies.Synchronize(), p.comp.Synchronize())
	clear(p.stagedSet)
	p.slotSet = [2]bool{}
	if e := p.readMarks(p.read + len(p.marks)); err == nil {
		err = e
	}
	t := p.times
	t.overlap = overlap(p.copyIv, p.kerIv)
	p.b.pipeComm += t.copies
	p.b.pipeComp += t.kernels
	p.times, p.copyIv, p.kerIv = pipeTimes{}, p.copyIv[:0], p.kerIv[:0]
	return t, err
}

// close waits for both streams and frees the streams, events and staging buffers.
func (p *gpuPipe) close() {
	_ = p.copies.Close() // waits for the stream: no copy may still read a staging buffer
	_ = p.comp.Close()
	for _, m := range p.marks {
		p.free = append(p.free, m.start, m.stop)
	}
	for _, e := range append(append(p.free, p.staged...), p.slot[0], p.slot[1], p.copied, p.origin) {
		e.Close()
	}
	if p.pinned != nil {
		p.pinned.Free()
	}
}

// lastOn launches Last on s (nil: the default stream).
func (b *gpuBackend) lastOn(s *gpu.Stream, a lastArgs) error {
	units := uint64(a.NRows) // rows, or the vertices that generate them
	if a.NGen > 0 {
		units = uint64(a.NGen)
	}
	stop, ctl := b.stopArgs()
	return b.last.LaunchOn(s, gpu.Dim3{X: blocks(units * uint64(a.Group))}, gpu.Dim3{X: blockThreads}, 0,
		b.ptr(0), b.ptr(a.Rows), a.Width, a.NRows, a.Group, b.ptr(a.Links), a.NLinks, b.ptr(a.Bits), b.ptr(a.Desc),
		b.ptr(a.Gen), a.NGen, a.GenLink, b.ptr(a.Bits1), b.ptr(a.Desc0), a.RCol, a.RLo, a.RHi, b.ptr(a.Total), stop, ctl)
}
