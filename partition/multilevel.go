package partition

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/submatch/submatch/graph"
)

// The multilevel partitioner (Method Multilevel), after METIS (Karypis and Kumar, 1998):
//
//  1. coarsening: by default size-constrained label-propagation clustering merges each vertex with
//     the neighbouring cluster it shares the most edge weight with (cluster.go); with
//     PairCoarsening, heavy-edge matching merges each vertex with the unmatched neighbour it
//     shares the heaviest edge with (then leaves sharing a neighbour are paired, METIS's 2-hop
//     matching, which power-law graphs need to coarsen at all); until the graph has a few dozen
//     vertices per part or stops shrinking; vertex weights are the vertices' bytes (VertexCost),
//     edge weights the fine edges merged;
//  2. initial partitioning of the coarsest graph into k = ⌈bytes / (Fill·bound)⌉ parts by greedy
//     graph growing (a part takes the frontier vertex with the best gain), best of 12 seeds;
//  3. uncoarsening: the partition is projected level by level and refined at each by greedy
//     boundary moves (METIS's k-way refinement: a vertex moves to the neighbouring part it is most
//     connected to when that lowers the cut, or keeps it and evens the weights, within the weight
//     bound);
//  4. on the graph itself, the byte model with halos replaces the weights: label-propagation
//     passes (refine) within the budget, and any part still over it is broken up again by graph
//     growing, which always meets the budget.
//
// The weight bound starts at the budget; when parts come out over the budget (their halos), it
// is lowered by the worst part's bytes over weight and steps 2-3 repeated on the same coarsening
// (4 attempts at most). Steps 2-4 are run Options.Cuts times with different seeds, in parallel,
// on one coarsening, and the smallest cut kept (the lowest seed on ties: the same parts for any
// thread count).
// Inside a run, large levels are refined and contracted on several threads with the sequential
// result (parallel.go).

// wgraph is a weighted graph of one level.
type wgraph struct {
	xadj []int
	adj  []uint32
	ew   []uint64
	vw   []uint64
}

func (w *wgraph) n() int { return len(w.vw) }

// fromGraph is g as the finest level: vertex weights VertexCost, edge weights 1.
func fromGraph(g *graph.Graph) *wgraph {
	n := g.NumVertices()
	w := &wgraph{xadj: make([]int, n+1), vw: make([]uint64, n)}
	m := 2 * int(g.NumEdges())
	w.adj = make([]uint32, 0, m)
	w.ew = make([]uint64, m)
	for v := range uint32(n) {
		w.vw[v] = VertexCost(g, v)
		w.adj = append(w.adj, g.Neighbors(v)...)
		w.xadj[v+1] = len(w.adj)
	}
	for i := range w.ew {
		w.ew[i] = 1
	}
	return w
}

const unset = ^uint32(0)

// twoHopDegree is the largest degree of the vertices 2-hop matching (and clustering) pairs or
// groups by a neighbour they share.
const twoHopDegree = 8

// coarsen matches w's vertices (heavy-edge, then 2-hop on leftover vertices of small degree) with
// merged weights at most maxVW, and returns the coarse graph and the map fine -> coarse; large
// graphs are contracted on threads goroutines (the same coarse graph).
func (w *wgraph) coarsen(rng *rand.Rand, maxVW uint64, threads int) (*wgraph, []uint32) {
	n := w.n()
	match := make([]uint32, n)
	for i := range match {
		match[i] = unset
	}
	// A random order (blockOrder's runs lose clusters the shuffled ids hide).
	order := make([]uint32, n)
	for i, v := range rng.Perm(n) {
		order[i] = uint32(v)
	}
	for _, v := range order {
		if match[v] != unset {
			continue
		}
		best, bestW := unset, uint64(0)
		for j := w.xadj[v]; j < w.xadj[v+1]; j++ {
			u := w.adj[j]
			if match[u] == unset && u != v && w.vw[u]+w.vw[v] <= maxVW && w.ew[j] > bestW {
				best, bestW = u, w.ew[j]
			}
		}
		if best != unset {
			match[v], match[best] = best, v
		}
	}
	// 2-hop: unmatched vertices of small degree sharing a neighbour are paired.
	for _, u := range order {
		pending := unset
		for j := w.xadj[u]; j < w.xadj[u+1]; j++ {
			x := w.adj[j]
			if match[x] != unset || w.xadj[x+1]-w.xadj[x] > twoHopDegree {
				continue
			}
			if pending == unset {
				pending = x
			} else if w.vw[pending]+w.vw[x] <= maxVW {
				match[pending], match[x] = x, pending
				pending = unset
			}
		}
	}
	// Isolated vertices have no neighbour to match: they are paired among themselves.
	pending := unset
	for _, v := range order {
		if match[v] != unset || w.xadj[v+1] != w.xadj[v] {
			continue
		}
		if pending == unset {
			pending = v
		} else if w.vw[pending]+w.vw[v] <= maxVW {
			match[pending], match[v] = v, pending
			pending = unset
		}
	}
	cmap := make([]uint32, n)
	for i := range cmap {
		cmap[i] = unset
	}
	nc := uint32(0)
	for v := range uint32(n) {
		if cmap[v] != unset {
			continue
		}
		cmap[v] = nc
		if m := match[v]; m != unset {
			cmap[m] = nc
		}
		nc++
	}
	return w.contract(cmap, int(nc), threads), cmap
}

// contract is the coarse graph of w whose vertex cmap[v] (0..nc-1, numbered in the order of
// their lowest members) merges the fine vertices mapped to it: vertex weights summed, parallel
// edges merged (weights summed), edges inside a coarse vertex dropped. The lists list each coarse
// vertex's neighbours in the order its members (ascending) first reach them. Large graphs are
// contracted on threads goroutines, each building the lists of a range of coarse vertices into
// buffers of its own, concatenated in order: the same coarse graph.
func (w *wgraph) contract(cmap []uint32, nc, threads int) *wgraph {
	n := w.n()
	// The members of each coarse vertex, ascending (a counting sort), and their degrees summed,
	// which bound the coarse lists' lengths.
	first := make([]int, nc+1)
	reach := make([]int, nc+1) // reach[cv+1]: the members' degrees summed, then prefix sums
	for v, cv := range cmap {
		first[cv+1]++
		reach[cv+1] += w.xadj[v+1] - w.xadj[v]
	}
	for cv := range nc {
		first[cv+1] += first[cv]
		reach[cv+1] += reach[cv]
	}
	members := make([]uint32, n)
	fill := slices.Clone(first[:nc])
	for v, cv := range cmap {
		members[fill[cv]] = uint32(v)
		fill[cv]++
	}
	c := &wgraph{xadj: make([]int, nc+1), vw: make([]uint64, nc)}
	if threads <= 1 || n < parMinVertices {
		// The coarse lists are at most as long as the fine ones: one allocation each.
		c.adj, c.ew = w.contractRange(cmap, first, members, c, 0, nc, make([]int, nc), make([]uint32, 0, len(w.adj)), make([]uint64, 0, len(w.adj)))
		return c
	}
	// Ranges of coarse vertices of about equal adjacency, one a thread.
	bounds := make([]int, threads+1)
	for t := 1; t < threads; t++ {
		target := reach[nc] / threads * t
		bounds[t] = max(bounds[t-1], sort.SearchInts(reach[:nc+1], target))
	}
	bounds[threads] = nc
	adjs, ews := make([][]uint32, threads), make([][]uint64, threads)
	var wg sync.WaitGroup
	for t := range threads {
		lo, hi := bounds[t], bounds[t+1]
		hint := reach[hi] - reach[lo]
		wg.Go(func() {
			adjs[t], ews[t] = w.contractRange(cmap, first, members, c, lo, hi, make([]int, nc), make([]uint32, 0, hint), make([]uint64, 0, hint))
		})
	}
	wg.Wait()
	total := 0
	for _, a := range adjs {
		total += len(a)
	}
	c.adj, c.ew = make([]uint32, 0, total), make([]uint64, 0, total)
	for t := range threads {
		base := len(c.adj)
		c.adj = append(c.adj, adjs[t]...)
		c.ew = append(c.ew, ews[t]...)
		for cv := bounds[t]; cv < bounds[t+1]; cv++ {
			c.xadj[cv+1] += base
		}
	}
	return c
}

// contractRange appends to adj and ew the lists of coarse vertices lo..hi-1 (their members
// members[first[cv]:first[cv+1]]), sets their weights in c.vw and their lists' ends (in adj) in
// c.xadj, and returns the lists. where (one entry a coarse vertex, zero) is scratch.
func (w *wgraph) contractRange(cmap []uint32, first []int, members []uint32, c *wgraph, lo, hi int, where []int, adj []uint32, ew []uint64) ([]uint32, []uint64) {
	for cv := lo; cv < hi; cv++ {
		start := len(adj)
		for _, x := range members[first[cv]:first[cv+1]] {
			c.vw[cv] += w.vw[x]
			for j := w.xadj[x]; j < w.xadj[x+1]; j++ {
				cu := cmap[w.adj[j]]
				if int(cu) == cv {
					continue
				}
				if p := where[cu]; p > start {
					ew[p-1] += w.ew[j]
				} else {
					adj = append(adj, cu)
					ew = append(ew, w.ew[j])
					where[cu] = len(adj)
				}
			}
		}
		c.xadj[cv+1] = len(adj)
	}
	return adj, ew
}

// cut is the weight of the edges between parts.
func (w *wgraph) cut(part []uint32) uint64 {
	var c uint64
	for v := range w.n() {
		for j := w.xadj[v]; j < w.xadj[v+1]; j++ {
			if part[w.adj[j]] != part[v] {
				c += w.ew[j]
			}
		}
	}
	return c / 2
}

type gainItem struct {
	key int64
	v   uint32
}

// gainHeap is a max-heap of gainItems by key. Its push and pop are container/heap's algorithm
// on the concrete type: the same order, without boxing every item into an interface (an
// allocation a push).
type gainHeap []gainItem

func (h *gainHeap) push(it gainItem) {
	*h = append(*h, it)
	q := *h
	for j := len(q) - 1; j > 0; {
		i := (j - 1) / 2
		if i == j || q[j].key <= q[i].key {
			break
		}
		q[i], q[j] = q[j], q[i]
		j = i
	}
}

func (h *gainHeap) pop() gainItem {
	q := *h
	n := len(q) - 1
	q[0], q[n] = q[n], q[0]
	for i := 0; ; {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 {
			break
		}
		j := j1
		if j2 := j1 + 1; j2 < n && q[j2].key > q[j1].key {
			j = j2
		}
		if q[j].key <= q[i].key {
			break
		}
		q[i], q[j] = q[j], q[i]
		i = j
	}
	*h = q[:n]
	return q[n]
}

// grow is greedy graph growing into k parts of about equal weight, each at most maxW (a vertex
// heavier than that alone excepted): a part starts from a random unassigned vertex and takes the
// frontier vertex with the best gain (its edge weight to the part less the rest) until it
// reaches its share of what is left.
func (w *wgraph) grow(k int, maxW uint64, rng *rand.Rand) ([]uint32, []uint64) {
	n := w.n()
	part := make([]uint32, n)
	for i := range part {
		part[i] = unset
	}
	pw := make([]uint64, k)
	var left uint64
	for _, x := range w.vw {
		left += x
	}
	conn := make([]uint64, n)
	wdeg := make([]uint64, n) // weighted degrees
	for v := range n {
		for j := w.xadj[v]; j < w.xadj[v+1]; j++ {
			wdeg[v] += w.ew[j]
		}
	}
	var touched []uint32
	unassigned := rng.Perm(n)
	next := 0
	pick := func() uint32 {
		for next < len(unassigned) && part[unassigned[next]] != unset {
			next++
		}
		if next == len(unassigned) {
			return unset
		}
		return uint32(unassigned[next])
	}
	var h gainHeap
	for p := range k {
		target := left / uint64(k-p)
		h = h[:0]
		for _, x := range touched {
			conn[x] = 0
		}
		touched = touched[:0]
		for pw[p] < target {
			var v uint32
			if len(h) > 0 {
				it := h.pop()
				v = it.v
				if part[v] != unset || it.key != 2*int64(conn[v])-int64(wdeg[v]) {
					continue
				}
			} else if v = pick(); v == unset {
				break
			} else if pw[p] > 0 && pw[p]+w.vw[v] > maxW {
				break // a new seed that does not fit: the part is done
			}
			if pw[p] > 0 && pw[p]+w.vw[v] > maxW {
				continue
			}
			part[v] = uint32(p)
			pw[p] += w.vw[v]
			left -= w.vw[v]
			for j := w.xadj[v]; j < w.xadj[v+1]; j++ {
				u := w.adj[j]
				if part[u] != unset {
					continue
				}
				if conn[u] == 0 {
					touched = append(touched, u)
				}
				conn[u] += w.ew[j]
				h.push(gainItem{2*int64(conn[u]) - int64(wdeg[u]), u})
			}
		}
	}
	// Leftovers (every part reached its share, or was full): the lightest part.
	for v := range uint32(n) {
		if part[v] != unset {
			continue
		}
		best := 0
		for p := range k {
			if pw[p] < pw[best] {
				best = p
			}
		}
		part[v] = uint32(best)
		pw[best] += w.vw[v]
	}
	return part, pw
}

// refineWeights runs up to passes greedy boundary passes: a vertex moves to the neighbouring part
// it is most connected to when that lowers the cut (or leaves it equal and evens the weights),
// within maxW; a vertex of a part over maxW moves to the best part with room whatever the gain.
// Large levels scan the neighbourhoods on threads goroutines (speculator) with the same outcome.
func (w *wgraph) refineWeights(part []uint32, pw []uint64, maxW uint64, passes int, rng *rand.Rand, threads int) {
	k := len(pw)
	conn := make([]uint64, k)
	var cands []partConn
	order := blockOrder(w.n(), rng)
	// active[v]: v's neighbourhood changed since it was last examined (a neighbour moved), or its
	// part is over maxW; the others would make the same decision again and are skipped.
	active := make([]bool, w.n())
	for i := range active {
		active[i] = true
	}
	var spec *speculator
	var dirty []uint32 // dirty[v] == stamp: a neighbour of v moved in the current batch
	stamp := uint32(0)
	batch := len(order)
	if threads > 1 && w.n() >= parMinVertices {
		spec = newSpeculator(w, part, active, k, threads)
		defer spec.stop()
		dirty = make([]uint32, w.n())
		batch = specBatch
	}
	for pass := range passes {
		if pass > 0 && overweight(pw, maxW) > 0 {
			for v, p := range part {
				if pw[p] > maxW {
					active[v] = true
				}
			}
		}
		moved := 0
		for b := 0; b < len(order); b += batch {
			vs := order[b:min(len(order), b+batch)]
			if spec != nil {
				stamp++
				spec.run(vs)
			}
			for i, v := range vs {
				if !active[v] {
					continue
				}
				active[v] = false
				c, ok := []partConn(nil), false
				if spec != nil && dirty[v] != stamp {
					c, ok = spec.cands(i)
				}
				if !ok {
					cands = w.gather(part, v, conn, cands[:0])
					c = cands
				}
				a := part[v]
				internal := uint64(0)
				best, bestConn := a, uint64(0)
				for _, pc := range c {
					p := pc.p
					if p == a {
						internal = pc.c
					}
					if p == a || pw[p]+w.vw[v] > maxW {
						continue
					}
					if best == a || pc.c > bestConn || pc.c == bestConn && pw[p] < pw[best] {
						best, bestConn = p, pc.c
					}
				}
				if best != a && (bestConn > internal || bestConn == internal && pw[best]+w.vw[v] < pw[a] || pw[a] > maxW) {
					part[v] = best
					pw[a] -= w.vw[v]
					pw[best] += w.vw[v]
					moved++
					for _, u := range w.adj[w.xadj[v]:w.xadj[v+1]] {
						active[u] = true
					}
					if spec != nil {
						for _, u := range w.adj[w.xadj[v]:w.xadj[v+1]] {
							dirty[u] = stamp
						}
					}
				}
			}
		}
		// Gains have vanished when fewer than 1 vertex in 1000 moved: the next passes would still
		// scan the (many) neighbourhoods those moves touched, hubs' above all, for little.
		if moved == 0 || moved < w.n()/1000 {
			break
		}
	}
}

// refineBlock is the run of consecutive vertices refinement visits in id order: the runs are
// visited in random order, so that the adjacency lists are read in long sequential stretches.
const refineBlock = 64

// blockOrder is 0..n-1 cut into runs of refineBlock, the runs shuffled.
func blockOrder(n int, rng *rand.Rand) []uint32 {
	nb := (n + refineBlock - 1) / refineBlock
	blocks := rng.Perm(nb)
	order := make([]uint32, 0, n)
	for _, b := range blocks {
		for v := b * refineBlock; v < min(n, (b+1)*refineBlock); v++ {
			order = append(order, uint32(v))
		}
	}
	return order
}

// overweight is how far the parts exceed maxW, summed.
func overweight(pw []uint64, maxW uint64) uint64 {
	var o uint64
	for _, x := range pw {
		if x > maxW {
			o += x - maxW
		}
	}
	return o
}

// hierarchy is the levels of a coarsening: levels[0] is the finest, maps[l] maps levels[l]'s
// vertices to levels[l+1]'s.
type hierarchy struct {
	levels []*wgraph
	maps   [][]uint32
}

// coarsenAll coarsens fine for k parts (to a few dozen vertices a part, or until it stalls) the
// way how says, merged vertices weighing at most maxW/2, on threads goroutines. It returns nil
// when ctx ended.
func coarsenAll(ctx context.Context, fine *wgraph, k int, maxW uint64, seed uint64, threads int, how Coarsening) *hierarchy {
	rng := rand.New(rand.NewPCG(uint64(fine.n())+seed, uint64(len(fine.adj)/2)^uint64(k)))
	h := &hierarchy{levels: []*wgraph{fine}}
	var total uint64
	for _, x := range fine.vw {
		total += x
	}
	coarsenTo := max(40*k, 200)
	maxVW := max(total/uint64(coarsenTo)*3/2, 1)
	maxVW = min(maxVW, maxW/2)
	for h.levels[len(h.levels)-1].n() > coarsenTo && len(h.levels) < 64 {
		if ctx.Err() != nil {
			return nil
		}
		w := h.levels[len(h.levels)-1]
		var c *wgraph
		var cmap []uint32
		if how.resolve() == ClusterCoarsening {
			c, cmap = w.clusterCoarsen(rng, maxVW, threads)
		} else {
			c, cmap = w.coarsen(rng, maxVW, threads)
		}
		if c.n() > w.n()*19/20 {
			break // stalled
		}
		h.levels = append(h.levels, c)
		h.maps = append(h.maps, cmap)
	}
	return h
}

// multilevel assigns the finest level's vertices to k parts of weight at most maxW where it can
// (of is overwritten): the coarsest level partitioned, then projected and refined level by level.
// Large levels are refined on threads goroutines. It returns false when ctx ended.
func (h *hierarchy) multilevel(ctx context.Context, k int, maxW uint64, passes int, of []uint32, seed uint64, threads int) bool {
	fine := h.levels[0]
	rng := rand.New(rand.NewPCG(uint64(fine.n())+seed, uint64(len(fine.adj)/2)^uint64(k)))
	coarse := h.levels[len(h.levels)-1]
	var part []uint32
	var pw []uint64
	for try := range 12 {
		p, w := coarse.grow(k, maxW, rng)
		coarse.refineWeights(p, w, maxW, passes, rng, threads)
		if try == 0 || better(coarse, p, w, part, pw, maxW) {
			part, pw = p, w
		}
	}
	for l := len(h.levels) - 2; l >= 0; l-- {
		if ctx.Err() != nil {
			return false
		}
		fine := make([]uint32, h.levels[l].n())
		for v, c := range h.maps[l] {
			fine[v] = part[c]
		}
		part = fine
		h.levels[l].refineWeights(part, pw, maxW, passes, rng, threads)
	}
	copy(of, part)
	return true
}

// better reports whether partition (p, w) beats (bp, bw): less overweight, then a smaller cut.
func better(g *wgraph, p []uint32, w []uint64, bp []uint32, bw []uint64, maxW uint64) bool {
	o, bo := overweight(w, maxW), overweight(bw, maxW)
	if o != bo {
		return o < bo
	}
	return g.cut(p) < g.cut(bp)
}

// partitionMultilevel is Partition with Method Multilevel and a budget: the best (smallest
// cut) of cuts runs with seeds seed, seed+1, ...
func partitionMultilevel(ctx context.Context, g *graph.Graph, budget uint64, fill float64, passes int, seed uint64, cuts int, triangles bool, how Coarsening, halos bool) (*Partitioning, error) {
	n := g.NumVertices()
	var total uint64
	for v := range uint32(n) {
		c := VertexCost(g, v)
		if need := c + uint64(g.Degree(v))*HaloBytes; need > budget {
			return nil, tooBig(g, v, need, budget)
		}
		total += c
	}
	if total <= budget || n < 2 {
		m := measure(context.Background(), g, make([]uint32, n), 1, 0, halos)
		m.Budget = budget
		return m, nil
	}
	fine := fromGraph(g)
	weighted := false
	if triangles {
		var err error
		if weighted, err = fine.weightTriangles(ctx, 0); err != nil {
			return nil, err
		}
	}
	// The runs are independent (fine is only read): they run on up to GOMAXPROCS goroutines, and
	// the smallest cut, the lowest seed on ties, is kept, so the result does not depend on the
	// number of threads.
	cuts = max(cuts, 1)
	results := make([]*Partitioning, cuts)
	errs := make([]error, cuts)
	// The runs share one coarsening (seed's), made on every thread for the first attempt's k:
	// it was as much work as the rest of a run, and the runs' own initial partitions and
	// refinements vary the cut as much as their own coarsenings did.
	per := max(uint64(fill*float64(budget)), 1)
	h := coarsenAll(ctx, fine, max(2, int((total+per-1)/per)), budget, seed, runtime.GOMAXPROCS(0), how)
	if h == nil {
		return nil, ctx.Err()
	}
	// The first run goes alone on every thread and measures the weight bound its first attempt's
	// halos leave room for (at a quarter of R-MAT graphs, the first attempt's parts came out 10%
	// over the budget and every run made them all again); the others start from that bound
	// instead of the budget, skipping the attempt that would most likely fail.
	var maxW uint64
	if results[0], maxW, errs[0] = multilevelOnce(ctx, g, h, budget, budget, fill, passes, seed, total, runtime.GOMAXPROCS(0), weighted, halos); errs[0] != nil {
		return nil, errs[0]
	}
	workers := min(cuts-1, runtime.GOMAXPROCS(0))
	// Each run's parallel steps get an equal share of the threads (more goroutines than threads
	// would make every batch's barrier wait for the scheduler's time slices).
	threads := max(1, runtime.GOMAXPROCS(0)/max(workers, 1))
	next := atomic.Int64{}
	next.Store(1)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= cuts {
					return
				}
				results[i], _, errs[i] = multilevelOnce(ctx, g, h, budget, maxW, fill, passes, seed+uint64(i), total, threads, weighted, halos)
			}
		})
	}
	wg.Wait()
	// The smallest cut in the objective's weights (the edges', or the triangle-weighted cut).
	var best *Partitioning
	var bestCut uint64
	for i, pt := range results {
		if errs[i] != nil {
			return nil, errs[i]
		}
		c := pt.EdgeCut
		if weighted {
			c = fine.cut(pt.Of)
		}
		if best == nil || c < bestCut {
			best, bestCut = pt, c
		}
	}
	return best, nil
}

// multilevelOnce is one multilevel run on the coarsening h (total: the vertices' bytes) on threads
// goroutines, with the weight bound starting at maxW (at most budget); it returns the bound its
// first attempt's halos left room for (maxW when they fit; not the bound of its last attempt, which a
// run that went badly lowers further than the others need).
// weighted: fine's edge weights are not all 1 (triangle weights), which the byte model's
// label-propagation passes then weigh a part's neighbours by; halos: the result lists its halos.
func multilevelOnce(ctx context.Context, g *graph.Graph, h *hierarchy, budget, maxW uint64, fill float64, passes int, seed, total uint64, threads int, weighted, halos bool) (*Partitioning, uint64, error) {
	of := make([]uint32, g.NumVertices())
	// The weight bound shrinks by the halo's share measured after each attempt; k parts fill it
	// to fill on average.
	k := 0
	learned := maxW // the bound after the first attempt
	const attempts = 4
	// The attempts share h, made for the first attempt's k (later attempts have a few more parts,
	// and the coarsest graph still has dozens of vertices for each).
	fine := h.levels[0]
	var bytes []uint64
	for attempt := range attempts {
		per := max(uint64(fill*float64(maxW)), 1)
		k = max(2, int((total+per-1)/per))
		if !h.multilevel(ctx, k, maxW, passes, of, seed, threads) {
			return nil, 0, ctx.Err()
		}
		var weights []uint64
		bytes, weights = partBytes(ctx, g, of, k, bytes, make([]uint64, k))
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		worst := 1.0 // the largest bytes / weight of a part over the budget
		for p, b := range bytes {
			if b > budget {
				worst = max(worst, float64(b)/float64(weights[p]))
			}
		}
		if worst == 1 || attempt == attempts-1 {
			break
		}
		maxW = min(maxW, uint64(0.98*float64(budget)/worst))
		if attempt == 0 {
			learned = maxW
		}
	}
	// The byte model: label propagation within the budget, then the parts still over it grown
	// again from their own vertices.
	moves := 0
	var lpw *wgraph // label propagation counts weights when fine's are not all 1
	if weighted {
		lpw = fine
	}
	for range passes {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		moved := refine(ctx, g, lpw, of, bytes, budget)
		if err := ctx.Err(); err != nil {
			return nil, 0, err // (the pass stopped where it was)
		}
		moves += moved
		bytes, _ = partBytes(ctx, g, of, k, bytes, nil)
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if moved == 0 {
			break
		}
	}
	var loose []uint32
	for v, p := range of {
		if bytes[p] > budget {
			loose = append(loose, uint32(v))
		}
	}
	if len(loose) > 0 {
		for _, v := range loose {
			of[v] = unset
		}
		kk, err := growParts(ctx, g, of, loose, uint32(k), budget, budget)
		if err != nil {
			return nil, 0, err
		}
		k = kk
	}
	m := measure(ctx, g, of, k, 0, halos)
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	m.Budget, m.Moves = budget, moves
	return m, learned, nil
}
