package gcsm

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/submatch/submatch/internal/par"
)

// GCSM's access-frequency estimator (thesis ch. 2.4): M random walks down the phase's search
// tree, all drawn in one pass. A walk starts at one of the T anchored searches (probability 1/T),
// then at each level goes to one of the accepted candidates with probability 1/D each (D: the
// largest degree), so that B ~ Binomial(M, 1/T) walks enter a search and B' ~ Binomial(B, 1/D)
// of those reaching a node go on to each child. A node at depth i reached by B walks adds
// B·T·D^(i-1) to the estimate of every vertex whose list it reads (the lists its children's
// candidates are drawn from and checked against: exactly the reads of the kernel, through the
// host emulation), and the estimate of C_v is that sum over M: unbiased (eq. 3). The walk count
// is the thesis's M = T·D^(n-2)/32^n, within [minWalks·T, maxWalks]; after the pass it is
// re-checked against eq. 5 (α = 1, δ = 0.5) with the smallest estimate among the lists that
// fit the cache, and the pass is redone once with that many walks when it asks for more than
// twice as many (still at most maxWalks).
//
// Each walk's read of a list also carries the bytes it took from the list by the emulation's
// cost model (a source range scanned: its entries; a candidate checked: a binary search's
// sectors), so the pass estimates both the reads and the bytes read of every list; the lists
// are ranked by one of them (rank): a zero-copy read of a hub's list costs by its length, so
// ranking by reads alone caches many short lists and leaves the hubs, whose reads dominate the
// kernel's traffic through the mapping.

const (
	minWalks      = 16      // per anchored search
	maxWalks      = 1 << 18 // in all
	uniformWalks  = 4       // per anchored search, uniform walks (ModeCacheBytes, ModeCacheDensity, ModeCacheSampled)
	sampleEntries = 8       // a node's source entries checked by sampled walks (ModeCacheSampled)
)

// rank is what the estimator ranks the lists by (the cache modes).
type rank int

const (
	// rankBytes (ModeCacheBytes, ModeCacheSampled): the estimated bytes read through the mapping.
	rankBytes rank = iota
	// rankReads (ModeCache): the estimated reads (the thesis's ranking).
	rankReads
	// rankDensity (ModeCacheDensity): the estimated bytes read per byte the list takes in the
	// cache (the greedy order of the knapsack the cache is).
	rankDensity
)

type estimator struct {
	seed uint64
	rank rank
	// uniform: the walks go on to a uniformly chosen candidate (the b walks at a node shared
	// multinomially among its c candidates, each child's weight scaled by c), perSearch walks
	// per anchored search, instead of the thesis's 1/D walks and walk count: the walks reach
	// the leaves however large D is (ModeCacheBytes, ModeCacheDensity).
	uniform   bool
	perSearch float64
	// sample (uniform walks): the source entries a node's walks check (drawn uniformly when the
	// range has more), the children's weights scaled by the range's size over the entries checked:
	// a walk's cost no longer grows with the ranges' sizes (ModeCacheSampled; 0: all).
	sample int
	// est and bytes: per vertex, the estimated reads and bytes read of its list; key the
	// ranking's key.
	est, bytes, key []float64
	touched         []uint32
	hotBuf          []uint32
	walkers         []*walker
}

// walker is one worker of a pass: its emulation, its random stream (seeded per search, so that
// a pass does not depend on how the searches are shared out), and the reads it recorded.
type walker struct {
	e       emu
	pcg     *rand.PCG
	rng     *rand.Rand
	reads   []read
	weight  float64
	d       float64
	uniform bool
	sample  int // uniform walks: source entries checked at a node (0: all)
}

// read is one recorded list read: the vertex and the weights it adds to the vertex's estimated
// reads (w) and bytes read (b).
type read struct {
	v    uint32
	w, b float64
}

func (s *estimator) init(seed uint64) { s.seed = seed }

// binomial draws from Binomial(n, p).
func (w *walker) binomial(n uint64, p float64) uint64 {
	if n == 0 || p <= 0 {
		return 0
	}
	if p >= 1 {
		return n
	}
	mean := float64(n) * p
	if mean > 32 {
		x := math.Round(mean + math.Sqrt(mean*(1-p))*w.rng.NormFloat64())
		return uint64(min(max(x, 0), float64(n)))
	}
	// Geometric skips between successes.
	lq := math.Log1p(-p)
	var k uint64
	var i float64
	for {
		i += math.Floor(math.Log(1-w.rng.Float64())/lq) + 1
		if i > float64(n) {
			return k
		}
		k++
	}
}

// hot returns the vertices ranked by the estimator's rank, highest first (those that fit budget are
// what the caller caches), and the walks drawn, for the searches of ph. With stale set the walks
// run on the host graph as it was before the batch (the created phase's searches estimated while
// the destroyed phase's kernel runs): a search anchored at a vertex the host graph does not have
// yet is left out, and the anchors are not checked (an inserted edge is not there yet); what the
// walks read below the anchors is the old graph's, an approximation that changes only which
// lists are cached.
func (s *estimator) hot(m *Matcher, ph *phase, budget uint64, stale bool) ([]uint32, uint64) {
	T := ph.numTasks()
	nmax := 2
	for i := range T {
		nmax = max(nmax, m.t.sizes[ph.tasks[taskWords*i+3]])
	}
	D := float64(max(m.h.maxDeg, 2))
	walks := float64(T) * math.Pow(D, float64(nmax-2)) / math.Pow(32, float64(nmax))
	walks = min(max(walks, float64(minWalks*T)), maxWalks)
	if s.uniform {
		walks = min(max(s.perSearch*float64(T), 1), maxWalks)
	}
	M := uint64(walks)
	hot := s.pass(m, ph, M, stale)
	if s.uniform {
		return hot, M
	}
	// Re-check (eq. 5) with the smallest estimated reads among the lists that fit (as pack
	// fills the cache: in rank order, skipping those too long for what is left).
	var used uint64
	cy := 0.0
	for _, v := range hot {
		b := rowBytes(m.h.ln[v])
		if used+b > budget {
			continue
		}
		used += b
		if c := s.est[v] / float64(M); cy == 0 || c < cy {
			cy = c
		}
	}
	if cy > 0 {
		const alpha, delta = 1.0, 0.5
		need := float64(nmax-1) * (2 + alpha) * float64(T) * math.Pow(D, float64(nmax-2)) / (alpha * alpha * (1 - delta) * cy)
		if need > 2*float64(M) && M < maxWalks {
			M = uint64(min(need, maxWalks))
			hot = s.pass(m, ph, M, stale)
		}
	}
	return hot, M
}

// pass draws M walks and ranks the vertices read: the searches are shared among the cores'
// walkers (each search's walks drawn from a stream seeded by its index), and their recorded
// reads summed into the estimates.
func (s *estimator) pass(m *Matcher, ph *phase, M uint64, stale bool) []uint32 {
	T := ph.numTasks()
	nv := uint32(len(m.h.ln))
	tf, d := float64(T), float64(max(m.h.maxDeg, 2))
	const chunk = 16
	workers := par.Workers(T, min(runtime.GOMAXPROCS(0), max(T/64, 1)), chunk)
	for len(s.walkers) < workers {
		pcg := rand.NewPCG(0, 0)
		s.walkers = append(s.walkers, &walker{pcg: pcg, rng: rand.New(pcg)})
	}
	for _, w := range s.walkers[:workers] {
		w.e = emu{t: m.t, h: &m.h, ph: ph}
		w.e.onRead = func(v uint32, b uint64) { w.reads = append(w.reads, read{v, w.weight, w.weight * float64(b)}) }
		w.reads = w.reads[:0]
		w.d, w.uniform, w.sample = d, s.uniform, s.sample
	}
	par.Ranges(T, workers, chunk, func(wi, lo, hi int) bool {
		w := s.walkers[wi]
		for i := lo; i < hi; i++ {
			w.pcg.Seed(s.seed, uint64(i))
			b := w.binomial(M, 1/tf)
			if b == 0 {
				continue
			}
			task := ph.tasks[taskWords*i : taskWords*(i+1)]
			if stale && (task[1] >= nv || task[2] >= nv) {
				continue
			}
			rec := m.t.words[int(task[0])*termWords:][:termWords]
			w.e.f[0], w.e.f[1] = task[1], task[2]
			w.weight = float64(b) * tf
			if !w.e.anchors(rec) && !stale {
				continue
			}
			w.walk(rec, int(rec[tAnchors]), b, tf, task[4], task[5])
		}
		return true
	})
	s.reset(m.g.IDBound())
	for _, w := range s.walkers[:workers] {
		s.add(w.reads)
	}
	return s.ranked(m.h.ln)
}

// reset clears the estimates for a pass over vertex ids below n.
func (s *estimator) reset(n int) {
	if len(s.est) < n {
		s.est = append(s.est, make([]float64, n-len(s.est))...)
		s.bytes = append(s.bytes, make([]float64, n-len(s.bytes))...)
		s.key = append(s.key, make([]float64, n-len(s.key))...)
	}
	for _, v := range s.touched {
		s.est[v], s.bytes[v], s.key[v] = 0, 0, 0
	}
	s.touched = s.touched[:0]
}

// add sums recorded reads into the estimates.
func (s *estimator) add(reads []read) {
	for _, r := range reads {
		if s.est[r.v] == 0 {
			s.touched = append(s.touched, r.v)
		}
		s.est[r.v] += r.w
		s.bytes[r.v] += r.b
	}
}

// ranked returns the vertices read, highest key first (ln: the lists' lengths), ties by id.
func (s *estimator) ranked(ln []uint32) []uint32 {
	hot := s.hotBuf[:0]
	for _, v := range s.touched {
		if s.est[v] <= 0 {
			continue
		}
		switch s.rank {
		case rankReads:
			s.key[v] = s.est[v]
		case rankBytes:
			s.key[v] = s.bytes[v]
		case rankDensity:
			n := uint32(0)
			if int(v) < len(ln) {
				n = ln[v]
			}
			s.key[v] = s.bytes[v] / float64(rowBytes(n))
		}
		hot = append(hot, v)
	}
	slices.SortFunc(hot, func(a, b uint32) int {
		switch {
		case s.key[a] > s.key[b]:
			return -1
		case s.key[a] < s.key[b]:
			return 1
		}
		return int(a) - int(b)
	})
	s.hotBuf = hot
	return hot
}

// walk continues b walks at a node whose children are level k's candidates; scale is T·D^(i-1)
// for the node's depth i.
func (w *walker) walk(rec []uint32, k int, b uint64, scale float64, plo, phi uint32) {
	n := int(rec[tN])
	if k >= n {
		return
	}
	w.weight = float64(b) * scale
	e := &w.e
	// children: the number of candidates the walks' children stand for (those found, or with
	// sampling the estimate n·accepted/checked).
	var children float64
	if w.sample > 0 {
		var checked, all int
		e.bufs[k], checked, all = e.genSample(rec, k, e.bufs[k][:0], plo, phi, w.sample, w.rng)
		if checked > 0 {
			children = float64(all) * float64(len(e.bufs[k])) / float64(checked)
		}
	} else {
		e.bufs[k] = e.gen(rec, k, e.bufs[k][:0], plo, phi)
		children = float64(len(e.bufs[k]))
	}
	if k == n-1 {
		return
	}
	c := len(e.bufs[k])
	if w.uniform {
		// The b walks shared among the c candidates (multinomially), each child's weight scaled
		// by the candidates they stand for: walks reach the leaves however large D is.
		left := b
		for i := 0; i < c && left > 0; i++ {
			bc := w.binomial(left, 1/float64(c-i))
			left -= bc
			if bc == 0 {
				continue
			}
			e.f[k] = e.bufs[k][i]
			w.walk(rec, k+1, bc, scale*children, 0, 0)
		}
		return
	}
	for i := 0; i < c; i++ {
		bc := w.binomial(b, 1/w.d)
		if bc == 0 {
			continue
		}
		e.f[k] = e.bufs[k][i]
		w.walk(rec, k+1, bc, scale*w.d, 0, 0)
	}
}
