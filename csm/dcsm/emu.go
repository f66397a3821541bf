package dcsm

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"time"
)

// backend holds the pool and runs the waves: the GPU (device.go) or the host emulation (emu).
type backend interface {
	// load sets the pool's first content (entries of the initial graph: c 0, d inf) with room for
	// pool entries, and the vertex table from s.
	load(in initial, s *store, pool uint64) error
	// ensure grows the pool to pool entries and the vertex table to n vertices, keeping both.
	ensure(pool uint64, n int) error
	// start applies the wave (the updater, then the executor, whose counts go to w.counts),
	// perhaps asynchronously; finish waits for it. A wave is finished before the next but one
	// starts.
	start(ctx context.Context, w *wave) error
	finish(w *wave) error
	// list lists the matches of searches [lo, hi) of a finished wave into buf (listStride words
	// a match, dense ids in level order). With limit 0, search i writes its w.tcount[i] matches
	// from its cursor (the counts of the searches before it, from lo) and w.listed[i-lo] is the
	// matches it found (the host checks them against the counts); with limit > 0, the one search
	// lo (hi == lo+1) writes the window [skip, skip+limit) of its matches in its fixed order and
	// w.listed[0] is the matches written. It fails with ErrListing where the backend does not list.
	listMatches(ctx context.Context, w *wave, lo, hi int, skip, limit uint64, buf []uint32) error
	// lists reports whether listMatches lists.
	lists() bool
	// bytes is the device memory held.
	bytes() uint64
	// gpuTime is the device time of the waves finished so far (CUDA events around each wave's
	// kernels); 0 where there is no device or no event API.
	gpuTime() time.Duration
	// idle reports, without waiting, whether the started wave w has finished (its finish would
	// not wait for the device); false where that cannot be known.
	idle(w *wave) bool
	close()
}

// mark is the creation time of a slot the updater has not filled yet (no update has it).
const mark = inf

// emu is the host emulation of the kernels over Go slices: the same pool layout, the same
// updater passes and the same search rules, one step at a time. The tests compare it with the
// CPU engine; the GPU tests compare the kernels with the CPU engine.
type emu struct {
	t         *table
	key       []uint64
	el, c, d  []uint32
	voff      []uint64
	vlen      []uint32
	tasksSeen int
}

func newEmu(t *table) *emu { return &emu{t: t} }

func (e *emu) load(in initial, s *store, pool uint64) error {
	if err := e.ensure(pool, len(s.off)); err != nil {
		return err
	}
	copy(e.key, in.keys)
	copy(e.el, in.el)
	for i := range e.d {
		e.c[i], e.d[i] = 0, inf
	}
	copy(e.voff, s.off)
	copy(e.vlen, s.ln)
	return nil
}

func (e *emu) ensure(pool uint64, n int) error {
	for uint64(len(e.key)) < pool {
		e.key, e.el, e.c, e.d = append(e.key, 0), append(e.el, 0), append(e.c, 0), append(e.d, inf)
	}
	for len(e.voff) < n {
		e.voff, e.vlen = append(e.voff, 0), append(e.vlen, 0)
	}
	return nil
}

func (e *emu) gpuTime() time.Duration { return 0 }

func (e *emu) bytes() uint64 { return 20*uint64(len(e.key)) + 12*uint64(len(e.voff)) }

func (e *emu) close() {}

func (e *emu) finish(*wave) error { return nil }

// idle: the emulation's start runs the wave to its end.
func (e *emu) idle(*wave) bool { return true }

func (e *emu) start(ctx context.Context, w *wave) error {
	if err := e.update(w); err != nil {
		return err
	}
	for i := 0; i < len(w.tasks); i += taskWords {
		if i%(64*taskWords) == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		tk := w.tasks[i : i+taskWords]
		n, ok := e.search(tk, nil)
		if len(w.tcount) > 0 { // listing on: the per-search counts
			w.tcount[i/taskWords] = n
		}
		j := 2*int(tk[4]) + int(tk[5])
		s, carry := bits.Add64(w.counts[j], n, 0)
		if !ok || carry != 0 {
			return fmt.Errorf("dcsm: %w", errOverflow)
		}
		w.counts[j] = s
	}
	e.tasksSeen += len(w.tasks) / taskWords
	return nil
}

// update is the updater kernel, a vertex at a time.
func (e *emu) update(w *wave) error {
	for r := 0; r < len(w.vrec); r += vrecWords {
		R := w.vrec[r : r+vrecWords]
		v := R[0]
		oo, on := uint64(R[1])|uint64(R[2])<<32, uint64(R[3])
		no, nn := uint64(R[4])|uint64(R[5])<<32, uint64(R[6])
		ia, ib, da, db := R[7], R[8], R[9], R[10]
		ins := w.ikey[ia:ib]
		for i := range nn {
			e.c[no+i] = mark
		}
		// Pass 1: the kept entries (visible to a read at the wave's first timestamp or later) to
		// their merged positions: their rank among the kept, plus the insertions with a
		// smaller key (an insertion with the same key is a later version).
		var base uint64
		for i := range on {
			if e.d[oo+i] < w.first {
				continue
			}
			k := e.key[oo+i]
			p := no + base + uint64(lowerBound(ins, k))
			if p >= no+nn { // more kept than planned: never past the new block (the kernel's err 1)
				return fmt.Errorf("dcsm: internal error: vertex %d keeps more than the %d entries planned", v, nn)
			}
			e.key[p], e.el[p], e.c[p], e.d[p] = k, e.el[oo+i], e.c[oo+i], e.d[oo+i]
			base++
		}
		// Pass 2: the insertions into the slots left, in order.
		g := uint32(0)
		for i := range nn {
			if e.c[no+i] == mark && g < ib-ia {
				e.key[no+i], e.el[no+i], e.c[no+i], e.d[no+i] = w.ikey[ia+g], w.iel[ia+g], w.ic[ia+g], inf
				g++
			}
		}
		if g != ib-ia || base+uint64(g) != nn {
			return fmt.Errorf("dcsm: internal error: vertex %d rewritten with %d kept and %d new entries, %d planned", v, base, g, nn)
		}
		// Pass 3: a deletion ends the last version of its key created before it.
		for j := da; j < db; j++ {
			k, t := w.dkey[j], w.dt[j]
			hit := -1
			for i := lowerBound(e.key[no:no+nn], k); i < int(nn) && e.key[no+uint64(i)] == k; i++ {
				if e.c[no+uint64(i)] < t {
					hit = i
				}
			}
			if hit < 0 {
				return fmt.Errorf("dcsm: internal error: vertex %d has no version of %x to delete at %d", v, k, t)
			}
			e.d[no+uint64(hit)] = t
		}
		e.voff[v], e.vlen[v] = no, uint32(nn)
	}
	return nil
}

func lowerBound(a []uint64, x uint64) int {
	i, _ := slices.BinarySearch(a, x)
	return i
}

// list is a vertex's entries.
type list struct {
	key      []uint64
	el, c, d []uint32
}

func (e *emu) list(v uint32) list {
	o, n := e.voff[v], uint64(e.vlen[v])
	return list{e.key[o : o+n], e.el[o : o+n], e.c[o : o+n], e.d[o : o+n]}
}

// find returns the index of key's version visible at tau, or -1.
func (l *list) find(key uint64, tau uint32) int {
	for i := lowerBound(l.key, key); i < len(l.key) && l.key[i] == key; i++ {
		if l.c[i] <= tau && tau < l.d[i] {
			return i
		}
	}
	return -1
}

// search counts the matches of one anchored search (levels 2 on); false on overflow. With
// visit non-nil it calls visit with every match (f[:n], level order) in the search's fixed order.
func (e *emu) search(tk []uint32, visit func(f *[MaxPatternVertices]uint32)) (uint64, bool) {
	rec := e.t.words[int(tk[0])*termWords : int(tk[0]+1)*termWords]
	var f [MaxPatternVertices]uint32
	f[0], f[1] = tk[1], tk[2]
	return e.level(rec, 2, int(rec[tN]), &f, tk[3], tk[6], tk[7], visit)
}

// listMatches is the listing launch: each search enumerates its matches in the order it counted them
// and writes those in its range (its cursor on, or the window) to buf.
func (e *emu) listMatches(ctx context.Context, w *wave, lo, hi int, skip, limit uint64, buf []uint32) error {
	var cur uint64 // the search's first slot in buf
	w.listed = slices.Grow(w.listed[:0], hi-lo)[:hi-lo]
	for i := lo; i < hi; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		room := w.tcount[i]
		if limit > 0 {
			room = limit
		}
		var seen, wrote uint64
		e.search(w.tasks[i*taskWords:(i+1)*taskWords], func(f *[MaxPatternVertices]uint32) {
			if seen >= skip && wrote < room {
				copy(buf[(cur+wrote)*listStride:], f[:])
				wrote++
			}
			seen++
		})
		w.listed[i-lo] = seen
		if limit > 0 {
			w.listed[i-lo] = wrote
		}
		cur += w.tcount[i]
	}
	return nil
}

// source chooses a level's source as the kernel does (gpucsm's csm_source): the parent with the
// fewest entries of the level's label; it returns the parent's index and the range.
func source(lv []uint32, ls *[MaxPatternVertices]list) (int, int, int) {
	return levelLayout.Source(lv, func(pos uint32) []uint64 { return ls[pos].key })
}

// level counts the matches of levels k.. given f[:k]; plo, phi (phi 0: all) narrow level k's
// source to a search's part.
func (e *emu) level(rec []uint32, k, n int, f *[MaxPatternVertices]uint32, tau, plo, phi uint32, visit func(*[MaxPatternVertices]uint32)) (uint64, bool) {
	if k == n {
		if visit != nil {
			visit(f)
		}
		return 1, true
	}
	lv := rec[termHeader+k*levelWords : termHeader+(k+1)*levelWords]
	var ls [MaxPatternVertices]list
	for j := range k {
		ls[j] = e.list(f[j])
	}
	si, lo, hi := source(lv, &ls)
	if phi != 0 {
		a, b := min(lo+int(plo), hi), hi
		if phi != partOpen {
			b = min(lo+int(phi), hi)
		}
		lo, hi = a, b
	}
	src := &ls[lv[lPPos+si]]
	var total uint64
	for i := lo; i < hi; i++ {
		key := src.key[i]
		if src.c[i] > tau || tau >= src.d[i] || lv[lPELAny+si] == 0 && src.el[i] != lv[lPEL+si] {
			continue
		}
		c, lab := uint32(key), uint32(key>>32)
		if !accept(lv, k, c, lab, si, f, &ls, tau) {
			continue
		}
		f[k] = c
		x, ok := e.level(rec, k+1, n, f, tau, 0, 0, visit)
		var carry uint64
		total, carry = bits.Add64(total, x, 0)
		if !ok || carry != 0 {
			return 0, false
		}
	}
	return total, true
}

// accept checks a candidate c (vertex label lab) of level lv against the earlier levels; parent
// skip is the source it came from.
func accept(lv []uint32, k int, c, lab uint32, skip int, f *[MaxPatternVertices]uint32, ls *[MaxPatternVertices]list, tau uint32) bool {
	if !levelLayout.OrderOK(lv, k, c, f[:]) {
		return false
	}
	if lv[lVLAny] == 0 && lab != lv[lVL] {
		return false
	}
	key := uint64(lab)<<32 | uint64(c)
	for i := range int(lv[lNPar]) {
		if i == skip {
			continue
		}
		l := &ls[lv[lPPos+i]]
		at := l.find(key, tau)
		if at < 0 || lv[lPELAny+i] == 0 && l.el[at] != lv[lPEL+i] {
			return false
		}
	}
	for j := range k {
		if lv[lNonAdj]&(1<<j) != 0 && ls[j].find(key, tau) >= 0 {
			return false
		}
	}
	return true
}

func (e *emu) lists() bool { return true }
