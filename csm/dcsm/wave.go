package dcsm

import (
	"cmp"
	"slices"

	"github.com/submatch/submatch/formats/updates"
)

// The layouts the kernels read (kernels/dcsm.cu repeats them).
const (
	// vrecWords: a touched vertex: v, old block (lo, hi), old length, new block (lo, hi), new
	// length, its insertions [a, b), its deletions [a, b), padding.
	vrecWords = 12
	// taskWords: an anchored search: term, x, y (the anchors' dense ids), τ (the timestamp it
	// reads at), its counter (update in the wave * patterns + pattern), sign (0 created, 1
	// destroyed), and the part [lo, hi) of the third level's source entries it covers (hi 0:
	// all; hi partOpen: from lo to the end).
	taskWords = 8
	partOpen  = ^uint32(0)
)

// splitChunk is the source entries of the third level a part of a search covers: a search whose
// anchors have more neighbours is split into parts that warps take independently (a hub's
// searches would otherwise keep one warp busy while the others idle).
var splitChunk uint32 = 64

const ()

// insOp and delOp are a change to the vertex touched[v] (an insertion: a new version from
// timestamp c; a deletion: the version of key ends at t), kept in update order.
type insOp struct {
	key      uint64
	el, c, v uint32
}

type delOp struct {
	key  uint64
	t, v uint32
}

// waveUpdate is an update of the wave; err is why it was skipped (nil: applied).
type waveUpdate struct {
	u   updates.Update
	err error
}

// wave is the updates being gathered, and what the kernels get.
type wave struct {
	first   uint32 // the timestamp of its first applied update (0: none yet)
	ups     []waveUpdate
	touched []uint32
	idx     []int32 // per vertex: its index in touched, or -1
	ins     []insOp // the wave's changes, in update order (plan groups them by vertex)
	del     []delOp
	nins    []uint32 // per touched vertex: its insertions, then (plan) where they start
	ndel    []uint32 // the same for its deletions
	sorted  []insOp  // plan's scratch: the insertions grouped by vertex

	vrec    []uint32
	ikey    []uint64
	iel, ic []uint32
	dkey    []uint64
	dt      []uint32
	tasks   []uint32
	counts  []uint64 // per update and pattern: created, destroyed (the executor's)
	host    []uint64 // the same, counted on the host (one-vertex patterns)
	clean   int      // counts and host are zero from their lengths up to clean (book)
	// With listing on: per search, its matches (the executor's counts), and the matches a
	// listing launch found per search of its range; per update, the one-vertex patterns' matches.
	tcount   []uint64
	listed   []uint64
	hostm    []hostMatch
	hostAt   int // the first of hostm not emitted
	overflow bool
	started  bool // launched on the backend (a wave of skipped updates only is not)
	dev      waveDev
}

// hostMatch is a one-vertex pattern's match, counted and listed on the host: the update k of
// the wave, the pattern, the sign (+1, -1) and the vertex's original id.
type hostMatch struct {
	k, p, sign int
	v          int64
}

// listStride is the words of one listed match in the listing buffer.
const listStride = MaxPatternVertices

// waveDev is where a started wave's results are on the device.
type waveDev struct {
	buf                          int
	counts, flag, tasks, tcounts uint64
}

func (w *wave) grow(n int) {
	for len(w.idx) < n {
		w.idx = append(w.idx, -1)
	}
}

func (w *wave) touch(v uint32) int {
	w.grow(int(v) + 1)
	if i := w.idx[v]; i >= 0 {
		return int(i)
	}
	i := len(w.touched)
	w.idx[v] = int32(i)
	w.touched = append(w.touched, v)
	w.nins = append(w.nins, 0)
	w.ndel = append(w.ndel, 0)
	return i
}

func (w *wave) addIns(v uint32, key uint64, el, t uint32) {
	i := w.touch(v)
	w.nins[i]++
	w.ins = append(w.ins, insOp{key, el, t, uint32(i)})
}

func (w *wave) addDel(v uint32, key uint64, t uint32) {
	i := w.touch(v)
	w.ndel[i]++
	w.del = append(w.del, delOp{key, t, uint32(i)})
}

// group turns nins and ndel into where each touched vertex's changes start (prefix sums) and
// lays out the insertions by vertex in sorted (each vertex's in update order, then sorted by key,
// stably, by plan) and the deletions by vertex in dkey, dt (in update order).
func (w *wave) group() {
	var a, b uint32
	for i := range w.touched {
		a, w.nins[i] = a+w.nins[i], a
		b, w.ndel[i] = b+w.ndel[i], b
	}
	w.sorted = slices.Grow(w.sorted[:0], len(w.ins))[:len(w.ins)]
	for _, e := range w.ins {
		w.sorted[w.nins[e.v]] = e
		w.nins[e.v]++
	}
	w.dkey = slices.Grow(w.dkey[:0], len(w.del))[:len(w.del)]
	w.dt = slices.Grow(w.dt[:0], len(w.del))[:len(w.del)]
	for _, e := range w.del {
		w.dkey[w.ndel[e.v]], w.dt[w.ndel[e.v]] = e.key, e.t
		w.ndel[e.v]++
	}
	// nins[i], ndel[i] are now where vertex i's changes end
}

// anchor adds the searches of pair term pt anchored at x-y in the orientations of orient
// (pairTerm.orient: those whose labels pass the anchors' checks) that pass the symmetry checks,
// reading at tau, into counter slot with sign; dx and dy are the anchors' degrees, which bound
// the third level's source (split into parts when large).
func (w *wave) anchor(pt *pairTerm, orient uint8, x, y, dx, dy, tau, slot, sign uint32) {
	for o := range 2 {
		a, b, da, db := x, y, dx, dy
		if o == 1 {
			a, b, da, db = y, x, dy, dx
		}
		if orient&(1<<o) == 0 || pt.above && a >= b || pt.below && a <= b {
			continue
		}
		src := uint32(0) // the third level's source: at most its smallest parent's degree
		switch pt.parents2 {
		case 1:
			src = da
		case 2:
			src = db
		case 3:
			src = min(da, db)
		}
		if src <= splitChunk {
			w.tasks = append(w.tasks, pt.index, a, b, tau, slot, sign, 0, 0)
			continue
		}
		for lo := uint32(0); lo < src; lo += splitChunk {
			hi := lo + splitChunk
			if hi >= src {
				hi = partOpen // the last part takes the rest (versions may add entries)
			}
			w.tasks = append(w.tasks, pt.index, a, b, tau, slot, sign, lo, hi)
		}
	}
}

// sortIns orders a vertex's insertions by key, then time (they come in time order, and no two
// have the same key and time: an update inserts one edge). A wave gives most vertices a few
// insertions: those are sorted by insertion, in place.
func sortIns(s []insOp) {
	if len(s) > 16 {
		slices.SortFunc(s, func(a, b insOp) int {
			if c := cmp.Compare(a.key, b.key); c != 0 {
				return c
			}
			return cmp.Compare(a.c, b.c)
		})
		return
	}
	for i := 1; i < len(s); i++ {
		e := s[i]
		j := i
		for ; j > 0 && s[j-1].key > e.key; j-- {
			s[j] = s[j-1]
		}
		s[j] = e
	}
}

func (w *wave) reset() {
	for _, v := range w.touched {
		w.idx[v] = -1
	}
	w.touched = w.touched[:0]
	w.ins, w.del, w.nins, w.ndel = w.ins[:0], w.del[:0], w.nins[:0], w.ndel[:0]
	w.ups = w.ups[:0]
	w.tasks = w.tasks[:0]
	w.counts = w.counts[:0]
	w.host = w.host[:0]
	w.tcount, w.hostm, w.hostAt = w.tcount[:0], w.hostm[:0], 0
	w.first = 0
	w.overflow = false
	w.started = false
}
