package partition

import "sync"

// Parallelism inside one multilevel run. Refinement is speculative: the neighbourhood scans (the
// expensive part: which parts a vertex touches and how strongly) of a batch of vertices run on
// several goroutines against the assignment as it stands at the batch's start, then the moves are
// decided and committed one vertex at a time in the sequential order, a vertex whose neighbourhood
// changed within the batch (a neighbour moved) being scanned again. Every decision sees exactly the
// data the sequential loop would: the parts are the same for any number of threads.

// parMinVertices: levels with fewer vertices are refined sequentially (a variable so that tests
// can exercise the parallel path on small graphs).
var parMinVertices = 1 << 14

// specBatch is the number of vertices scanned in parallel before their moves are committed.
const specBatch = 4096

// partConn is a part a vertex touches and the weight of its edges into it.
type partConn struct {
	p uint32
	c uint64
}

// gather appends to buf the parts v's neighbours are in, in the order first met, with v's edge
// weight to each; conn (one entry a part, zero) is left zero.
func (w *wgraph) gather(part []uint32, v uint32, conn []uint64, buf []partConn) []partConn {
	start := len(buf)
	for j := w.xadj[v]; j < w.xadj[v+1]; j++ {
		p := part[w.adj[j]]
		if conn[p] == 0 {
			buf = append(buf, partConn{p: p})
		}
		conn[p] += w.ew[j]
	}
	for i := start; i < len(buf); i++ {
		buf[i].c = conn[buf[i].p]
		conn[buf[i].p] = 0
	}
	return buf
}

// speculator scans batches of vertices on threads goroutines (the caller's among them).
type speculator struct {
	w      *wgraph
	part   []uint32
	active []bool
	batch  []uint32
	off    []int32 // off[i]: slot i's first candidate in its worker's buffer, -1 when not scanned
	cnt    []int32
	wk     []int32 // wk[i]: the worker that scanned slot i
	bufs   [][]partConn
	conns  [][]uint64
	start  []chan struct{}
	wg     sync.WaitGroup
}

// newSpeculator starts threads-1 workers for w's refinement into k parts; stop ends them.
func newSpeculator(w *wgraph, part []uint32, active []bool, k, threads int) *speculator {
	s := &speculator{w: w, part: part, active: active,
		off: make([]int32, specBatch), cnt: make([]int32, specBatch), wk: make([]int32, specBatch),
		bufs: make([][]partConn, threads), conns: make([][]uint64, threads), start: make([]chan struct{}, threads)}
	for t := range threads {
		s.conns[t] = make([]uint64, k)
		s.bufs[t] = make([]partConn, 0, 4*specBatch)
		if t > 0 {
			s.start[t] = make(chan struct{})
			go s.worker(t)
		}
	}
	return s
}

func (s *speculator) worker(t int) {
	for range s.start[t] {
		s.scan(t)
		s.wg.Done()
	}
}

// scan scans worker t's share of the batch: the active vertices' candidate parts.
func (s *speculator) scan(t int) {
	n, threads := len(s.batch), len(s.bufs)
	lo, hi := t*n/threads, (t+1)*n/threads
	buf := s.bufs[t][:0]
	for i := lo; i < hi; i++ {
		v := s.batch[i]
		if !s.active[v] {
			s.off[i] = -1
			continue
		}
		s.off[i], s.wk[i] = int32(len(buf)), int32(t)
		buf = s.w.gather(s.part, v, s.conns[t], buf)
		s.cnt[i] = int32(len(buf)) - s.off[i]
	}
	s.bufs[t] = buf // grown when needed, kept for the next batches
}

// run scans batch (at most specBatch vertices) on every thread and returns when all are done.
func (s *speculator) run(batch []uint32) {
	s.batch = batch
	threads := len(s.bufs)
	s.wg.Add(threads - 1)
	for t := 1; t < threads; t++ {
		s.start[t] <- struct{}{}
	}
	s.scan(0)
	s.wg.Wait()
}

// cands is slot i's candidate parts as scanned (nil, false when it was not scanned).
func (s *speculator) cands(i int) ([]partConn, bool) {
	if s.off[i] < 0 {
		return nil, false
	}
	return s.bufs[s.wk[i]][s.off[i] : s.off[i]+s.cnt[i]], true
}

// stop ends the workers.
func (s *speculator) stop() {
	for t := 1; t < len(s.start); t++ {
		close(s.start[t])
	}
}
