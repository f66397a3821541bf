package cpu

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// scheduler shares the work of one count among workers: chunks of root candidates first, then
// subtrees that busy workers split off when others are idle (STMatch's work stealing, adapted to
// goroutines: the victim donates the second half of the remaining iterations of its shallowest
// splittable loop). There is no lock or channel operation per match: a worker looks at the
// hungry counter once every pollMask+1 search nodes.
type scheduler struct {
	roots      []uint32
	chunk      int // the largest chunk of roots a worker claims at once
	workersMax int
	next       atomic.Int64
	done       atomic.Int64

	hungry atomic.Int32 // workers waiting for work

	// The ramp-up: one worker starts the search; the others are started (spawn) once it has run
	// for rampDelay after start, by whichever comes first of its own poll (pollRamp) and a
	// timer. ramped is set once they have been started.
	start     time.Time
	rampDelay time.Duration
	spawn     func()
	ramped    atomic.Bool
	rampAt    atomic.Int64 // when the others were started, ns after start (0: never)

	mu       sync.Mutex
	cond     *sync.Cond
	tasks    []task
	idle     int
	workers  int // workers that have started searching (see run)
	finished bool
	stop     *atomic.Bool
	running  sync.WaitGroup // the workers that have started searching and not yet returned
}

// task is a stolen subtree: the data vertices of levels < level and the candidates of level.
type task struct {
	prefix []uint32
	level  int
	cands  []uint32
}

// newScheduler prepares the work of up to maxWorkers workers; they join through join.
func newScheduler(roots []uint32, maxWorkers int, stop *atomic.Bool) *scheduler {
	s := &scheduler{roots: roots, stop: stop, workersMax: maxWorkers}
	s.chunk = max(1, len(roots)/(maxWorkers*256))
	s.cond = sync.NewCond(&s.mu)
	return s
}

// rootChunk claims the next chunk of roots; ok is false when none is left. Roots are handed out
// from the end of the list: candidate lists are sorted by id and the data graph numbers its
// vertices by ascending degree, so the last roots are the hubs, whose subtrees hold most of the
// work (wiki-Vote's wheel, STMatch's q6: 77% of its search nodes below the last tenth of its
// roots). Taking them first (longest first) leaves the light roots for the end, where they even
// out the workers' finishing times; taken last, the heavy ones made the tail that work stealing
// had to split (simulated from the nodes below each root, without stealing: 16 workers finish
// q6 at 1.38 times the ideal time in id order, at 1.00 heaviest first). The chunks start at one
// root and grow to s.chunk as the lighter roots come, claimed/(workers*64) at a time.
func (s *scheduler) rootChunk() (lo, hi int, ok bool) {
	n := int64(len(s.roots))
	for {
		claimed := s.next.Load()
		if claimed >= n {
			return 0, 0, false
		}
		size := max(1, min(int64(s.chunk), claimed/int64(s.workersMax*64)))
		size = min(size, n-claimed)
		if s.next.CompareAndSwap(claimed, claimed+size) {
			return int(n - claimed - size), int(n - claimed), true
		}
	}
}

// take returns a stolen task, waiting while other workers are still busy; ok is false when all
// work is done or the run was stopped.
func (s *scheduler) take() (task, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if n := len(s.tasks); n > 0 {
			t := s.tasks[n-1]
			s.tasks = s.tasks[:n-1]
			return t, true
		}
		if s.finished || s.stop.Load() {
			return task{}, false
		}
		s.idle++
		s.hungry.Store(int32(s.idle))
		if s.idle == s.workers {
			s.finished = true
			s.cond.Broadcast()
			return task{}, false
		}
		s.cond.Wait()
		s.idle--
		s.hungry.Store(int32(s.idle))
	}
}

// run is the body of every worker goroutine: it registers the worker and runs fn, unless all
// work is already done or the run was stopped, in which case it returns at once. A worker
// therefore counts (for take's "all idle") only from when it runs: one whose goroutine starts
// late, after the others finished (its thread was still being created), neither delays the end
// nor finds anything to do.
func (s *scheduler) run(fn func()) {
	s.mu.Lock()
	if s.finished || s.stop.Load() {
		s.mu.Unlock()
		return
	}
	s.workers++
	s.running.Add(1)
	s.mu.Unlock()
	defer s.running.Done()
	fn()
}

// begin starts the search: the first worker at once and, from the caller's goroutine, the others
// after delay (at once when delay is 0). It must be called once; wait then returns when the
// workers that ran have returned.
func (s *scheduler) begin(delay time.Duration, fn func()) {
	s.start = time.Now()
	s.rampDelay = delay
	s.spawn = func() { go s.run(fn) }
	// The first worker registers here, so that the count of running workers is not zero before
	// wait until the search is over.
	s.workers = 1
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		fn()
	}()
	if delay <= 0 {
		s.rampUp()
	}
}

// wait waits for every worker that ran to return.
func (s *scheduler) wait() { s.running.Wait() }

// rampUp starts the other workers, once.
func (s *scheduler) rampUp() {
	if s.ramped.Swap(true) {
		return
	}
	s.rampAt.Store(int64(max(1, time.Since(s.start))))
	for range s.workersMax - 1 {
		s.spawn()
	}
}

// pollRamp starts the other workers when the search has run for rampDelay; the first worker
// calls it every rampPollMask+1 search nodes until they are started (a runtime timer under a
// millisecond fires only after about 1.06 ms while the other Ps are idle, see rampUpDelay). It
// reports whether they are started.
func (s *scheduler) pollRamp() bool {
	if s.ramped.Load() {
		return true
	}
	if time.Since(s.start) < s.rampDelay {
		return false
	}
	s.rampUp()
	return true
}

func (s *scheduler) push(t task) {
	s.mu.Lock()
	s.tasks = append(s.tasks, t)
	s.mu.Unlock()
	s.cond.Signal()
}

// wake releases waiting workers (on cancellation).
func (s *scheduler) wake() {
	s.mu.Lock()
	s.cond.Broadcast()
	s.mu.Unlock()
}

// maybeDonate splits the shallowest loop that has at least two iterations left.
func (w *worker) maybeDonate() {
	for i := 1; i < len(w.levels); i++ {
		if w.iterEnd[i] == 0 {
			continue
		}
		rem := w.iterEnd[i] - w.iterPos[i] - 1
		if rem < 2 {
			continue
		}
		mid := w.iterPos[i] + 1 + rem/2
		w.sched.push(task{
			prefix: slices.Clone(w.m[:i]),
			level:  i,
			cands:  slices.Clone(w.iterCands[i][mid:w.iterEnd[i]]),
		})
		w.iterEnd[i] = mid
		return
	}
}

// runTask searches a stolen subtree. The local sets that later levels reuse are recomputed
// first: those of the prefix's levels and that of the task's own level (the task carries only the
// part of it left to iterate).
func (w *worker) runTask(t task) bool {
	for j, c := range t.prefix {
		w.assign(j, c)
	}
	for j := 1; j <= t.level; j++ {
		if w.reused[j] {
			w.candidates(j)
		}
	}
	return w.loop(t.level, t.cands)
}
