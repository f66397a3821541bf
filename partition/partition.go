// Package partition owns the data-graph partitioner of the out-of-core engines (PBE, engine/pbe):
// it splits the vertices of a graph into parts so that every part, with what a search of it needs,
// fits a byte budget, and keeps the edge cut small. Pure Go, no METIS.
//
// What a part needs (its Bytes) is modelled on a device layout: each of its vertices costs its
// CSR entry (offset, label, partition id: VertexBytes) and its whole adjacency list
// (EntryBytes per neighbour, twice that with edge labels), cut edges included, so that the
// inter-partition stage can start from the part's cut edges; and every vertex outside the part
// adjacent to it (its halo) costs HaloBytes (label and partition id), which the search reads to
// check a neighbour's label and to tell intra- from inter-partition edges.
//
// Three algorithms (Options.Method; Auto chooses by the graph's size, AutoMethod):
//
//   - Multilevel (the default), METIS-like: coarsening by size-constrained label-propagation
//     clustering (or METIS's heavy-edge matching: Options.Coarsening), greedy graph
//     growing of the coarsest graph into k parts, uncoarsening with greedy boundary refinement
//     within a weight bound, then the byte model's refinement and repair (multilevel.go);
//   - Grow, the first algorithm: parts grown breadth first from the first unassigned vertex until
//     the next vertex would exceed the budget (the frontier seeds the next part), then
//     label-propagation passes that move a vertex to the part holding most of its neighbours
//     when that cuts fewer edges and both parts stay within the budget (checked with an upper
//     bound of the halo's growth, so the budget always holds);
//   - Ranges, for the largest graphs: parts of consecutive ids (halved until within the budget),
//     then Grow's passes; every adjacency scan on every core.
//
// With every method every part is within the budget: growing checks the exact bytes as it adds
// a vertex, ranges are measured exactly and halved, and the multilevel result's parts that
// exceed it are grown again from their vertices.
package partition

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/par"
)

// The cost model (bytes).
const (
	// VertexBytes is a vertex's CSR entry: its 64-bit offset, label and partition id.
	VertexBytes = 16
	// EntryBytes is one adjacency-list entry (a neighbour id); an edge label adds as much again.
	EntryBytes = 4
	// HaloBytes is a halo vertex: its label and partition id.
	HaloBytes = 8
)

// ErrBudget is returned (wrapped, with the sizes) when one vertex with its halo exceeds the budget.
var ErrBudget = errors.New("budget too small for one vertex")

// Options tune Partition.
type Options struct {
	// Budget is the most bytes one part may need (0: no limit, one part).
	Budget uint64
	// Passes is the number of refinement passes (0: DefaultPasses; negative: none).
	Passes int
	// Fill is the share of the budget growth fills a part to, leaving the rest for refinement's
	// moves (0: DefaultFill); for Multilevel, the parts' average share of the weight bound.
	Fill float64
	// Method is the algorithm (default Multilevel).
	Method Method
	// Seed varies Multilevel's random choices (matching and growing orders).
	Seed uint64
	// Triangles, for Multilevel, weighs every edge by 1 + ⌈log2(1 + t)⌉, t the triangles it lies
	// in (triangles.go), so that the parts keep dense regions whole rather than minimise the
	// number of cut edges; skipped (weights 1) on graphs where counting the triangles would take
	// over TriangleWork steps an edge. Off by default: it moved the intra share by about a point
	// either way on wiki-Vote, github and R-MAT (docs/benchmarks.md, branch part4).
	Triangles bool
	// Cuts is the number of Multilevel runs (seeds Seed, Seed+1, ...) the smallest cut is kept
	// of (0: DefaultCuts).
	Cuts int
	// Coarsening is how Multilevel coarsens (DefaultCoarsening: ClusterCoarsening).
	Coarsening Coarsening
	// NoHalos leaves Partitioning.Halo nil (HaloVertices still counts the halos): a caller that
	// does not read the halos spares their lists, up to 4 bytes an adjacency entry (R-MAT graphs
	// with random ids: most of a part's neighbours lie outside it).
	NoHalos bool
}

// DefaultCuts is Options.Cuts's default: single runs vary from seed to seed, by up to 8 points of
// the edges on github at 1/4 of the graph in the runs made while tuning.
const DefaultCuts = 3

// Method selects the partitioning algorithm.
type Method int

const (
	// Multilevel is METIS-like multilevel partitioning (multilevel.go).
	Multilevel Method = iota
	// Grow is breadth-first graph growing with label-propagation refinement.
	Grow
	// Auto is Multilevel on graphs of up to AutoMultilevelEdges edges, Grow with AutoPasses
	// refinement passes up to AutoGrowEdges and Ranges with AutoRangesPasses above (unless
	// Options.Passes says how many): AutoMethod.
	Auto
	// Ranges is parts of consecutive vertex ids, each of about the same bytes (a range over the
	// budget with its halo is halved until all fit), with the label-propagation refinement of
	// Grow: no sequential pass over the adjacency, for graphs too large to grow in time.
	Ranges
)

// AutoMultilevelEdges is the largest graph (in edges) Auto partitions with Multilevel: its
// coarsening and refinement take about 9 µs an edge on a 2-core machine (36 s for R-MAT scale 20,
// 15.7 M edges, in docs/benchmarks.md), several minutes for 10^8 edges, while on power-law
// graphs with random ids (R-MAT) it cuts only a few points of the edges fewer than Grow (73% and
// 75% at a quarter of R-MAT scale 20 with edge factor 40), whose time is linear.
const AutoMultilevelEdges = 1 << 22

// AutoGrowEdges is the largest graph (in edges) Auto partitions with Grow: its growth is one
// sequential pass over every adjacency list (2.0 s of the 5.7 s of CPU at R-MAT scale 21 with
// edge factor 40 on the 2-core VM, docs/benchmarks.md branch pbefix), over two minutes on the
// device's host at 1.76 billion edges, while on power-law graphs with random ids it cuts no
// fewer edges than Ranges (docs/benchmarks.md, branch part3), whose work is all on every core.
const AutoGrowEdges = 1 << 27

// AutoRangesPasses is the number of refinement passes Auto gives Ranges by default: on R-MAT
// scale 21 with edge factor 27 the first pass cuts 3.6 points of the edges at a quarter of the
// graph and 1.6 at an eighth, the second 1.5 and 0.5 more, each costing two scans of every
// adjacency list (the pass, then the exact bytes for the next).
const AutoRangesPasses = 1

// AutoMethod is the method Auto uses on a graph of m edges.
func AutoMethod(m uint64) Method {
	switch {
	case m <= AutoMultilevelEdges:
		return Multilevel
	case m <= AutoGrowEdges:
		return Grow
	}
	return Ranges
}

// AutoPasses is the number of refinement passes Auto gives Grow by default: on R-MAT scale 20
// at a quarter of the graph, the first pass cuts 3.2 points of the edges, the next 1.1, the
// other six together 2.5, each costing a scan of every adjacency list.
const AutoPasses = 2

// String names the method.
func (m Method) String() string {
	switch m {
	case Multilevel:
		return "multilevel"
	case Grow:
		return "grow"
	case Auto:
		return "auto"
	case Ranges:
		return "ranges"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// ParseMethod is the inverse of Method.String.
func ParseMethod(s string) (Method, error) {
	switch s {
	case "multilevel":
		return Multilevel, nil
	case "grow":
		return Grow, nil
	case "auto":
		return Auto, nil
	case "ranges":
		return Ranges, nil
	}
	return 0, fmt.Errorf("partitioner %q: want multilevel, grow, ranges or auto", s)
}

// DefaultFill is Options.Fill's default.
const DefaultFill = 0.85

// DefaultPasses is the number of label-propagation passes when Options.Passes is 0.
const DefaultPasses = 8

// Partitioning is the outcome: every vertex in exactly one part.
type Partitioning struct {
	// Of is the part of every vertex.
	Of []uint32
	// Parts lists the vertices of every part, ascending; no part is empty.
	Parts [][]uint32
	// Halo lists, for every part, the vertices outside it adjacent to one of its vertices,
	// ascending (nil with Options.NoHalos).
	Halo [][]uint32
	// HaloVertices is the halos' sizes summed.
	HaloVertices uint64
	// Bytes is what every part needs (its vertices and their adjacency, plus its halo).
	Bytes []uint64
	// EdgeCut is the number of edges whose ends lie in different parts.
	EdgeCut uint64
	// Budget is the budget the parts were made for (0: none).
	Budget uint64
	// Moves is the number of vertices the refinement moved.
	Moves int
}

// VertexCost is what vertex v costs the part that holds it, halo aside.
func VertexCost(g *graph.Graph, v uint32) uint64 {
	return VertexBytes + uint64(g.Degree(v))*entryBytes(g)
}

func entryBytes(g *graph.Graph) uint64 {
	if g.HasEdgeLabels() {
		return 2 * EntryBytes
	}
	return EntryBytes
}

// GraphBytes is what the whole graph costs in the model (every vertex's VertexCost, no halo): the
// size budgets are taken as fractions of.
func GraphBytes(g *graph.Graph) uint64 {
	return uint64(g.NumVertices())*VertexBytes + 2*g.NumEdges()*entryBytes(g)
}

// Partition splits g's vertices into parts within opts.Budget. It fails (wrapping ErrBudget)
// when a single vertex with its halo exceeds the budget, and with the context's error when ctx
// ends.
func Partition(ctx context.Context, g *graph.Graph, opts Options) (*Partitioning, error) {
	budget := opts.Budget
	if budget == 0 {
		budget = ^uint64(0)
	}
	fill := opts.Fill
	if fill <= 0 || fill > 1 {
		fill = DefaultFill
	}
	passes := opts.Passes
	if passes == 0 {
		passes = DefaultPasses
	}
	passes = max(passes, 0)
	method := opts.Method
	if method == Auto {
		method = AutoMethod(g.NumEdges())
		switch {
		case opts.Passes != 0:
		case method == Grow:
			passes = AutoPasses
		case method == Ranges:
			passes = AutoRangesPasses
		}
	}
	switch method {
	case Grow, Ranges:
	case Multilevel:
		if opts.Budget > 0 {
			cuts := opts.Cuts
			if cuts == 0 {
				cuts = DefaultCuts
			}
			return partitionMultilevel(ctx, g, opts.Budget, fill, passes, opts.Seed, cuts, opts.Triangles, opts.Coarsening, !opts.NoHalos)
		}
	default:
		return nil, fmt.Errorf("partition: unknown method %v", opts.Method)
	}
	grow := budget
	if opts.Budget > 0 {
		grow = uint64(float64(budget) * fill)
	}
	of := make([]uint32, g.NumVertices())
	for i := range of {
		of[i] = unset
	}
	pt := &Partitioning{Of: of}
	var k int
	var err error
	if method == Ranges {
		k, pt.Bytes, err = rangeParts(ctx, g, of, budget, grow)
	} else {
		k, err = growParts(ctx, g, of, nil, 0, budget, grow)
		if err == nil {
			pt.Bytes, _ = partBytes(ctx, g, of, k, nil, nil) // growing leaves no part empty
			err = ctx.Err()
		}
	}
	if err != nil {
		return nil, err
	}
	if k > 1 {
		for pass := range passes {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			moved := refine(ctx, g, nil, of, pt.Bytes, budget)
			if err := ctx.Err(); err != nil {
				return nil, err // (the pass stopped where it was)
			}
			pt.Moves += moved
			if moved == 0 || pass == passes-1 {
				break // Measure below has the exact bytes
			}
			pt.Bytes, _ = partBytes(ctx, g, of, k, pt.Bytes, nil)
		}
	}
	m := measure(ctx, g, of, k, 0, !opts.NoHalos)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.Budget, m.Moves = opts.Budget, pt.Moves
	return m, nil
}

// growCheck is how many adjacency entries growParts and a sequential refine pass read between
// two checks of their context (growParts twice each: a vertex's halo gain, then its queueing):
// about a millisecond.
const growCheck = 1 << 18

// growParts assigns the unassigned vertices (of[v] == unset) of starts (nil: all vertices) to new
// parts first, first+1, ..., grown breadth first through unassigned vertices, each closed when the
// next vertex would take it past grow bytes (or past budget, for its first vertex). It returns
// the number of parts in use after it (first + the new ones). It checks ctx every 1024 starts and
// every growCheck adjacency entries its searches read.
func growParts(ctx context.Context, g *graph.Graph, of []uint32, starts []uint32, first uint32, budget, grow uint64) (int, error) {
	n := g.NumVertices()
	const none = unset
	// haloMark[w] == cur+1 while w is in the current part's halo.
	haloMark := make([]uint32, n)
	var queue []uint32
	var read uint64 // adjacency entries read since the last check of ctx (growCheck)
	cur := first
	var used uint64
	size := 0
	count := n
	if starts != nil {
		count = len(starts)
	}
	for i := range count {
		start := i
		if starts != nil {
			start = int(starts[i])
		}
		if of[start] != none {
			continue
		}
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		queue = append(queue[:0], uint32(start))
		for h := 0; h < len(queue); h++ {
			v := queue[h]
			if of[v] != none {
				continue
			}
			if read += 1 + uint64(g.Degree(v)); read >= growCheck {
				// (One start's search may take the whole giant component, through many parts:
				// R-MAT scale 18's, 262,144 vertices, ran 1.07 s past a deadline without this;
				// by vertices taken, 4,096 of R-MAT 20's hubs took 130 ms.)
				read = 0
				if err := ctx.Err(); err != nil {
					return 0, err
				}
			}
			cost := VertexCost(g, v)
			var gained uint64
			for _, w := range g.Neighbors(v) {
				if of[w] != cur && haloMark[w] != cur+1 {
					gained++
				}
			}
			add := cost + gained*HaloBytes
			var freed uint64
			if haloMark[v] == cur+1 {
				freed = HaloBytes
			}
			if used+add-freed > grow && size > 0 || used+add-freed > budget {
				if size == 0 {
					return 0, tooBig(g, v, add, budget)
				}
				// Close the part; v starts the next one.
				cur++
				used, size = 0, 0
				queue = append(queue[:0], v)
				h = -1
				continue
			}
			used += add - freed
			size++
			of[v] = cur
			haloMark[v] = 0
			for _, w := range g.Neighbors(v) {
				// An unassigned w is in the part's halo exactly when it is queued already
				// (a vertex of the part is adjacent): queued once, the same order as queueing
				// it at every neighbour (its first entry is taken first; a closed part drops
				// the queue).
				if of[w] == none && haloMark[w] != cur+1 {
					queue = append(queue, w)
				}
				if of[w] != cur {
					haloMark[w] = cur + 1
				}
			}
		}
	}
	if size > 0 || n == 0 && first == 0 {
		cur++
	}
	return int(cur), nil
}

// rangeParts assigns every vertex to parts of consecutive ids, each closed when the next vertex
// would take its vertex bytes (VertexCost, no halo) past grow; a part whose exact bytes, halo
// included, exceed budget is split in two of about equal vertex bytes until every part fits. It
// returns the number of parts and their bytes (partBytes). Besides the scan of the degrees it is
// all adjacency scans on every core.
func rangeParts(ctx context.Context, g *graph.Graph, of []uint32, budget, grow uint64) (int, []uint64, error) {
	n := g.NumVertices()
	bounds := []int{0} // part i is [bounds[i], bounds[i+1])
	var used uint64
	for v := range n {
		c := VertexCost(g, uint32(v))
		if used+c > grow && used > 0 {
			bounds = append(bounds, v)
			used = 0
		}
		used += c
	}
	bounds = append(bounds, n)
	var bytes []uint64
	for {
		if err := ctx.Err(); err != nil {
			return 0, nil, err
		}
		k := len(bounds) - 1
		par.For(k, 0, func(i int) {
			for v := bounds[i]; v < bounds[i+1]; v++ {
				of[v] = uint32(i)
			}
		})
		bytes, _ = partBytes(ctx, g, of, k, bytes, nil)
		if err := ctx.Err(); err != nil {
			return 0, nil, err
		}
		next := make([]int, 1, len(bounds)+1)
		for i, b := range bytes {
			lo, hi := bounds[i], bounds[i+1]
			if b > budget {
				if hi-lo == 1 {
					return 0, nil, tooBig(g, uint32(lo), b, budget)
				}
				next = append(next, halfway(g, lo, hi))
			}
			next = append(next, hi)
		}
		if len(next) == len(bounds) {
			return k, bytes, nil
		}
		bounds = next
	}
}

// halfway is the vertex in (lo, hi) (hi-lo >= 2) that splits [lo, hi) into two ranges of about
// equal vertex bytes.
func halfway(g *graph.Graph, lo, hi int) int {
	var total uint64
	for v := lo; v < hi; v++ {
		total += VertexCost(g, uint32(v))
	}
	var sum uint64
	for v := lo; v < hi-1; v++ {
		sum += VertexCost(g, uint32(v))
		if 2*sum >= total {
			return v + 1
		}
	}
	return hi - 1
}

func tooBig(g *graph.Graph, v uint32, need, budget uint64) error {
	return fmt.Errorf("vertex %d needs %d bytes with its halo, the budget is %d: %w", g.OriginalID(v), need, budget, ErrBudget)
}

// refine is one label-propagation pass; bytes are updated with upper bounds (exact ones are
// measured after the pass). It returns the number of vertices moved. Large graphs are scanned on
// every core with the same outcome (refineOn). Once ctx has ended the pass stops where it is (the
// parts still within the budget; the caller returns ctx's error): a pass over R-MAT scale 20 took
// 2.1 s on the 2-core VM under load, the whole of it past a deadline.
func refine(ctx context.Context, g *graph.Graph, w *wgraph, of []uint32, bytes []uint64, budget uint64) int {
	return refineOn(ctx, g, w, of, bytes, budget, 0)
}

// refineBatch is the number of consecutive vertices whose neighbourhoods refineOn scans in
// parallel before deciding their moves.
const refineBatch = 4096

// refineMinWorkers is the fewest cores refine's parallel pass runs on by default: it does about
// 1.25x the sequential loop's work (R-MAT scale 18 at a quarter of the graph: the rescans of
// vertices with a neighbour moved earlier in their batch, a fifth of the adjacency entries, the
// hubs' mostly, which stay sequential), so it cannot pay on 2 cores.
const refineMinWorkers = 4

// lpScratch is one thread's label-propagation scratch: a counter a part (left zero) and the parts
// the current vertex touches; with edge weights (w, whose lists are g's), a weight sum a part too.
type lpScratch struct {
	count   []uint32
	touched []uint32
	w       *wgraph
	wsum    []uint64
}

func newLPScratch(k int, w *wgraph) *lpScratch {
	s := &lpScratch{count: make([]uint32, k), w: w}
	if w != nil {
		s.wsum = make([]uint64, k)
	}
	return s
}

// best is the part holding most of v's neighbours (of[v]'s part unless another holds strictly
// more; with edge weights, most of v's edge weight) and the number of v's neighbours there. near
// is v's smallest neighbour in [lo, v) (a vertex of its batch decided before it), v when there is
// none.
func (s *lpScratch) best(g *graph.Graph, of []uint32, v, lo uint32) (best, bestCount, near uint32) {
	a := of[v]
	s.touched = s.touched[:0]
	near = v
	var ew []uint64
	if s.w != nil {
		ew = s.w.ew[s.w.xadj[v]:s.w.xadj[v+1]]
	}
	for i, w := range g.Neighbors(v) {
		if w-lo < near-lo {
			near = w
		}
		p := of[w]
		if s.count[p] == 0 {
			s.touched = append(s.touched, p)
		}
		s.count[p]++
		if ew != nil {
			s.wsum[p] += ew[i]
		}
	}
	best, bestCount = a, s.count[a]
	bestScore := uint64(s.count[a])
	if ew != nil {
		bestScore = s.wsum[a]
	}
	for _, p := range s.touched {
		score := uint64(s.count[p])
		if ew != nil {
			score = s.wsum[p]
			s.wsum[p] = 0
		}
		if score > bestScore { // strictly more: every move cuts less
			best, bestCount, bestScore = p, s.count[p], score
		}
		s.count[p] = 0
	}
	return best, bestCount, near
}

// move moves v to part best (holding bestCount of its neighbours) when both parts stay within
// the budget by the bytes' upper bounds, and reports whether it did.
func move(g *graph.Graph, of []uint32, bytes []uint64, budget uint64, v, best, bestCount uint32) bool {
	a := of[v]
	if best == a {
		return false
	}
	cost := VertexCost(g, v)
	// b's halo grows at most by v's neighbours outside b; a's by v itself.
	growB := cost + uint64(g.Degree(v)-int(bestCount))*HaloBytes
	if bytes[best]+growB > budget || bytes[a] < cost {
		return false
	}
	bytes[best] += growB
	bytes[a] -= cost - HaloBytes
	of[v] = best
	return true
}

// refineOn is refine on threads goroutines (0: all cores, the sequential loop below
// refineMinWorkers; 1, or a graph below parallelMin vertices: the sequential loop). The parallel pass scans a batch of refineBatch consecutive
// vertices against the assignment at the batch's start, then decides their moves in order; only
// the batch's vertices move meanwhile, and in order, so a scan is stale only for a vertex with a
// neighbour in the batch decided before it that moved (the last move in the batch is at or after
// its smallest such neighbour), which is scanned again at its turn: every decision sees what the
// sequential loop sees, and the outcome is the same for any number of threads.
func refineOn(ctx context.Context, g *graph.Graph, w *wgraph, of []uint32, bytes []uint64, budget uint64, threads int) int {
	k := len(bytes)
	n := g.NumVertices()
	workers := par.Workers(n, threads, refineBatch)
	if n < parallelMin || threads <= 0 && workers < refineMinWorkers {
		workers = 1
	}
	moved := 0
	s := newLPScratch(k, w)
	if workers == 1 {
		var read uint64 // adjacency entries since the last check of ctx (growCheck)
		for v := range uint32(n) {
			if read += 1 + uint64(g.Degree(v)); read >= growCheck {
				read = 0
				if ctx.Err() != nil {
					return moved
				}
			}
			best, c, _ := s.best(g, of, v, v)
			if move(g, of, bytes, budget, v, best, c) {
				moved++
			}
		}
		return moved
	}
	type scan struct{ best, count, near uint32 }
	scans := make([]scan, refineBatch)
	scratch := make([]*lpScratch, workers)
	for lo := 0; lo < n; lo += refineBatch {
		if ctx.Err() != nil {
			return moved
		}
		hi := min(lo+refineBatch, n)
		par.Ranges(hi-lo, workers, (hi-lo+workers-1)/workers, func(t, a, b int) bool {
			ws := scratch[t]
			if ws == nil {
				ws = newLPScratch(k, w)
				scratch[t] = ws
			}
			for i := a; i < b; i++ {
				best, c, near := ws.best(g, of, uint32(lo+i), uint32(lo))
				scans[i] = scan{best, c, near}
			}
			return true
		})
		last := -1 // the batch's last moved vertex
		for i := range hi - lo {
			v := uint32(lo + i)
			sc := scans[i]
			if sc.near < v && last >= int(sc.near) {
				sc.best, sc.count, _ = s.best(g, of, v, v)
			}
			if move(g, of, bytes, budget, v, sc.best, sc.count) {
				moved++
				last = int(v)
			}
		}
	}
	return moved
}

// Measure computes the parts, halos, bytes and edge cut of the assignment of (parts 0..k-1);
// parts left empty are dropped and the others renumbered in order (of is updated). On large
// graphs the adjacency scan runs on every core (halos marked in one bitset a part, when those
// take at most measureBitsetBytes).
func Measure(g *graph.Graph, of []uint32, k int) *Partitioning {
	return measure(context.Background(), g, of, k, 0, true)
}

// parallelMin is the fewest vertices the scans of Measure and partBytes spread over several
// threads for.
const parallelMin = 1 << 16

// measureBitsetBytes bounds the halo bitsets (one bit a vertex and part) of a parallel Measure.
const measureBitsetBytes = 256 << 20

// scanChunk is how many consecutive vertices one thread scans at a time.
const scanChunk = 4096

// measure is Measure on threads goroutines (0: all cores; 1: the sequential scan), the halos
// listed only where lists is set (HaloVertices counts them either way). Once ctx has
// ended its scan stops between chunks of scanChunk vertices, and what it returns is not the
// assignment's (the caller returns ctx's error): on R-MAT scale 20 the scan took 0.6-0.8 s on the
// 2-core VM under load.
func measure(ctx context.Context, g *graph.Graph, of []uint32, k, threads int, lists bool) *Partitioning {
	sizes := make([]int, k)
	for _, p := range of {
		sizes[p]++
	}
	renum := make([]uint32, k)
	kk := 0
	for p, s := range sizes {
		renum[p] = uint32(kk)
		if s > 0 {
			sizes[kk] = s
			kk++
		}
	}
	if kk != k {
		for v, p := range of {
			of[v] = renum[p]
		}
	}
	pt := &Partitioning{Of: of, Parts: make([][]uint32, kk), Bytes: make([]uint64, kk)}
	if lists {
		pt.Halo = make([][]uint32, kk)
	}
	for p := range pt.Parts {
		pt.Parts[p] = make([]uint32, 0, sizes[p])
	}
	for v, p := range of {
		pt.Parts[p] = append(pt.Parts[p], uint32(v))
	}
	n := g.NumVertices()
	words := (n + 63) / 64
	workers := par.Workers(n, threads, scanChunk)
	if n < parallelMin || workers == 1 || uint64(kk)*uint64(words)*8 > measureBitsetBytes {
		measureSequential(ctx, g, pt)
		return pt
	}
	marks := make([]uint64, kk*words) // bit w of part p's words: w is in p's halo
	bytes := make([][]uint64, workers)
	cuts := make([]uint64, workers)
	par.Ranges(n, workers, scanChunk, func(t, lo, hi int) bool {
		if ctx.Err() != nil {
			return false
		}
		b := bytes[t]
		if b == nil {
			b = make([]uint64, kk)
			bytes[t] = b
		}
		for v := uint32(lo); v < uint32(hi); v++ {
			p := of[v]
			b[p] += VertexCost(g, v)
			for _, w := range g.Neighbors(v) {
				if q := of[w]; q != p {
					if v < w {
						cuts[t]++
					}
					if m := &marks[int(p)*words+int(w/64)]; atomic.LoadUint64(m)&(1<<(w%64)) == 0 {
						atomic.OrUint64(m, 1<<(w%64))
					}
				}
			}
		}
		return true
	})
	for t, b := range bytes {
		pt.EdgeCut += cuts[t]
		for p, x := range b {
			pt.Bytes[p] += x
		}
	}
	sizes = sizes[:kk]
	par.For(kk, threads, func(p int) {
		pm := marks[p*words : (p+1)*words]
		c := 0
		for _, m := range pm {
			c += bits.OnesCount64(m)
		}
		sizes[p] = c
		pt.Bytes[p] += uint64(c) * HaloBytes
		if !lists {
			return
		}
		halo := make([]uint32, 0, c) // (exactly: no append's growth)
		for i, m := range pm {
			for ; m != 0; m &= m - 1 {
				halo = append(halo, uint32(i*64+bits.TrailingZeros64(m)))
			}
		}
		pt.Halo[p] = halo
	})
	for _, c := range sizes {
		pt.HaloVertices += uint64(c)
	}
	return pt
}

// measureSequential fills pt's halos (where pt.Halo is not nil: else their sizes alone), bytes
// and edge cut from its parts on one thread, stopping between chunks of scanChunk vertices once
// ctx has ended.
func measureSequential(ctx context.Context, g *graph.Graph, pt *Partitioning) {
	of := pt.Of
	mark := make([]uint32, g.NumVertices())
	for p, vs := range pt.Parts {
		stamp := uint32(p) + 1
		var b, size uint64
		var halo []uint32
		for i, v := range vs {
			if i%scanChunk == 0 && ctx.Err() != nil {
				return
			}
			b += VertexCost(g, v)
			for _, w := range g.Neighbors(v) {
				if of[w] != uint32(p) {
					if v < w {
						pt.EdgeCut++
					}
					if mark[w] != stamp {
						mark[w] = stamp
						size++
						if pt.Halo != nil {
							halo = append(halo, w)
						}
					}
				}
			}
		}
		if pt.Halo != nil {
			slices.Sort(halo)
			pt.Halo[p] = slices.Clip(halo)
		}
		pt.HaloVertices += size
		pt.Bytes[p] = b + size*HaloBytes
	}
}

// partBytes is Measure's Bytes of the assignment of (parts 0..k-1, none dropped), in bytes
// (resized to k), and, when weights is not nil (it is resized too), every part's vertex bytes without the halo (its
// weight). It scans every adjacency list once with O(k) more memory a thread: a vertex is in the
// halo of every other part among its neighbours'. Large graphs are scanned on every core. Once ctx
// has ended the scan stops between chunks of scanChunk vertices and the sums are not the
// assignment's (the caller returns ctx's error): 0.2-0.6 s on R-MAT scale 20 under load.
func partBytes(ctx context.Context, g *graph.Graph, of []uint32, k int, bytes, weights []uint64) ([]uint64, []uint64) {
	return partBytesOn(ctx, g, of, k, bytes, weights, 0)
}

// partBytesOn is partBytes on threads goroutines (0: all cores).
func partBytesOn(ctx context.Context, g *graph.Graph, of []uint32, k int, bytes, weights []uint64, threads int) ([]uint64, []uint64) {
	bytes = slices.Grow(bytes[:0], k)[:k]
	clear(bytes)
	if weights != nil {
		weights = slices.Grow(weights[:0], k)[:k]
		clear(weights)
	}
	n := g.NumVertices()
	workers := par.Workers(n, threads, scanChunk)
	if n < parallelMin {
		workers = 1
	}
	type sums struct{ bytes, weights, seen []uint64 }
	per := make([]sums, workers)
	par.Ranges(n, workers, scanChunk, func(t, lo, hi int) bool {
		if ctx.Err() != nil {
			return false
		}
		s := &per[t]
		if s.bytes == nil {
			*s = sums{make([]uint64, k), make([]uint64, k), make([]uint64, k)}
		}
		for v := uint32(lo); v < uint32(hi); v++ {
			a := of[v]
			c := VertexCost(g, v)
			s.bytes[a] += c
			s.weights[a] += c
			// seen[p] == v+1: p has v in its halo, or is v's own part (marked first). The
			// neighbours' parts are in random order (70% of them other parts on R-MAT): the
			// branch-free update is cheaper than a test a neighbour the CPU mispredicts.
			mark := uint64(v) + 1
			s.seen[a] = mark
			for _, w := range g.Neighbors(v) {
				p := of[w]
				var halo uint64
				if s.seen[p] != mark {
					halo = HaloBytes
				}
				s.bytes[p] += halo
				s.seen[p] = mark
			}
		}
		return true
	})
	for _, s := range per {
		for p := range s.bytes {
			bytes[p] += s.bytes[p]
			if weights != nil {
				weights[p] += s.weights[p]
			}
		}
	}
	return bytes, weights
}

// Intra is the number of edges inside parts.
func (pt *Partitioning) Intra(g *graph.Graph) uint64 { return g.NumEdges() - pt.EdgeCut }

// MaxBytes is the largest part's Bytes.
func (pt *Partitioning) MaxBytes() uint64 {
	var m uint64
	for _, b := range pt.Bytes {
		m = max(m, b)
	}
	return m
}
