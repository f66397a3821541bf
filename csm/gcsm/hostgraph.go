package gcsm

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/submatch/submatch/graph/dynamic"
)

// hostMem is a block of host memory the kernel can read: pinned and mapped into the GPU's
// address space on a device (dev its device address), plain Go memory in the host emulation
// (dev 0).
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
// in one arena with spare room per list; off/ln/labels per vertex. It mirrors a dynamic.Graph:
// after the graph changes, sync rewrites the lists of the vertices that changed (in place when
// they fit their room, else moved to the arena's end, the arena grown when full).
type hostGraph struct {
	alloc allocator

	offM, lnM, labM, keyM, elM hostMem
	off                        []uint64 // per vertex: first entry in the arena
	ln                         []uint32 // per vertex: entries
	labels                     []uint32 // per vertex: label (alive or not)
	room                       []uint32 // per vertex: the entries its place holds
	keys                       []uint64 // arena
	elab                       []uint32 // arena: edge labels
	used                       uint64   // arena entries in use (the end)
	maxDeg                     int
	scratch                    []entry
	scratches                  [][]entry // sync's workers'
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
		h.off[v], h.ln[v], h.room[v] = 0, 0, 0
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
	room := make([]uint32, c)
	if keep {
		copy(off, h.off)
		copy(ln, h.ln)
		copy(lab, h.labels)
		copy(room, h.room)
	}
	for _, m := range []*hostMem{&h.offM, &h.lnM, &h.labM} {
		if m.free != nil {
			m.free()
		}
	}
	h.offM, h.lnM, h.labM = offM, lnM, labM
	h.off, h.ln, h.labels, h.room = off, ln, lab, room
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

// place moves v's list to the arena's end when g's list outgrew its place.
func (h *hostGraph) place(g *dynamic.Graph, v uint32) error {
	if !g.Alive(v) {
		return nil
	}
	n := g.Degree(v)
	if uint32(n) > h.room[v] {
		need := uint64(slack(n))
		if h.used+need > uint64(len(h.keys)) {
			return fmt.Errorf("gcsm: internal error: arena full")
		}
		h.off[v], h.room[v] = h.used, uint32(need)
		h.used += need
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

// sync brings the lists of the vertices vs (dense ids, each once) up to date with g, growing
// the vertex arrays and the arena (by a full rebuild) as needed: the lists that outgrew their
// place are moved first, then every list is rewritten, on all cores. It reports whether it
// rebuilt everything.
func (h *hostGraph) sync(g *dynamic.Graph, vs []uint32) (bool, error) {
	if err := h.growVertices(g.IDBound(), true); err != nil {
		return false, err
	}
	var need uint64
	for _, v := range vs {
		if g.Alive(v) && uint32(g.Degree(v)) > h.room[v] {
			need += uint64(slack(g.Degree(v)))
		}
	}
	if h.used+need > uint64(len(h.keys)) {
		return true, h.build(g)
	}
	for _, v := range vs {
		if err := h.place(g, v); err != nil {
			return false, err
		}
	}
	workers := min(runtime.GOMAXPROCS(0), max(len(vs)/256, 1))
	for len(h.scratches) < workers {
		h.scratches = append(h.scratches, nil)
	}
	maxDeg := make([]int, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for wi := range workers {
		wg.Go(func() {
			const chunk = 64
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= len(vs) {
					return
				}
				for _, v := range vs[lo:min(lo+chunk, len(vs))] {
					maxDeg[wi] = max(maxDeg[wi], h.fill(g, v, &h.scratches[wi]))
				}
			}
		})
	}
	wg.Wait()
	h.maxDeg = max(h.maxDeg, slices.Max(maxDeg))
	return false, nil
}

// list returns v's entries.
func (h *hostGraph) list(v uint32) ([]uint64, []uint32) {
	o, n := h.off[v], uint64(h.ln[v])
	return h.keys[o : o+n], h.elab[o : o+n]
}
