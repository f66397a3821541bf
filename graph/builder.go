package graph

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/submatch/submatch/internal/huge"
	"github.com/submatch/submatch/internal/par"
)

// MaxVertices is the largest number of vertices a graph may have (dense ids are uint32).
const MaxVertices = 1<<32 - 1

// ErrSelfLoop is returned (wrapped) by AddEdge for an edge from a vertex to itself when the
// builder does not drop self-loops.
var ErrSelfLoop = errors.New("self-loop")

// BuilderOptions tunes how a Builder treats imperfect input.
type BuilderOptions struct {
	// DropSelfLoops drops edges u-u (counted in SelfLoopsDropped) instead of failing; vertex u
	// is kept.
	DropSelfLoops bool
}

// Builder collects vertices and edges with arbitrary integer ids and builds a Graph.
// Duplicate edges with equal labels are merged; an edge given twice with two different labels is
// an error. Vertices without an explicit label get label 0.
//
// Vertices get dense ids in the order their original ids first appear (in AddEdge, u before v).
// Edges whose ids are in 0..2^32-1 are stored as given and mapped to dense ids in bulk, when
// the vertices are next needed (Vertex, HasVertex, NumVertices, labels, names, Build): a
// single pass for a small batch, parallel passes for a large one, with the same dense ids as
// mapping them one by one.
type Builder struct {
	opts BuilderOptions

	// Original ids map to dense ids through table (table[id] is the dense id + 1, 0 for an id
	// not seen: for ids small enough to index a slice) or, once an id too large or negative for
	// the table comes, through the ids map (then table is nil).
	table    []uint32
	ids      map[int64]uint32
	identity bool // orig[k] == k for every vertex so far
	orig     []int64
	labels   []uint32 // by dense id; shorter than orig when the last vertices have no label yet
	labelSet []bool   // parallel to labels

	// edges holds the pairs (u, v): its first mapped entries are dense ids, the rest original
	// ids (each below 2^32, the largest pendingMax) not mapped yet. A dropped self-loop is kept
	// as a pair (u, u), which Build skips: it still creates u where it appears.
	edges      []uint32
	mapped     int
	pendingMax uint32
	elab       []uint32   // nil while every edge label is 0; else one label a pair
	names      []string   // by builder index; nil until SetVertexName
	err        error      // a failed mapping (too many vertices), reported by Build
	scratch    []uint32   // memory Build may use (UseScratch)
	stop       *buildStop // BuildContext's context; nil otherwise (nothing stops)

	// SelfLoopsDropped counts the self-loops dropped under DropSelfLoops.
	SelfLoopsDropped int
}

// NewBuilder returns an empty builder.
func NewBuilder(opts BuilderOptions) *Builder {
	return &Builder{opts: opts, identity: true}
}

// Grow reserves room for pairs more edges (a hint: the builder grows as needed anyway).
func (b *Builder) Grow(pairs int) {
	if pairs > 0 {
		b.edges = growIDs(b.edges, 2*pairs)
	}
}

// growIDs returns s with room for n more entries. Unlike append and slices.Grow, it leaves the
// new room untouched (fresh memory costs a page fault a page when first written, or a huge
// page's, see huge.Make).
func growIDs(s []uint32, n int) []uint32 {
	if cap(s)-len(s) >= n {
		return s
	}
	t := huge.Make[uint32](max(len(s)+n, 2*cap(s)))[:len(s)]
	copy(t, s)
	return t
}

// NumEdgesAdded returns the number of edges added so far (duplicates and dropped self-loops
// included).
func (b *Builder) NumEdgesAdded() int { return len(b.edges) / 2 }

// UseEdgeStorage makes buf's array the storage of the edges of an empty builder (else it does
// nothing): AddEdgePairs then adds the edges that already sit where they are to go without
// copying them (a loader that parses into buf in order), and Build keeps the storage as the
// graph's neighbour array. The caller must not use buf otherwise afterwards.
func (b *Builder) UseEdgeStorage(buf []uint32) {
	if len(b.edges) == 0 && cap(buf) > cap(b.edges) {
		b.edges = buf[:0]
	}
}

// UseScratch hands Build memory it may use for its temporary arrays (its adjacency lists in the
// first order, when they fit), instead of allocating: memory the caller is done with, such as
// the buffer a file was read into. The caller must not use buf afterwards.
func (b *Builder) UseScratch(buf []uint32) {
	if cap(buf) > cap(b.scratch) {
		b.scratch = buf
	}
}

// NumVertices returns the number of distinct vertices seen so far.
func (b *Builder) NumVertices() int {
	b.flush()
	return len(b.orig)
}

// Vertex returns the dense id of the vertex with original id id, creating it if needed.
func (b *Builder) Vertex(id int64) (uint32, error) {
	if err := b.flush(); err != nil {
		return 0, err
	}
	return b.vertex(id)
}

// vertex is Vertex once the pending edges are mapped.
func (b *Builder) vertex(id int64) (uint32, error) {
	if b.ids == nil {
		if id >= 0 && id < int64(len(b.table)) {
			if d := b.table[id]; d != 0 {
				return d - 1, nil
			}
			return b.newTableVertex(id)
		}
		if id >= 0 && id < b.tableLimit() {
			grown := min(max(id+1, 2*int64(len(b.table))), b.tableLimit())
			b.table = append(b.table, make([]uint32, grown-int64(len(b.table)))...)
			return b.newTableVertex(id)
		}
		// An id too large (or negative) for the table: map every id from now on.
		b.table = nil
		b.ids = make(map[int64]uint32, len(b.orig)+1)
		for i, o := range b.orig {
			b.ids[o] = uint32(i)
		}
	}
	if v, ok := b.ids[id]; ok {
		return v, nil
	}
	v, err := b.newVertex(id)
	if err == nil {
		b.ids[id] = v
	}
	return v, err
}

func (b *Builder) newTableVertex(id int64) (uint32, error) {
	v, err := b.newVertex(id)
	if err == nil {
		b.table[id] = v + 1
	}
	return v, err
}

// tableLimit bounds the ids the table may index: a few times the vertices seen so far, so that
// its 4 bytes an id stay proportionate to the graph (sparse ids, say 10^12, go to the map).
func (b *Builder) tableLimit() int64 {
	return 8*int64(len(b.orig)) + 1<<20
}

func (b *Builder) newVertex(id int64) (uint32, error) {
	if len(b.orig) >= MaxVertices {
		return 0, tooManyVertices()
	}
	b.identity = b.identity && id == int64(len(b.orig))
	b.orig = append(b.orig, id)
	return uint32(len(b.orig) - 1), nil
}

func tooManyVertices() error { return fmt.Errorf("more than %d vertices", uint64(MaxVertices)) }

// lookup returns the dense id of original id id, if it is a vertex (the pending edges mapped).
func (b *Builder) lookup(id int64) (uint32, bool) {
	if b.ids != nil {
		v, ok := b.ids[id]
		return v, ok
	}
	if id >= 0 && id < int64(len(b.table)) && b.table[id] != 0 {
		return b.table[id] - 1, true
	}
	return 0, false
}

// HasVertex reports whether a vertex with original id id was seen.
func (b *Builder) HasVertex(id int64) bool {
	b.flush()
	_, ok := b.lookup(id)
	return ok
}

// SetVertexLabel sets the label of vertex id (creating it). Giving one vertex two different labels
// is an error.
func (b *Builder) SetVertexLabel(id int64, label uint32) error {
	v, err := b.Vertex(id)
	if err != nil {
		return err
	}
	b.growLabels()
	if b.labelSet[v] && b.labels[v] != label {
		return fmt.Errorf("vertex %d given two labels, %d and %d", id, b.labels[v], label)
	}
	b.labels[v] = label
	b.labelSet[v] = true
	return nil
}

// growLabels extends the label arrays to every vertex.
func (b *Builder) growLabels() {
	if n := len(b.orig); len(b.labels) < n {
		b.labels = append(b.labels, make([]uint32, n-len(b.labels))...)
		b.labelSet = append(b.labelSet, make([]bool, n-len(b.labelSet))...)
	}
}

// NewVertices adds vertices with original ids ids and labels labels (parallel), in order, as
// SetVertexLabel does for each, as long as none of them is a vertex already: it returns the index
// of the first that is (its predecessors added), or -1 when all were added.
func (b *Builder) NewVertices(ids, labels []uint32) (int, error) {
	if err := b.flush(); err != nil {
		return 0, err
	}
	start := len(b.orig)
	dup := -1
	for i, id := range ids {
		if b.identity && b.ids == nil && int64(id) == int64(len(b.orig)) && int(id) < len(b.table) && id < MaxVertices {
			// The common case (ids 0, 1, 2, ... in order): no lookup.
			b.table[id] = id + 1
			b.orig = append(b.orig, int64(id))
			continue
		}
		if _, ok := b.lookup(int64(id)); ok {
			dup = i
			break
		}
		if _, err := b.vertex(int64(id)); err != nil {
			return 0, err
		}
	}
	b.growLabels()
	for j := start; j < len(b.orig); j++ {
		b.labels[j] = labels[j-start]
		b.labelSet[j] = true
	}
	return dup, nil
}

// MissingVertex returns the index in ids (original ids in 0..2^32-1, none above maxID) of the
// first that is not a vertex, or -1.
func (b *Builder) MissingVertex(ids []uint32, maxID uint32) (int, error) {
	if err := b.flush(); err != nil {
		return 0, err
	}
	if b.identity && int64(maxID) < int64(len(b.orig)) {
		return -1, nil
	}
	for i, id := range ids {
		if _, ok := b.lookup(int64(id)); !ok {
			return i, nil
		}
	}
	return -1, nil
}

// SetVertexName gives vertex id (creating it) a string name, which the graph keeps for output
// (Graph.VertexName). Once one vertex has a name, every vertex without one is named by its id.
func (b *Builder) SetVertexName(id int64, name string) error {
	v, err := b.Vertex(id)
	if err != nil {
		return err
	}
	if b.names == nil {
		b.names = make([]string, 0, len(b.orig))
	}
	for len(b.names) <= int(v) {
		b.names = append(b.names, strconv.FormatInt(b.orig[len(b.names)], 10))
	}
	b.names[v] = name
	return nil
}

// AddEdge adds the undirected edge u-v with the given label, creating the vertices.
func (b *Builder) AddEdge(u, v int64, label uint32) error {
	if u == v {
		if !b.opts.DropSelfLoops {
			return fmt.Errorf("%w on vertex %d (BuilderOptions.DropSelfLoops drops it)", ErrSelfLoop, u)
		}
		// The edge goes, the vertex stays (it may have no other edge).
		b.SelfLoopsDropped++
		label = 0
	}
	if uint64(u) <= math.MaxUint32 && uint64(v) <= math.MaxUint32 {
		b.edges = append(b.edges, uint32(u), uint32(v))
		b.pendingMax = max(b.pendingMax, uint32(u), uint32(v))
	} else {
		if err := b.flush(); err != nil {
			return err
		}
		du, err := b.vertex(u)
		if err != nil {
			return err
		}
		dv, err := b.vertex(v)
		if err != nil {
			return err
		}
		b.edges = append(b.edges, du, dv)
		b.mapped = len(b.edges)
	}
	if b.elab != nil {
		b.elab = append(b.elab, label)
	} else if label != 0 {
		b.elab = make([]uint32, len(b.edges)/2, cap(b.edges)/2)
		b.elab[len(b.elab)-1] = label
	}
	return nil
}

// AddEdgePairs adds the undirected edges (pairs[2i], pairs[2i+1]), given by original ids, with
// labels[i] (labels nil: every label 0), as AddEdge would one by one. No pair may be a
// self-loop, and maxID must be at least every id in pairs.
func (b *Builder) AddEdgePairs(pairs, labels []uint32, maxID uint32) {
	if b.elab == nil && labels != nil && slices.ContainsFunc(labels, func(l uint32) bool { return l != 0 }) {
		b.elab = make([]uint32, len(b.edges)/2, cap(b.edges)/2)
	}
	if n := len(b.edges); cap(b.edges)-n >= len(pairs) && len(pairs) > 0 && &b.edges[:n+1][n] == &pairs[0] {
		b.edges = b.edges[:n+len(pairs)] // already in place (UseEdgeStorage)
	} else {
		b.edges = append(growIDs(b.edges, len(pairs)), pairs...)
	}
	b.pendingMax = max(b.pendingMax, maxID)
	if b.elab != nil {
		if labels != nil {
			b.elab = append(b.elab, labels...)
		} else {
			b.elab = append(b.elab, make([]uint32, len(pairs)/2)...)
		}
	}
	if len(b.edges)-b.mapped >= mapAsAddedFrom && runtime.GOMAXPROCS(0) <= mapAsAddedCores &&
		max(len(b.table), int(b.pendingMax)) < mapAsAddedIDs {
		b.flush()
	}
}

// With few cores, edges added in bulk are mapped as they come (by the loader's goroutine,
// while its parsers work on the next lines) rather than all at once at the end (on all cores,
// which is faster only when the cores are many): from mapAsAddedFrom pending ids, on up to
// mapAsAddedCores cores, while the ids are few enough for the table to sit in the cache (past
// that, a lookup a cache miss, the one goroutine would hold the parsers up).
var (
	mapAsAddedFrom  = 1 << 14
	mapAsAddedCores = 2
	mapAsAddedIDs   = 1 << 20
)

// flush maps the pending edges' original ids to dense ids, creating the vertices in the order
// the ids first appear.
func (b *Builder) flush() error {
	if b.err != nil {
		return b.err
	}
	pend := b.edges[b.mapped:]
	if len(pend) == 0 {
		return nil
	}
	switch need := int64(b.pendingMax) + 1; {
	case b.identity && need <= int64(len(b.orig)):
		// Every id is a vertex already, and its own dense id.
	case b.ids == nil && need <= b.tableLimit()+int64(len(pend)):
		// The table, grown to every id at once (the ids are at most as many as the endpoints,
		// so the table stays proportionate to the edges).
		if need > int64(len(b.table)) {
			b.table = append(b.table, make([]uint32, need-int64(len(b.table)))...)
		}
		if len(pend) >= parallelMapFrom && runtime.GOMAXPROCS(0) > 1 {
			b.err = b.mapParallel(pend)
		} else {
			b.err = b.mapSerial(pend)
		}
	default:
		for i, x := range pend {
			if i&(1<<12-1) == 0 && b.stop.done() { // (a map lookup an id: a check every 4096)
				b.err = b.stop.err()
				break
			}
			d, err := b.vertex(int64(x))
			if err != nil {
				b.err = err
				break
			}
			pend[i] = d
		}
	}
	b.mapped, b.pendingMax = len(b.edges), 0
	return b.err
}

// parallelMapFrom is the number of pending endpoints from which they are mapped on all cores.
var parallelMapFrom = 1 << 20

// mapSerial maps ids through the table (which covers them), in one pass.
func (b *Builder) mapSerial(pend []uint32) error {
	table := b.table
	for lo := 0; lo < len(pend); lo += buildCheckEvery {
		if b.stop.done() {
			return b.stop.err()
		}
		part := pend[lo:min(lo+buildCheckEvery, len(pend))]
		for i, x := range part {
			d := table[x]
			if d == 0 {
				if len(b.orig) >= MaxVertices {
					return tooManyVertices()
				}
				b.identity = b.identity && int64(x) == int64(len(b.orig))
				b.orig = append(b.orig, int64(x))
				d = uint32(len(b.orig))
				table[x] = d
			}
			part[i] = d - 1
		}
	}
	return nil
}

// mapParallel maps ids through the table (which covers them) on all cores: the first position
// of every new id (an atomic minimum), the new ids counted by range, then numbered (by first
// position, as one pass would) and the ids translated.
func (b *Builder) mapParallel(pend []uint32) error {
	const batch = 1 << 31 // positions fit in a uint32
	for len(pend) > batch {
		if err := b.mapParallel(pend[:batch]); err != nil {
			return err
		}
		pend = pend[batch:]
	}
	table := b.table
	first := make([]uint32, len(table))
	const none = math.MaxUint32
	par.For(len(first)/4096+1, 0, func(c int) {
		s := first[min(c*4096, len(first)):min((c+1)*4096, len(first))]
		for i := range s {
			s[i] = none
		}
	})
	const chunk = 1 << 16
	chunks := (len(pend) + chunk - 1) / chunk
	par.For(chunks, 0, func(c int) {
		if b.stop.done() {
			return
		}
		lo := c * chunk
		for i, x := range pend[lo:min(lo+chunk, len(pend))] {
			if table[x] != 0 {
				continue
			}
			pos := uint32(lo + i)
			for {
				cur := atomic.LoadUint32(&first[x])
				if cur <= pos || atomic.CompareAndSwapUint32(&first[x], cur, pos) {
					break
				}
			}
		}
	})
	if b.stop.done() {
		return b.stop.err()
	}
	counts := make([]int, chunks+1)
	par.For(chunks, 0, func(c int) {
		lo := c * chunk
		k := 0
		for i, x := range pend[lo:min(lo+chunk, len(pend))] {
			if first[x] == uint32(lo+i) {
				k++
			}
		}
		counts[c+1] = k
	})
	base := len(b.orig)
	for c := range chunks {
		counts[c+1] += counts[c]
	}
	if int64(base)+int64(counts[chunks]) > MaxVertices {
		return tooManyVertices()
	}
	b.orig = append(b.orig, make([]int64, counts[chunks])...)
	orig := b.orig
	notIdentity := make([]bool, chunks)
	par.For(chunks, 0, func(c int) {
		lo := c * chunk
		d := base + counts[c]
		for i, x := range pend[lo:min(lo+chunk, len(pend))] {
			if first[x] == uint32(lo+i) {
				orig[d] = int64(x)
				if int(x) != d {
					notIdentity[c] = true
				}
				d++
				table[x] = uint32(d)
			}
		}
	})
	b.identity = b.identity && !slices.Contains(notIdentity, true)
	if b.stop.done() {
		return b.stop.err()
	}
	par.For(chunks, 0, func(c int) {
		s := pend[c*chunk : min((c+1)*chunk, len(pend))]
		for i, x := range s {
			s[i] = table[x] - 1
		}
	})
	return nil
}

// EdgeLabelConflict is Build's error for an edge given twice with different labels: U < V are
// the original ids, Labels the two labels (ascending). Of several conflicts, Build reports the
// one whose end added to the builder first is earliest, then the lowest labels: the same one
// for the same input, whatever the scheduling.
type EdgeLabelConflict struct {
	U, V         int64
	UName, VName string // the ends' names (Builder.SetVertexName), or their ids
	Labels       [2]uint32
}

func (e *EdgeLabelConflict) Error() string {
	return fmt.Sprintf("edge %s-%s given with two labels, %d and %d", e.UName, e.VName, e.Labels[0], e.Labels[1])
}

type adjEntry struct{ nbr, label uint32 }

// countingLimit bounds the edges Build orders without comparing edge labels (by counting, or by
// sorting plain ids on all cores); above it, or with edge labels, every adjacency list is sorted
// with its labels. (Tests lower it to compare the two.)
var countingLimit = math.MaxInt

// parallelBuildFrom is the number of edges from which Build sorts the adjacency lists on all
// cores rather than ordering them by counting passes on one (which, linear but a cache miss an
// entry, win on small graphs: wiki-Vote's 100k edges in about 1 ms). Tests lower it.
var parallelBuildFrom = 1 << 20

// maxCountingPairs is the most edges (duplicates included) that buildCounting and walk order:
// they place entries with 32-bit positions, so the 2 entries an edge must stay below 2^32
// (TestCountingPositionsFit). Beyond it Build takes buildParallel, whose positions are 64-bit.
const maxCountingPairs = math.MaxInt32 - 1

// Build produces the graph. The builder must not be used afterwards.
//
// Vertices are renumbered by ascending degree (ties by input order). Engines compare dense ids to
// break symmetry, so the smallest vertex of a match is its lowest-degree one and the search from
// it only walks towards higher degrees: this is what makes clique-like patterns cheap.
func (b *Builder) Build() (*Graph, error) {
	return b.BuildContext(context.Background())
}

// BuildContext is Build that stops when ctx ends, returning ctx's error and no graph: it checks
// ctx between its passes and every buildCheckEvery entries or so within them (all cores' passes
// included), so that it stops within milliseconds of ctx's end, whatever the graph's size (a
// loader's --timeout or Ctrl-C). The builder must not be used afterwards either way.
func (b *Builder) BuildContext(ctx context.Context) (*Graph, error) {
	b.stop = &buildStop{ctx: ctx}
	defer func() { b.stop = nil }()
	if b.stop.done() {
		return nil, b.stop.err()
	}
	if err := b.flush(); err != nil {
		return nil, err
	}
	b.growLabels()
	pairs := len(b.edges) / 2
	var g *Graph
	var err error
	switch {
	case b.elab != nil || pairs > countingLimit:
		g, err = b.buildSorting()
	case pairs > maxCountingPairs:
		g = b.buildParallel()
	case pairs < parallelBuildFrom || scatterWorkers(len(b.orig), 2*pairs) >= min(runtime.GOMAXPROCS(0), 4):
		g = b.buildCounting()
	default:
		g = b.buildParallel()
	}
	b.edges, b.elab, b.mapped = nil, nil, 0
	if b.stop.done() {
		return nil, b.stop.err()
	}
	return g, err
}

// buildCheckEvery is about how many entries (ids mapped, list entries placed or scanned) a pass
// of BuildContext works through between two checks of its context: a few hundred microseconds'
// work, next to which a check costs nothing. (Tests lower it.)
var buildCheckEvery = 1 << 16

// buildStop is BuildContext's cancellation, shared by the goroutines of its passes: once a
// check sees the context ended, every later check says so at once (a pass's goroutines give up
// their work, and Build returns before the next pass). A nil *buildStop never stops.
type buildStop struct {
	ctx   context.Context
	ended atomic.Pointer[error] // the context's error, once a check saw it
}

// done reports whether the build is to stop: the context has ended (polled here) or a check
// saw it end before.
func (s *buildStop) done() bool {
	if s == nil {
		return false
	}
	if s.ended.Load() != nil {
		return true
	}
	if err := s.ctx.Err(); err != nil {
		s.ended.CompareAndSwap(nil, &err)
		return true
	}
	return false
}

// err is the context's error that stopped the build (nil while none has).
func (s *buildStop) err() error {
	if s == nil {
		return nil
	}
	if p := s.ended.Load(); p != nil {
		return *p
	}
	return nil
}

// offsets returns where each vertex's list starts in a CSR of the edges as added (duplicates
// included, self-loops not): the prefix sums of the degrees, n+1 entries.
func (b *Builder) offsets() []uint64 {
	n := len(b.orig)
	deg := make([]uint64, n+1)
	e := b.edges
	for i := 0; i+1 < len(e); i += 2 {
		if u, v := e[i], e[i+1]; u != v {
			deg[u+1]++
			deg[v+1]++
		}
	}
	for v := 1; v <= n; v++ {
		deg[v] += deg[v-1]
	}
	return deg
}

// buildCounting is Build for graphs without edge labels, by counting sorts only. The lists are
// bucketed by vertex (unsorted, duplicates included), and, supposing there are no duplicate
// edges, the vertices renumbered by those degrees and the final lists filled by walking the
// vertices in the final order, by (vertex label, id), appending each to its neighbours' lists
// (the relation is symmetric): every list comes out sorted. Duplicates then sit side by side;
// when there are any, the lists are deduplicated, the vertices renumbered by the true degrees,
// and the walk done again. The final lists take the edges' storage (or the buckets', after a
// second walk).
//
// Both scatters run on several cores when the vertices are few next to the edges: each worker
// takes a contiguous range of the sources and counts its entries to every list, so that its
// entries go after those of the ranges before it, as one pass would place them.
func (b *Builder) buildCounting() *Graph {
	n := len(b.orig)
	e := b.edges
	workers := scatterWorkers(n, len(e))
	// The buckets: worker w scatters the w-th range of the pairs.
	bounds := make([]int, workers+1)
	for w := range bounds {
		bounds[w] = len(e) / 2 * w / workers * 2
	}
	cnt := make([]uint32, workers*n)
	step := 2 * buildCheckEvery
	parallelRanges(workers, func(w int) {
		c := cnt[w*n : (w+1)*n]
		for lo := bounds[w]; lo < bounds[w+1] && !b.stop.done(); lo += step {
			for i, end := lo, min(lo+step, bounds[w+1]); i < end; i += 2 {
				if u, v := e[i], e[i+1]; u != v {
					c[u]++
					c[v]++
				}
			}
		}
	})
	if b.stop.done() {
		return nil
	}
	deg := make([]uint64, n+1)
	startsAt(cnt, n, workers, deg)
	var nbrs []uint32
	if uint64(cap(b.scratch)) >= deg[n] {
		nbrs = b.scratch[:deg[n]] // every entry is written below
	} else {
		nbrs = huge.Make[uint32](int(deg[n]))
	}
	b.scratch = nil
	parallelRanges(workers, func(w int) {
		fill := cnt[w*n : (w+1)*n]
		for lo := bounds[w]; lo < bounds[w+1] && !b.stop.done(); lo += step {
			for i, end := lo, min(lo+step, bounds[w+1]); i < end; i += 2 {
				if u, v := e[i], e[i+1]; u != v {
					nbrs[fill[u]] = v
					fill[u]++
					nbrs[fill[v]] = u
					fill[v]++
				}
			}
		}
	})
	b.edges = nil
	if b.stop.done() {
		return nil
	}
	keep := make([]uint64, n)
	for v := range n {
		keep[v] = deg[v+1] - deg[v]
	}
	order, newID := renumber(keep)
	g := b.newGraph(order, keep, e)
	b.walk(g, order, newID, cnt, workers, func(old uint32) []uint32 { return nbrs[deg[old]:deg[old+1]] }, nil)
	if b.stop.done() {
		return nil
	}
	runs, dup := scanLists(g, workers, nbrs, b.stop)
	if b.stop.done() {
		return nil
	}
	if !dup {
		g.runs = runs
		b.finishGraph(g, order)
		return g
	}
	// Duplicates: g's lists, in the tentative numbering, deduplicated give the true degrees.
	spec := g
	for i, next := 0, uint64(0); i < n; i++ {
		if spec.offsets[i] >= next {
			if b.stop.done() {
				return nil
			}
			next = spec.offsets[i] + uint64(buildCheckEvery)
		}
		list := spec.neighbors[spec.offsets[i]:spec.offsets[i+1]]
		keep[order[i]] = uint64(dedupe(list))
	}
	order2, newID2 := renumber(keep)
	g = b.newGraph(order2, keep, nbrs)
	b.walk(g, order2, newID2, cnt, workers, func(old uint32) []uint32 {
		i := newID[old]
		return spec.neighbors[spec.offsets[i] : spec.offsets[i]+keep[old]]
	}, order)
	if b.stop.done() {
		return nil
	}
	b.finishGraph(g, order2)
	return g
}

// scatterWorkers is how many cores buildCounting's scatters run on: all, as long as their
// counts (an entry a vertex each) take no more room than half the entries (a graph of many
// vertices and few edges is built on one), and each has a few thousand entries.
func scatterWorkers(n, entries int) int {
	return max(1, min(runtime.GOMAXPROCS(0), entries/(4*max(n, 1)), entries/8192))
}

// startsAt turns cnt (workers rows of n counts: row w, the entries worker w adds to each list)
// into each worker's first position in each list, and sets offs (n+1 entries; nil: not wanted)
// to the lists' offsets.
func startsAt(cnt []uint32, n, workers int, offs []uint64) {
	var pos uint32
	for x := range n {
		if offs != nil {
			offs[x] = uint64(pos)
		}
		for w := range workers {
			c := cnt[w*n+x]
			cnt[w*n+x] = pos
			pos += c
		}
	}
	if offs != nil {
		offs[n] = uint64(pos)
	}
}

// parallelRanges runs fn(w) for w in [0, workers) on a goroutine each (the caller's for one).
func parallelRanges(workers int, fn func(w int)) {
	if workers == 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Go(func() { fn(w) })
	}
	fn(0)
	wg.Wait()
}

// walk fills g's lists (n = len(order) vertices, numbered by order: order[new] = old, newID
// the inverse) from the lists of list (by old id; in a numbering toOld maps to old ids, or old
// ids when toOld is nil), each once sorted by (vertex label, id): it walks the vertices in that
// order and appends each to its neighbours' lists, on workers cores (cnt, scratch of
// workers*n entries), each walking a contiguous part of the order. On two cores the second
// walks its part backwards and fills every list from its end, so that neither needs to know
// where the other's entries end (no counting pass over the lists first); on more, each
// worker's entries to each list are counted first.
func (b *Builder) walk(g *Graph, order, newID []uint32, cnt []uint32, workers int, list func(old uint32) []uint32, toOld []uint32) {
	n := len(order)
	walk := order
	if _, uniform := g.UniformVertexLabel(); !uniform {
		walk = OrderByLabel(g.vertexLabels)
		for i, w := range walk {
			walk[i] = order[w]
		}
	}
	// The walk's parts, of about equal entries, and where the context is checked: at cuts,
	// about every buildCheckEvery entries (so that the loops over the lists stay as they are).
	bounds := make([]int, workers+1)
	bounds[workers] = n
	var cuts []int
	total, sum, w, nextCut := g.offsets[n], uint64(0), 1, uint64(buildCheckEvery)
	for i, old := range walk {
		for w < workers && sum >= total*uint64(w)/uint64(workers) {
			bounds[w] = i
			w++
		}
		if sum >= nextCut {
			cuts = append(cuts, i)
			nextCut = sum + uint64(buildCheckEvery)
		}
		sum += uint64(len(list(old)))
	}
	for ; w < workers; w++ {
		bounds[w] = n
	}
	// segments returns the walk's positions lo, hi and the cuts between them, in order.
	segments := func(lo, hi int) []int {
		i, _ := slices.BinarySearch(cuts, lo+1)
		j, _ := slices.BinarySearch(cuts, hi)
		return append(append([]int{lo}, cuts[i:j]...), hi)
	}
	// The lists' ids in the old numbering: through toOld to it, if they are not.
	dest := newID
	if toOld != nil {
		dest = make([]uint32, len(toOld))
		for i, o := range toOld {
			dest[i] = newID[o]
		}
	}
	switch workers {
	case 1:
		fill := cnt[:n]
		for i := range n {
			fill[i] = uint32(g.offsets[i])
		}
	case 2:
		head, tail := cnt[:n], cnt[n:2*n]
		for i := range n {
			head[i], tail[i] = uint32(g.offsets[i]), uint32(g.offsets[i+1])
		}
	default:
		clear(cnt[:workers*n])
		parallelRanges(workers, func(w int) {
			c := cnt[w*n : (w+1)*n]
			seg := segments(bounds[w], bounds[w+1])
			for k := 0; k+1 < len(seg) && !b.stop.done(); k++ {
				for _, old := range walk[seg[k]:seg[k+1]] {
					for _, u := range list(old) {
						c[dest[u]]++
					}
				}
			}
		})
		if b.stop.done() {
			return
		}
		startsAt(cnt, n, workers, nil)
	}
	nbrs := g.neighbors
	parallelRanges(workers, func(w int) {
		fill := cnt[w*n : (w+1)*n]
		seg := segments(bounds[w], bounds[w+1])
		if workers == 2 && w == 1 {
			for k := len(seg) - 2; k >= 0 && !b.stop.done(); k-- {
				part := walk[seg[k]:seg[k+1]]
				for j := len(part) - 1; j >= 0; j-- {
					old := part[j]
					nw := newID[old]
					for _, u := range list(old) {
						nu := dest[u]
						fill[nu]--
						nbrs[fill[nu]] = nw
					}
				}
			}
			return
		}
		for k := 0; k+1 < len(seg) && !b.stop.done(); k++ {
			for _, old := range walk[seg[k]:seg[k+1]] {
				nw := newID[old]
				for _, u := range list(old) {
					nu := dest[u]
					nbrs[fill[nu]] = nw
					fill[nu]++
				}
			}
		}
	})
}

// scanLists reports whether a list of g, whose lists are filled, holds a vertex twice and, when
// none does and the vertex labels are not all equal, makes the run index (g.runs, returned, and
// g.runOffsets) in the same pass over the lists, on workers cores (ranges of vertices of about
// equal entries, splitEntries): each worker writes the runs of its vertices, two words a run,
// into scratch (memory the caller is done with) past the most that the workers before it could
// write there (min(degree, labels) runs a list), and then copies them into the run index, in
// order. That is one pass over the lists instead of three
// (hasDuplicatesPar, and buildRuns's count and fill). It returns no runs (buildRuns makes them)
// when the labels are uniform or the runs might not fit scratch. When stop ends the scan (at a
// check every buildCheckEvery entries), what it returns means nothing.
func scanLists(g *Graph, workers int, scratch []uint32, stop *buildStop) (runs []Run, dup bool) {
	n := g.NumVertices()
	labels, nb, offs := g.vertexLabels, g.neighbors, g.offsets
	if _, uniform := g.UniformVertexLabel(); uniform || offs[n] > math.MaxUint32 {
		return nil, hasDuplicatesPar(g, workers, stop)
	}
	distinct := uint64(distinctLabels(labels))
	vb := splitEntries(offs, workers)
	// base[w]: where worker w's runs start in scratch (in runs, two words each), with one run
	// to spare: the loop below writes every entry's run before it knows whether one starts.
	base := make([]uint64, workers+1)
	for w := range workers {
		bound := base[w] + 1
		for v := vb[w]; v < vb[w+1]; v++ {
			bound += min(offs[v+1]-offs[v], distinct)
		}
		base[w+1] = bound
	}
	if 2*base[workers] > uint64(len(scratch)) {
		return nil, hasDuplicatesPar(g, workers, stop)
	}
	found := make([]bool, workers)
	ro := g.runOffsets
	parallelRanges(workers, func(w int) {
		out := scratch[2*base[w] : 2*base[w+1]]
		k := 0
		next := offs[vb[w]]
		for v := vb[w]; v < vb[w+1]; v++ {
			lo, hi := offs[v], offs[v+1]
			if lo >= next {
				if stop.done() {
					return
				}
				next = lo + uint64(buildCheckEvery)
			}
			start := k
			if lo < hi {
				prev, prevL := nb[lo], labels[nb[lo]]
				out[k], out[k+1] = prevL, uint32(lo)
				k += 2
				for i := lo + 1; i < hi; i++ {
					x := nb[i]
					if x == prev {
						found[w] = true
						return
					}
					// Written whether or not a run starts, kept only when one does: no
					// branch on the labels (which change unpredictably).
					l := labels[x]
					out[k], out[k+1] = l, uint32(i)
					step := 0
					if l != prevL {
						step = 2
					}
					k += step
					prevL = l
					prev = x
				}
			}
			ro[v+1] = uint64(k-start) / 2
		}
	})
	if slices.Contains(found, true) || stop.done() {
		return nil, true
	}
	ro[0] = 0
	for v := range n {
		ro[v+1] += ro[v]
	}
	runs = make([]Run, ro[n])
	parallelRanges(workers, func(w int) {
		lo, hi := ro[vb[w]], ro[vb[w+1]]
		in := scratch[2*base[w]:]
		for j := range runs[lo:hi] {
			runs[lo+uint64(j)] = Run{VertexLabel: in[2*j], Start: uint64(in[2*j+1])}
		}
	})
	return runs, false
}

// distinctLabels returns the number of distinct labels in labels, or len(labels) when the largest
// is not small (a bound: counting them would take a map).
func distinctLabels(labels []uint32) int {
	top := uint32(0)
	for _, l := range labels {
		top = max(top, l)
	}
	if uint64(top) >= 1<<16 {
		return len(labels)
	}
	seen := make([]bool, top+1)
	distinct := 0
	for _, l := range labels {
		if !seen[l] {
			seen[l] = true
			distinct++
		}
	}
	return distinct
}

// hasDuplicatesPar is hasDuplicates over all of g, on workers cores, stopping when stop does.
func hasDuplicatesPar(g *Graph, workers int, stop *buildStop) bool {
	vb := splitEntries(g.offsets, workers)
	found := make([]bool, workers)
	parallelRanges(workers, func(w int) {
		for lo := vb[w]; lo < vb[w+1] && !found[w] && !stop.done(); {
			// Vertices of about buildCheckEvery entries between checks.
			j, _ := slices.BinarySearch(g.offsets[lo+1:vb[w+1]+1], g.offsets[lo]+uint64(buildCheckEvery))
			hi := min(lo+1+j, vb[w+1])
			found[w] = hasDuplicates(g, lo, hi)
			lo = hi
		}
	})
	return slices.Contains(found, true)
}

// splitEntries splits the vertices of a CSR with offsets offs into workers consecutive ranges of
// about equal entries (the lists of a degree-ordered graph grow along the ids: equal numbers of
// vertices would leave the last range most of the entries): range w is [bounds[w], bounds[w+1]).
func splitEntries(offs []uint64, workers int) []int {
	n := len(offs) - 1
	bounds := make([]int, workers+1)
	for w := 1; w < workers; w++ {
		i, _ := slices.BinarySearch(offs, offs[n]*uint64(w)/uint64(workers))
		bounds[w] = max(min(i, n), bounds[w-1])
	}
	bounds[workers] = n
	return bounds
}

// hasDuplicates reports whether a list of vertices [lo, hi) of g holds an id twice in a row.
func hasDuplicates(g *Graph, lo, hi int) bool {
	nb := g.neighbors
	for v := lo; v < hi; v++ {
		s, t := g.offsets[v], g.offsets[v+1]
		for i := s + 1; i < t; i++ {
			if nb[i] == nb[i-1] {
				return true
			}
		}
	}
	return false
}

// dedupe drops the repeats of a list whose equal entries are adjacent, in place, and returns
// the length kept.
func dedupe(list []uint32) int {
	k := 0
	for i, x := range list {
		if i == 0 || x != list[k-1] {
			list[k] = x
			k++
		}
	}
	return k
}

// buildParallel is Build for large graphs without edge labels, on all cores: the unsorted
// lists bucketed by vertex (positions taken atomically) and, supposing there are no duplicate
// edges, the vertices renumbered by those degrees and every list renumbered and sorted by
// (vertex label, id). When a list turns out to hold a duplicate, the lists are sorted and
// deduplicated first and the final lists made again. The final lists take the edges' storage.
func (b *Builder) buildParallel() *Graph {
	n := len(b.orig)
	e := b.edges
	const chunk = 1 << 16
	chunks := (len(e)/2 + chunk - 1) / chunk
	deg := make([]uint64, n+1)
	par.For(chunks, 0, func(c int) {
		if b.stop.done() {
			return
		}
		for i := 2 * c * chunk; i < min(2*(c+1)*chunk, len(e)); i += 2 {
			if u, v := e[i], e[i+1]; u != v {
				atomic.AddUint64(&deg[u+1], 1)
				atomic.AddUint64(&deg[v+1], 1)
			}
		}
	})
	if b.stop.done() {
		return nil
	}
	for v := 1; v <= n; v++ {
		deg[v] += deg[v-1]
	}
	var nbrs []uint32
	if uint64(cap(b.scratch)) >= deg[n] {
		nbrs = b.scratch[:deg[n]] // every entry is written below
	} else {
		nbrs = make([]uint32, deg[n])
	}
	b.scratch = nil
	fill := slices.Clone(deg[:n])
	par.For(chunks, 0, func(c int) {
		if b.stop.done() {
			return
		}
		for i := 2 * c * chunk; i < min(2*(c+1)*chunk, len(e)); i += 2 {
			if u, v := e[i], e[i+1]; u != v {
				nbrs[atomic.AddUint64(&fill[u], 1)-1] = v
				nbrs[atomic.AddUint64(&fill[v], 1)-1] = u
			}
		}
	})
	fill = nil
	b.edges = nil
	if b.stop.done() {
		return nil
	}
	keep := make([]uint64, n)
	for v := range n {
		keep[v] = deg[v+1] - deg[v]
	}
	for attempt := 0; ; attempt++ {
		order, newID := renumber(keep)
		g := b.newGraph(order, keep, e)
		if attempt == 0 {
			e = g.neighbors // the storage, for the second attempt
		}
		unique := b.fillSorted(g, order, newID, func(v uint32) []uint32 { return nbrs[deg[v] : deg[v]+keep[v]] })
		if b.stop.done() {
			return nil
		}
		if unique || attempt > 0 {
			b.finishGraph(g, order)
			return g
		}
		// A duplicate: sort and deduplicate the buckets, for the true degrees.
		ranges := csrRanges(deg, 1<<16)
		par.For(len(ranges)-1, 0, func(r int) {
			if b.stop.done() {
				return
			}
			for v := ranges[r]; v < ranges[r+1]; v++ {
				list := nbrs[deg[v]:deg[v+1]]
				slices.Sort(list)
				keep[v] = uint64(dedupe(list))
			}
		})
		if b.stop.done() {
			return nil
		}
	}
}

// fillSorted fills g's lists (numbered by order: order[new] = old, newID the inverse) from
// list (by old id), each renumbered and sorted by (vertex label, id), on all cores. It reports
// false if a list holds a vertex twice.
func (b *Builder) fillSorted(g *Graph, order, newID []uint32, list func(v uint32) []uint32) bool {
	labels := g.vertexLabels
	_, uniform := g.UniformVertexLabel()
	ranges := csrRanges(g.offsets, 1<<16)
	workers := par.Workers(len(ranges)-1, 0, 1)
	scratch := make([][]uint64, workers)
	var dup atomic.Bool
	par.Ranges(len(ranges)-1, workers, 1, func(w, lo, hi int) bool {
		for r := lo; r < hi; r++ {
			if b.stop.done() {
				return false
			}
			for i := ranges[r]; i < ranges[r+1]; i++ {
				src := list(order[i])
				dst := g.neighbors[g.offsets[i]:g.offsets[i+1]]
				if uniform {
					for j, x := range src {
						dst[j] = newID[x]
					}
					sortIDs(dst)
					continue
				}
				keys := scratch[w][:0]
				for _, x := range src {
					y := newID[x]
					keys = append(keys, uint64(labels[y])<<32|uint64(y))
				}
				slices.Sort(keys)
				for j, k := range keys {
					dst[j] = uint32(k)
				}
				scratch[w] = keys
			}
			if hasDuplicates(g, ranges[r], ranges[r+1]) {
				dup.Store(true)
				return false
			}
		}
		return true
	})
	return !dup.Load()
}

// sortIDs sorts a list of vertex ids.
func sortIDs(list []uint32) { slices.Sort(list) }

// CSRRanges splits the vertices of a CSR with offsets offs (n+1 entries) into consecutive ranges
// of about entries entries each (at least one vertex): range r is [bounds[r], bounds[r+1]), for
// work on all cores balanced by list lengths.
func CSRRanges(offs []uint64, entries uint64) []int { return csrRanges(offs, entries) }

// csrRanges splits the vertices of a CSR with offsets offs (n+1 entries) into consecutive
// ranges of about entries entries each (at least one vertex): range r is [bounds[r],
// bounds[r+1]).
func csrRanges(offs []uint64, entries uint64) []int {
	n := len(offs) - 1
	bounds := []int{0}
	for lo := 0; lo < n; {
		j, _ := slices.BinarySearch(offs[lo+1:], offs[lo]+entries) // offs[lo+1+j] >= the target
		hi := min(lo+1+j, n)
		bounds = append(bounds, hi)
		lo = hi
	}
	return bounds
}

// buildSorting is Build by sorting each adjacency list (with its edge labels) on all cores.
func (b *Builder) buildSorting() (*Graph, error) {
	n := len(b.orig)
	deg := b.offsets()
	entries := make([]adjEntry, deg[n])
	fill := slices.Clone(deg[:n])
	e := b.edges
	for i := 0; i+1 < len(e); i += 2 {
		u, v := e[i], e[i+1]
		if i%(2*4096) == 0 && b.stop.done() {
			return nil, b.stop.err()
		}
		if u == v {
			continue
		}
		var l uint32
		if b.elab != nil {
			l = b.elab[i/2]
		}
		entries[fill[u]] = adjEntry{v, l}
		fill[u]++
		entries[fill[v]] = adjEntry{u, l}
		fill[v]++
	}
	edgeLabelled := b.elab != nil
	b.edges, b.elab = nil, nil
	fill = nil

	// Deduplicate each list in parallel; keep[v] is the deduplicated length.
	keep := make([]uint64, n)
	if err := parallelVertices(n, b.stop, func(v int) error {
		list := entries[deg[v]:deg[v+1]]
		slices.SortFunc(list, func(a, c adjEntry) int {
			if a.nbr != c.nbr {
				return cmp.Compare(a.nbr, c.nbr)
			}
			return cmp.Compare(a.label, c.label)
		})
		k := 0
		for i, e := range list {
			if i > 0 && e.nbr == list[k-1].nbr {
				if e.label != list[k-1].label {
					u, w := b.originalOf(uint32(v)), b.originalOf(e.nbr)
					if u > w {
						u, w = w, u
					}
					return &EdgeLabelConflict{U: u, V: w, UName: b.nameOf(u), VName: b.nameOf(w), Labels: [2]uint32{list[k-1].label, e.label}}
				}
				continue
			}
			list[k] = e
			k++
		}
		keep[v] = uint64(k)
		return nil
	}); err != nil || b.stop.done() {
		return nil, cmp.Or(b.stop.err(), err)
	}

	order, newID := renumber(keep)
	g := b.newGraph(order, keep, nil)
	labels := g.vertexLabels
	if edgeLabelled {
		g.edgeLabels = make([]uint32, g.offsets[n])
	}
	_ = parallelVertices(n, b.stop, func(i int) error {
		v := order[i]
		list := entries[deg[v] : deg[v]+keep[v]]
		for j := range list {
			list[j].nbr = newID[list[j].nbr]
		}
		slices.SortFunc(list, func(a, c adjEntry) int {
			if la, lc := labels[a.nbr], labels[c.nbr]; la != lc {
				return cmp.Compare(la, lc)
			}
			if a.label != c.label {
				return cmp.Compare(a.label, c.label)
			}
			return cmp.Compare(a.nbr, c.nbr)
		})
		dst := g.offsets[i]
		for j, e := range list {
			g.neighbors[dst+uint64(j)] = e.nbr
			if g.edgeLabels != nil {
				g.edgeLabels[dst+uint64(j)] = e.label
			}
		}
		return nil
	})
	entries = nil
	if b.stop.done() {
		return nil, b.stop.err()
	}
	b.finishGraph(g, order)
	return g, nil
}

// DegreeOrder is Build's numbering of vertices whose deduplicated degrees are deg (by input
// id): ascending degree, ties by input id; order[new] = old and newID[old] = new. Generators that
// lay out a graph's arrays themselves (gen.RMAT) number it with this, so that their graph is the
// one Build would make of the same edges.
func DegreeOrder(deg []uint64) (order, newID []uint32) { return renumber(deg) }

// renumber orders the vertices by ascending deduplicated degree keep (ties by input order):
// order[new] = old and newID[old] = new. A counting sort: linear in the vertices and the largest
// degree.
func renumber(keep []uint64) (order, newID []uint32) {
	n := len(keep)
	var maxDeg uint64
	for _, k := range keep {
		maxDeg = max(maxDeg, k)
	}
	pos := make([]uint32, maxDeg+1)
	for _, k := range keep {
		pos[k]++
	}
	sum := uint32(0)
	for d, c := range pos {
		pos[d] = sum
		sum += c
	}
	order = make([]uint32, n)
	newID = make([]uint32, n)
	for v, k := range keep {
		i := pos[k]
		pos[k]++
		order[i] = uint32(v)
		newID[v] = i
	}
	return order, newID
}

// newGraph allocates the graph in the numbering order (order[new] = old): vertex labels, offsets
// from the deduplicated degrees keep, and the neighbour array, to be filled: reuse's storage
// when it is large enough and not much larger (the graph keeps all of it; what it did not
// touch costs no memory, but the heap counts it).
func (b *Builder) newGraph(order []uint32, keep []uint64, reuse []uint32) *Graph {
	n := len(order)
	labels := make([]uint32, n)
	for i, v := range order {
		labels[i] = b.labels[v]
	}
	g := &Graph{vertexLabels: labels, offsets: make([]uint64, n+1), runOffsets: make([]uint64, n+1)}
	for i, v := range order {
		g.offsets[i+1] = g.offsets[i] + keep[v]
	}
	if m := g.offsets[n]; m > 0 && uint64(cap(reuse)) >= m && uint64(cap(reuse))-m <= m/2 {
		g.neighbors = reuse[:m:m]
	} else {
		g.neighbors = make([]uint32, m)
	}
	return g
}

// finishGraph completes g, whose lists are filled: the run index, the original ids (when they
// are not the dense ones) and the names, in the numbering order.
func (b *Builder) finishGraph(g *Graph, order []uint32) {
	n := len(order)
	if g.runs == nil { // (else made with the lists' check, scanLists)
		g.runs = buildRuns(g, g.runOffsets, b.stop)
	}
	identity := b.identity
	for i, v := range order {
		if !identity {
			break
		}
		identity = b.orig[v] == int64(i)
	}
	if !identity {
		orig := make([]int64, n)
		for i, v := range order {
			orig[i] = b.orig[v]
		}
		g.originalIDs = orig
	}
	if b.names != nil {
		g.names = make([]string, n)
		for i, v := range order {
			if int(v) < len(b.names) {
				g.names[i] = b.names[v]
			} else {
				g.names[i] = strconv.FormatInt(b.orig[v], 10)
			}
		}
	}
}

func (b *Builder) originalOf(v uint32) int64 { return b.orig[v] }

// nameOf returns the name of the vertex with original id id (its id when it has none).
func (b *Builder) nameOf(id int64) string {
	if b.names != nil {
		if v, ok := b.lookup(id); ok && int(v) < len(b.names) {
			return b.names[v]
		}
	}
	return strconv.FormatInt(id, 10)
}

// buildRuns computes the run index of a graph whose adjacency lists are already grouped: one
// pass counts the runs of every vertex, a second fills them in place, both in parallel. When stop
// ends it, it returns nothing.
func buildRuns(g *Graph, runOffsets []uint64, stop *buildStop) []Run {
	n := len(g.vertexLabels)
	if label, uniform := g.UniformVertexLabel(); uniform && g.edgeLabels == nil {
		// One run a vertex with neighbours.
		runs := make([]Run, 0, n)
		for v := range n {
			if g.offsets[v+1] > g.offsets[v] {
				runs = append(runs, Run{VertexLabel: label, Start: g.offsets[v]})
			}
			runOffsets[v+1] = uint64(len(runs))
		}
		return runs
	}
	if g.edgeLabels == nil {
		return buildLabelRuns(g, runOffsets, stop)
	}
	startsRun := func(v int, i uint64) bool {
		if i == g.offsets[v] {
			return true
		}
		w, prev := g.neighbors[i], g.neighbors[i-1]
		return g.vertexLabels[w] != g.vertexLabels[prev] || g.edgeLabelAt(i) != g.edgeLabelAt(i-1)
	}
	_ = parallelVertices(n, stop, func(v int) error {
		count := uint64(0)
		for i := g.offsets[v]; i < g.offsets[v+1]; i++ {
			if startsRun(v, i) {
				count++
			}
		}
		runOffsets[v+1] = count
		return nil
	})
	if stop.done() {
		return nil
	}
	for v := 0; v < n; v++ {
		runOffsets[v+1] += runOffsets[v]
	}
	runs := make([]Run, runOffsets[n])
	_ = parallelVertices(n, stop, func(v int) error {
		r := runOffsets[v]
		for i := g.offsets[v]; i < g.offsets[v+1]; i++ {
			if startsRun(v, i) {
				runs[r] = Run{VertexLabel: g.vertexLabels[g.neighbors[i]], EdgeLabel: g.edgeLabelAt(i), Start: i}
				r++
			}
		}
		return nil
	})
	return runs
}

// buildLabelRuns is buildRuns for a graph without edge labels: a run a vertex label of each list.
func buildLabelRuns(g *Graph, runOffsets []uint64, stop *buildStop) []Run {
	n := len(g.vertexLabels)
	labels, nb, offs := g.vertexLabels, g.neighbors, g.offsets
	ranges := csrRanges(offs, 1<<15)
	par.For(len(ranges)-1, 0, func(r int) {
		if stop.done() {
			return
		}
		for v := ranges[r]; v < ranges[r+1]; v++ {
			count := uint64(0)
			if lo, hi := offs[v], offs[v+1]; lo < hi {
				count = 1
				prev := labels[nb[lo]]
				for _, w := range nb[lo+1 : hi] {
					if l := labels[w]; l != prev {
						count++
						prev = l
					}
				}
			}
			runOffsets[v+1] = count
		}
	})
	if stop.done() {
		return nil
	}
	for v := range n {
		runOffsets[v+1] += runOffsets[v]
	}
	runs := make([]Run, runOffsets[n])
	par.For(len(ranges)-1, 0, func(r int) {
		if stop.done() {
			return
		}
		for v := ranges[r]; v < ranges[r+1]; v++ {
			k := runOffsets[v]
			if lo, hi := offs[v], offs[v+1]; lo < hi {
				prev := labels[nb[lo]]
				runs[k] = Run{VertexLabel: prev, Start: lo}
				k++
				for i := lo + 1; i < hi; i++ {
					if l := labels[nb[i]]; l != prev {
						runs[k] = Run{VertexLabel: l, Start: i}
						k++
						prev = l
					}
				}
			}
		}
	})
	return runs
}

// OrderByLabel returns the vertices [0, len(labels)) sorted by (label, id): a counting sort when
// the labels are small, else a sort.
func OrderByLabel(labels []uint32) []uint32 {
	n := len(labels)
	out := make([]uint32, n)
	var top uint32
	for _, l := range labels {
		top = max(top, l)
	}
	if uint64(top) < uint64(n)+1<<16 {
		pos := make([]uint32, top+2)
		for _, l := range labels {
			pos[l+1]++
		}
		for l := 1; l < len(pos); l++ {
			pos[l] += pos[l-1]
		}
		for v, l := range labels {
			out[pos[l]] = uint32(v)
			pos[l]++
		}
		return out
	}
	for i := range out {
		out[i] = uint32(i)
	}
	slices.SortStableFunc(out, func(a, c uint32) int { return cmp.Compare(labels[a], labels[c]) })
	return out
}

// parallelVertices runs fn for every vertex on all cores. Of the errors, it returns that of the
// lowest vertex (every vertex below the first failure is still visited), so that the error does
// not depend on scheduling. It stops early, with no error, when stop does (checked every 4096
// vertices): what it did then means nothing.
func parallelVertices(n int, stop *buildStop, fn func(v int) error) error {
	workers := runtime.GOMAXPROCS(0)
	const chunk = 4096
	var (
		mu      sync.Mutex
		next    int
		firstV  = n
		firstEr error
		wg      sync.WaitGroup
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				lo := next
				next += chunk
				failed := lo >= firstV
				mu.Unlock()
				if failed || lo >= n || stop.done() {
					return
				}
				for v := lo; v < min(lo+chunk, n); v++ {
					if err := fn(v); err != nil {
						mu.Lock()
						if v < firstV {
							firstV, firstEr = v, err
						}
						mu.Unlock()
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	return firstEr
}
