package partition

import (
	"runtime"

	"github.com/submatch/submatch/graph"
)

// Working memory. Partition takes heap beyond the graph: its result (HeldBytes: the part of every
// vertex, the parts' lists and halos) and, while it runs, its method's arrays. WorkingBytes
// bounds that from the arrays' sizes so that a caller under a host memory limit can choose a
// method that fits (Lighter) or refuse before it starts. Grow's and Ranges' arrays are a few
// bytes a vertex; Multilevel copies the graph into a weighted graph (12 bytes an adjacency
// entry), coarsens it into levels each up to as large again while it is made, and keeps Cuts
// results: on R-MAT scale 20 (15.7 M edges) it took about 1.0 GB beyond the graph.

// HeldBytes is the memory pt holds: the part of every vertex, the parts' and halos' lists and
// the parts' bytes.
func (pt *Partitioning) HeldBytes() uint64 {
	b := 4*uint64(len(pt.Of)) + 8*uint64(len(pt.Bytes)) + 2*sliceHeader*uint64(len(pt.Parts))
	for _, vs := range pt.Parts {
		b += 4 * uint64(cap(vs))
	}
	for _, h := range pt.Halo {
		b += 4 * uint64(cap(h))
	}
	return b
}

// workSlack is what Partition allocates beside its arrays whatever the graph: slice headers,
// closures, its passes' small per-part arrays.
const workSlack = 24 << 10

// sliceHeader is the bytes of a slice's header.
const sliceHeader = 24

// Resolve is the method Partition runs for opts on a graph of edges edges (Auto's choice).
func Resolve(m Method, edges uint64) Method {
	if m == Auto {
		return AutoMethod(edges)
	}
	return m
}

// Lighter is the method that takes less working memory than m (WorkingBytes): Multilevel ->
// Grow -> Ranges; false for Ranges, the lightest.
func Lighter(m Method) (Method, bool) {
	switch m {
	case Multilevel, Auto:
		return Grow, true
	case Grow:
		return Ranges, true
	}
	return m, false
}

// WorkingBytes is the heap Partition(g, opts) takes at its peak beyond g, its result included:
// an upper bound from its arrays for Grow and Ranges (the parts' count taken as twice the
// graph's bytes over the budget's fill, the halos, where listed, as at most every adjacency entry
// and at most every vertex or an eighth of the budget a part; Grow's queue twice its length for
// append's growth), for
// Multilevel those plus the weighted graph, two levels of coarsening as large as it while one is
// made (cluster coarsening leaves far fewer on power-law graphs) and the scratch of the runs made
// at once (an estimate: the levels' sizes are not known before). With no budget (one part) it is
// the result alone.
func WorkingBytes(g *graph.Graph, opts Options) uint64 {
	n := uint64(g.NumVertices())
	e := 2 * g.NumEdges()
	fill := opts.Fill
	if fill <= 0 || fill > 1 {
		fill = DefaultFill
	}
	k := uint64(1)
	if opts.Budget > 0 {
		k = min(max(n, 1), 1+uint64(2*float64(GraphBytes(g)+HaloBytes*n)/(fill*float64(opts.Budget))))
	}
	result := 4*n + 4*n + (8+2*sliceHeader)*k // the part of every vertex, the parts' lists
	if !opts.NoHalos {
		result += 4 * min(e, k*min(n, opts.Budget/HaloBytes)) // (listed exactly: no growth)
	}
	threads := uint64(runtime.GOMAXPROCS(0))
	scan := threads*3*8*k + workSlack // partBytes' sums a thread, small arrays and closures
	if k > 1 {
		// measure: the parallel halo bitsets (at most measureBitsetBytes) or one mark a vertex,
		// and its parts' counts and renumbering; the refinement's counters.
		scan += max(min(k*((n+63)/64)*8, measureBitsetBytes), 4*n) + 3*8*k
	}
	method := Resolve(opts.Method, g.NumEdges())
	if opts.Budget == 0 && method == Multilevel {
		method = Grow // (Partition grows one part)
	}
	switch method {
	case Grow:
		return result + 4*n + 4*4*n + scan // halo marks, the queue (twice its length, and its last copy's)
	case Ranges:
		return result + 2*8*k + scan // the ranges' bounds
	}
	if GraphBytes(g) <= opts.Budget {
		return result + scan
	}
	cuts := uint64(max(opts.Cuts, 0))
	if cuts == 0 {
		cuts = DefaultCuts
	}
	weighted := 16*n + 12*e // fromGraph: offsets and weights a vertex, neighbour and weight an entry
	if opts.Triangles {
		weighted += 16*n + 12*e // the forward lists, their positions and counts
	}
	// A level while it is made: its lists (at most the finer level's, once in every thread's
	// buffer and once concatenated) and the clustering's and contraction's arrays (ids, sizes,
	// weights, orders and offsets, 64 bytes a vertex, and one offset a vertex a thread).
	level := 2*12*e + (64+8*threads)*n
	// One run: the part of every vertex at every level and its refinement's scratch.
	run := 40*n + scan
	runs := min(cuts, 1+threads)
	return cuts*result + weighted + 2*level + runs*run
}
