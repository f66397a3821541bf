package sgsi

import (
	"time"

	"github.com/submatch/submatch/gpu"
)

// devQueue is the device's work queue (the default stream, in order) as the GPU backend's
// staging and timing see it: gpuQueue on a GPU; the tests' queueModel, which runs queued work
// only when the host waits for it, checks the staging on the host.
type devQueue interface {
	// Do runs fn on the device's worker thread.
	Do(fn func() error) error
	// Synchronize waits until the device has run everything queued.
	Synchronize() error
	NewEvent() (devEvent, error)
}

// devEvent is a mark in the queue, after the work queued before its Record.
type devEvent interface {
	Record() error
	// Since waits until the device reaches the event and returns the device time from start.
	Since(start devEvent) (time.Duration, error)
	Close()
}

// gpuQueue is a GPU's queue.
type gpuQueue struct{ *gpu.Device }

func (q gpuQueue) NewEvent() (devEvent, error) {
	e, err := q.Device.NewEvent()
	if err != nil {
		return nil, err
	}
	return gpuEvent{e}, nil
}

type gpuEvent struct{ *gpu.Event }

func (e gpuEvent) Since(start devEvent) (time.Duration, error) {
	return e.Event.Since(start.(gpuEvent).Event)
}

// stager queues the GPU backend's uploads from a pinned staging buffer and times its copies and
// kernels by events. An upload is copied into the buffer and queued; the buffer is reused from
// its start once the device has run everything queued (catchUp): a queued copy reads its bytes
// when the device runs it, not when it is queued.
type stager struct {
	q      devQueue
	buf    []uint32 // the pinned staging buffer
	staged uint64   // words of buf in use
	timing bool     // the queue has events
	free   []devEvent
	marks  []mark  // events recorded and not read yet
	sample sampler // which calls are timed
	// untimed is set when a call was queued after the last mark's stop event: reading the marks
	// then does not wait for it.
	untimed bool
	// comm and comp are the device times of the copies and kernels read so far.
	comm, comp time.Duration
}

// mark is an event pair around one copy (kernel false) or kernel, which stands for weight of them.
type mark struct {
	start, stop devEvent
	kernel      bool
	weight      int64
}

// ready makes room, by waiting for the device, for n more words staged and one more mark. It is
// called before anything is staged: catchUp frees the whole staging buffer.
func (s *stager) ready(n uint64) error {
	if len(s.marks) >= maxMarks || s.staged+n > uint64(len(s.buf)) {
		return s.catchUp()
	}
	return nil
}

// put queues the upload of src: staged, its copy queued by async with the byte offset and
// length of the staged words in the buffer; or, when src is longer than the buffer, copied by
// sync (a synchronous copy, after the work queued before it).
func (s *stager) put(src []uint32, async func(at, n uint64) error, sync func() error) error {
	n := uint64(len(src))
	if n > uint64(len(s.buf)) {
		if err := s.ready(0); err != nil {
			return err
		}
		return s.timed(false, sync)
	}
	if err := s.ready(n); err != nil {
		return err
	}
	at := s.staged
	copy(s.buf[at:], src)
	s.staged = (at + n + 3) &^ 3 // 16-byte aligned
	return s.timed(false, func() error { return async(4*at, 4*n) })
}

// get runs copy, a synchronous copy back, after the work queued before it; the device has then
// caught up.
func (s *stager) get(copy func() error) error {
	if err := s.ready(0); err != nil {
		return err
	}
	if err := s.timed(false, copy); err != nil {
		return err
	}
	return s.catchUp()
}

// launch runs f, which queues a kernel.
func (s *stager) launch(f func() error) error {
	if err := s.ready(0); err != nil {
		return err
	}
	return s.timed(true, f)
}

// timed runs f (which queues a copy or a kernel), when it is sampled between two recorded events
// (after ready).
func (s *stager) timed(kernel bool, f func() error) error {
	if !s.timing {
		return f()
	}
	kind := 0
	if kernel {
		kind = 1
	}
	m := mark{kernel: kernel, weight: s.sample.next(kind)}
	if m.weight == 0 {
		s.untimed = true
		return f()
	}
	s.untimed = false
	var err error
	if m.start, err = s.event(); err != nil {
		return err
	}
	if m.stop, err = s.event(); err != nil {
		s.free = append(s.free, m.start)
		return err
	}
	s.marks = append(s.marks, m)
	return s.q.Do(func() error {
		if err := m.start.Record(); err != nil {
			return err
		}
		if err := f(); err != nil {
			return err
		}
		return m.stop.Record()
	})
}

// event returns an event to record: a free one, or a new one.
func (s *stager) event() (devEvent, error) {
	if n := len(s.free); n > 0 {
		e := s.free[n-1]
		s.free = s.free[:n-1]
		return e, nil
	}
	return s.q.NewEvent()
}

// catchUp waits until the device has run everything queued, adds the marks' times, and frees the
// staging buffer for reuse. The marks are read in one call on the device's thread. They cover
// the queue only up to the last one: calls queued after it, untimed, may not have run yet, and
// their copies still read the staging buffer (issue 21: reused early, it sent rows and offsets
// overwritten by the next upload to the kernels, which faulted once the sampling started).
func (s *stager) catchUp() error {
	if len(s.marks) == 0 || s.untimed {
		if err := s.q.Synchronize(); err != nil {
			return err
		}
		s.untimed = false
	}
	if len(s.marks) == 0 {
		s.staged = 0
		return nil
	}
	err := s.q.Do(func() error {
		var first error
		for _, m := range s.marks {
			d, err := m.stop.Since(m.start)
			if err != nil && first == nil {
				first = err
			}
			if m.kernel {
				s.comp += d * time.Duration(m.weight)
			} else {
				s.comm += d * time.Duration(m.weight)
			}
			s.free = append(s.free, m.start, m.stop)
		}
		return first
	})
	s.marks = s.marks[:0]
	if err == nil {
		s.staged = 0
	}
	return err
}

// close waits for the device and closes the events.
func (s *stager) close() {
	_ = s.catchUp() // nothing queued may still read the buffers the caller frees next
	_ = s.q.Do(func() error {
		for _, e := range s.free {
			e.Close()
		}
		return nil
	})
	s.free = nil
}
