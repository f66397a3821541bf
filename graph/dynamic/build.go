package dynamic

import (
	"fmt"
	"maps"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/huge"
	"github.com/submatch/submatch/internal/par"
)

// Build makes a graph directly from arrays, without an intermediate graph.Graph: vertex v has
// original id orig[v] and label labels[v]; edge i joins src[i] and dst[i] (dense ids) with edge
// label 0. An edge given twice is kept once; a self-loop or an id out of range is an error. Build
// keeps orig and labels.
func Build(orig []int64, labels []uint32, src, dst []uint32) (*Graph, error) {
	if len(src) != len(dst) {
		return nil, fmt.Errorf("dynamic: %d sources, %d destinations", len(src), len(dst))
	}
	return BuildParts(orig, labels, [][]uint32{src}, [][]uint32{dst})
}

// BuildParts is Build with the edges in parts (src[i][j]-dst[i][j]), as parsers on several
// cores leave them.
//
// The lists come out sorted without sorting them: the edges are first scattered into unsorted
// lists, then every vertex w, in (label, id) order, appends itself to the lists of its
// neighbours, which are so ordered by (neighbour label, neighbour id) from the start.
func BuildParts(orig []int64, labels []uint32, src, dst [][]uint32) (*Graph, error) {
	return BuildPartsScratch(orig, labels, src, dst, nil)
}

// BuildPartsScratch is BuildParts that may overwrite scratch (which may hold the edges
// themselves: it is written only once they are all read) with the lists before they are cut
// into runs, when it has room for them (two entries an edge), instead of allocating them: a
// loader's edge arrays, whose pages are already touched.
func BuildPartsScratch(orig []int64, labels []uint32, src, dst [][]uint32, scratch []uint32) (*Graph, error) {
	n := len(orig)
	if n >= math.MaxUint32 {
		return nil, fmt.Errorf("dynamic: %d vertices", n)
	}
	if len(labels) != n || len(src) != len(dst) {
		return nil, fmt.Errorf("dynamic: %d ids, %d labels, %d source parts, %d destination parts", n, len(labels), len(src), len(dst))
	}
	for i := range src {
		if len(src[i]) != len(dst[i]) {
			return nil, fmt.Errorf("dynamic: part %d has %d sources, %d destinations", i, len(src[i]), len(dst[i]))
		}
	}
	off := make([]uint64, n+1)
	huge.PopulateAsync(huge.Bytes(off)) // (see below)
	for p := range src {
		for i, u := range src[p] {
			v := dst[p][i]
			if int(u) >= n || int(v) >= n {
				return nil, fmt.Errorf("dynamic: edge %d-%d has an endpoint out of range", u, v)
			}
			if u == v {
				return nil, fmt.Errorf("dynamic: edge %d-%d: %w", orig[u], orig[v], ErrSelfLoop)
			}
			off[u+1]++
			off[v+1]++
		}
	}
	for v := 1; v <= n; v++ {
		off[v] += off[v-1]
	}
	// Pass 1: unsorted lists.
	fill := slices.Clone(off[:n])
	// The lists' final array (back, below: each list with an eighth of spare room and one entry
	// per run, a run per label group, so at most min(l, labels) runs) takes raw's memory once
	// raw is read, when raw is allocated with room for it: its pages are then touched once, not
	// twice. (Only for graphs of up to 2^24 entries: the room back does not use stays
	// allocated with the graph, untouched.)
	order := graph.OrderByLabel(labels)
	rawCap := off[n]
	if off[n] <= 1<<24 {
		groups := uint64(0)
		for i, w := range order {
			if i == 0 || labels[w] != labels[order[i-1]] {
				groups++
			}
		}
		rawCap += off[n]/8 + min(off[n], uint64(n)*groups)
	}
	raw := huge.Make[uint32](int(rawCap))[:off[n]]
	// Everything else whose size n and off[n] tell is allocated now, and its pages faulted in on
	// another core in the order the passes below first write them (PopulateAsync), while this
	// one fills raw: on a virtual machine the first touches of a graph's pages cost a fifth of
	// its load.
	cur := make([]cursor, n)
	var sorted []uint32 // every entry is written below
	if uint64(len(scratch)) >= off[n] {
		sorted = scratch[:off[n]]
	} else {
		sorted = huge.Make[uint32](int(off[n]))
	}
	d := New()
	d.vs = make([]vertex, n)
	nruns := make([]uint32, n)
	d.adj = make([][]Run, n)
	d.posLabel = make([]uint32, n)
	d.posAll = make([]uint32, n)
	space := make([]uint64, n+1)
	d.all = make([]uint32, n)
	huge.PopulateAsync(huge.Bytes(raw), huge.Bytes(cur), huge.Bytes(sorted), huge.Bytes(d.vs), huge.Bytes(nruns),
		huge.Bytes(space), huge.Bytes(d.adj), huge.Bytes(d.posLabel), huge.Bytes(d.all), huge.Bytes(d.posAll))
	for p := range src {
		for i, u := range src[p] {
			v := dst[p][i]
			raw[fill[u]] = v
			fill[u]++
			raw[fill[v]] = u
			fill[v]++
		}
	}
	// Pass 2: every vertex, in (label, id) order, into its neighbours' lists, counting their
	// runs (a list's runs are the label groups it receives, in order). A list's write position,
	// last label group and run count share one cursor: one cache line to touch a neighbour, and
	// no branch on what it holds. An edge given twice puts the same vertex twice in a row, which
	// cutRuns keeps once.
	for u := range cur {
		cur[u].pos = off[u]
	}
	fill = nil
	group := uint32(0) // 1 + the label group of w
	for i, w := range order {
		if i == 0 || labels[w] != labels[order[i-1]] {
			group++
		}
		for _, u := range raw[off[w]:off[w+1]] {
			c := &cur[u]
			sorted[c.pos] = w
			c.pos++
			c.runs += uint32((uint64(c.group) - uint64(group)) >> 63) // c.group < group: a new run
			c.group = group
		}
	}
	raw = raw[:cap(raw)] // (read: its memory may be back's)
	fillVertices(d.vs, labels)
	d.orig = orig
	for v := range n {
		nruns[v] = cur[v].runs
	}
	cur = nil
	// Each run gets an eighth (at least one entry) of spare capacity, so that a stream's first
	// insertions do not reallocate it (with an edge given twice, the lists' lengths still bound
	// the runs' sizes; cutRuns sets the degrees).
	for v := range n {
		l := off[v+1] - off[v]
		space[v+1] = space[v] + l + l/8 + uint64(nruns[v])
	}
	var back []uint32 // what cutRuns writes is all that is read
	if uint64(len(raw)) >= space[n] {
		back = raw[:space[n]]
	} else {
		back = huge.Make[uint32](int(space[n]))
	}
	raw = nil
	// The runs of all vertices in one allocation, each vertex with room for one more run (a first
	// neighbour of another label) before its runs are reallocated: nruns becomes each vertex's
	// first run.
	total := uint64(0)
	for v := range n {
		c := uint64(nruns[v]) + 1
		nruns[v] = uint32(total)
		total += c
	}
	if total > math.MaxUint32 {
		return nil, fmt.Errorf("dynamic: %d runs", total)
	}
	arena := huge.Make[Run](int(total))
	parallelChunks(n, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			start := int(nruns[v])
			k, deg := cutRuns(arena[start:], labels, sorted[off[v]:off[v+1]], back[space[v]:space[v+1]])
			d.vs[v].degree = uint32(deg)
			d.adj[v] = arena[start : start+k : start+k+1]
			d.vs[v].mask = maskOf(d.adj[v])
		}
	})
	// The label index from the (label, id) order, the id table in one allocation.
	for i := 0; i < n; {
		l := labels[order[i]]
		j := i + 1
		for j < n && labels[order[j]] == l {
			j++
		}
		list := order[i:j:j]
		for k, v := range list {
			d.posLabel[v] = uint32(k)
		}
		d.byLabel[l] = list
		i = j
	}
	top, limit := int64(-1), d.tableLimit()
	for _, id := range orig {
		if id >= 0 && id < limit {
			top = max(top, id)
		}
	}
	if top >= 0 {
		d.table = make([]uint32, top+1)
	}
	var half uint64
	for v := range n {
		d.vs[v].alive = true
		d.all[v], d.posAll[v] = uint32(v), uint32(v)
		d.mapID(orig[v], uint32(v))
		half += uint64(d.vs[v].degree)
	}
	if len(d.ids) > 0 || d.table != nil {
		// An original id given to two vertices would have left the first unmapped.
		for v := range n {
			if w, _ := d.lookupAny(orig[v]); w != uint32(v) {
				return nil, fmt.Errorf("dynamic: original id %d given to two vertices", orig[v])
			}
		}
	}
	d.numEdges = half / 2
	return d, nil
}

// A cursor is BuildParts's state of one vertex's list while the lists are filled: where the next
// neighbour goes, 1 + the label group of the last one written (0 at first) and the runs begun.
type cursor struct {
	pos   uint64
	group uint32
	runs  uint32
}

// cutRuns writes the runs of the list nb (sorted by (label, id); a vertex given twice is there
// twice in a row, and kept once) into back, each followed by its spare room, and their Run
// values into dst; it returns their number and the number of distinct vertices.
func cutRuns(dst []Run, labels []uint32, nb []uint32, back []uint32) (int, int) {
	pos, k, deg := 0, 0, 0
	for i := 0; i < len(nb); {
		l := labels[nb[i]]
		// The run is copied while its end is sought; a vertex equal to the last one copied is
		// written over.
		out := back[pos : pos+len(nb)-i]
		out[0] = nb[i]
		m, j := 1, i+1
		for ; j < len(nb) && labels[nb[j]] == l; j++ {
			out[m] = nb[j]
			if nb[j] != out[m-1] {
				m++
			}
		}
		c := m + m/8 + 1
		dst[k] = Run{VertexLabel: l, Neighbors: back[pos : pos+m : pos+c]}
		k++
		deg += m
		pos += c
		i = j
	}
	return k, deg
}

// parallelChunks runs fn over [0, n) in chunks of 4,096 on all cores.
func parallelChunks(n int, fn func(lo, hi int)) {
	par.Ranges(n, 0, 4096, func(_, lo, hi int) bool { fn(lo, hi); return true })
}

// Clone returns an independent copy of the graph, with the same dense ids (each run with an
// eighth of spare capacity, as Build leaves it), copied on all cores.
func (d *Graph) Clone() *Graph { return d.Filtered(nil) }

// Filtered is Clone keeping only the edges whose endpoints' labels keep admits (keep(label of
// v, label of w) for the run of w's label in v's lists: keep must be symmetric); every vertex
// is kept. A nil keep keeps every edge.
func (d *Graph) Filtered(keep func(vl, wl uint32) bool) *Graph {
	n := len(d.adj)
	c := &Graph{
		vs: slices.Clone(d.vs), orig: slices.Clone(d.orig), table: slices.Clone(d.table),
		ids: maps.Clone(d.ids), byLabel: make(map[uint32][]uint32, len(d.byLabel)),
		posLabel: slices.Clone(d.posLabel), all: slices.Clone(d.all), posAll: slices.Clone(d.posAll),
		free: slices.Clone(d.free), dead: d.dead,
	}
	if c.ids == nil {
		c.ids = map[int64]uint32{}
	}
	for l, vs := range d.byLabel {
		c.byLabel[l] = slices.Clone(vs)
	}
	lf := newLabelFilter(keep)
	// Where each vertex's runs and lists go: one arena of runs (room for one more per vertex)
	// and one array of lists (each vertex's sizes counted on all cores, then summed).
	runAt := make([]uint64, n+1)
	nbAt := make([]uint64, n+1)
	parallelChunks(n, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			runs := d.adj[v]
			k, s := uint64(0), uint64(0)
			lf.each(&d.vs[v], runs, func(i int) {
				l := uint64(len(runs[i].Neighbors))
				k++
				s += l + l/8 + 1
			})
			runAt[v+1], nbAt[v+1] = k+1, s
		}
	})
	for v := range n {
		runAt[v+1] += runAt[v]
		nbAt[v+1] += nbAt[v]
	}
	arena := huge.Make[Run](int(runAt[n]))
	back := huge.Make[uint32](int(nbAt[n]))
	c.adj = make([][]Run, n)
	var half atomic.Uint64
	parallelChunks(n, func(lo, hi int) {
		h := uint64(0)
		for v := lo; v < hi; v++ {
			runs := d.adj[v]
			if runs == nil {
				continue
			}
			dst := arena[runAt[v]:runAt[v]:runAt[v+1]]
			pos := nbAt[v]
			cv := &c.vs[v]
			cv.degree = 0
			lf.each(&d.vs[v], runs, func(i int) {
				nb := runs[i].Neighbors
				m := uint64(len(nb))
				copy(back[pos:], nb)
				dst = append(dst, Run{VertexLabel: runs[i].VertexLabel, EdgeLabel: runs[i].EdgeLabel, Neighbors: back[pos : pos+m : pos+m+m/8+1]})
				pos += m + m/8 + 1
				cv.degree += uint32(m)
			})
			c.adj[v] = dst
			cv.mask = maskOf(dst)
			h += uint64(cv.degree)
		}
		half.Add(h)
	})
	c.numEdges = half.Load() / 2
	return c
}

// A labelFilter is Filtered's keep as a table for the labels below 64 (one bit per admitted
// pair): a lookup per run instead of a call; larger labels call keep.
type labelFilter struct {
	admits [64]uint64
	keep   func(vl, wl uint32) bool
}

func newLabelFilter(keep func(vl, wl uint32) bool) *labelFilter {
	f := &labelFilter{keep: keep}
	for a := range uint32(64) {
		for b := range uint32(64) {
			if f.call(a, b) {
				f.admits[a] |= 1 << b
			}
		}
	}
	return f
}

// each calls fn with the index of every run of x (runs) that the filter keeps, in order.
func (f *labelFilter) each(x *vertex, runs []Run, fn func(i int)) {
	if len(runs) == 0 {
		return
	}
	if x.mask>>63 == 0 && x.label < 64 {
		// The runs are indexed by the mask: only the kept labels' runs are visited.
		for sel := x.mask & f.admits[x.label]; sel != 0; sel &= sel - 1 {
			fn(bits.OnesCount64(x.mask & (1<<bits.TrailingZeros64(sel) - 1)))
		}
		return
	}
	for i := range runs {
		if ok, known := f.lookup(x.label, runs[i].VertexLabel); ok || !known && f.call(x.label, runs[i].VertexLabel) {
			fn(i)
		}
	}
}

// lookup reports whether an edge between labels vl and wl is kept, for labels below 64 (known
// false for the others: then call).
func (f *labelFilter) lookup(vl, wl uint32) (ok, known bool) {
	if vl|wl < 64 {
		return f.admits[vl]>>wl&1 != 0, true
	}
	return false, false
}

// call asks keep (out of line, so that keeps is inlined).
//
//go:noinline
func (f *labelFilter) call(vl, wl uint32) bool { return f.keep == nil || f.keep(vl, wl) }
