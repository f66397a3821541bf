package cpu

import (
	"slices"
	"sync"
	"sync/atomic"
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

	mu       sync.Mutex
	cond     *sync.Cond
	tasks    []task
	idle     int
	workers  int // workers started so far
	finished bool
	stop     *atomic.Bool
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

// join starts one more worker running fn (which must call wg.Done), unless all work is already
// done; it reports whether it started one.
func (s *scheduler) join(wg *sync.WaitGroup, fn func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished || s.stop.Load() {
		return false
	}
	s.workers++
	wg.Add(1)
	go fn()
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
