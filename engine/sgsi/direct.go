package sgsi

import (
	"errors"
	"math/bits"
	"slices"
	"sync/atomic"
	"time"

	"github.com/submatch/submatch/internal/par"
)

// The direct count (issue 21): a count's last step without Prealloc-Combine's buffers, in and
// out of core. Out of core, the buffers of the last step dwarf the graph (hundreds of words a row on power-law
// graphs) and a chunk uploads about 0.66 words of lists per buffer word it holds, so a count
// moved hundreds of times the graph's layout. The direct count instead takes the rows in blocks
// whose distinct lists (every list any link of the step reads for any row of the block) fit the
// device region together, uploads each block's lists once (per label graph: the vertices, their
// offsets, their lists), and counts with one kernel (Backend.Last) that intersects each row's
// lists in place: the entries of its shortest list, checked as First checks them, looked up in
// the others. With the rows sorted by the column whose lists are the longest, each block reads
// a range of those once and the other columns' lists it needs.
//
// When the table before the last step is the edges (a pattern of three vertices: triangles,
// wedges), there is no table at all: the units are the candidates a of the first vertex, each
// standing for its rows (a, b), b in a's list of the first step's label graph; a block uploads
// its vertices' lists and those of the b's, and the kernel generates the rows from them.
//
// A unit (a row, or a vertex a) whose lists alone do not fit goes the buffered way (join, with
// windows of its lists when they are longer than the region).

// directStep is a last step as the direct count reads it: its links, the label graphs they read
// (each uploaded once a block, whatever the links reading it), and, for rows generated from
// edges, the label graph of the step before.
type directStep struct {
	links []directLink
	lgs   []*labelGraph
	keys  []lgKey
	gen   int // the generating label graph's index in lgs; -1: explicit rows
}

// directLink is a link of the last step: the column of its vertex, whether the new vertex must
// be absent from the list (induced non-edges), and the index of its label graph.
type directLink struct {
	col    int
	negate bool
	lg     int
}

// newDirectStep returns the direct form of st; gen, when set, is the key of the step before
// (rows generated from its lists).
func (r *runner) newDirectStep(st *step, gen *lgKey) *directStep {
	d := &directStep{gen: -1}
	index := func(k lgKey) int {
		if i := slices.Index(d.keys, k); i >= 0 {
			return i
		}
		d.keys = append(d.keys, k)
		d.lgs = append(d.lgs, r.s.label(k))
		return len(d.keys) - 1
	}
	for _, l := range append([]link{st.first}, st.others...) {
		d.links = append(d.links, directLink{col: l.col, lg: index(l.key)})
	}
	for _, l := range st.nonadj {
		d.links = append(d.links, directLink{col: l.col, negate: true, lg: index(l.key)})
	}
	if gen != nil {
		d.gen = index(*gen)
	}
	return d
}

// directUnits are what a direct count's blocks are made of: rows of a table, or the vertices
// whose rows are generated from edges.
type directUnits interface {
	len() int
	// needs appends to buf the lists unit i reads (label graph index << 32 | vertex) and
	// returns it with the unit's own words (a row, or a vertex): its own
	// lists (own), which a block holds for its whole count, or the others, which it streams in
	// pieces (edgeUnits: the second column's; tableUnits have none).
	needs(i int, buf []uint64, own bool) ([]uint64, uint64)
}

// tableUnits are the rows of a table of width k.
type tableUnits struct {
	d     *directStep
	table []uint32
	k     int
}

func (t *tableUnits) len() int { return len(t.table) / t.k }

func (t *tableUnits) needs(i int, buf []uint64, own bool) ([]uint64, uint64) {
	if !own {
		return buf, 0
	}
	row := t.table[i*t.k : (i+1)*t.k]
	for _, l := range t.d.links {
		buf = append(buf, uint64(l.lg)<<32|uint64(row[l.col]))
	}
	return buf, uint64(t.k)
}

// edgeUnits are the candidates of the first vertex, each standing for its rows (a, b): b in a's
// list of the generating label graph, a candidate of the second vertex (bits, a host copy of
// its bitset) on the side of a that the step before's restrictions leave (less: a < b,
// greater: b < a).
type edgeUnits struct {
	d             *directStep
	verts         []uint32
	bits          []uint32
	less, greater bool
}

func (e *edgeUnits) len() int { return len(e.verts) }

// row reports whether (a, b) is a row of the table before the last step.
func (e *edgeUnits) row(a, b uint32) bool {
	return b != a && e.bits[b/32]>>(b&31)&1 != 0 && (!e.less || a < b) && (!e.greater || b < a)
}

func (e *edgeUnits) needs(i int, buf []uint64, own bool) ([]uint64, uint64) {
	a := e.verts[i]
	if own {
		buf = append(buf, uint64(e.d.gen)<<32|uint64(a))
		for _, l := range e.d.links {
			if l.col == 0 {
				buf = append(buf, uint64(l.lg)<<32|uint64(a))
			}
		}
		return buf, 1
	}
	for _, b := range e.d.lgs[e.d.gen].list(a) {
		if !e.row(a, b) {
			continue
		}
		for _, l := range e.d.links {
			if l.col == 1 {
				buf = append(buf, uint64(l.lg)<<32|uint64(b))
			}
		}
	}
	return buf, 0
}

// blocker cuts direct units into blocks and collects each block's lists.
type blocker struct {
	lgs []*labelGraph
	// taken: per label graph, a bit per vertex, set when this pass took its list (a bitset, not
	// a word a vertex: at FR's size 8 MB a label graph, which the host's caches mostly hold,
	// rather than 268 MB read at random once an edge).
	taken [][]uint64
	pairs []uint64 // a unit's lists, reused
	// own and other: per label graph, the block's vertices whose own lists it reads, and its
	// other lists' (collect); piece: a piece's; ends: the pieces' ends; all reused.
	own, other, piece [][]uint32
	ends              []uint32
	workers           int // collect's goroutines (<= 0: all cores)
	split             int // tests: the fewest units a goroutine of collect takes (0: minWorkerRows)
}

func newBlocker(lgs []*labelGraph, nv, workers int) *blocker {
	n := len(lgs)
	b := &blocker{lgs: lgs, workers: workers, taken: make([][]uint64, n), own: make([][]uint32, n), other: make([][]uint32, n), piece: make([][]uint32, n)}
	for i := range b.taken {
		b.taken[i] = make([]uint64, (nv+63)/64)
	}
	return b
}

// begin starts a pass: no list is taken.
func (b *blocker) begin() {
	for _, t := range b.taken {
		clear(t)
	}
}

// take marks the list of vertex v in label graph lg taken and reports whether it was not yet.
func (b *blocker) take(lg int, v uint32) bool {
	w, bit := &b.taken[lg][v/64], uint64(1)<<(v%64)
	if *w&bit != 0 {
		return false
	}
	*w |= bit
	return true
}

// listWords is what the list of v in lg takes in a block's upload: its entries, its vertex and
// its offset.
func listWords(lg *labelGraph, v uint32) uint64 { return lg.degree(v) + 2 }

// next returns the end of the block that starts at unit start: the most units whose own words
// and distinct lists (listWords each) fit budget words (the region's bound) and limit words (the
// pace's: a block has one unit at least, however many words it takes, when it fits budget), and
// the words they take; start when unit start alone does not fit budget.
func (b *blocker) next(u directUnits, start int, budget, limit uint64) (int, uint64) {
	b.begin()
	words := uint64(0)
	end := start
	for ; end < u.len(); end++ {
		var w uint64
		b.pairs, w = u.needs(end, b.pairs[:0], true)
		for _, p := range b.pairs {
			if lg, v := int(p>>32), uint32(p); b.take(lg, v) {
				w += listWords(b.lgs[lg], v)
			}
		}
		if words+w > budget || end > start && words+w > limit {
			break
		}
		words += w
	}
	return end, words
}

// collect returns, per label graph, the sorted distinct vertices whose own (or other) lists the
// units [start, end) read, in refs (one slice per label graph, reused): the units' lists marked
// in the taken bitsets (on up to workers goroutines over ranges of units, atomically: the
// second column's lists of a block of generated rows are one mark an edge), then read off in
// order.
func (b *blocker) collect(u directUnits, start, end int, own bool, refs [][]uint32) [][]uint32 {
	b.begin()
	n := end - start
	nw := rowWorkers(n, b.workers)
	if b.split > 0 {
		nw = max(1, min(b.workers, n/b.split))
	}
	if nw > 1 {
		par.For(nw, nw, func(w int) {
			var pairs []uint64
			for i := start + w*n/nw; i < start+(w+1)*n/nw; i++ {
				pairs, _ = u.needs(i, pairs[:0], own)
				for _, p := range pairs {
					v := uint32(p)
					atomic.OrUint64(&b.taken[p>>32][v/64], 1<<(v%64))
				}
			}
		})
	} else {
		for i := start; i < end; i++ {
			b.pairs, _ = u.needs(i, b.pairs[:0], own)
			for _, p := range b.pairs {
				b.take(int(p>>32), uint32(p))
			}
		}
	}
	for lg, t := range b.taken {
		x := refs[lg][:0]
		for w, bitsW := range t {
			for ; bitsW != 0; bitsW &= bitsW - 1 {
				x = append(x, uint32(w*64+bits.TrailingZeros64(bitsW)))
			}
		}
		refs[lg] = x
	}
	return refs
}

// pieces cuts the other lists of a block (refs, per label graph: the vertices read, sorted) into
// pieces of at most budget words (the region's bound) and, but for a piece of one vertex, limit
// words (the pace's): ranges of vertices, each piece all the lists of its vertices in every
// label graph. It returns the pieces' ends (a vertex past each), appended to ends, and false
// when one vertex's lists alone exceed budget.
func (b *blocker) pieces(refs [][]uint32, budget, limit uint64, ends []uint32) ([]uint32, bool) {
	at := make([]int, len(refs)) // (few label graphs: one a link)
	words := uint64(0)
	for {
		// The next vertex: the least not yet taken in any label graph.
		v, any := uint32(0), false
		for lg, x := range refs {
			if at[lg] < len(x) && (!any || x[at[lg]] < v) {
				v, any = x[at[lg]], true
			}
		}
		if !any {
			break
		}
		w := uint64(0)
		for lg, x := range refs {
			if at[lg] < len(x) && x[at[lg]] == v {
				w += listWords(b.lgs[lg], v)
				at[lg]++
			}
		}
		if w > budget {
			return ends, false
		}
		if words > 0 && (words+w > budget || words+w > limit) {
			ends = append(ends, v)
			words = 0
		}
		words += w
	}
	return append(ends, invalid), true
}

// directOK reports whether a count's last step may go the direct way: a count, the direct count
// not turned off (Options.Buffered). In core too: the buffers of the last step, not the graph,
// are what a buffered count moves and sorts (at FR's size in core the buffered way was cut at
// 150 s, 446 chunks, against 30.3 s for the direct count at a quarter of the graph); a direct
// block overwrites the resident label graphs (dropCache), which the steps before it upload
// again when they next need them.
func (r *runner) directOK() bool { return r.count && !r.buffered }

// dropCache forgets the resident segments: a direct block overwrites the segment cache.
func (r *runner) dropCache() {
	clear(r.cached)
	r.resident = r.resident[:0]
	r.cacheUsed = 0
}

// directTable counts the last step i of a count over table (rows of width i+1) the direct way,
// and reports false (having done nothing) when it cannot (no room, or --memory).
func (r *runner) directTable(i int, st *step, table []uint32, desc []uint32) (bool, error) {
	if st.cartesian {
		return false, nil
	}
	k := i + 1
	d := r.newDirectStep(st, nil)
	// Rows sorted by the column whose lists are the longest in all: each block then reads a
	// range of them once.
	t := time.Now()
	var most, col = uint64(0), d.links[0].col
	var stopped atomic.Bool
	for _, l := range d.links {
		sum := uint64(0)
		rowBlocks(r.ctx, &stopped, 0, len(table), k, func(lo, hi int) {
			for x := lo + l.col; x < hi; x += k {
				sum += d.lgs[l.lg].degree(table[x])
			}
		})
		if stopped.Load() {
			return true, r.ctx.Err() // (R-MAT 18's 4-cycles: 0.1-0.2 s a pass on the emulation)
		}
		if sum > most {
			most, col = sum, l.col
		}
	}
	if k > 1 {
		if err := sortRows(r.ctx, table, r.sortBuffer(uint64(len(table))), k, rowOrder{col: col}, bits.Len32(uint32(r.s.g.NumVertices())), r.threads); err != nil {
			return true, err // (the table's rows mixed up: the count is partial)
		}
	}
	r.st.Group += time.Since(t)
	u := &tableUnits{d: d, table: table, k: k}
	return r.direct(d, u, desc, func(x int) error {
		// The buffered way for one row whose lists do not fit.
		return r.join(i, st, table[x*k:(x+1)*k], rowOrder{col: st.first.col}, desc, true)
	})
}

// directEdges counts a pattern of three vertices the direct way, its rows generated from the
// first step's lists (first: the candidates of the first vertex), and reports false (having done
// nothing) when it cannot.
func (r *runner) directEdges(first []uint32) (bool, error) {
	q := r.q
	if q.n != 3 || q.joined != 3 {
		return false, nil
	}
	s0, s1 := &q.steps[0], &q.steps[1]
	if s0.cartesian || s1.cartesian || len(s0.others) > 0 || len(s0.nonadj) > 0 {
		return false, nil
	}
	d := r.newDirectStep(s1, &s0.first.key)
	u1 := s0.u
	u := &edgeUnits{d: d, verts: first, bits: r.bitsHost[uint64(u1)*r.bitWords : uint64(u1+1)*r.bitWords],
		less: len(s0.less) > 0, greater: len(s0.greater) > 0}
	var big []uint32
	ok, err := r.direct(d, u, r.desc(s1), func(x int) error {
		big = append(big, first[x])
		return nil
	})
	if !ok || err != nil || r.stop || len(big) == 0 {
		return ok, err
	}
	// The vertices whose lists do not fit a block: the steps joined as usual (the last one the
	// direct way again, row by row where it can).
	return true, r.level(0, big)
}

// desc is a step's restriction descriptor: [nless, ngreater, less cols..., greater cols...].
func (r *runner) desc(st *step) []uint32 {
	desc := []uint32{uint32(len(st.less)), uint32(len(st.greater))}
	for _, c := range st.less {
		desc = append(desc, uint32(c))
	}
	for _, c := range st.greater {
		desc = append(desc, uint32(c))
	}
	return desc
}

// maxBlockWords caps a direct block's words whatever the region: a block's lists are collected
// on the host while the block before it counts on the device, so one block as large as a large
// region (in core) would leave the device idle through the whole collection. 2^30 words is
// what a 4 GiB region gives a block, the fastest measured (FR's size, triangles: 30.3 s in 4
// blocks at --gpu-memory 4GiB, 36.4 s in 15 at 1GiB; H200, 2026-12-03); larger blocks are
// unmeasured.
const maxBlockWords = 1 << 30

// minCoreBlockWords is the least block budget in core: a graph whose layout is under 16 MiB is
// counted in one block.
const minCoreBlockWords = 1 << 20

// streamWords is the size of a chunk of a block's upload: one goroutine gathers it, one copy
// carries it (the lists go up in chunks, not one copy each, nor one staging of the whole block).
const streamWords = 1 << 20

// direct counts the units in blocks (see the package's direct count); big is called for each
// unit whose lists do not fit a block. It reports false when the step cannot go the direct way
// at all: no room for a block's header, or --memory for the blocker's marks.
//
// A block of table rows holds every list its rows read. A block of generated rows holds its
// vertices' own lists in half the budget and streams the second column's lists through the
// other half in pieces, ranges of vertices, the kernel counting for each piece the rows whose
// second vertex lies in it.
func (r *runner) direct(d *directStep, u directUnits, desc []uint32, big func(int) error) (_ bool, err error) {
	q := r.q
	nv := r.s.g.NumVertices()
	nlinks := len(d.links)
	entries := nlinks
	if d.gen >= 0 {
		entries++ // the generating lists' entry, past the links
	}
	// The block's header: the link table, the descriptors, one offset more per label graph (and
	// per piece's).
	header := uint64(linkWords*entries+len(desc)+2+2*len(d.lgs)) + 8
	capacity := r.be.Words() - r.cacheOff
	if header+64 > capacity || nlinks > 32 {
		return false, nil
	}
	if err := r.reserve("the direct count's marks", uint64(len(d.lgs))*uint64(nv)/8); err != nil {
		return false, nil
	}
	budget := min(capacity-header, maxKernelIndex-1, maxBlockWords)
	least := r.coreBlock
	if least == 0 {
		least = minCoreBlockWords
	}
	if r.st.InCore {
		// In core, the blocks of a region of a quarter of GraphBytes (as the device measured
		// out of core, 4 blocks for triangles): one block would count only after the host
		// collected all of it.
		budget = min(budget, max(GraphBytes(r.s.g)/16, least))
	}
	lay := r.blockLayout(d, uint64(linkWords*entries), header, capacity, budget)
	defer func() {
		if lay.p != nil { // the slots' counts, and both streams done before the default stream goes on
			if e := r.endPipeline(lay); err == nil {
				err = e
			}
		}
	}()
	b := newBlocker(d.lgs, nv, r.threads)
	st := q.steps[len(q.steps)-1]
	bitsU := r.bitsOff + uint64(st.u)*r.bitWords
	for start := 0; start < u.len(); {
		if err := r.ctx.Err(); err != nil {
			return true, err
		}
		t := time.Now()
		limit := max(r.blockPace.limit(), least)
		end, words := b.next(u, start, lay.own, limit)
		r.st.Refs += time.Since(t)
		if end == start {
			end++ // alone too big: the buffered way
		} else if err := r.block(d, u, b, start, end, desc, bitsU, lay, limit); err != errNoPiece {
			if err != nil {
				return true, err
			}
			r.blockPace.took(words, time.Since(t))
			start = end
			continue
		}
		if lay.p != nil { // the buffered way runs on the default stream, over the slots
			if err := r.endPipeline(lay); err != nil {
				return true, err
			}
		}
		for x := start; x < end; x++ {
			r.st.BlockFallbacks++
			if err := big(x); err != nil || r.stop {
				return true, err
			}
		}
		start = end
	}
	return true, nil
}

// blockLayout is where the direct count's blocks go in the region.
//
// Serial: a block's header (link table, descriptors), its rows or generating
// vertices and its own lists from cacheOff, each piece of generated rows after them; the
// kernels count into the counter at sumOff, read before the next block is uploaded.
//
// Overlapped (Options.Overlap: by default the pieces of generated rows; pipe.go): the two slots' counters at cacheOff; a block of table
// rows takes the slots in turn, each with its header, rows and lists; a block of generated rows
// keeps its descriptors, vertices and own lists in a shared area, and its pieces take the slots
// in turn, each with its link table and lists. So a slot is filled while the other's kernel
// runs; blocks (table rows) or pieces (generated rows) are at most half as large as serial ones.
type blockLayout struct {
	overlap bool
	p       *pipeline // overlapped: the pipeline, started at the first block (nil: not running)
	// own is a block's budget (its rows' or vertices' own words and lists: blocker.next), piece
	// a piece's (blocker.pieces).
	own, piece uint64
	links      uint64    // the link table's words
	slot       [2]uint64 // overlapped: the slots (a block's, or a piece's)
	shared     uint64    // overlapped, generated rows: the block's descriptors, vertices and own lists
	turn       int       // overlapped: the next block's (table rows) or piece's slot
}

// blockLayout lays the blocks out (see blockLayout) within capacity words from cacheOff, links
// the link table's words, header those of a block's header, budget a block's words serially:
// overlapped when the runner overlaps this kind of block (Options.Overlap), its backend has a
// pipeline, --memory has room for the pipeline's staging buffers, and two slots leave a block or
// piece room for at least 64 words; else serial.
func (r *runner) blockLayout(d *directStep, links, header, capacity, budget uint64) *blockLayout {
	lay := &blockLayout{own: budget, piece: budget / 2, links: links}
	if d.gen >= 0 {
		lay.own /= 2 // own lists; the pieces take the other half
	}
	if d.gen >= 0 && !r.overlapGen || d.gen < 0 && !r.overlapTable {
		return lay
	}
	if _, ok := r.be.(piper); !ok {
		return lay
	}
	if r.reserve("the pipeline's staging buffers", 4*streamWords*pipeStages) != nil {
		return lay // over --memory: serial, on the one staging buffer
	}
	base := r.cacheOff + 4 // the counters
	avail := capacity - min(capacity, 4)
	if d.gen < 0 {
		slot := avail / 2 &^ 1
		if slot < header+64 {
			return lay
		}
		lay.own = min(budget, slot-header)
		lay.slot = [2]uint64{base, base + slot}
	} else {
		sharedWords := header + lay.own
		slot := (avail - min(avail, sharedWords)) / 2 &^ 1
		margin := links + uint64(2*len(d.lgs)) + 8
		if slot < margin+64 {
			return lay
		}
		lay.piece = min(lay.piece, slot-margin)
		lay.shared = base
		lay.slot = [2]uint64{base + sharedWords, base + sharedWords + slot}
	}
	lay.overlap = true
	return lay
}

// startPipeline starts lay's pipeline: the backend's queue (false: it has none now, and the
// layout turns serial) with the counters at cacheOff.
func (r *runner) startPipeline(lay *blockLayout) error {
	q, ok, err := r.be.(piper).pipe()
	if err != nil {
		return err
	}
	if !ok {
		lay.overlap = false
		return nil
	}
	lay.p, err = newPipeline(q, r.cacheOff, r.st)
	lay.turn = 0
	return err
}

// endPipeline adds the slots' counts to the total, waits for both streams and records their
// times.
func (r *runner) endPipeline(lay *blockLayout) error {
	pt, err := lay.p.finish(&r.total)
	r.st.Overlap += pt.overlap
	lay.p = nil
	return err
}

// errNoPiece is block's answer when one vertex's other lists do not fit a piece (its units then
// go the buffered way).
var errNoPiece = errors.New("sgsi: a vertex's lists exceed a piece")

// block uploads the lists of units [start, end), with their rows (or generating vertices),
// counts them with Last (generated rows: a launch for each piece of the second column's lists,
// of at most limit words but for a piece of one vertex, the context checked between them) and
// adds the count to the total, in lay (serial, or overlapped: see blockLayout).
func (r *runner) block(d *directStep, u directUnits, b *blocker, start, end int, desc []uint32, bitsU uint64, lay *blockLayout, limit uint64) error {
	t, drv := time.Now(), r.st.Driver
	own := b.collect(u, start, end, true, b.own)
	gen := d.gen >= 0
	if gen {
		other := b.collect(u, start, end, false, b.other)
		var ok bool
		if b.ends, ok = b.pieces(other, lay.piece, limit, b.ends[:0]); !ok {
			return errNoPiece
		}
	}
	if lay.overlap && lay.p == nil {
		if err := r.startPipeline(lay); err != nil {
			return err
		}
	}
	p := lay.p
	// Where the header goes, once the kernels that read the place have run. Serial: the last
	// block's count is read only now (its kernel ran on the device while the host collected
	// this block's lists). Overlapped: table rows take the next slot, whose count is read;
	// generated rows wait for every piece of the last block, which read the shared area.
	linksOff, slot := r.cacheOff, 0
	switch {
	case p == nil:
		if r.blockSum {
			r.blockSum = false
			if err := r.drainSum(); err != nil {
				return err
			}
		}
	case gen:
		for s := range 2 {
			if err := p.settle(s, &r.total); err != nil {
				return err
			}
		}
	default:
		slot, lay.turn = lay.turn, lay.turn^1
		linksOff = lay.slot[slot]
		if err := p.settle(slot, &r.total); err != nil {
			return err
		}
	}
	r.dropCache()
	nlinks := len(d.links)
	entries := nlinks
	if gen {
		entries++
	}
	// The header (link table, descriptors, generating vertices) in one copy, then the rows of a
	// table, then each label graph's upload of own lists: its vertices, their offsets, their
	// lists; then the pieces' uploads, one after the other at the same place (overlapped: in
	// the slots in turn, each with its link table).
	nl := lay.links
	descOff := linksOff + nl
	if p != nil && gen {
		descOff = lay.shared
	}
	desc0Off := descOff + uint64(len(desc))
	d0 := nl + uint64(len(desc)) // desc0's index in h
	at := desc0Off + 2
	h := grow(&r.stage, d0+2)
	copy(h[nl:], desc)
	h[d0], h[d0+1] = 0, 0
	a := lastArgs{Links: linksOff, NLinks: uint32(nlinks), Bits: bitsU, Desc: descOff, Desc0: desc0Off, Group: 32,
		Total: r.sumOff, RHi: invalid}
	switch t := u.(type) {
	case *tableUnits:
		a.Rows, a.Width, a.NRows = at, uint32(t.k), uint32(end-start)
		at += uint64((end - start) * t.k)
	case *edgeUnits:
		// The generating vertices.
		a.Width, a.Gen, a.NGen, a.GenLink, a.RCol = 2, at, uint32(end-start), uint32(nlinks), 1
		a.Bits1 = r.bitsOff + uint64(r.q.steps[0].u)*r.bitWords
		if t.less {
			h[d0] = 1
		}
		if t.greater {
			h[d0+1] = 1
		}
		h = append(h, t.verts[start:end]...)
		rows := uint64(0)
		for _, v := range t.verts[start:end] {
			rows += d.lgs[d.gen].degree(v)
		}
		a.NRows = uint32(rows)
		at += uint64(end - start)
	}
	keyOff := r.keyOff[:0]
	up := &r.up
	up.reset(r.threads)
	for x, lg := range d.lgs {
		keyOff = append(keyOff, at)
		at += up.add(lg, own[x])
	}
	r.keyOff = keyOff
	pieceOff := at
	entry := func(e int, col uint32, negate bool, nref int, off uint64) {
		w := h[e*linkWords : (e+1)*linkWords]
		w[0], w[1], w[2], w[3] = col, 0, uint32(nref), 0
		if negate {
			w[1] = 1
		}
		w[4], w[5] = uint32(off), uint32(off>>32)
	}
	for e, l := range d.links {
		entry(e, uint32(l.col), l.negate, len(own[l.lg]), keyOff[l.lg]) // (pieces: set below)
	}
	if gen {
		entry(nlinks, 0, false, len(own[d.gen]), keyOff[d.gen])
	}
	r.stage = h
	var err error
	if p != nil && gen {
		err = r.blockPut(p, descOff, h[nl:]) // the link table goes with each piece
	} else {
		err = r.blockPut(p, linksOff, h)
	}
	if tu, ok := u.(*tableUnits); ok && err == nil {
		err = r.blockPut(p, a.Rows, tu.table[start*tu.k:end*tu.k])
	}
	if err == nil {
		err = r.blockUpload(p, keyOff[0], up)
	}
	r.st.Refs += time.Since(t) - (r.st.Driver - drv) // (the copies are Driver's)
	if err != nil {
		return err
	}
	r.st.Blocks++
	r.st.BlockRows += uint64(a.NRows)
	if !gen {
		if p != nil {
			return p.last(slot, a)
		}
		r.blockSum = true
		return r.kernel(func() error { return r.be.Last(a) })
	}
	// The pieces of the second column's lists: [lo, end) of vertex ids each.
	lo := uint32(0)
	for _, hi := range b.ends {
		if err := r.ctx.Err(); err != nil {
			if p == nil {
				r.blockSum = true // the pieces counted so far
			}
			return err
		}
		t, drv = time.Now(), r.st.Driver
		if p != nil { // the next slot, once its last piece has been counted
			slot, lay.turn = lay.turn, lay.turn^1
			if err := p.free(slot); err != nil {
				return err
			}
			a.Links = lay.slot[slot]
			pieceOff = a.Links + nl
		}
		at := pieceOff
		up.reset(r.threads)
		for x, lg := range d.lgs {
			o := b.other[x]
			i, _ := slices.BinarySearch(o, lo)
			j, _ := slices.BinarySearch(o, hi)
			b.piece[x] = o[i:j]
			keyOff[x] = at
			at += up.add(lg, b.piece[x])
		}
		for e, l := range d.links {
			if l.col == 1 {
				entry(e, uint32(l.col), l.negate, len(b.piece[l.lg]), keyOff[l.lg])
			}
		}
		err := r.blockUpload(p, pieceOff, up)
		if err == nil {
			err = r.blockPut(p, a.Links, h[:linkWords*entries])
		}
		r.st.Refs += time.Since(t) - (r.st.Driver - drv)
		if err == nil {
			r.st.Pieces++
			a.RLo, a.RHi = lo, hi
			if p != nil {
				err = p.last(slot, a)
			} else {
				err = r.kernel(func() error { return r.be.Last(a) })
			}
		}
		if err != nil {
			return err
		}
		lo = hi
	}
	if p == nil {
		r.blockSum = true
	}
	return nil
}

// blockPut uploads src to region word off: through the pipeline p, or serially (p nil).
func (r *runner) blockPut(p *pipeline, off uint64, src []uint32) error {
	if p == nil {
		return r.put(off, src)
	}
	return p.copyIn(off, src)
}

// blockUpload uploads u to region word at: through the pipeline p, or serially (p nil).
func (r *runner) blockUpload(p *pipeline, at uint64, u *listUpload) error {
	if p == nil {
		return r.putUpload(at, u)
	}
	return p.upload(at, u)
}

// listUpload is an upload of lists, gathered on several goroutines: for each part (a label
// graph's lists of some vertices) the vertices, their offsets in its lists, then the lists, the
// parts one after the other. Its buffers are reused from one upload to the next.
type listUpload struct {
	parts []uploadPart
	words uint64
	bufs  [][]uint32 // one chunk a goroutine
	offs  [][]uint32 // the parts' offsets
	chunk uint64     // the words of a chunk (0: streamWords; tests set it small)
	// workers is the most goroutines an upload's offsets and chunks take (<= 0: all cores);
	// split the fewest vertices a goroutine of the offsets takes (0: minWorkerRows; tests set
	// it small).
	workers, split int
	sums           []uint32 // the goroutines' sums of degrees, reused
}

// uploadPart is one label graph's lists of the vertices refs (sorted), from word at of the
// upload: refs, then offs (len(refs)+1 offsets into the lists), then the lists.
type uploadPart struct {
	lg   *labelGraph
	refs []uint32
	offs []uint32
	at   uint64
}

// reset empties u for a new upload on up to workers goroutines.
func (u *listUpload) reset(workers int) {
	u.parts, u.words, u.workers = u.parts[:0], 0, workers
}

// add appends lg's lists of refs to the upload and returns its words. The offsets are the
// prefix sums of the degrees, on up to workers goroutines: each sums its range, then adds the
// ranges before it.
func (u *listUpload) add(lg *labelGraph, refs []uint32) uint64 {
	i := len(u.parts)
	if i == len(u.offs) {
		u.offs = append(u.offs, nil)
	}
	n := len(refs)
	offs := grow(&u.offs[i], uint64(n)+1)
	nw := rowWorkers(n, u.workers)
	if u.split > 0 {
		nw = max(1, min(max(1, u.workers), n/u.split))
	}
	sums := grow(&u.sums, uint64(nw))
	prefix := func(w int) {
		off := uint32(0)
		for x := w * n / nw; x < (w+1)*n/nw; x++ {
			offs[x] = off
			off += uint32(lg.degree(refs[x]))
		}
		sums[w] = off
	}
	if nw == 1 {
		prefix(0)
	} else {
		par.For(nw, nw, prefix)
	}
	base := uint32(0)
	for w, sum := range sums {
		sums[w], base = base, base+sum
	}
	offs[n] = base
	if nw > 1 {
		par.For(nw, nw, func(w int) {
			for x := w * n / nw; x < (w+1)*n/nw; x++ {
				offs[x] += sums[w]
			}
		})
	}
	u.parts = append(u.parts, uploadPart{lg: lg, refs: refs, offs: offs, at: u.words})
	w := 2*uint64(n) + 1 + uint64(base)
	u.words += w
	return w
}

// fill writes the upload's words [from, from+len(dst)) into dst.
func (u *listUpload) fill(dst []uint32, from uint64) {
	to := from + uint64(len(dst))
	for _, p := range u.parts {
		n := uint64(len(p.refs))
		lists := p.at + 2*n + 1
		end := lists + uint64(p.offs[n])
		if end <= from || p.at >= to {
			continue
		}
		copyRange(dst, from, to, p.at, p.refs)
		copyRange(dst, from, to, p.at+n, p.offs)
		if lists >= to || end <= from {
			continue
		}
		// The lists from the one holding the range's first word of lists: the last whose
		// offset is at most that word's.
		j, _ := slices.BinarySearch(p.offs, uint32(max(from, lists)-lists)+1)
		for i := j - 1; i < int(n) && lists+uint64(p.offs[i]) < to; i++ {
			copyRange(dst, from, to, lists+uint64(p.offs[i]), p.lg.list(p.refs[i]))
		}
	}
}

// copyRange copies the part of src, which starts at word at, that falls in [from, to) into dst
// (which starts at word from).
func copyRange(dst []uint32, from, to, at uint64, src []uint32) {
	lo, hi := max(at, from), min(at+uint64(len(src)), to)
	if lo < hi {
		copy(dst[lo-from:hi-from], src[lo-at:hi-at])
	}
}

// putUpload copies the upload u to region word at: chunks of streamWords gathered on up to
// u.workers goroutines at once, each batch then copied in order (the copies stay on the calling
// thread: the device's).
func (r *runner) putUpload(at uint64, u *listUpload) error {
	cw := u.chunk
	if cw == 0 {
		cw = streamWords
	}
	nw := par.Workers(int((u.words+cw-1)/cw), u.workers, 1)
	for len(u.bufs) < nw {
		u.bufs = append(u.bufs, make([]uint32, cw))
	}
	for base := uint64(0); base < u.words; base += uint64(nw) * cw {
		k := int(min(uint64(nw), (u.words-base+cw-1)/cw))
		chunk := func(i int) []uint32 {
			return u.bufs[i][:min(cw, u.words-base-uint64(i)*cw)]
		}
		par.For(k, k, func(i int) { u.fill(chunk(i), base+uint64(i)*cw) })
		for i := range k {
			if err := r.put(at+base+uint64(i)*cw, chunk(i)); err != nil {
				return err
			}
		}
	}
	return nil
}
