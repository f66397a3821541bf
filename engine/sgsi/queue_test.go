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

	"github.com/submatch/submatch/internal/proptest"
)

// queueModel is a device queue that runs its work only when the host waits for it (Synchronize,
// an event's Since, a synchronous copy): the slowest device, on which a staging buffer reused
// before the device has read it shows. Each queued copy checks, when it runs, that the staging
// words it reads still hold what was staged.
type queueModel struct {
	ops   []func() // queued, not run yet
	done  int      // ops run so far
	stale int      // copies that found their staged words overwritten
	err   error    // the first error of a queued kernel or copy
}

func (q *queueModel) Do(fn func() error) error    { return fn() }
func (q *queueModel) Synchronize() error          { q.run(q.done + len(q.ops)); return nil }
func (q *queueModel) NewEvent() (devEvent, error) { return &modelEvent{q: q}, nil }

// run runs the queued ops up to the upto-th of all queued.
func (q *queueModel) run(upto int) {
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

// TestStagingOnQueue runs out-of-core counts on queuedBackend with staging buffers of a few words
// (most uploads then wait for the buffer) past the sampler's timeAll (most calls not timed), with
// and without events, against the oracle: no queued copy may read staged words that a later
// upload overwrote (issue 21: the buffer was reused once the last timed call had run, while the
// calls queued after it had not; on the GPU, rows and offsets overwritten before their copy ran
// sent a kernel outside the region).
func TestStagingOnQueue(t *testing.T) {
	ctx := context.Background()
	seeds, _ := proptest.Seeds(t, 40, 10)
	runs := 0
	for o := range proptest.WithOracle(seeds, nil) {
		if o.Want > 5000 {
			continue
		}
		for _, c := range []struct {
			stage  uint64
			timing bool
		}{{16, true}, {64, true}, {64, false}} {
			be := newQueuedBackend(2000, c.stage, c.timing)
			r := &runner{ctx: ctx, be: be, st: &Stats{}, s: newStore(o.G), q: compileQuery(o.P), count: true,
				blockRows: 2, blockSize: 1, maxCache: 100}
			err := r.run(o.Sem.Induced, o.Sem.Unique)
			if errors.Is(err, errNoFit) {
				continue
			}
			how := fmt.Sprintf("seed %d %s, staging %d words, events %v", o.Seed, o.Sem, c.stage, c.timing)
			if err != nil {
				t.Fatalf("%s: %v", how, err)
			}
			be.m.fail(be.m.Synchronize())
			runs++
			if be.m.stale > 0 || be.m.err != nil || r.total != o.Want {
				t.Fatalf("%s: %d copies ran on overwritten staging (%v); count %d, oracle %d\n%s", how, be.m.stale, be.m.err, r.total, o.Want,
					o.Describe(o.Sem, "sgsi on a queue model", "./engine/sgsi -run TestStagingOnQueue"))
			}
		}
	}
	if runs == 0 {
		t.Fatal("no case ran")
	}
	t.Logf("%d runs", runs)
}
