package gcsm

import (
	"cmp"
	"runtime"
	"slices"

	"github.com/submatch/submatch/internal/par"
)

// The device cache in GCSM's DCSR form, kept on the GPU from phase to phase: a row table (per
// row its vertex, the offset of its entries and their number) and the entries (keys, edge
// labels), with a per-vertex slot array giving a cached vertex's row. The kernel reads a list
// through slot, roff and rlen only, so rows may lie in any order and the entries may leave
// gaps. Each phase the matcher chooses the lists to cache (pack) and places the choice in the
// layout (place): rows no longer chosen are evicted (their slots cleared, their entries' range
// freed), rows whose lists the last batch changed are gathered again (in place when they still
// fit their range), new rows take free ranges (first fit); only those rows' entries cross the
// PCIe link (gcsm_gather with a selection); a new row that finds no free range evicts the rows
// at the end of the entries (after a rebuild, the lowest of the choice's priority order) until
// the free end holds it. The chosen lists left out so may be up to 1/missDiv of the budget; when
// more would be, when the budget shrank below the layout or the device let the buffer go, the
// layout is rebuilt: every row gathered, packed from 0, as before branch gcsm6 at every phase
// (Matcher.fullCache keeps that behaviour for measurement).

// noRow marks a free row of the table (rows) and an uncached vertex (slot).
const noRow = ^uint32(0)

// slackDiv: the incremental layout's choice leaves 1/slackDiv of the budget free (pack's
// budget), so that lists that grow and new rows find room without a rebuild; a rebuild gives
// each row room for 1/growDiv more entries (and one) than its list has. An update leaves out
// the chosen lists that find no room (read through the mapping instead) and rebuilds when they
// would be more than 1/missDiv of the budget.
const (
	slackDiv = 32
	growDiv  = 64
	missDiv  = 8
)

// span is a free range of the entries.
type span struct{ off, n uint64 }

type dcsr struct {
	// The layout (the host's copy of the device's row table): per row its vertex (noRow when
	// free), the offset of its entries, their number and its range's length (room).
	rows []uint32
	roff []uint64
	rlen []uint32
	room []uint32
	slot []uint32 // per vertex: its row, or noRow
	// rowCap and entryCap: the rows and entries the device's buffer holds (its size: phys).
	rowCap   int
	entryCap uint64
	free     []span   // free entry ranges, by offset, coalesced
	freeRows []uint32 // free rows below len(rows)
	lists    int      // rows in use
	bytes    uint64   // their cost (rowBytes of their lengths)
	valid    bool     // the layout holds every row's current list (else the next place rebuilds)
	dirty    []uint32 // rows whose lists changed since they were gathered
	isDirty  []bool   // per row (in an update: in sel)
	byEnd    []uint32 // update's rows by offset, last first
	// The phase's work for the device (pending until the backend has done it): full (the layout
	// rebuilt: slots cleared, every row gathered) or the rows to gather (sel) and the vertices
	// whose slots are cleared (evict); gathered: the entries gathered.
	pending  bool
	full     bool
	sel      []uint32
	evict    []uint32
	gathered uint64
	// The emulation's device memory: its copy of the row table, slots and entries, changed
	// only by the phase's work (fill), so that a row the layout fails to gather again or a
	// slot it fails to clear is read stale by the emulated kernel.
	dslot       []uint32
	droff       []uint64
	drlen       []uint32
	dkeys       []uint64
	delab       []uint32
	placeBuffer []uint32
}

// clear empties the layout (no rows; the next place rebuilds).
func (c *dcsr) clear() {
	for _, v := range c.rows { // only rows' vertices have slots
		if v != noRow {
			c.slot[v] = noRow
		}
	}
	c.rows, c.roff, c.rlen, c.room = c.rows[:0], c.roff[:0], c.rlen[:0], c.room[:0]
	c.free, c.freeRows, c.dirty = c.free[:0], c.freeRows[:0], c.dirty[:0]
	c.isDirty = c.isDirty[:0]
	c.lists, c.bytes, c.rowCap, c.entryCap = 0, 0, 0, 0
	c.valid = false
	c.pending, c.full, c.sel, c.evict, c.gathered = false, false, c.sel[:0], c.evict[:0], 0
}

// find returns v's row, or -1.
func (c *dcsr) find(v uint32) int {
	if int(v) < len(c.slot) && c.slot[v] != noRow {
		return int(c.slot[v])
	}
	return -1
}

// The device buffer's regions (layoutOffsets): the row table's three arrays, the update's
// lists (the rows to gather, then the vertices to evict: at most rowCap each), the keys and the
// edge labels.
const (
	atRows = iota
	atOff
	atLen
	atOps
	atKeys
	atLabels
	regions
)

// layoutOffsets returns the byte offsets of the device buffer's regions and its size, for rowCap
// rows and entryCap entries.
func layoutOffsets(rowCap int, entryCap uint64) (at [regions]uint64, end uint64) {
	rc := uint64(rowCap)
	for i, bytes := range [regions]uint64{4 * rc, 8 * rc, 4 * rc, 8 * rc, 8 * entryCap, 4 * entryCap} {
		at[i] = end
		end = (end + bytes + 7) &^ 7
	}
	return at, end
}

// phys is the device buffer's size for the layout.
func (c *dcsr) phys() uint64 {
	_, end := layoutOffsets(c.rowCap, c.entryCap)
	return end
}

// markChanged records that v's list changed (after the host graph followed a batch).
func (c *dcsr) markChanged(v uint32) {
	i := c.find(v)
	if i < 0 || c.isDirty[i] {
		return
	}
	c.isDirty[i] = true
	c.dirty = append(c.dirty, uint32(i))
}

// place makes the layout hold want (distinct live vertices with entries; ln: the lists'
// lengths), incrementally when the layout is valid, the device kept its buffer (kept) and the
// buffer fits budget (then the lists that find no room are left out, up to 1/missDiv of the
// budget); else, or when more would be left out, by a rebuild within budget, which holds all of
// want when its lists' rowBytes fit budget. It sets the phase's work for the device.
func (c *dcsr) place(want []uint32, ln []uint32, budget uint64, kept bool) {
	if n := len(ln); len(c.slot) < n {
		for len(c.slot) < n {
			c.slot = append(c.slot, noRow)
		}
	}
	c.pending, c.full, c.sel, c.evict, c.gathered = true, false, c.sel[:0], c.evict[:0], 0
	if c.valid && kept && c.phys() <= budget && c.update(want, ln, budget/missDiv) {
		return
	}
	c.rebuild(want, ln, budget)
}

// update places want in the layout incrementally, leaving out the rows that find no room;
// false when their bytes exceed maxMiss (the layout is then partly changed: the caller
// rebuilds).
func (c *dcsr) update(want []uint32, ln []uint32, maxMiss uint64) bool {
	var missed uint64
	// want's vertices marked in placeBuffer (by vertex: 1) to find the rows to evict; 2: evicted
	// though chosen (no room), not placed again in this update (the device's gather and eviction
	// of one vertex's slot would race).
	mark := c.placeBuffer
	if len(mark) < len(ln) {
		mark = make([]uint32, len(ln))
	}
	for _, v := range want {
		mark[v] = 1
	}
	defer func() {
		for _, v := range want {
			mark[v] = 0
		}
		c.placeBuffer = mark
	}()
	for i, v := range c.rows {
		if v == noRow || (int(v) < len(mark) && mark[v] == 1) {
			continue
		}
		c.evict = append(c.evict, v)
		c.drop(i)
	}
	// Rows whose lists changed: gathered again in their range, or moved when they outgrew it.
	for _, i := range c.dirty {
		c.isDirty[i] = false
		v := c.rows[i]
		if v == noRow {
			continue
		}
		n := ln[v]
		c.bytes += rowBytes(n) - rowBytes(c.rlen[i])
		c.rlen[i] = n
		if n > c.room[i] {
			c.freeRange(c.roff[i], uint64(c.room[i]))
			c.room[i] = 0
			off, ok := c.alloc(uint64(n))
			if !ok { // left out: evicted
				if missed += rowBytes(n); missed > maxMiss {
					return false
				}
				mark[v] = 2
				c.evict = append(c.evict, v)
				c.drop(int(i))
				continue
			}
			c.roff[i], c.room[i] = off, n
		}
		c.sel = append(c.sel, uint32(i))
		c.gathered += uint64(n)
	}
	c.dirty = c.dirty[:0]
	// The rows by offset, last first (made when first needed): a new row that finds no free
	// range evicts the rows below the last free range (at first the end of the entries: the
	// lowest of the last rebuild's priority order), one by one, until that range holds it (new
	// rows take the top of a range, so that it keeps growing down).
	sorted := false
	for _, i := range c.sel { // gathered again: not evicted (the gather would set its slot)
		c.isDirty[i] = true
	}
	defer func() {
		for _, i := range c.sel {
			c.isDirty[i] = false
		}
	}()
	for _, v := range want {
		if c.slot[v] != noRow || mark[v] == 2 {
			continue
		}
		n := ln[v]
		if len(c.freeRows) == 0 && len(c.rows) == c.rowCap {
			if missed += rowBytes(n); missed > maxMiss {
				return false
			}
			continue
		}
		off, ok := c.alloc(uint64(n))
		if !ok && !sorted {
			sorted = true
			c.byEnd = c.byEnd[:0]
			for i, v := range c.rows {
				if v != noRow {
					c.byEnd = append(c.byEnd, uint32(i))
				}
			}
			slices.SortFunc(c.byEnd, func(a, b uint32) int { return cmp.Compare(c.roff[b], c.roff[a]) })
		}
		for !ok {
			top := c.entryCap // the last free range's start
			if k := len(c.free); k > 0 {
				top = c.free[k-1].off
			}
			// The row ending at top: the first (by offset, last first) below it. (Rows placed
			// in this update may have moved in the order: such a row is in sel, and stops it.)
			k, _ := slices.BinarySearchFunc(c.byEnd, top, func(i uint32, top uint64) int {
				if c.roff[i] >= top {
					return -1
				}
				return 1
			})
			if k == len(c.byEnd) {
				break
			}
			j := c.byEnd[k]
			if c.rows[j] == noRow || c.isDirty[j] || c.roff[j]+uint64(c.room[j]) != top {
				break // not a kept row next to the range: evicting it would not grow the range
			}
			if missed += rowBytes(c.rlen[j]); missed > maxMiss {
				return false
			}
			mark[c.rows[j]] = 2
			c.evict = append(c.evict, c.rows[j])
			c.drop(int(j))
			off, ok = c.alloc(uint64(n))
		}
		if !ok {
			if missed += rowBytes(n); missed > maxMiss {
				return false
			}
			continue
		}
		var i uint32
		if k := len(c.freeRows); k > 0 {
			i = c.freeRows[k-1]
			c.freeRows = c.freeRows[:k-1]
		} else {
			i = uint32(len(c.rows))
			c.rows, c.roff, c.rlen, c.room = append(c.rows, noRow), append(c.roff, 0), append(c.rlen, 0), append(c.room, 0)
			c.isDirty = append(c.isDirty, false)
		}
		c.rows[i], c.roff[i], c.rlen[i], c.room[i] = v, off, n, n
		c.slot[v] = i
		c.lists++
		c.bytes += rowBytes(n)
		c.sel = append(c.sel, i)
		c.isDirty[i] = true
		c.gathered += uint64(n)
	}
	return true
}

// drop frees row i.
func (c *dcsr) drop(i int) {
	v := c.rows[i]
	c.slot[v] = noRow
	c.freeRange(c.roff[i], uint64(c.room[i]))
	c.bytes -= rowBytes(c.rlen[i])
	c.lists--
	c.rows[i], c.rlen[i], c.room[i] = noRow, 0, 0
	if c.isDirty[i] {
		c.isDirty[i] = false // left in dirty: skipped as free
	}
	c.freeRows = append(c.freeRows, uint32(i))
}

// alloc takes n entries from the top of the first free range that holds them.
func (c *dcsr) alloc(n uint64) (uint64, bool) {
	for k := range c.free {
		s := &c.free[k]
		if s.n < n {
			continue
		}
		s.n -= n
		off := s.off + s.n
		if s.n == 0 {
			c.free = slices.Delete(c.free, k, k+1)
		}
		return off, true
	}
	return 0, false
}

// freeRange returns [off, off+n) to the free ranges, merged with its neighbours.
func (c *dcsr) freeRange(off, n uint64) {
	if n == 0 {
		return
	}
	k, _ := slices.BinarySearchFunc(c.free, off, func(s span, off uint64) int {
		switch {
		case s.off < off:
			return -1
		case s.off > off:
			return 1
		}
		return 0
	})
	if k > 0 && c.free[k-1].off+c.free[k-1].n == off { // merge with the one before
		c.free[k-1].n += n
		if k < len(c.free) && off+n == c.free[k].off {
			c.free[k-1].n += c.free[k].n
			c.free = slices.Delete(c.free, k, k+1)
		}
		return
	}
	if k < len(c.free) && off+n == c.free[k].off {
		c.free[k].off, c.free[k].n = off, c.free[k].n+n
		return
	}
	c.free = slices.Insert(c.free, k, span{off, n})
}

// rebuild lays out want from scratch within budget bytes: rows in want's order, entries from 0, each
// row with room to grow by 1/growDiv when the budget allows, the row table and the entries sized
// to leave room for more rows and entries (the budget's rest).
func (c *dcsr) rebuild(want []uint32, ln []uint32, budget uint64) {
	c.clear()
	c.pending, c.full = true, true
	var entries, rooms uint64
	for _, v := range want {
		entries += uint64(ln[v])
		rooms += uint64(ln[v]) + uint64(ln[v])/growDiv + 1
	}
	_, fixed := layoutOffsets(len(want), 0)
	grow := fixed+12*rooms+16 <= budget
	var at uint64
	for _, v := range want {
		n := ln[v]
		room := n
		if grow {
			room += n/growDiv + 1
		}
		c.slot[v] = uint32(len(c.rows))
		c.rows = append(c.rows, v)
		c.roff = append(c.roff, at)
		c.rlen = append(c.rlen, n)
		c.room = append(c.room, room)
		c.isDirty = append(c.isDirty, false)
		at += uint64(room)
		c.bytes += rowBytes(n)
	}
	c.lists = len(want)
	c.gathered = entries
	entries = at
	// Room for an eighth more rows (and 64) when the budget allows, the rest for entries.
	c.rowCap = len(want)
	for _, extra := range []int{len(want)/8 + 64, 0} {
		rc := len(want) + extra
		_, fixed := layoutOffsets(rc, 0)
		if fixed+12*entries+16 <= budget {
			c.rowCap = rc
			break
		}
	}
	// Entries: an eighth more (and 64Ki) when the budget allows (no more: the buffer is made
	// of this size on the device, and of the emulation's memory in tests).
	_, fixed = layoutOffsets(c.rowCap, 0)
	c.entryCap = entries
	if budget > fixed+16 {
		c.entryCap = max(entries, min((budget-fixed-16)/12, entries+entries/8+64<<10))
	}
	if c.entryCap > entries {
		c.free = append(c.free, span{entries, c.entryCap - entries})
	}
	c.valid = true
}

// devList returns v's list as the emulated device's cache holds it (ok false when it does not).
func (c *dcsr) devList(v uint32) ([]uint64, []uint32, bool) {
	if len(c.rows) == 0 || int(v) >= len(c.dslot) || c.dslot[v] == noRow { // no rows: the kernel reads no slot
		return nil, nil, false
	}
	i := c.dslot[v]
	o, n := c.droff[i], uint64(c.drlen[i])
	return c.dkeys[o : o+n], c.delab[o : o+n], true
}

// fill does the phase's pending work on the emulated device (what fillCache does on the GPU):
// the row table copied up, the slots cleared (all of them in a rebuild, the evicted ones
// otherwise), the selected rows' entries gathered from the host graph on all cores, their slots
// set.
func (c *dcsr) fill(h *hostGraph) {
	if !c.pending {
		return
	}
	c.pending = false
	for len(c.dslot) < len(c.slot) { // new vertices: not cached (the device's slot array was set to ~0 whole)
		c.dslot = append(c.dslot, noRow)
	}
	if c.full {
		for i := range c.dslot {
			c.dslot[i] = noRow
		}
		c.dkeys = slices.Grow(c.dkeys[:0], int(c.entryCap))[:c.entryCap]
		c.delab = slices.Grow(c.delab[:0], int(c.entryCap))[:c.entryCap]
	}
	for _, v := range c.evict {
		c.dslot[v] = noRow
	}
	c.droff = append(c.droff[:0], c.roff...)
	c.drlen = append(c.drlen[:0], c.rlen...)
	sel := c.sel
	n := len(sel)
	if c.full {
		n = len(c.rows)
	}
	par.Ranges(n, min(runtime.GOMAXPROCS(0), max(int(c.gathered>>16), 1)), 64, func(_, lo, hi int) bool {
		for r := lo; r < hi; r++ {
			i := uint32(r)
			if !c.full {
				i = sel[r]
			}
			k, e := h.list(c.rows[i])
			copy(c.dkeys[c.roff[i]:], k)
			copy(c.delab[c.roff[i]:], e)
			c.dslot[c.rows[i]] = i
		}
		return true
	})
}
