package gen

import (
	"fmt"
	"math"
	"runtime"

	"github.com/submatch/submatch/internal/checked"
)

// RMATMemory is what RMAT's memory needs for a set of options, in bytes: upper bounds computed
// from the options alone, before anything is drawn, so that a command can refuse a graph the
// machine cannot hold instead of being killed by the operating system halfway through.
type RMATMemory struct {
	// Peak bounds the heap that RMAT holds at its peak: every array of rmatCSR's passes (or
	// graph.Builder's, where rmatCSR cannot run) that may be resident at once, as if no sample
	// were a duplicate or a self-loop, with the per-vertex arrays all counted as live (the
	// garbage collector may not have returned those already dropped).
	Peak uint64
	// Graph bounds the arrays of the graph RMAT returns (what is held once it returns, while
	// the graph is written, say).
	Graph uint64
}

// RMATRuntimeBytes is the allowance for what the Go runtime and the program take beside the
// generator's arrays (code, stacks, the heap's metadata and slack), which RMATMemory leaves out.
const RMATRuntimeBytes = 64 << 20

// Memory returns the upper bounds of RMAT's memory for opts (see RMATMemory), or why RMAT
// would refuse opts. Neither includes the runtime's allowance (RMATRuntimeBytes).
//
// The count, for n = 2^Scale vertices, s = EdgeFactor*n samples and at most E = 2s adjacency
// entries (both directions of every sample), R runs (each list has at most min(degree, L*K)
// label runs for L vertex and K edge labels: R <= min(E, n*L*K)):
//
//   - edges, passes 1-3: the samples (8 bytes each) beside the entries by part (8 each), then the
//     entries beside the buckets (4 each): 24s;
//   - edges, passes 4-5: the buckets and the graph's lists (4 bytes an entry each, and 4 more for
//     edge labels), and its runs (16 bytes each): 8E (+4E) + 16R;
//   - vertices: fifteen arrays of 4 or 8 bytes a vertex (relabelling, labels, sort ids, bucket
//     offsets, degrees and runs, the numbering, the graph's offsets, labels and original ids),
//     76 bytes a vertex, plus the label tables (at most 56 bytes a label present and 8 a label);
//   - the per-core sort buffers of pass 4 (edge labels only) and the degree table of the
//     numbering, both as long as the densest list: R-MAT's vertex 0 expects
//     s*((a+b)^Scale + (a+c)^Scale) entries, counted four times over;
//   - the chunk counts of pass 2 (8 bytes a part and chunk of 2^20 samples).
//
// Measured peak RSS against Peak: docs/benchmarks.md, branch robust.
func (opts RMATOptions) Memory() (RMATMemory, error) {
	opts, err := opts.checked()
	if err != nil {
		return RMATMemory{}, err
	}
	n := uint64(1) << opts.Scale
	s := uint64(opts.EdgeFactor) << opts.Scale // at most 2^40 (checked)
	e := 2 * s
	L, K := uint64(max(opts.VertexLabels, 1)), uint64(max(opts.EdgeLabels, 1))
	runs := min(e, satMul(n, satMul(L, K)))
	labelsPresent := min(L, n)
	hub := opts.hubEntries(s)

	var lists, edgeLabels uint64 = 4 * e, 0
	if K > 1 {
		edgeLabels = 4 * e
	}
	graphBytes := 4*n + 8*(n+1) + 8*(n+1) + 8*n + lists + edgeLabels + 16*runs
	if _, _, ok := rmatKeyLayout(opts); !ok {
		return RMATMemory{Peak: builderPeak(n, s, graphBytes), Graph: graphBytes}, nil
	}
	edges := max(24*s, 4*e+lists+edgeLabels+16*runs)
	vertices := 76*n + 56*labelsPresent + 8*min(L, n+1<<16)
	parts := n >> max(0, opts.Scale-rmatPartBits)
	counts := 8 * parts * ((s + rmatSampleChunk - 1) / rmatSampleChunk)
	scratch := 4 * (hub + 1) // the numbering's degree table
	if K > 1 {
		scratch += uint64(runtime.GOMAXPROCS(0)) * 8 * hub
	}
	return RMATMemory{Peak: edges + vertices + counts + scratch, Graph: graphBytes}, nil
}

// builderPeak bounds graph.Builder's peak for RMAT's samples (rmatBuilder): its pairs and edge
// labels (12 bytes a sample, doubled as the slices grow), the builder's vertex tables, and the
// build's own arrays beside the finished graph's (counted twice over).
func builderPeak(n, s, graphBytes uint64) uint64 {
	return 24*s + 64*n + 2*graphBytes
}

// hubEntries is four times the adjacency entries R-MAT's densest vertex (vertex 0 before the
// relabelling, when A is the largest probability) expects: the length the per-list buffers
// need, with room for the draw's spread and for append's doubling; at most 2s.
func (opts RMATOptions) hubEntries(s uint64) uint64 {
	row := max(opts.A+opts.B, 1-opts.A-opts.B)
	col := max(opts.A+opts.C, 1-opts.A-opts.C)
	expect := float64(s) * (math.Pow(row, float64(opts.Scale)) + math.Pow(col, float64(opts.Scale)))
	return min(2*s, uint64(4*expect)+64)
}

// satMul is a*b, or the largest uint64 when that overflows.
func satMul(a, b uint64) uint64 {
	if p, ok := checked.Mul(a, b); ok {
		return p
	}
	return math.MaxUint64
}

// String says the bounds in GiB, for messages.
func (m RMATMemory) String() string {
	return fmt.Sprintf("peak %.2f GiB, graph %.2f GiB", float64(m.Peak)/(1<<30), float64(m.Graph)/(1<<30))
}
