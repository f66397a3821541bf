package gcsm

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"unsafe"

	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/internal/par"
)

// hostMem is a block of host memory the kernel can read: pinned and mapped into the GPU's
// address space on a device, or managed memory in ModeUnified (dev its device address), plain
// Go memory in the host emulation (dev 0).
type hostMem struct {
	buf  []byte
	dev  uint64
	free func()
}

// allocator makes host memory blocks (zeroed).
type allocator func(bytes uint64) (hostMem, error)

func goAlloc(bytes uint64) (hostMem, error) {
	return hostMem{buf: make([]byte, bytes), free: func() {}}, nil
}

func view[T uint32 | uint64](m hostMem) []T {
	var z T
	if len(m.buf) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&m.buf[0])), len(m.buf)/int(unsafe.Sizeof(z)))
}

// hostGraph is the data graph as the kernel reads it: per vertex a list of entries sorted by key
// (neighbour label << 32 | neighbour id, so that the neighbours of one label are a contiguous
// sorted range and an edge is found by binary search) with each entry's edge label beside it,
// in one arena with spare room per list (split before and after it); off/ln/labels per vertex. It mirrors a dynamic.Graph:
// after the graph changes, sync edits the changed entries into their lists in place (patch),
// or rewrites a list from the graph when its vertex changed or it outgrew its room (moved to the
// arena's end, the arena grown by a rebuild when full).
type hostGraph struct {
	alloc allocator

	offM, lnM, labM, keyM, elM hostMem
	off                        []uint64 // per vertex: first entry in the arena
	ln                         []uint32 // per vertex: entries
	labels                     []uint32 // per vertex: label (alive or not)
	room                       []uint32 // per vertex: the entries its place holds from off on
	front                      []uint32 // per vertex: the entries its place holds before off
	keys                       []uint64 // arena
	elab                       []uint32 // arena: edge labels
	used                       uint64   // arena entries in use (the end)
	maxDeg                     int
	scratch                    []entry
	scratches                  [][]entry // sync's workers'
	groups                     [][2]int  // sync: each edited list's range of edits
	moves                      [][]move  // sync's workers' (patch)
}

type entry struct {
	key uint64
	el  uint32
}

func slack(n int) int { return n + n/8 + 2 }

// build copies g entirely.
func (h *hostGraph) build(g *dynamic.Graph) error {
	n := g.IDBound()
	var total uint64
	for v := range n {
		if g.Alive(uint32(v)) {
			total += uint64(slack(g.Degree(uint32(v))))
		}
	}
	if err := h.growVertices(max(n, 16), false); err != nil {
		return err
	}
	if err := h.newArena(max(total+total/4, 1024)); err != nil {
		return err
	}
	h.maxDeg = 0
	for v := range n {
		h.off[v], h.ln[v], h.room[v], h.front[v] = 0, 0, 0, 0
		if err := h.write(g, uint32(v)); err != nil {
			return err
		}
	}
	return nil
}

// release frees the host memory.
func (h *hostGraph) release() {
	for _, m := range []*hostMem{&h.offM, &h.lnM, &h.labM, &h.keyM, &h.elM} {
		if m.free != nil {
			m.free()
		}
		*m = hostMem{}
	}
}

// growVertices makes room for n vertices (keeping the current ones when keep is set).
func (h *hostGraph) growVertices(n int, keep bool) error {
	if n <= len(h.ln) {
		return nil
	}
	c := max(n, 2*len(h.ln))
	offM, err := h.alloc(uint64(c) * 8)
	if err != nil {
		return err
	}
	lnM, err := h.alloc(uint64(c) * 4)
	if err != nil {
		offM.free()
		return err
	}
	labM, err := h.alloc(uint64(c) * 4)
	if err != nil {
		offM.free()
		lnM.free()
		return err
	}
	off, ln, lab := view[uint64](offM), view[uint32](lnM), view[uint32](labM)
	room, front := make([]uint32, c), make([]uint32, c)
	if keep {
		copy(off, h.off)
		copy(ln, h.ln)
		copy(lab, h.labels)
		copy(room, h.room)
		copy(front, h.front)
	}
	for _, m := range []*hostMem{&h.offM, &h.lnM, &h.labM} {
		if m.free != nil {
			m.free()
		}
	}
	h.offM, h.lnM, h.labM = offM, lnM, labM
	h.off, h.ln, h.labels, h.room, h.front = off, ln, lab, room, front
	return nil
}

// newArena replaces the arena by an empty one of entries capacity (lists are rewritten after).
func (h *hostGraph) newArena(entries uint64) error {
	keyM, err := h.alloc(entries * 8)
	if err != nil {
		return err
	}
	elM, err := h.alloc(entries * 4)
	if err != nil {
		keyM.free()
		return err
	}
	if h.keyM.free != nil {
		h.keyM.free()
		h.elM.free()
	}
	h.keyM, h.elM = keyM, elM
	h.keys, h.elab = view[uint64](keyM), view[uint32](elM)
	h.used = 0
	return nil
}

// write writes v's list from g, moving it to the arena's end when it outgrew its place (the
// caller has grown the vertex arrays to g.IDBound()).
func (h *hostGraph) write(g *dynamic.Graph, v uint32) error {
	if err := h.place(g, v); err != nil {
		return err
	}
	h.maxDeg = max(h.maxDeg, h.fill(g, v, &h.scratch))
	return nil
}

// place makes room for g's list of v: at its place's start when it outgrew the room after
// off, at the arena's end when it outgrew its place (its spare room split before and after it,
// so that patch can move either end).
func (h *hostGraph) place(g *dynamic.Graph, v uint32) error {
	if !g.Alive(v) {
		return nil
	}
	n := uint32(g.Degree(v))
	switch {
	case n > h.room[v]+h.front[v]:
		need := uint64(slack(int(n)))
		if h.used+need > uint64(len(h.keys)) {
			return fmt.Errorf("gcsm: internal error: arena full")
		}
		f := (uint32(need) - n) / 2
		h.off[v], h.front[v], h.room[v] = h.used+uint64(f), f, uint32(need)-f
		h.used += need
	case n > h.room[v]:
		h.off[v] -= uint64(h.front[v])
		h.room[v] += h.front[v]
		h.front[v] = 0
	}
	return nil
}

// fill writes v's list from g at its place (place made it large enough) and returns its
// length; scratch is the caller's (lists whose runs need merging are sorted there). Lists of
// different vertices may be filled concurrently.
func (h *hostGraph) fill(g *dynamic.Graph, v uint32, scratch *[]entry) int {
	if !g.Alive(v) {
		h.ln[v] = 0
		return 0
	}
	h.labels[v] = g.Label(v)
	runs := g.Runs(v)
	o := h.off[v]
	sorted := true
	for i := 1; i < len(runs); i++ {
		if runs[i-1].VertexLabel == runs[i].VertexLabel {
			sorted = false // runs of one vertex label with several edge labels: merge by id
		}
	}
	n := 0
	if sorted {
		keys, elab := h.keys[o:], h.elab[o:]
		for _, r := range runs {
			hi := uint64(r.VertexLabel) << 32
			for i, w := range r.Neighbors {
				keys[n+i] = hi | uint64(w)
				elab[n+i] = r.EdgeLabel
			}
			n += len(r.Neighbors)
		}
		h.ln[v] = uint32(n)
		return n
	}
	sc := (*scratch)[:0]
	for _, r := range runs {
		for _, w := range r.Neighbors {
			sc = append(sc, entry{key: uint64(r.VertexLabel)<<32 | uint64(w), el: r.EdgeLabel})
		}
	}
	slices.SortFunc(sc, func(a, b entry) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	for i, e := range sc {
		h.keys[o+uint64(i)] = e.key
		h.elab[o+uint64(i)] = e.el
	}
	*scratch = sc
	h.ln[v] = uint32(len(sc))
	return len(sc)
}

// changes is what a batch changed in the host graph's lists: edits of single entries (a
// list's other entries unmoved), and the vertices whose lists are written again in full (a
// vertex that was added, deleted or relabelled, and its neighbours, whose keys hold its label).
type changes struct {
	full  []uint32
	edits []edit
}

// edit changes one entry of v's list: the entry of key deleted (editDel), inserted with edge
// label el (editIns), or its edge label set to el (editSet).
type edit struct {
	v   uint32
	op  uint32
	key uint64
	el  uint32
}

const (
	editDel = iota
	editIns
	editSet
)

// grows is what the edit adds to its list's length.
func (e edit) grows() int {
	switch e.op {
	case editIns:
		return 1
	case editDel:
		return -1
	}
	return 0
}

func (c *changes) reset() { c.full, c.edits = c.full[:0], c.edits[:0] }

// pair records the change of the edge u-v between vertices alive with the same label before
// and after: present or not and its label before (was, wasLabel) and after (is, isLabel).
func (c *changes) pair(g *dynamic.Graph, u, v uint32, was bool, wasLabel uint32, is bool, isLabel uint32) {
	kind := uint32(editSet)
	switch {
	case was == is && (!was || wasLabel == isLabel):
		return
	case !was:
		kind = editIns
	case !is:
		kind = editDel
	}
	c.edits = append(c.edits, edit{v: u, op: kind, key: uint64(g.Label(v))<<32 | uint64(v), el: isLabel},
		edit{v: v, op: kind, key: uint64(g.Label(u))<<32 | uint64(u), el: isLabel})
}

// sync brings the host graph up to date with g after the changes ch: the vertex arrays grown
// to g's, the lists of ch.full written again from g, and the edits applied in place (a list
// with edits that outgrew its place is moved and written from g instead); the lists that move
// are placed first, then every list is written, on all cores. It rebuilds everything instead
// when the arena is full, and reports whether it did.
func (h *hostGraph) sync(g *dynamic.Graph, ch *changes) (bool, error) {
	if err := h.growVertices(g.IDBound(), true); err != nil {
		return false, err
	}
	// Edits by vertex and key; a vertex written in full takes none, nor one whose list moves.
	slices.Sort(ch.full)
	ch.full = slices.Compact(ch.full)
	slices.SortFunc(ch.edits, func(a, b edit) int {
		if c := cmp.Compare(a.v, b.v); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	h.groups = h.groups[:0]
	nf := len(ch.full)
	for i := 0; i < len(ch.edits); {
		v, j, n := ch.edits[i].v, i, int(h.ln[ch.edits[i].v])
		for ; j < len(ch.edits) && ch.edits[j].v == v; j++ {
			n += ch.edits[j].grows()
		}
		switch {
		case has(ch.full[:nf], v):
		case n > int(h.room[v]+h.front[v]):
			ch.full = append(ch.full, v)
		default:
			h.groups = append(h.groups, [2]int{i, j})
		}
		i = j
	}
	slices.Sort(ch.full)
	var need uint64
	for _, v := range ch.full {
		if g.Alive(v) && uint32(g.Degree(v)) > h.room[v]+h.front[v] {
			need += uint64(slack(g.Degree(v)))
		}
	}
	if h.used+need > uint64(len(h.keys)) {
		return true, h.build(g)
	}
	for _, v := range ch.full {
		if err := h.place(g, v); err != nil {
			return false, err
		}
	}
	// Tasks: the full lists, then the edited ones; a full list weighs as 8 edited.
	tasks := len(ch.full) + len(h.groups)
	const chunk = 16
	workers := par.Workers(tasks, min(runtime.GOMAXPROCS(0), max((8*len(ch.full)+len(h.groups))/2048, 1)), chunk)
	for len(h.scratches) < workers {
		h.scratches = append(h.scratches, nil)
		h.moves = append(h.moves, nil)
	}
	maxDeg := make([]int, workers)
	errs := make([]error, workers)
	par.Ranges(tasks, workers, chunk, func(wi, lo, hi int) bool {
		for i := lo; i < hi; i++ {
			if i < len(ch.full) {
				maxDeg[wi] = max(maxDeg[wi], h.fill(g, ch.full[i], &h.scratches[wi]))
				continue
			}
			gr := h.groups[i-len(ch.full)]
			n, err := h.patch(ch.edits[gr[0]:gr[1]], &h.moves[wi])
			if err != nil && errs[wi] == nil {
				errs[wi] = err
			}
			maxDeg[wi] = max(maxDeg[wi], n)
		}
		return true
	})
	h.maxDeg = max(h.maxDeg, slices.Max(maxDeg))
	return false, errors.Join(errs...)
}

func has(sorted []uint32, v uint32) bool {
	_, ok := slices.BinarySearch(sorted, v)
	return ok
}

// patch applies one vertex's edits (sorted by key, one a key; its place has room for the
// result) in place and returns the list's new length, or an error when an edit does not fit the
// list (an entry to delete or relabel missing, one to insert there already). The edits cut the
// list into segments, each shifted by the insertions less the deletions before it, plus one
// shift c of the whole list within its place: 0 (the entries before the first edit stay) or the
// opposite of the length change (those after the last edit stay), whichever fits the place and
// moves fewer entries. Every entry moves at most once (a memmove a segment): a run of segments
// shifted right is moved from its last back, the others from the first on (runs of either sign
// never overlap: between them a segment stays). Pending is the caller's scratch.
func (h *hostGraph) patch(es []edit, pending *[]move) (int, error) {
	v := es[0].v
	front, o, n := int(h.front[v]), h.off[v], int(h.ln[v])
	base := o - uint64(front)
	keys, elab := h.keys[base:o+uint64(h.room[v])], h.elab[base:o+uint64(h.room[v])]
	list := keys[front : front+n]
	// The moves in list order, from the list as it is (nothing is written yet).
	ms := (*pending)[:0]
	defer func() { *pending = ms[:0] }()
	lo, shift := 0, 0 // the next segment: its start in the list, its shift
	for _, e := range es {
		if e.op == editSet {
			continue
		}
		i, found := slices.BinarySearch(list[lo:], e.key)
		i += lo
		if found != (e.op == editDel) {
			return 0, fmt.Errorf("gcsm: internal error: vertex %d: entry %x present %v, edit %d", v, e.key, found, e.op)
		}
		ms = append(ms, move{lo: lo, hi: i, shift: shift})
		if e.op == editDel {
			lo, shift = i+1, shift-1
			continue
		}
		shift++
		ms = append(ms, move{lo: i + shift - 1, shift: shift, ins: true, key: e.key, el: e.el})
		lo = i
	}
	ms = append(ms, move{lo: lo, hi: n, shift: shift})
	// The list's shift c: within [-front, room-(n+shift)], the cheaper of 0 and -shift.
	cmin, cmax := -front, int(h.room[v])-(n+shift)
	c := min(max(0, cmin), cmax)
	if alt := min(max(-shift, cmin), cmax); alt != c && moved(ms, alt) < moved(ms, c) {
		c = alt
	}
	right := 0 // ms[right:i] are pending moves to the right
	for i := range ms {
		ms[i].lo += front
		ms[i].hi += front
		ms[i].shift += c
		if ms[i].ins {
			ms[i].lo += c
		}
		if ms[i].shift > 0 {
			continue
		}
		for j := i - 1; j >= right; j-- {
			ms[j].do(keys, elab)
		}
		ms[i].do(keys, elab)
		right = i + 1
	}
	for j := len(ms) - 1; j >= right; j-- {
		ms[j].do(keys, elab)
	}
	n += shift
	h.off[v] = uint64(int64(o) + int64(c))
	h.front[v], h.room[v], h.ln[v] = uint32(front+c), uint32(int(h.room[v])-c), uint32(n)
	keys, elab = h.list(v)
	for _, e := range es {
		if e.op == editSet {
			i, ok := slices.BinarySearch(keys[:n], e.key)
			if !ok {
				return 0, fmt.Errorf("gcsm: internal error: vertex %d has no entry %x to relabel", v, e.key)
			}
			elab[i] = e.el
		}
	}
	return n, nil
}

// moved is the entries the segments of ms move with the whole list shifted by c.
func moved(ms []move, c int) int {
	n := 0
	for _, m := range ms {
		if !m.ins && m.shift+c != 0 {
			n += m.hi - m.lo
		}
	}
	return n
}

// move is one step of patch: the entries [lo, hi) shifted by shift, or with ins an entry
// written at lo (shift is then the shift of the segment after it, which orders it).
type move struct {
	lo, hi, shift int
	ins           bool
	key           uint64
	el            uint32
}

func (m move) do(keys []uint64, elab []uint32) {
	switch {
	case m.ins:
		keys[m.lo], elab[m.lo] = m.key, m.el
	case m.shift != 0 && m.hi > m.lo:
		copy(keys[m.lo+m.shift:m.hi+m.shift], keys[m.lo:m.hi])
		copy(elab[m.lo+m.shift:m.hi+m.shift], elab[m.lo:m.hi])
	}
}

// list returns v's entries.
func (h *hostGraph) list(v uint32) ([]uint64, []uint32) {
	o, n := h.off[v], uint64(h.ln[v])
	return h.keys[o : o+n], h.elab[o : o+n]
}
