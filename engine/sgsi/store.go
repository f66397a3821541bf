package sgsi

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/par"
)

// sigWords is the length of a vertex signature in 32-bit words: one word of vertex label (a
// one-hot hash of the label, SGSI's K bits) and sigGroupWords words of 2-bit neighbourhood
// groups (SGSI's (N-K)/2 groups: 00 no pair, 01 one pair, 11 more than one), keyed by a hash of
// (edge label, neighbour vertex label).
const (
	sigWords      = 4
	sigGroupWords = sigWords - 1
	sigGroups     = sigGroupWords * 16
)

// anyLabel stands for a wildcard (a pattern label that matches every label) in the signature
// and label arrays the kernels read.
const anyLabel = ^uint32(0)

// mix is a 32-bit finaliser (murmur3's fmix32) used for the signature hashes.
func mix(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x85ebca6b
	x ^= x >> 13
	x *= 0xc2b2ae35
	x ^= x >> 16
	return x
}

// labelBit is the signature's vertex-label word for label l.
func labelBit(l uint32) uint32 { return 1 << (mix(l^0x9e3779b9) & 31) }

// pairGroup is the neighbourhood group of an (edge label, neighbour label) pair.
func pairGroup(el, vl uint32) int { return int(mix(el*0x27d4eb2f^mix(vl)) % sigGroups) }

// addPair sets group grp of sig (words 1..) one step up the saturating 00 -> 01 -> 11 counter.
func addPair(sig []uint32, grp int) {
	w, sh := 1+grp/16, uint(grp%16)*2
	if sig[w]>>sh&1 == 0 {
		sig[w] |= 1 << sh
	} else {
		sig[w] |= 2 << sh
	}
}

// labelGraph is the data graph's edges of one edge label (or of every label: anyEdge) to the
// neighbours of one vertex label (or of every label: anyLabel), as a CSR whose neighbour lists are
// sorted by id: SGSI's edge-label-partitioned graph P(G,l), split further by the neighbour's
// label, stored without its labels. It lives in host memory; the device sees segments of it.
//
// It has two forms with the same lists, segments and local offsets. The dense one keeps every
// vertex's offset (offsets, |V|+1 words of 8 bytes). The sparse one, which build makes when the
// entries are few beside the vertices (sparseShare), keeps only the vertices with entries (refs,
// sorted) and their offsets (starts, len(refs)+1): under SGSI's 1,000 zipf labels most label
// graphs hold a few thousand entries, and the dense offsets (268 MB on R-MAT 25) cost far more
// to write than the lists. A vertex's list is then found by binary search among refs.
type labelGraph struct {
	offsets []uint64 // dense: |V|+1; nil in the sparse form
	refs    []uint32 // sparse: the vertices with entries, increasing
	starts  []uint64 // sparse: refs[i]'s list is nbrs[starts[i]:starts[i+1]]
	n       uint32   // sparse: |V|
	nbrs    []uint32
}

// span returns the bounds of v's list in nbrs (v < |V|).
func (lg *labelGraph) span(v uint32) (uint64, uint64) {
	if lg.offsets != nil {
		return lg.offsets[v], lg.offsets[v+1]
	}
	return lg.sparseSpan(v)
}

// sparseSpan is span in the sparse form.
func (lg *labelGraph) sparseSpan(v uint32) (uint64, uint64) {
	i, found := slices.BinarySearch(lg.refs, v)
	if !found {
		return lg.starts[i], lg.starts[i]
	}
	return lg.starts[i], lg.starts[i+1]
}

// start returns where v's list starts in nbrs (v <= |V|: the entries of the vertices below v).
func (lg *labelGraph) start(v uint32) uint64 {
	if lg.offsets != nil {
		return lg.offsets[v]
	}
	return lg.sparseStart(v)
}

// sparseStart is start in the sparse form.
func (lg *labelGraph) sparseStart(v uint32) uint64 {
	i, _ := slices.BinarySearch(lg.refs, v)
	return lg.starts[i]
}

// degree and list read the dense form themselves, not through span: so written they inline
// (the hosts' joins call them a row), span does not.
func (lg *labelGraph) degree(v uint32) uint64 {
	if lg.offsets == nil {
		return lg.sparseDegree(v)
	}
	return lg.offsets[v+1] - lg.offsets[v]
}

func (lg *labelGraph) list(v uint32) []uint32 {
	if lg.offsets == nil {
		return lg.sparseList(v)
	}
	return lg.nbrs[lg.offsets[v]:lg.offsets[v+1]]
}

// sparseList and sparseDegree are list and degree in the sparse form (not inlined: their
// callers would not be).
//
//go:noinline
func (lg *labelGraph) sparseList(v uint32) []uint32 {
	lo, hi := lg.sparseSpan(v)
	return lg.nbrs[lo:hi]
}

//go:noinline
func (lg *labelGraph) sparseDegree(v uint32) uint64 {
	lo, hi := lg.sparseSpan(v)
	return hi - lo
}

// numVertices is the graph's |V|.
func (lg *labelGraph) numVertices() uint32 {
	if lg.offsets != nil {
		return uint32(len(lg.offsets) - 1)
	}
	return lg.n
}

// hostBytes is what lg holds in host memory.
func (lg *labelGraph) hostBytes() uint64 {
	return 8*uint64(len(lg.offsets)+len(lg.starts)) + 4*uint64(len(lg.refs)+len(lg.nbrs))
}

// deviceWords is the 32-bit words of lg's segments, whole, on the device: every vertex's local
// offset and the entries, whatever the host form.
func (lg *labelGraph) deviceWords() uint64 {
	return uint64(lg.numVertices()) + 1 + uint64(len(lg.nbrs))
}

// denseOffsets returns every vertex's offset (|V|+1 words), computed anew in the sparse form
// (for tests: readers use span and start).
func (lg *labelGraph) denseOffsets() []uint64 {
	if lg.offsets != nil {
		return lg.offsets
	}
	off := make([]uint64, lg.n+1)
	i := 0
	for v := range off {
		for i < len(lg.refs) && lg.refs[i] < uint32(v) {
			i++
		}
		off[v] = lg.starts[i]
	}
	return off
}

// sparseShare is the most entries a vertex of the graph that a scattered label graph may hold
// for build to make its sparse form: then its refs, starts and lists take at most 16 bytes an
// entry, half a byte a vertex at most where the dense offsets alone take 8, and a list's binary
// search takes at most 20 steps on R-MAT 25. A variable for tests (0: always dense; +Inf:
// always sparse when scattered).
var sparseShare = 1.0 / 32

// sparseForm reports whether build makes the sparse form of a scattered label graph of m
// entries over n vertices.
func sparseForm(m uint64, n int) bool {
	return sparseShare > 0 && float64(m) <= sparseShare*float64(n)
}

// anyEdge keys the label graph of every edge (wildcard edge labels, induced non-adjacency).
const anyEdge = uint64(1) << 32

// lgKey names a label graph: an edge label (or anyEdge) and the neighbours' vertex label (or
// anyLabel). A pattern edge into u is matched in the label graph of u's label: every entry a join
// keeps is a candidate of u, which has u's label, and every entry it looks up too (a
// non-adjacency's as well), so neighbours of other labels would be read for nothing (issue 21:
// under 1,000 zipf labels they were over 99% of what went to the device).
//
// dir keeps one side of each list (orientation): upper keeps the neighbours of larger id, lower
// those of smaller id. A link whose new vertex the symmetry-breaking restrictions make larger
// than its column's reads the upper lists: an entry it would take or find below the column's
// vertex is rejected by the restrictions anyway, so the matches are the same, and the lists,
// the buffers they fill and the bytes that go to the device about half (cliques read only
// upper lists: with ids in ascending degree, as the graph builder numbers them, a hub's upper
// list is short).
type lgKey struct {
	edge uint64
	vl   uint32
	dir  uint8
}

// The sides of a label graph's lists (lgKey.dir).
const (
	bothSides uint8 = iota
	upperSide       // neighbours of larger id
	lowerSide       // neighbours of smaller id
)

// side returns the part of the sorted list ns of vertex v on side dir.
func side(ns []uint32, v uint32, dir uint8) []uint32 {
	switch dir {
	case upperSide:
		i, found := slices.BinarySearch(ns, v)
		if found {
			i++
		}
		return ns[i:]
	case lowerSide:
		i, _ := slices.BinarySearch(ns, v)
		return ns[:i]
	}
	return ns
}

// store is what sgsi keeps of one data graph in host memory: the column-first signature table and
// the label graphs built so far. It is built once per graph and shared by the counts on it.
type store struct {
	g    *graph.Graph
	sigs []uint32 // column-first: word j of vertex v at j*|V|+v

	// building is held while a label graph is built, mu while the maps are read or written: a
	// build's reserve may ask what the store holds (bytes) while it runs.
	building sync.Mutex
	mu       sync.Mutex
	labels   map[lgKey]*labelGraph
	edges    map[uint64]uint64 // entries of each edge label's edges (the plan's frequencies), nil until asked
}

// newStore builds the store of g: its signature table, on workers goroutines (<= 0: all cores).
func newStore(g *graph.Graph, workers int) *store {
	n := g.NumVertices()
	s := &store{g: g, sigs: make([]uint32, sigWords*n), labels: map[lgKey]*labelGraph{}}
	// Ranges of consecutive vertices a thread: threads taking every workers-th vertex (as before)
	// wrote neighbouring words of one cache line from every core.
	par.Ranges(n, workers, 4096, func(_, lo, hi int) bool {
		for v := lo; v < hi; v++ {
			sig := vertexSig(g, uint32(v))
			for j := range sigWords {
				s.sigs[j*n+v] = sig[j]
			}
		}
		return true
	})
	return s
}

// vertexSig is data vertex v's signature: its label's bit, then a pair per run of its list.
// A run's neighbours share one (edge label, neighbour label) pair, so one group, and the
// group's counter saturates at two: each run adds its pair once, or twice when it has two
// neighbours or more (the same signature as one pair a neighbour, without reading each
// neighbour's label).
func vertexSig(g *graph.Graph, v uint32) [sigWords]uint32 {
	sig := [sigWords]uint32{labelBit(g.VertexLabel(v))}
	runs := g.Runs(v)
	for i, r := range runs {
		end := runs[0].Start + uint64(g.Degree(v)) // the list's end
		if i+1 < len(runs) {
			end = runs[i+1].Start
		}
		grp := pairGroup(r.EdgeLabel, r.VertexLabel)
		addPair(sig[:], grp)
		if end-r.Start > 1 {
			addPair(sig[:], grp)
		}
	}
	return sig
}

// runs returns the index range [lo, hi) of v's runs that the label graph of k may take entries
// from (all of them, or those of k's vertex label).
func (s *store) runs(v uint32, k lgKey) (int, int) {
	if k.vl == anyLabel {
		return 0, len(s.g.Runs(v))
	}
	return s.g.RunsWithVertexLabel(v, k.vl)
}

// takes reports whether the label graph of k takes run r.
func takes(r graph.Run, k lgKey) bool {
	return (k.vl == anyLabel || r.VertexLabel == k.vl) && (k.edge == anyEdge || uint64(r.EdgeLabel) == k.edge)
}

// degree is the length of v's list in the label graph of k.
func (s *store) degree(v uint32, k lgKey) uint64 {
	g := s.g
	lo, hi := s.runs(v, k)
	runs := g.Runs(v)
	d := uint64(0)
	for i := lo; i < hi; i++ {
		if takes(runs[i], k) {
			d += uint64(len(side(g.RunNeighbors(v, i), v, k.dir)))
		}
	}
	return d
}

// appendList appends v's list in the label graph of k to out: its runs, sorted by id when more
// than one is taken (a run is sorted).
func (s *store) appendList(out []uint32, v uint32, k lgKey) []uint32 {
	g := s.g
	lo, hi := s.runs(v, k)
	runs := g.Runs(v)
	from, taken := len(out), 0
	for i := lo; i < hi; i++ {
		if takes(runs[i], k) {
			out = append(out, side(g.RunNeighbors(v, i), v, k.dir)...)
			taken++
		}
	}
	if taken > 1 {
		slices.Sort(out[from:])
	}
	return out
}

// label returns the label graph of k, building it on first use with all cores and without a
// memory check (the counts build theirs with build first: see runner.label).
func (s *store) label(k lgKey) *labelGraph {
	lg, _, _ := s.build(k, 0, nil)
	return lg
}

// layoutChunk is the vertices a goroutine of build takes at a time. The chunks are fixed (the
// i-th is [i*layoutChunk, (i+1)*layoutChunk)), so their sums, and the layout, do not depend on
// the number of goroutines.
const layoutChunk = 1 << 13

// build returns the label graph of k, building it on first use on workers goroutines (<= 0: all
// cores). reserve, when set, is asked for the offsets' bytes before they are allocated, then for
// the whole label graph's (8 bytes a vertex and 4 an entry) before its lists are (the sparse
// form: once, see buildSparse); its error stops the build, leaving nothing held. The LabelBuild
// says how the build went (zero for a graph built already).
//
// The graph of every neighbour label (anyLabel) is built from each vertex's runs, in passes over
// the vertices: the lists' lengths (into the offsets, with each chunk's sum), then, from the
// chunks' running sums, each chunk's offsets, then the lists. The graph of one neighbour label vl
// is built from the other end, reading only the lists of the vertices of label vl (the graph is
// undirected: u is in v's list when v is in u's): each such u adds one to the length of each
// neighbour v whose list takes it, then, from the running sums, writes itself into those lists
// at their next free place; each list is then sorted (unless one goroutine wrote them all: it
// took the u in increasing order). Under 1,000 zipf labels a label's vertices hold a few percent
// of the entries at most, where the pass by runs reads every vertex's runs. Such a graph is
// first counted (scatter, no per-vertex array); of at most sparseShare entries a vertex it is
// built in the sparse form (buildSparse), with no per-vertex pass at all. The lists, sorted, are
// the same whichever the pass and form and however many goroutines ran it.
//
// The passes whose work is in the entries rather than the vertices (scatter, the lists, the
// sorts) deal pieces of about as many entries each, not of as many vertices: with ids in
// ascending degree, as the graph builder numbers them, the last vertices hold most entries (on
// R-MAT 23 under 1,000 zipf labels, the last 1,024 vertices of a label 38-66% of its entries),
// and one goroutine took them all while the others waited.
func (s *store) build(k lgKey, workers int, reserve func(bytes uint64) error) (*labelGraph, LabelBuild, error) {
	s.building.Lock()
	defer s.building.Unlock()
	if lg := s.built(k); lg != nil {
		return lg, LabelBuild{}, nil
	}
	t0 := time.Now()
	n := s.g.NumVertices()
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0) // (once: one, below, decides on plain writes)
	}
	plan, byLabel := s.planScatter(k)
	bt := LabelBuild{Key: k.String(), Scattered: byLabel}
	if byLabel {
		// The entries first (a pass over the label's vertices' runs, not over every vertex):
		// few beside the vertices, the sparse form takes them without the dense offsets.
		counts := make([]uint64, par.Workers(plan.pieces(), workers, 1))
		s.scatter(k, plan, workers, func(w int, _, _ uint32) { counts[w]++ })
		if m := sum(counts); sparseForm(m, n) {
			bt.Entries, bt.Lengths, bt.Sparse = m, time.Since(t0), true
			t1 := time.Now()
			lg, err := s.buildSparse(k, plan, workers, m, reserve)
			if err != nil {
				return nil, LabelBuild{}, err
			}
			bt.Lists = time.Since(t1)
			s.mu.Lock()
			s.labels[k] = lg
			s.mu.Unlock()
			return lg, bt, nil
		}
	}
	offBytes := 8 * uint64(n+1)
	if reserve != nil {
		if err := reserve(offBytes); err != nil {
			return nil, LabelBuild{}, err
		}
	}
	off := make([]uint64, n+1) // (off[v+1]: v's length, then its start, then its end)
	// One goroutine needs no atomics, and writes the lists in order (see scatter).
	one := byLabel && par.Workers(plan.pieces(), workers, 1) == 1
	if byLabel {
		count := func(_ int, v, _ uint32) { atomic.AddUint64(&off[v+1], 1) }
		if one {
			count = func(_ int, v, _ uint32) { off[v+1]++ }
		}
		s.scatter(k, plan, workers, count)
	}
	sums, m := chunkSums(n, workers, func(v int) uint64 {
		if !byLabel {
			off[v+1] = s.degree(uint32(v), k)
		}
		return off[v+1]
	})
	bt.Entries = m
	bt.Lengths = time.Since(t0)
	if reserve != nil {
		if err := reserve(offBytes + 4*m); err != nil {
			return nil, LabelBuild{}, err
		}
	}
	t1 := time.Now()
	lg := &labelGraph{offsets: off, nbrs: make([]uint32, m)}
	par.Ranges(n, workers, layoutChunk, func(_, lo, hi int) bool {
		at := sums[lo/layoutChunk]
		for v := lo; v < hi; v++ {
			d := off[v+1]
			if byLabel {
				off[v+1] = at // (v's next free place: its end once scatter has run)
			} else {
				off[v+1] = at + d
			}
			at += d
		}
		return true
	})
	byEntries := func(v int) uint64 { return uint64(v) + off[v] } // (once off[v] is v's start)
	if byLabel {
		place := func(_ int, v, u uint32) { lg.nbrs[atomic.AddUint64(&off[v+1], 1)-1] = u }
		if one {
			place = func(_ int, v, u uint32) { lg.nbrs[off[v+1]] = u; off[v+1]++ }
		}
		s.scatter(k, plan, workers, place)
		bt.Lists = time.Since(t1)
		if !one {
			t2 := time.Now()
			costRanges(n, workers, byEntries, func(lo, hi int) {
				for v := lo; v < hi; v++ {
					if l := lg.nbrs[off[v]:off[v+1]]; len(l) > 1 {
						slices.Sort(l)
					}
				}
			})
			bt.Sort = time.Since(t2)
		}
	} else {
		costRanges(n, workers, byEntries, func(lo, hi int) {
			for v := lo; v < hi; v++ {
				if off[v+1] > off[v] {
					s.appendList(lg.nbrs[off[v]:off[v]:off[v+1]], uint32(v), k)
				}
			}
		})
		bt.Lists = time.Since(t1)
	}
	s.mu.Lock()
	s.labels[k] = lg
	s.mu.Unlock()
	return lg, bt, nil
}

// buildSparse builds the sparse form of the label graph of k, of m entries, from its
// neighbour label's vertices (plan; see build): each goroutine of scatter collects its entries
// as (list's vertex, entry) pairs, which, sorted, are the lists in order. Its cost is in the
// entries and the label's vertices, none in the graph's other vertices. reserve, when set, is
// asked for the pairs' and the graph's bytes first.
func (s *store) buildSparse(k lgKey, plan scatterPlan, workers int, m uint64, reserve func(bytes uint64) error) (*labelGraph, error) {
	if reserve != nil {
		if err := reserve(8*m + 16*m + 8); err != nil { // (the pairs; the lists, at most m refs and m+1 starts)
			return nil, err
		}
	}
	// Each goroutine gathers its pairs in a block of its own, then moves the block into pairs at
	// a place it takes with one atomic add (the counting pass's m is exact: the same scatter).
	pairs := make([]uint64, m)
	var next atomic.Uint64
	blocks := make([][]uint64, par.Workers(plan.pieces(), workers, 1))
	flush := func(w int) {
		at := next.Add(uint64(len(blocks[w]))) - uint64(len(blocks[w]))
		copy(pairs[at:], blocks[w])
		blocks[w] = blocks[w][:0]
	}
	s.scatter(k, plan, workers, func(w int, v, u uint32) {
		if blocks[w] == nil {
			blocks[w] = make([]uint64, 0, pairBlock)
		}
		if blocks[w] = append(blocks[w], uint64(v)<<32|uint64(u)); len(blocks[w]) == pairBlock {
			flush(w)
		}
	})
	for w := range blocks {
		flush(w)
	}
	slices.Sort(pairs)
	refs := 0
	for i, p := range pairs {
		if i == 0 || p>>32 != pairs[i-1]>>32 {
			refs++
		}
	}
	lg := &labelGraph{n: uint32(s.g.NumVertices()), nbrs: make([]uint32, m),
		refs: make([]uint32, 0, refs), starts: make([]uint64, 0, refs+1)}
	for i, p := range pairs {
		if v := uint32(p >> 32); i == 0 || p>>32 != pairs[i-1]>>32 {
			lg.refs = append(lg.refs, v)
			lg.starts = append(lg.starts, uint64(i))
		}
		lg.nbrs[i] = uint32(p)
	}
	lg.starts = append(lg.starts, m)
	return lg, nil
}

// pairBlock is the pairs a goroutine of buildSparse gathers before it moves them.
const pairBlock = 256

// sum is the sum of xs.
func sum(xs []uint64) uint64 {
	t := uint64(0)
	for _, x := range xs {
		t += x
	}
	return t
}

// LabelBuild is how the build of one label graph went (Stats.LabelBuilds): its key, its
// entries, whether it was scattered from its neighbour label's vertices (else built from every
// vertex's runs), and the wall time of its passes: the lengths (with the offsets' allocation
// and, scattered, the plan of its pieces), the offsets and the lists, the sorts of the scattered
// lists (none where one goroutine scattered them).
type LabelBuild struct {
	Key                  string // edge label/neighbour label/side ("*": any)
	Entries              uint64
	Scattered            bool
	Sparse               bool // the sparse form: Lengths counts, Lists gathers and sorts
	Lengths, Lists, Sort time.Duration
}

// String is the build in the debug line: key, path, entries, then the passes' times.
func (b LabelBuild) String() string {
	path := "runs"
	switch {
	case b.Sparse:
		path = "sparse"
	case b.Scattered:
		path = "scatter"
	}
	return fmt.Sprintf("%s %s %d %v+%v+%v", b.Key, path, b.Entries, b.Lengths.Round(time.Microsecond), b.Lists.Round(time.Microsecond), b.Sort.Round(time.Microsecond))
}

// String names the key in LabelBuild: edge label, neighbour label, side.
func (k lgKey) String() string {
	e, vl := "*", "*"
	if k.edge != anyEdge {
		e = strconv.FormatUint(k.edge, 10)
	}
	if k.vl != anyLabel {
		vl = strconv.FormatUint(uint64(k.vl), 10)
	}
	return e + "/" + vl + "/" + [...]string{"both", "upper", "lower"}[k.dir]
}

// built returns the label graph of k if it is built, else nil.
func (s *store) built(k lgKey) *labelGraph {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.labels[k]
}

// scatterPiece is about the entries of a label's vertices' lists that a goroutine of scatter
// takes at a time (a vertex's list is not split). A variable for tests.
var scatterPiece uint64 = 1 << 14

// scatterPlan is what scatter reads: the vertices of a neighbour label (us, in increasing order),
// the entries of their lists (every edge label, both sides), and the pieces it deals: piece i is
// us[cuts[i]:cuts[i+1]], of about scatterPiece entries (the last fewer; one vertex may hold more).
type scatterPlan struct {
	us      []uint32
	cuts    []int
	entries uint64
}

func (p scatterPlan) pieces() int { return len(p.cuts) - 1 }

// planScatter returns the scatterPlan of the label graph of k, and whether build scatters it
// rather than building it from every vertex's runs: when k has a neighbour label and its
// vertices' lists hold at most scatterShare entries a vertex of the graph. (A scattered entry
// costs a few times what a vertex's runs do, in random reads and writes and the sort; an
// unlabelled graph, whose one label's vertices hold every entry, stays with the runs.)
func (s *store) planScatter(k lgKey) (scatterPlan, bool) {
	if k.vl == anyLabel {
		return scatterPlan{}, false
	}
	g := s.g
	limit := scatterShare * uint64(g.NumVertices())
	p := scatterPlan{us: g.VerticesWithLabel(k.vl), cuts: []int{0}}
	piece := uint64(0)
	for i, u := range p.us {
		d := uint64(g.Degree(u))
		if p.entries += d; p.entries > limit {
			return scatterPlan{}, false
		}
		if piece += d; piece >= scatterPiece {
			p.cuts = append(p.cuts, i+1)
			piece = 0
		}
	}
	if p.cuts[len(p.cuts)-1] < len(p.us) {
		p.cuts = append(p.cuts, len(p.us))
	}
	return p, true
}

// scatter calls f(v, u), on workers goroutines (<= 0: all cores), for every entry u of every
// list v of the label graph of k, whose neighbour label is not anyLabel, from the lists of the
// vertices u of that label (p, planScatter's): the neighbours v joined to u by k's edge label (or
// any) on the other side of u (v's upper list holds the u above v). A goroutine takes the pieces
// of p one at a time; on one goroutine each v sees its u in increasing order.
func (s *store) scatter(k lgKey, p scatterPlan, workers int, f func(w int, v, u uint32)) {
	g := s.g
	other := bothSides
	switch k.dir {
	case upperSide:
		other = lowerSide
	case lowerSide:
		other = upperSide
	}
	par.Ranges(p.pieces(), workers, 1, func(w, i, _ int) bool {
		for _, u := range p.us[p.cuts[i]:p.cuts[i+1]] {
			for j, r := range g.Runs(u) {
				if k.edge == anyEdge || uint64(r.EdgeLabel) == k.edge {
					for _, v := range side(g.RunNeighbors(u, j), u, other) {
						f(w, v, u)
					}
				}
			}
		}
		return true
	})
}

// scatterShare is the most entries a vertex of the graph that the lists of a label's vertices
// may hold for build to scatter them: the two passes cost about the same at 2 to 3 on an
// R-MAT of 2^21 vertices under 1,000 zipf labels, one goroutine (the commonest label, 4 entries
// a vertex: scatter 1.9 times the runs' time; the 100th, 0.03: a fifth). A variable for tests.
var scatterShare uint64 = 2

// layoutPiece is about the cost (vertices plus entries) of each range of vertices costRanges
// deals.
const layoutPiece = 1 << 16

// costRanges calls fn(lo, hi) for ranges [lo, hi) covering [0, n), on workers goroutines (<= 0:
// all cores), each of about layoutPiece cost, where cost(v) is the cost of the vertices below v
// (nondecreasing, cost(0) = 0): a range may be one vertex of more.
func costRanges(n, workers int, cost func(v int) uint64, fn func(lo, hi int)) {
	total := cost(n)
	pieces := int(min(total/layoutPiece+1, uint64(n)))
	cut := func(i int) int {
		if i >= pieces {
			return n
		}
		at := uint64(i) * total / uint64(pieces)
		return sort.Search(n, func(v int) bool { return cost(v) >= at })
	}
	par.Ranges(pieces, workers, 1, func(_, i, _ int) bool {
		if lo, hi := cut(i), cut(i+1); lo < hi {
			fn(lo, hi)
		}
		return true
	})
}

// has reports whether the label graph of k is built.
func (s *store) has(k lgKey) bool { return s.built(k) != nil }

// entries is the number of entries of the label graph of k (built or not), counted on workers
// goroutines (<= 0: all cores).
func (s *store) entries(k lgKey, workers int) uint64 {
	_, m := chunkSums(s.g.NumVertices(), workers, func(v int) uint64 { return s.degree(uint32(v), k) })
	return m
}

// chunkSums calls length for every vertex below n, on workers goroutines (<= 0: all cores) in
// build's fixed chunks, and returns the lengths summed before each chunk (before[i]: the sum
// over the chunks before the i-th) and in all.
func chunkSums(n, workers int, length func(v int) uint64) (before []uint64, total uint64) {
	before = make([]uint64, (n+layoutChunk-1)/layoutChunk)
	par.Ranges(n, workers, layoutChunk, func(_, lo, hi int) bool {
		sum := uint64(0)
		for v := lo; v < hi; v++ {
			sum += length(v)
		}
		before[lo/layoutChunk] = sum
		return true
	})
	for i, c := range before {
		before[i] = total
		total += c
	}
	return before, total
}

// edgeEntries is the number of adjacency entries of edge label key (anyEdge: all of them), the
// frequency the plan orders by: the size of the label graph of every neighbour label, which is
// not built for it. It is counted on workers goroutines (<= 0: all cores).
func (s *store) edgeEntries(key uint64, workers int) uint64 {
	g := s.g
	if key == anyEdge || (key == 0 && !g.HasEdgeLabels()) { // (every edge)
		return 2 * g.NumEdges()
	}
	if !g.HasEdgeLabels() {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.edges == nil {
		s.edges = edgeLabelEntries(g, workers)
	}
	return s.edges[key]
}

// denseEdgeLabels bounds the edge labels edgeLabelEntries counts in a slice a goroutine (a map
// above).
const denseEdgeLabels = 1 << 16

// edgeLabelEntries is the number of adjacency entries of each edge label of g, from one pass over
// every vertex's runs (a run has one edge label) on workers goroutines (<= 0: all cores). One pass
// for every label at once: a walk query of SGSI's kind has a label on each of its edges, and the
// plan asks for each (a pass a label read every vertex's runs twenty times for a 12-vertex walk
// under 1,000 edge labels, most of sgsi's layout time on R-MAT scale 20).
func edgeLabelEntries(g *graph.Graph, workers int) map[uint64]uint64 {
	n := g.NumVertices()
	workers = par.Workers(n, workers, layoutChunk)
	dense, sparse := make([][]uint64, workers), make([]map[uint32]uint64, workers)
	par.Ranges(n, workers, layoutChunk, func(w, lo, hi int) bool {
		for v := uint32(lo); v < uint32(hi); v++ {
			for i, r := range g.Runs(v) {
				c := uint64(len(g.RunNeighbors(v, i)))
				switch l := r.EdgeLabel; {
				case l < denseEdgeLabels:
					if int(l) >= len(dense[w]) {
						dense[w] = slices.Grow(dense[w], int(l)+1-len(dense[w]))[:l+1]
					}
					dense[w][l] += c
				default:
					if sparse[w] == nil {
						sparse[w] = map[uint32]uint64{}
					}
					sparse[w][l] += c
				}
			}
		}
		return true
	})
	m := map[uint64]uint64{}
	for w := range workers {
		for l, c := range dense[w] {
			if c > 0 {
				m[uint64(l)] += c
			}
		}
		for l, c := range sparse[w] {
			m[uint64(l)] += c
		}
	}
	return m
}

// bytes is what the store holds in host memory: the signature table and the label graphs built.
func (s *store) bytes() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := 4 * uint64(len(s.sigs))
	for _, lg := range s.labels {
		b += lg.hostBytes()
	}
	return b
}

// segment is a part of one label graph that streams to the device at a time: the neighbour
// entries [elo, ehi) of the vertices [lo, hi). Segments are cut at vertex boundaries where they
// can be; a list longer than a segment is cut into parts (SGSI's edge-oriented segmentation), each
// a segment of that one vertex (hi = lo+1), so that no list has to fit the segment cache whole.
// Only the first vertex of a segment can start before elo (a list's later part) and only the last
// can end after ehi (its earlier part).
type segment struct {
	lg       *labelGraph
	lo, hi   uint32
	elo, ehi uint64
}

// words is the segment's device size in 32-bit words: local offsets and neighbours.
func (sg segment) words() uint64 { return uint64(sg.hi-sg.lo) + 1 + sg.ehi - sg.elo }

// head is the number of entries of vertex lo's list before the segment (0: its list starts here).
func (sg segment) head() uint64 { return sg.elo - sg.lg.start(sg.lo) }

// tail reports whether vertex hi-1's list goes on after the segment.
func (sg segment) tail() bool { return sg.ehi < sg.lg.start(sg.hi) }

// prev is the entry just before the segment (meaningful when head() > 0): the largest neighbour
// of lo in the parts before.
func (sg segment) prev() uint32 {
	if sg.elo == 0 {
		return 0
	}
	return sg.lg.nbrs[sg.elo-1]
}

// minSegWords is the smallest segment segments accepts: one entry of a list with its two offsets.
const minSegWords = 3

// segments cuts lg into segments of at most maxWords device words (at least minSegWords).
func segments(lg *labelGraph, maxWords uint64) []segment {
	maxWords = max(maxWords, minSegWords)
	n := lg.numVertices()
	var segs []segment
	lo, elo := uint32(0), lg.start(0)
	for lo < n {
		words := func(hi uint32) uint64 { return uint64(hi-lo) + 1 + lg.start(hi) - elo }
		if words(lo+1) > maxWords {
			// The rest of lo's list alone does not fit: its next part.
			ehi := elo + maxWords - 2
			segs = append(segs, segment{lg, lo, lo + 1, elo, ehi})
			elo = ehi
			continue
		}
		// The longest range [lo, hi) within maxWords, found by doubling then halving.
		step := uint32(1)
		hi := lo + 1
		for hi < n && words(min(n, hi+step)) <= maxWords {
			hi = min(n, hi+step)
			step *= 2
		}
		for step > 0 {
			if hi+step <= n && words(hi+step) <= maxWords {
				hi += step
			}
			step /= 2
		}
		ehi := lg.start(hi)
		segs = append(segs, segment{lg, lo, hi, elo, ehi})
		lo, elo = hi, ehi
	}
	return segs
}

// find returns the index of the first segment holding v (segs cover [0, |V|) in order; the
// segments holding v follow it).
func find(segs []segment, v uint32) int {
	i, _ := slices.BinarySearchFunc(segs, v, func(s segment, v uint32) int {
		switch {
		case s.hi <= v:
			return -1
		case s.lo > v:
			return 1
		}
		return 0
	})
	return i
}

// localOffsets writes the segment's offsets, relative to its first entry and clamped to the
// segment's entries, into buf.
func (sg segment) localOffsets(buf []uint32) []uint32 {
	buf = buf[:0]
	lg := sg.lg
	if lg.offsets != nil {
		for v := sg.lo; v <= sg.hi; v++ {
			o := min(max(lg.offsets[v], sg.elo), sg.ehi)
			buf = append(buf, uint32(o-sg.elo))
		}
		return buf
	}
	// Sparse: v's offset is that of the first vertex with entries from v on, refs[i].
	i, _ := slices.BinarySearch(lg.refs, sg.lo)
	for v := sg.lo; v <= sg.hi; v++ {
		for i < len(lg.refs) && lg.refs[i] < v {
			i++
		}
		o := min(max(lg.starts[i], sg.elo), sg.ehi)
		buf = append(buf, uint32(o-sg.elo))
	}
	return buf
}

func (sg segment) neighbours() []uint32 { return sg.lg.nbrs[sg.elo:sg.ehi] }

// bitsetWords is the length in 32-bit words of a bitset over n vertices.
func bitsetWords(n int) uint64 { return uint64(n+31) / 32 }
