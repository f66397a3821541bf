package sgsi

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/submatch/submatch/gpu"
)

// invalid marks a buffer slot whose candidate was eliminated.
const invalid = ^uint32(0)

// Backend is the device sgsi's schedule (exec.go) runs on: one region of 32-bit words that the
// schedule lays its buffers out in, copies between host and region, and the kernels. The GPU
// backend runs them on a device (kernels/sgsi.cu); HostBackend runs the same kernels, written
// the same way, in Go on a region in host memory, so that the schedule (chunks, segments,
// spills) is tested without a GPU. Offsets and lengths are in words.
type Backend interface {
	// Words is the region's size.
	Words() uint64
	Put(off uint64, src []uint32) error
	Get(dst []uint32, off uint64) error
	// Filter sets, for each of the n vertices base.. (base a multiple of 32), the bit of every
	// query vertex whose label and signature it passes, in the query's bitsets.
	Filter(a filterArgs) error
	// First fills the preallocated buffers of the rows whose first-edge vertex lies in the
	// segment (SGSI's Algorithm 4): each neighbour, or invalid when it is in the row, not a
	// candidate, or breaks a restriction.
	First(a joinArgs) error
	// Intersect invalidates, in the buffers of the rows whose linked vertex lies in the segment,
	// the entries absent from (or, Negate, present in) its list (SGSI's Algorithm 5).
	Intersect(a joinArgs) error
	// Count adds each row's valid entries into Cnt[row] (when HasCnt is set) and their sum into
	// the 64-bit counter at Total (two words, low first, at an even offset), which stays on the
	// device: a count reads it once at its end, not once a chunk.
	Count(a joinArgs) error
	// Link writes the rows of [A, B) extended by their valid entries to Out, row r's first at
	// Off[r] - Off[A] (Prealloc-Combine's second pass: a copy, no join).
	Link(a joinArgs) error
	// Last counts a count's last step without buffers (the direct count, direct.go): for each
	// row, the entries of its shortest list that pass the step's checks and lookups, every list
	// the rows read resident in key uploads; the sum is added to the counter at Total.
	Last(a lastArgs) error
	// HostTable returns a host slice of n words for the table of level l (pinned memory on a
	// GPU), the level's previous slice when it is large enough, else a larger one holding the
	// previous slice's first keep words.
	HostTable(level int, n, keep uint64) ([]uint32, error)
	Close()
}

// deviceTimer is a backend that times its copies and kernels on the device, where they run after
// the host has queued them: the runner's clock around a call then measures only the queueing.
type deviceTimer interface {
	// DeviceTimes waits for the device and returns the device time of the copies and of the
	// kernels so far.
	DeviceTimes() (copies, kernels time.Duration, err error)
}

// worker is a backend whose driver calls must run on one OS thread (the GPU's worker thread,
// where its context is current). A call from any other goroutine is handed to that thread and
// back, tens of µs each way, which dominated out-of-core counts of thousands of chunks: Do runs
// a count's whole schedule there, so that each copy and launch is a direct call.
type worker interface {
	Do(fn func() error) error
}

// kernelStopper is a backend whose kernels look at a stop flag as they run (every pollEvery rows
// and entries a thread): raised when the count's or listing's context ends, a kernel leaves its
// rows, so that a cancelled count stops within a poll of it rather than after a block's or
// chunk's whole kernel (seconds in core), and every kernel after it leaves at its first look. A
// direct count's kernel (Last) adds what it counted so far; a join kernel's output is left in
// part, and the runner reads none of it once the context has ended (runner.readJoin). A count
// whose kernel left early is partial.
type kernelStopper interface {
	// stopOn raises the flag when ctx ends, until the function it returns is called.
	stopOn(ctx context.Context) (release func())
	// cut reports, once the kernels queued have run, whether one of them left its work early.
	cut() (bool, error)
}

// pollEvery is how many ticks (rows and items or list entries) a thread of a kernel takes between
// two looks at the stop flag, the first look at its first tick (kernels/sgsi.cu's POLL_EVERY).
const pollEvery = 1024

// threadStop is a thread's polling of the stop flag in a kernel (kernels/sgsi.cu's Stopper).
type threadStop struct {
	flag    *atomic.Uint32
	left    uint32 // ticks before the next look
	stopped bool
}

// tick counts a row or an entry and reports whether the thread is to stop (for good, once the
// flag was seen raised).
func (s *threadStop) tick() bool {
	if s.left == 0 {
		s.left = pollEvery
		if !s.stopped && s.flag.Load() != 0 {
			s.stopped = true
		}
	}
	s.left--
	return s.stopped
}

type filterArgs struct {
	Sigs, Labels uint64 // column-first signatures (sigWords x N) and labels of the vertices
	N, Base      uint32
	QSigs, QLab  uint64 // the query's signatures and labels (anyLabel: wildcard)
	NQ           uint32
	Bits         uint64 // NQ bitsets of Words words
	Words        uint32
}

type joinArgs struct {
	Rows  uint64 // the chunk's rows, Width words each
	Width uint32
	F     uint64 // buffer offsets: row r's buffer is GBA[F[r], F[r+1])
	Idx   uint64 // the rows to process
	NIdx  uint32
	// Group is the threads per row: 32, a warp; the block size, a block; 0, a block's task pool;
	// Grid blocks' threads, the whole grid (balance.go). Grid, when set, is the launch's blocks
	// (the task pool's and the whole grid's; the others' follow from NIdx and Group).
	Group, Grid uint32
	Col         uint32 // the column of the edge's vertex; invalid: cartesian (List for every row)
	// The segment: local offsets and neighbours of the vertices [Lo, Hi); for a cartesian step
	// SegNbr holds C(u), Hi entries.
	SegOff, SegNbr uint64
	Lo, Hi         uint32
	// NRef, when set, says the offsets are sparse: SegOff holds NRef vertices (sorted), then
	// their NRef+1 offsets; a vertex of [Lo, Hi) not among them has an empty list.
	NRef uint32
	// Head is how many entries of vertex Lo's list (of C(u), cartesian) lie before the segment;
	// Prev, when Head > 0, the last of them. Tail is 1 when vertex Hi-1's list goes on after it.
	// A list cut into parts is intersected by the part whose value range holds the entry:
	// (Prev, last entry of the part] (SGSI's merges over a list split between segments).
	Head, Prev, Tail uint32
	// WinLo, WinHi: First fills the buffers with the list positions [WinLo, WinHi) only (a row
	// whose buffer does not fit the region is joined in windows of its list, one row a chunk).
	WinLo, WinHi uint32
	Bits         uint64 // u's candidate bitset
	Desc         uint64 // [nless, ngreater, less cols..., greater cols...]
	GBA          uint64
	Negate       uint32
	Cnt          uint64 // per-row counts (Count), or the rows' output offsets (Link)
	HasCnt       uint32
	Total        uint64 // two words: the counter Count adds its sum to (lo, hi)
	Out          uint64 // Link: output rows of Width+1 words
	A, B         uint32 // Link: the row range
}

// lastArgs are Last's arguments (kernels/sgsi.cu, sgsi_last): offsets are region words.
type lastArgs struct {
	Rows   uint64 // explicit rows, Width words each (unused when NGen > 0)
	Width  uint32
	NRows  uint32 // explicit rows; generated: (only counted) the rows of the Gen vertices
	Group  uint32 // threads per row
	Links  uint64 // NLinks entries of linkWords words: column, negate, nref, 0, offset low, high
	NLinks uint32
	Bits   uint64 // the new vertex's candidate bitset
	Desc   uint64 // [nless, ngreater, less cols..., greater cols...]
	// Rows generated from edges: Gen holds NGen vertices; a row (a, b) takes b from a's list in
	// link GenLink's upload (the part in [RLo, RHi)), kept when b is in Bits1 and passes Desc0
	// (its counts of a < b and b < a).
	Gen          uint64
	NGen         uint32
	GenLink      uint32
	Bits1, Desc0 uint64
	Total        uint64 // two words: the counter the sum is added to (lo, hi)
	// Only the rows whose column RCol holds a vertex of [RLo, RHi) are counted.
	RCol, RLo, RHi uint32
}

// linkWords is the size of a link's entry in Last's link table.
const linkWords = 6

// HostBackend runs the kernels in Go on a region of host memory: the schedule's emulation.
type HostBackend struct {
	mem  []uint32
	peak uint64 // highest word written
	tabs map[int][]uint32
	hp   *hostPipe // the pipeline (Options.Overlap), made at its first use
	// stop is the kernels' stop flag (kernelStopper), raised by stopOn's context; left is set
	// when a kernel left its work early.
	stop atomic.Uint32
	left bool
}

// NewHostBackend returns a host backend with a region of words.
func NewHostBackend(words uint64) *HostBackend {
	return &HostBackend{mem: make([]uint32, words), tabs: map[int][]uint32{}}
}

func (h *HostBackend) Words() uint64 { return uint64(len(h.mem)) }

func (h *HostBackend) check(off, n uint64) error {
	if off+n > uint64(len(h.mem)) || off+n < off {
		return fmt.Errorf("sgsi host backend: words [%d, %d) outside the region of %d", off, off+n, len(h.mem))
	}
	h.peak = max(h.peak, off+n)
	return nil
}

func (h *HostBackend) Put(off uint64, src []uint32) error {
	if err := h.check(off, uint64(len(src))); err != nil {
		return err
	}
	copy(h.mem[off:], src)
	return nil
}

func (h *HostBackend) Get(dst []uint32, off uint64) error {
	if err := h.check(off, uint64(len(dst))); err != nil {
		return err
	}
	copy(dst, h.mem[off:])
	return nil
}

func (h *HostBackend) Filter(a filterArgs) error {
	m := h.mem
	for i := range a.N {
		v := a.Base + i
		for u := range a.NQ {
			ql := m[a.QLab+uint64(u)]
			ok := ql == anyLabel || m[a.Labels+uint64(i)] == ql
			for j := range uint64(sigWords) {
				q := m[a.QSigs+uint64(u)*sigWords+j]
				ok = ok && m[a.Sigs+j*uint64(a.N)+uint64(i)]&q == q
			}
			if ok {
				m[a.Bits+uint64(u)*uint64(a.Words)+uint64(v/32)] |= 1 << (v & 31)
			}
		}
	}
	return nil
}

// rowList returns, for the row index r, its segment-local list, its vertex and whether the row's
// vertex lies in the segment.
func (h *HostBackend) rowList(a *joinArgs, r uint32) ([]uint32, uint32, bool) {
	m := h.mem
	if a.Col == invalid {
		return m[a.SegNbr : a.SegNbr+uint64(a.Hi)], a.Lo, true
	}
	v := m[a.Rows+uint64(r)*uint64(a.Width)+uint64(a.Col)]
	if v < a.Lo || v >= a.Hi {
		return nil, v, false
	}
	o := a.SegOff + uint64(v-a.Lo)
	if a.NRef > 0 {
		i, found := slices.BinarySearch(m[a.SegOff:a.SegOff+uint64(a.NRef)], v)
		if !found {
			return nil, v, true
		}
		o = a.SegOff + uint64(a.NRef) + uint64(i)
	}
	return m[a.SegNbr+uint64(m[o]) : a.SegNbr+uint64(m[o+1])], v, true
}

// joinRows runs a join kernel on one thread: row for each row of a's index list while the
// thread's polling of the stop flag says go on (a tick a row; row ticks once an item), as the
// device's threads do (kernels/sgsi.cu's dealRows); a stop is recorded in left.
func (h *HostBackend) joinRows(a *joinArgs, row func(r uint32, sp *threadStop) error) error {
	sp := threadStop{flag: &h.stop}
	var err error
	for _, r := range h.mem[a.Idx : a.Idx+uint64(a.NIdx)] {
		if sp.tick() {
			break
		}
		if err = row(r, &sp); err != nil {
			break
		}
	}
	h.left = h.left || sp.stopped
	return err
}

func (h *HostBackend) First(a joinArgs) error {
	m := h.mem
	nless, ngreater := m[a.Desc], m[a.Desc+1]
	less := m[a.Desc+2 : a.Desc+2+uint64(nless)]
	greater := m[a.Desc+2+uint64(nless) : a.Desc+2+uint64(nless+ngreater)]
	return h.joinRows(&a, func(r uint32, sp *threadStop) error {
		list, v, ok := h.rowList(&a, r)
		if !ok {
			return nil
		}
		skip := uint32(0) // the list position of the segment's first entry
		if v == a.Lo {
			skip = a.Head
		}
		row := m[a.Rows+uint64(r)*uint64(a.Width) : a.Rows+uint64(r+1)*uint64(a.Width)]
		// The row's buffer alone: an entry beyond it is an error here, a fault (or another row's
		// entry overwritten) on the device.
		buf := m[a.GBA+uint64(m[a.F+uint64(r)]) : a.GBA+uint64(m[a.F+uint64(r)+1])]
		for j, w := range list {
			p := skip + uint32(j)
			if p < a.WinLo || p >= a.WinHi {
				continue
			}
			if sp.tick() {
				return nil
			}
			if uint64(p-a.WinLo) >= uint64(len(buf)) {
				return fmt.Errorf("sgsi host backend: row %d's list position %d beyond its buffer of %d words (window from %d)", r, p, len(buf), a.WinLo)
			}
			keep := m[a.Bits+uint64(w/32)]>>(w&31)&1 != 0 && !slices.Contains(row, w)
			for _, c := range less {
				keep = keep && row[c] < w
			}
			for _, c := range greater {
				keep = keep && w < row[c]
			}
			if keep {
				buf[p-a.WinLo] = w
			} else {
				buf[p-a.WinLo] = invalid
			}
		}
		return nil
	})
}

func (h *HostBackend) Intersect(a joinArgs) error {
	m := h.mem
	return h.joinRows(&a, func(r uint32, sp *threadStop) error {
		list, v, ok := h.rowList(&a, r)
		if !ok {
			return nil
		}
		buf := m[a.GBA+uint64(m[a.F+uint64(r)]) : a.GBA+uint64(m[a.F+uint64(r)+1])]
		for j, x := range buf {
			if sp.tick() {
				return nil
			}
			if x == invalid {
				continue
			}
			// Only the part of the list whose value range holds x decides it.
			if v == a.Lo && a.Head > 0 && x <= a.Prev || v == a.Hi-1 && a.Tail != 0 && x > list[len(list)-1] {
				continue
			}
			_, found := slices.BinarySearch(list, x)
			if found == (a.Negate != 0) {
				buf[j] = invalid
			}
		}
		return nil
	})
}

func (h *HostBackend) Count(a joinArgs) error {
	m := h.mem
	total := uint64(0)
	err := h.joinRows(&a, func(r uint32, sp *threadStop) error {
		c := uint32(0)
		for _, x := range m[a.GBA+uint64(m[a.F+uint64(r)]) : a.GBA+uint64(m[a.F+uint64(r)+1])] {
			if sp.tick() {
				break
			}
			if x != invalid {
				c++
			}
		}
		if a.HasCnt != 0 {
			m[a.Cnt+uint64(r)] += c
		}
		total += uint64(c)
		return nil
	})
	total += uint64(m[a.Total]) | uint64(m[a.Total+1])<<32
	m[a.Total], m[a.Total+1] = uint32(total), uint32(total>>32)
	return err
}

func (h *HostBackend) Link(a joinArgs) error {
	m := h.mem
	w := uint64(a.Width)
	base := m[a.Cnt+uint64(a.A)]
	return h.joinRows(&a, func(r uint32, sp *threadStop) error {
		if r < a.A || r >= a.B {
			return nil
		}
		at := uint64(m[a.Cnt+uint64(r)] - base)
		row := m[a.Rows+uint64(r)*w : a.Rows+uint64(r+1)*w]
		for _, x := range m[a.GBA+uint64(m[a.F+uint64(r)]) : a.GBA+uint64(m[a.F+uint64(r)+1])] {
			if sp.tick() {
				return nil
			}
			if x == invalid {
				continue
			}
			out := a.Out + at*(w+1)
			if err := h.check(out, w+1); err != nil {
				return err
			}
			copy(m[out:], row)
			m[out+w] = x
			at++
		}
		return nil
	})
}

// keyList returns v's list in the key upload of link entry l (Last; kernels/sgsi.cu's keyList).
func (h *HostBackend) keyList(l []uint32, v uint32) []uint32 {
	m := h.mem
	nref := uint64(l[2])
	at := uint64(l[4]) | uint64(l[5])<<32
	x, found := slices.BinarySearch(m[at:at+nref], v)
	if !found {
		return nil
	}
	off := m[at+nref : at+2*nref+1]
	lists := at + 2*nref + 1
	return m[lists+uint64(off[x]) : lists+uint64(off[x+1])]
}

// stopOn implements kernelStopper: the flag (cleared now: a backend may count again) is raised
// when ctx ends. The release waits for a raise already under way (gpu.AfterDone, as the
// device's flag), so that it cannot land in the backend's next count.
func (h *HostBackend) stopOn(ctx context.Context) func() {
	h.stop.Store(0)
	h.left = false
	return gpu.AfterDone(ctx, func() { h.stop.Store(1) })
}

// cut implements kernelStopper.
func (h *HostBackend) cut() (bool, error) { return h.left, nil }

// Last is sgsi_last on one thread: it looks at the stop flag as each of the kernel's threads
// does (threadStop), and a stop leaves the rows left uncounted.
func (h *HostBackend) Last(a lastArgs) error {
	m := h.mem
	links := m[a.Links : a.Links+uint64(a.NLinks)*linkWords]
	var row [32]uint32
	var lists [32][]uint32
	total := uint64(0)
	sp := threadStop{flag: &h.stop}
	if a.NGen > 0 {
		for _, va := range m[a.Gen : a.Gen+uint64(a.NGen)] {
			if sp.stopped {
				break
			}
			list := h.keyList(m[a.Links+uint64(a.GenLink)*linkWords:], va)
			known := uint32(0) // the links of a's column: their lists once for all of a's rows
			for i := range int(a.NLinks) {
				if links[i*linkWords] == 0 {
					lists[i] = h.keyList(links[i*linkWords:], va)
					known |= 1 << i
				}
			}
			from, _ := slices.BinarySearch(list, a.RLo)
			to, _ := slices.BinarySearch(list, a.RHi)
			for _, vb := range list[from:to] {
				if sp.tick() {
					break
				}
				ok := vb != va && m[a.Bits1+uint64(vb/32)]>>(vb&31)&1 != 0
				ok = ok && (m[a.Desc0] == 0 || va < vb) && (m[a.Desc0+1] == 0 || vb < va)
				if ok {
					row[0], row[1] = va, vb
					total += h.lastRow(&a, row[:2], links, &lists, known, &sp)
				}
			}
		}
	} else {
		w := uint64(a.Width)
		for k := range uint64(a.NRows) {
			if sp.tick() {
				break
			}
			copy(row[:w], m[a.Rows+k*w:])
			if v := row[a.RCol]; v >= a.RLo && v < a.RHi {
				total += h.lastRow(&a, row[:w], links, &lists, 0, &sp)
			}
		}
	}
	h.left = h.left || sp.stopped
	total += uint64(m[a.Total]) | uint64(m[a.Total+1])<<32
	m[a.Total], m[a.Total+1] = uint32(total), uint32(total>>32)
	return nil
}

// lastRow is Last's count of one row (kernels/sgsi.cu's lastRow): lists holds the links'
// lists, those of the links in the bit mask known already, the others found here.
func (h *HostBackend) lastRow(a *lastArgs, row []uint32, links []uint32, lists *[32][]uint32, known uint32, sp *threadStop) uint64 {
	m := h.mem
	nless, ngreater := m[a.Desc], m[a.Desc+1]
	less := m[a.Desc+2 : a.Desc+2+uint64(nless)]
	greater := m[a.Desc+2+uint64(nless) : a.Desc+2+uint64(nless+ngreater)]
	best := -1
	for i := range int(a.NLinks) {
		l := links[i*linkWords:]
		if known>>i&1 == 0 {
			lists[i] = h.keyList(l, row[l[0]])
		}
		if l[1] == 0 && (best < 0 || len(lists[i]) < len(lists[best])) {
			best = i
		}
	}
	if best < 0 {
		return 0
	}
	n := uint64(0)
	for _, x := range lists[best] {
		if sp.tick() {
			break
		}
		keep := m[a.Bits+uint64(x/32)]>>(x&31)&1 != 0 && !slices.Contains(row, x)
		for _, c := range less {
			keep = keep && row[c] < x
		}
		for _, c := range greater {
			keep = keep && x < row[c]
		}
		for i := 0; keep && i < int(a.NLinks); i++ {
			if i == best {
				continue
			}
			_, found := slices.BinarySearch(lists[i], x)
			keep = found != (links[i*linkWords+1] != 0)
		}
		if keep {
			n++
		}
	}
	return n
}

func (h *HostBackend) HostTable(level int, n, keep uint64) ([]uint32, error) {
	old := h.tabs[level]
	if uint64(cap(old)) >= n {
		return old[:n], nil
	}
	t := make([]uint32, n, n+n/2)
	copy(t, old[:keep])
	h.tabs[level] = t
	return t, nil
}

func (h *HostBackend) Close() {}
