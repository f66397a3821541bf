package gen

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/submatch/submatch/graph"
)

// LabelDistribution says how vertex labels are drawn.
type LabelDistribution int

const (
	// UniformLabels draws every label with the same probability.
	UniformLabels LabelDistribution = iota
	// ZipfLabels draws label i (0-based) with probability proportional to 1/(i+1): label 0 is the most
	// frequent, the last the rarest, as in most real labelled graphs.
	ZipfLabels
)

// String names the distribution as the command line spells it.
func (d LabelDistribution) String() string {
	if d == ZipfLabels {
		return "zipf"
	}
	return "uniform"
}

// ParseLabelDistribution reads "uniform" or "zipf".
func ParseLabelDistribution(s string) (LabelDistribution, error) {
	switch s {
	case "uniform", "":
		return UniformLabels, nil
	case "zipf":
		return ZipfLabels, nil
	}
	return 0, fmt.Errorf("unknown label distribution %q (want uniform or zipf)", s)
}

// Graph500 R-MAT initiator probabilities (d = 1 - A - B - C = 0.05).
const (
	RMATA = 0.57
	RMATB = 0.19
	RMATC = 0.19
)

// MaxRMATScale is the largest scale RMAT accepts (2^31 vertices).
const MaxRMATScale = 31

// RMATOptions configures RMAT. The zero value of every field but Scale has a sensible default.
type RMATOptions struct {
	// Scale: the graph has 2^Scale vertices (1..MaxRMATScale).
	Scale int
	// EdgeFactor: the generator draws EdgeFactor * 2^Scale edge samples (default 16). Self-loops
	// are dropped and duplicates merged, so the graph has somewhat fewer edges.
	EdgeFactor int
	// VertexLabels is the number of vertex labels L: labels are 0..L-1 (0 or 1: every label is 0).
	VertexLabels int
	// LabelDistribution of the vertex labels (default UniformLabels).
	LabelDistribution LabelDistribution
	// EdgeLabels is the number of edge labels K: labels are 0..K-1 (0 or 1: every label is 0).
	EdgeLabels int
	// Seed selects the graph; one seed always gives the same graph.
	Seed uint64
	// A, B, C are the initiator probabilities of the top-left, top-right and bottom-left
	// quadrants; all zero selects Graph500's 0.57, 0.19, 0.19.
	A, B, C float64
	// KeepLocality, when set, skips the random relabelling of vertex ids, so vertex 0 is the
	// densest (as in raw R-MAT). By default ids are permuted like Graph500 does.
	KeepLocality bool
}

// rmatBlock is the number of edge samples drawn from one random stream. It is fixed, so the graph
// depends on the seed only, never on how many goroutines drew the blocks.
const rmatBlock = 1 << 18

// RMAT generates a Graph500-style R-MAT graph: 2^Scale vertices (isolated ones included) and
// EdgeFactor*2^Scale undirected edge samples, each found by descending Scale levels of the
// adjacency matrix, choosing a quadrant with probabilities A, B, C and 1-A-B-C at every level.
// Self-loops are dropped and duplicate samples merged. The graph is laid out straight into its
// arrays on all cores (rmatCSR), as graph.Builder would build it from the samples.
//
// Determinism: samples are drawn in fixed blocks of 2^18, block i from its own PCG stream seeded
// from (Seed, i); the blocks may be drawn in parallel, and the graph depends on the set of
// samples only, never on how many goroutines drew or placed them. Vertex ids are
// then relabelled by a permutation drawn from Seed (unless KeepLocality). The vertex label of v is
// a hash of (Seed, v) mapped through the chosen distribution; the edge label of u-v is a hash of
// (Seed, min(u,v), max(u,v)) modulo EdgeLabels, so every duplicate sample of an edge gets the same
// label. Labels are assigned after relabelling, so they do not correlate with degree.
func RMAT(opts RMATOptions) (*graph.Graph, error) {
	opts, err := opts.checked()
	if err != nil {
		return nil, err
	}
	if vshift, eshift, ok := rmatKeyLayout(opts); ok {
		return rmatCSR(opts, vshift, eshift)
	}
	return rmatBuilder(opts)
}

// Check reports why RMAT would refuse the options (nil: it accepts them), without generating
// anything: the command line's usage check.
func (opts RMATOptions) Check() error {
	_, err := opts.checked()
	return err
}

// checked returns the options with their defaults filled in, or why they are invalid.
func (opts RMATOptions) checked() (RMATOptions, error) {
	if opts.Scale < 1 || opts.Scale > MaxRMATScale {
		return opts, fmt.Errorf("rmat: scale %d is outside 1..%d", opts.Scale, MaxRMATScale)
	}
	if opts.EdgeFactor == 0 {
		opts.EdgeFactor = 16
	}
	if opts.EdgeFactor < 0 {
		return opts, fmt.Errorf("rmat: negative edge factor %d", opts.EdgeFactor)
	}
	if uint64(opts.EdgeFactor) > (1<<40)>>opts.Scale {
		return opts, fmt.Errorf("rmat: %d << %d edge samples are more than 2^40", opts.EdgeFactor, opts.Scale)
	}
	if opts.VertexLabels < 0 || opts.EdgeLabels < 0 {
		return opts, fmt.Errorf("rmat: negative number of labels")
	}
	if opts.A == 0 && opts.B == 0 && opts.C == 0 {
		opts.A, opts.B, opts.C = RMATA, RMATB, RMATC
	}
	if opts.A < 0 || opts.B < 0 || opts.C < 0 || opts.A+opts.B+opts.C > 1 {
		return opts, fmt.Errorf("rmat: initiator probabilities %g, %g, %g are not a distribution", opts.A, opts.B, opts.C)
	}
	return opts, nil
}

// rmatBuilder is RMAT through graph.Builder: the samples added one by one from one goroutine,
// then built. It makes the same graph as rmatCSR, many times slower; RMAT uses it only when an
// entry's sort key does not fit in 64 bits (labels beyond 2^(64-Scale) together), and the tests
// check rmatCSR against it.
func rmatBuilder(opts RMATOptions) (*graph.Graph, error) {
	n := uint64(1) << opts.Scale
	samples := uint64(opts.EdgeFactor) << opts.Scale

	perm := identityOrPermutation(n, opts)
	vlabel := vertexLabeller(opts)
	b := graph.NewBuilder(graph.BuilderOptions{DropSelfLoops: true})
	// Create the vertices in id order first: every vertex exists (isolated ones too) and the
	// builder keeps its identity id mapping.
	for v := uint64(0); v < n; v++ {
		if err := b.SetVertexLabel(int64(v), vlabel(v)); err != nil {
			return nil, fmt.Errorf("rmat: %w", err)
		}
	}
	var addErr error
	drawBlocks(samples, opts, func(edges []uint64) {
		for _, e := range edges {
			u, v := perm(e>>32), perm(e&0xffffffff)
			if err := b.AddEdge(int64(u), int64(v), edgeLabel(opts, u, v)); err != nil && addErr == nil {
				addErr = fmt.Errorf("rmat: %w", err)
			}
		}
	})
	if addErr != nil {
		return nil, addErr
	}
	g, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("rmat: %w", err)
	}
	return g, nil
}

// drawBlocks draws all samples in blocks of rmatBlock on up to GOMAXPROCS goroutines and hands
// each block, packed as u<<32|v, to consume in block order. A fixed set of buffers circulates
// between the workers and consume, so memory stays proportional to the number of workers, not to
// the graph.
func drawBlocks(samples uint64, opts RMATOptions, consume func([]uint64)) {
	nblocks := (samples + rmatBlock - 1) / rmatBlock
	workers := min(uint64(max(1, runtime.GOMAXPROCS(0))), nblocks)
	// A worker takes a free buffer before it claims a block, so every claimed block can be
	// finished, and blocks are claimed in order: the block consume waits for always progresses.
	free := make(chan []uint64, 2*workers)
	for range cap(free) {
		free <- make([]uint64, rmatBlock)
	}
	results := make([]chan []uint64, nblocks)
	for i := range results {
		results[i] = make(chan []uint64, 1)
	}
	var next atomic.Uint64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				buf := <-free
				i := next.Add(1) - 1
				if i >= nblocks {
					free <- buf
					return
				}
				buf = buf[:min(rmatBlock, samples-i*rmatBlock)]
				drawBlock(buf, i, opts)
				results[i] <- buf
			}
		}()
	}
	for i := range nblocks {
		buf := <-results[i]
		consume(buf)
		free <- buf[:cap(buf)]
	}
	wg.Wait()
}

// drawBlock fills buf with the samples of block i. Each level of the descent uses 16 random bits,
// so one 64-bit draw serves four levels.
func drawBlock(buf []uint64, block uint64, opts RMATOptions) {
	rng := rand.NewPCG(rmatMix(opts.Seed^0x9e3779b97f4a7c15), rmatMix(block+0x632be59bd9b4e019))
	ta := uint64(opts.A * 65536)
	tb := uint64((opts.A + opts.B) * 65536)
	tc := uint64((opts.A + opts.B + opts.C) * 65536)
	for k := range buf {
		var u, v uint64
		var bits uint64
		left := 0
		for level := 0; level < opts.Scale; level++ {
			if left == 0 {
				bits, left = rng.Uint64(), 4
			}
			r := bits & 0xffff
			bits >>= 16
			left--
			// The quadrant index q in 0..3 is how many thresholds r reaches; its high bit
			// selects the row half, its low bit the column half. Comparisons, not branches:
			// the outcome is random, so branches would mispredict.
			var q uint64
			if r >= ta {
				q++
			}
			if r >= tb {
				q++
			}
			if r >= tc {
				q++
			}
			u = u<<1 | q>>1
			v = v<<1 | q&1
		}
		buf[k] = u<<32 | v
	}
}

// identityOrPermutation returns the relabelling of vertex ids: permutation's, or the identity
// under KeepLocality.
func identityOrPermutation(n uint64, opts RMATOptions) func(uint64) uint64 {
	if opts.KeepLocality {
		return func(v uint64) uint64 { return v }
	}
	p := permutation(n, opts)
	return func(v uint64) uint64 { return uint64(p[v]) }
}

// vertexLabeller returns the label of each vertex: a hash of (seed, v) mapped to 0..L-1 through
// the label distribution.
func vertexLabeller(opts RMATOptions) func(v uint64) uint32 {
	L := opts.VertexLabels
	if L <= 1 {
		return func(uint64) uint32 { return 0 }
	}
	seed := rmatMix(opts.Seed ^ 0xa0761d6478bd642f)
	if opts.LabelDistribution == UniformLabels {
		return func(v uint64) uint32 { return uint32(rmatMix(seed^v) % uint64(L)) }
	}
	// Zipf with exponent 1: cumulative weights, searched by a uniform draw in [0, 1).
	cdf := make([]float64, L)
	total := 0.0
	for i := range cdf {
		total += 1 / float64(i+1)
		cdf[i] = total
	}
	for i := range cdf {
		cdf[i] /= total
	}
	return func(v uint64) uint32 {
		x := float64(rmatMix(seed^v)>>11) / (1 << 53)
		lo, hi := 0, L-1
		for lo < hi {
			mid := (lo + hi) / 2
			if cdf[mid] > x {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return uint32(lo)
	}
}

// edgeLabel returns the label of edge u-v: a hash of the unordered pair, so duplicate samples of
// one edge agree.
func edgeLabel(opts RMATOptions, u, v uint64) uint32 {
	if opts.EdgeLabels <= 1 {
		return 0
	}
	if u > v {
		u, v = v, u
	}
	return uint32(rmatMix(rmatMix(opts.Seed^0xe7037ed1a0b428db^u)^v) % uint64(opts.EdgeLabels))
}

// rmatMix is SplitMix64's finaliser: a bijective, well-mixing hash of a 64-bit word.
func rmatMix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
