package dcsm

import (
	"cmp"
	"slices"

	"github.com/submatch/submatch/csm"
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

type insOp struct {
	key   uint64
	el, c uint32
}

type delOp struct {
	key uint64
	t   uint32
}

// vops is the wave's changes to one vertex, in update order.
type vops struct {
	ins []insOp
	del []delOp
}

type waveUpdate struct {
	u       updates.Update
	skipped bool
	inv     csm.Invalid
}

// wave is the updates being gathered, and what the kernels get.
type wave struct {
	first   uint32 // the timestamp of its first applied update (0: none yet)
	ups     []waveUpdate
	touched []uint32
	idx     []int32 // per vertex: its index in touched, or -1
	ops     []vops  // per touched vertex
	pairs   []csm.PairChange
	verts   []csm.VertexChange

	vrec     []uint32
	ikey     []uint64
	iel, ic  []uint32
	dkey     []uint64
	dt       []uint32
	tasks    []uint32
	counts   []uint64 // per update and pattern: created, destroyed (the executor's)
	host     []uint64 // the same, counted on the host (one-vertex patterns)
	overflow bool
	started  bool // launched on the backend (a wave of skipped updates only is not)
	dev      waveDev
}

// waveDev is where a started wave's results are on the device.
type waveDev struct {
	buf          int
	counts, flag uint64
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
	if i < len(w.ops) {
		w.ops[i].ins, w.ops[i].del = w.ops[i].ins[:0], w.ops[i].del[:0]
	} else {
		w.ops = append(w.ops, vops{})
	}
	return i
}

func (w *wave) ins(v uint32, key uint64, el, t uint32) {
	o := &w.ops[w.touch(v)]
	o.ins = append(o.ins, insOp{key, el, t})
}

func (w *wave) del(v uint32, key uint64, t uint32) {
	o := &w.ops[w.touch(v)]
	o.del = append(o.del, delOp{key, t})
}

// anchor adds the searches of pair term pt anchored at x-y in both orientations that pass the
// anchors' checks (labels, symmetry), reading at tau, into counter slot with sign; dx and dy are
// the anchors' degrees, which bound the third level's source (split into parts when large).
func (w *wave) anchor(pt *pairTerm, x, y, lx, ly, dx, dy, tau, slot, sign uint32) {
	for o := range 2 {
		a, b, la, lb, da, db := x, y, lx, ly, dx, dy
		if o == 1 {
			a, b, la, lb, da, db = y, x, ly, lx, dy, dx
		}
		if !pt.la.Matches(la) || !pt.lb.Matches(lb) || pt.above && a >= b || pt.below && a <= b {
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

// sortIns orders a vertex's insertions by key, then time (stable: they come in time order).
func sortIns(s []insOp) {
	slices.SortStableFunc(s, func(a, b insOp) int { return cmp.Compare(a.key, b.key) })
}

func (w *wave) reset() {
	for _, v := range w.touched {
		w.idx[v] = -1
	}
	w.touched = w.touched[:0]
	w.ups = w.ups[:0]
	w.tasks = w.tasks[:0]
	w.counts = w.counts[:0]
	w.host = w.host[:0]
	w.first = 0
	w.overflow = false
	w.started = false
}
