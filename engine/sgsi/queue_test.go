package sgsi

// The GPU backend's staging and timing (stager) on a model of the device's queue that runs
// queued work only when the host waits for it.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/proptest"
)

// queueModel is a device queue that runs its work only when the host waits for it (Synchronize,
// an event's Since, a synchronous copy): the slowest device, on which a staging buffer reused
// before the device has read it shows. Each queued copy checks, when it runs, that the staging
// words it reads still hold what was staged.
type queueModel struct {
	ops    []func() // queued, not run yet
	done   int      // ops run so far
	stale  int      // copies that found their staged words overwritten
	waited int      // waits that found work queued
	err    error    // the first error of a queued kernel or copy
}

func (q *queueModel) Do(fn func() error) error    { return fn() }
func (q *queueModel) Synchronize() error          { q.run(q.done + len(q.ops)); return nil }
func (q *queueModel) NewEvent() (devEvent, error) { return &modelEvent{q: q}, nil }

// run runs the queued ops up to the upto-th of all queued.
func (q *queueModel) run(upto int) {
	if q.done < upto {
		q.waited++
	}
	for q.done < upto {
		f := q.ops[0]
		q.ops = q.ops[1:]
		q.done++
		f()
	}
}

func (q *queueModel) fail(err error) {
	if err != nil && q.err == nil {
		q.err = err
	}
}

// modelEvent is recorded after the ops queued so far; its time is the ops between two events.
type modelEvent struct {
	q  *queueModel
	at int
}

func (e *modelEvent) Record() error { e.at = e.q.done + len(e.q.ops); return nil }
func (e *modelEvent) Close()        {}
func (e *modelEvent) Since(start devEvent) (time.Duration, error) {
	e.q.run(e.at)
	return time.Duration(e.at - start.(*modelEvent).at), nil
}

// queuedBackend is HostBackend behind a stager on a queueModel: the GPU backend's uploads from
// staging and queued kernels, on the host. Kernels and copies run in the queue's order, when it
// runs them.
type queuedBackend struct {
	*HostBackend
	m *queueModel
	s stager
}

// newQueuedBackend returns a region of words with a staging buffer of stage words; timing: the
// queue has events, every call timed up to the sampler's timeAll of a kind, after which the
// sampling (most calls not timed) starts at once.
func newQueuedBackend(words, stage uint64, timing bool) *queuedBackend {
	b := &queuedBackend{HostBackend: NewHostBackend(words), m: &queueModel{}}
	b.s = stager{q: b.m, buf: make([]uint32, stage), timing: timing}
	b.s.sample.ops = [2]uint64{timeAll, timeAll}
	return b
}

func (b *queuedBackend) Put(off uint64, src []uint32) error {
	return b.s.put(src, func(at, n uint64) error {
		staged := b.s.buf[at/4 : (at+n)/4]
		want := slices.Clone(staged)
		b.m.ops = append(b.m.ops, func() {
			if !slices.Equal(staged, want) {
				b.m.stale++
			}
			b.m.fail(b.HostBackend.Put(off, staged))
		})
		return nil
	}, func() error {
		b.m.fail(b.m.Synchronize())
		return b.HostBackend.Put(off, src)
	})
}

func (b *queuedBackend) Get(dst []uint32, off uint64) error {
	return b.s.get(func() error {
		b.m.fail(b.m.Synchronize())
		return b.HostBackend.Get(dst, off)
	})
}

// kernel queues k; a kernel that reads or writes outside the region (a Go index out of range,
// an illegal address on the GPU) fails the queue.
func (b *queuedBackend) kernel(k func() error) error {
	return b.s.launch(func() error {
		b.m.ops = append(b.m.ops, func() {
			defer func() {
				if e := recover(); e != nil {
					b.m.fail(fmt.Errorf("kernel outside the region: %v", e))
				}
			}()
			b.m.fail(k())
		})
		return nil
	})
}

func (b *queuedBackend) Filter(a filterArgs) error {
	return b.kernel(func() error { return b.HostBackend.Filter(a) })
}
func (b *queuedBackend) First(a joinArgs) error {
	return b.kernel(func() error { return b.HostBackend.First(a) })
}
func (b *queuedBackend) Intersect(a joinArgs) error {
	return b.kernel(func() error { return b.HostBackend.Intersect(a) })
}
func (b *queuedBackend) Count(a joinArgs) error {
	return b.kernel(func() error { return b.HostBackend.Count(a) })
}
func (b *queuedBackend) Link(a joinArgs) error {
	return b.kernel(func() error { return b.HostBackend.Link(a) })
}
func (b *queuedBackend) Last(a lastArgs) error {
	return b.kernel(func() error { return b.HostBackend.Last(a) })
}

// TestStagingOnQueue runs out-of-core counts on queuedBackend with staging buffers of a few dozen
// to hundreds of words (uploads wait for the buffer often) with the sampling on from the start
// (most calls not timed), with and without events, against the in-order host emulation
// (HostBackend, checked against the oracle elsewhere) on the GPU check's larger random cases: no
// queued copy may read staged words that a later upload overwrote, no kernel may leave the
// region, and the counts must agree. Issue 21: the buffer was reused once the last timed call had
// run while the untimed calls queued after it had not; on the GPU the rows and offsets
// overwritten before their copy ran sent a kernel outside the region.
func TestStagingOnQueue(t *testing.T) {
	seeds, _ := proptest.Seeds(t, 24, 12)
	waited := 0
	stagingRuns(t, seeds, 1, "./engine/sgsi -run TestStagingOnQueue", func(words, stage uint64, timing bool) (Backend, func() error) {
		be := newQueuedBackend(words, stage, timing)
		return be, func() error {
			be.m.fail(be.m.Synchronize())
			waited += be.m.waited
			if be.m.stale > 0 {
				return fmt.Errorf("%d copies ran on overwritten staging (%v)", be.m.stale, be.m.err)
			}
			return be.m.err
		}
	})
	if waited == 0 {
		t.Errorf("no wait found work queued (the model never ran anything late)")
	}
	t.Logf("%d waits found work queued", waited)
}

// stagingRuns counts the GPU check's larger random cases out of core on the backends of open
// (a region of words, a staging buffer of stage words, the queue's events or not: done checks
// the backend after the count), with blocks of blockSize threads for the long rows, and compares
// with the host emulation at the same region.
func stagingRuns(t *testing.T, seeds []uint64, blockSize uint32, test string, open func(words, stage uint64, timing bool) (be Backend, done func() error)) {
	ctx := context.Background()
	runs := 0
	for _, seed := range seeds {
		c := proptest.MakeLarger(seed)
		sem := proptest.AllSemantics[seed%uint64(len(proptest.AllSemantics))]
		for _, words := range []uint64{3000, 20000} {
			newRunner := func(be Backend) *runner {
				return &runner{ctx: ctx, be: be, st: &Stats{}, s: newStore(c.G, 0), q: compileQuery(c.P), count: true,
					blockRows: 2, blockSize: blockSize, maxCache: words / 8}
			}
			h := newRunner(NewHostBackend(words))
			if err := h.run(sem.Induced, sem.Unique); err != nil {
				t.Fatalf("seed %d %s, region %d words: host emulation: %v", seed, sem, words, err)
			}
			for _, q := range []struct {
				stage  uint64
				timing bool
			}{{32, true}, {128, true}, {512, true}, {128, false}} {
				be, done := open(words, q.stage, q.timing)
				r := newRunner(be)
				err := schedule(be, true, func() error { return r.run(sem.Induced, sem.Unique) })
				derr := done()
				be.Close()
				if err != nil || derr != nil || r.total != h.total {
					t.Fatalf("seed %d %s, region %d words, staging %d words, events %v: count %d (%v, %v), in order %d\n%s",
						seed, sem, words, q.stage, q.timing, r.total, err, derr, h.total, c.Describe(sem, "sgsi", test))
				}
				runs++
			}
		}
	}
	t.Logf("%d runs", runs)
}

// TestCheckKernel checks the refusal of chunks beyond the kernels' 32-bit indices, and that the
// largest the schedule makes pass.
func TestCheckKernel(t *testing.T) {
	for _, c := range []struct {
		rows, buffer uint64
		ok           bool
	}{
		{maxKernelIndex/sigWords - 1, maxKernelIndex - 1, true},
		{maxKernelIndex / sigWords, 0, false},
		{1, maxKernelIndex, false},
		{1, 1 << 32, false},
	} {
		err := checkKernel(c.rows, c.buffer)
		if (err == nil) != c.ok || err != nil && (!errors.Is(err, errKernelRange) || !errors.Is(err, engine.ErrMemory)) {
			t.Errorf("%d rows, %d buffer words: %v, want ok %v (else errKernelRange and ErrMemory)", c.rows, c.buffer, err, c.ok)
		}
	}
}

// TestHostFirstBounds checks that the host emulation's First refuses to write a list longer than
// the row's buffer (on the device: another row's entries overwritten, or a fault).
func TestHostFirstBounds(t *testing.T) {
	for _, bufLen := range []uint32{3, 2} {
		h := NewHostBackend(16)
		// Row 0 = [vertex 0] at 0, F at 1, idx at 3, the segment's offsets at 4 and list at 6,
		// the bitset at 9, the descriptor at 10, the buffers at 12.
		if err := h.Put(0, []uint32{0, 0, bufLen, 0, 0, 3, 1, 2, 3, ^uint32(0), 0, 0}); err != nil {
			t.Fatal(err)
		}
		err := h.First(joinArgs{Rows: 0, Width: 1, F: 1, Idx: 3, NIdx: 1, Group: 1, Col: 0, SegOff: 4, SegNbr: 6, Lo: 0, Hi: 1,
			WinHi: invalid, Bits: 9, Desc: 10, GBA: 12})
		if want := bufLen == 3; (err == nil) != want {
			t.Errorf("a list of 3 into a buffer of %d: %v, want ok %v", bufLen, err, want)
		}
		if err == nil && !slices.Equal(h.mem[12:15], []uint32{1, 2, 3}) {
			t.Errorf("buffer %v, want [1 2 3]", h.mem[12:15])
		}
	}
}
