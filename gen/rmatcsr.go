package gen

import (
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/huge"
	"github.com/submatch/submatch/internal/par"
)

// rmatKeyLayout returns where an adjacency entry's sort key (vertex label, edge label, id) keeps
// its fields in one uint64: the vertex label from bit vshift, the edge label from bit eshift
// (= Scale), the neighbour's id below. ok is false when the three do not fit in 64 bits.
func rmatKeyLayout(opts RMATOptions) (vshift, eshift uint, ok bool) {
	vb := bits.Len(uint(max(opts.VertexLabels, 1) - 1))
	eb := bits.Len(uint(max(opts.EdgeLabels, 1) - 1))
	if vb+eb+opts.Scale > 64 {
		return 0, 0, false
	}
	return uint(eb + opts.Scale), uint(opts.Scale), true
}

// rmatChunk is how many samples (or vertices) a goroutine takes at a time in rmatCSR's passes.
const rmatChunk = 1 << 16

// rmatCSR is RMAT laid out straight into the graph's CSR arrays on all cores, without the
// general builder: the same graph as graph.Builder makes of the same samples (vertices numbered
// by ascending degree, ties by id; lists ordered by vertex label, edge label and id), in a few
// passes that each stream an array once, with 64-bit positions throughout.
//
//  1. The samples into one array (block i from its own stream, so in parallel), while another
//     goroutine draws the relabelling and the vertex labels are hashed.
//  2. Relabel in place and count each vertex's entries (duplicates included; atomic adds).
//  3. Scatter every sample's two entries into its ends' buckets (positions taken atomically:
//     the order inside a bucket is not deterministic, but it is sorted next). The samples go.
//  4. Each bucket sorted by the key (vertex label, edge label, id) and deduplicated: the true
//     degrees and each list's number of label runs.
//  5. The vertices numbered by degree (graph.DegreeOrder), and the final lists filled from the
//     buckets: ids renumbered, each label run sorted by the new ids (runs are short: 1,000
//     labels over a list of 54 make runs of 1-7), the run index written beside.
//
// Memory at the peak (step 5): the buckets (4 bytes an entry, duplicates included) and the
// graph's arrays; the samples (8 bytes each) are freed before. At 1.8e9 samples and 1,000 zipf
// labels that is about 14.5 GB of buckets beside a graph of about 34 GB.
func rmatCSR(opts RMATOptions, vshift, eshift uint) (*graph.Graph, error) {
	n := 1 << opts.Scale
	ns := opts.EdgeFactor << opts.Scale
	idMask := uint64(n - 1)

	// 1. Samples, relabelling and vertex labels.
	s := huge.Make[uint64](ns)
	var perm []uint32
	var wg sync.WaitGroup
	if !opts.KeepLocality {
		wg.Go(func() { perm = permutation(uint64(n), opts) })
	}
	par.For((ns+rmatBlock-1)/rmatBlock, 0, func(i int) {
		lo := i * rmatBlock
		drawBlock(s[lo:min(lo+rmatBlock, ns)], uint64(i), opts)
	})
	labels := make([]uint32, n)
	vlabel := vertexLabeller(opts)
	par.For((n+rmatChunk-1)/rmatChunk, 0, func(c int) {
		for v := c * rmatChunk; v < min((c+1)*rmatChunk, n); v++ {
			labels[v] = vlabel(uint64(v))
		}
	})
	wg.Wait()

	// 2. Relabel, count.
	off := make([]uint64, n+1) // entries of vertex v at off[v+1], then its bucket's start at off[v]
	chunks := (ns + rmatChunk - 1) / rmatChunk
	par.For(chunks, 0, func(c int) {
		for i := c * rmatChunk; i < min((c+1)*rmatChunk, ns); i++ {
			u, v := s[i]>>32, s[i]&0xffffffff
			if u == v {
				continue // a self-loop: dropped (its vertex exists anyway)
			}
			if perm != nil {
				u, v = uint64(perm[u]), uint64(perm[v])
				s[i] = u<<32 | v
			}
			atomic.AddUint64(&off[u+1], 1)
			atomic.AddUint64(&off[v+1], 1)
		}
	})
	perm = nil
	for v := range n {
		off[v+1] += off[v]
	}

	// 3. Scatter.
	bucket := huge.Make[uint32](int(off[n]))
	fill := slices.Clone(off[:n])
	par.For(chunks, 0, func(c int) {
		for i := c * rmatChunk; i < min((c+1)*rmatChunk, ns); i++ {
			u, v := s[i]>>32, s[i]&0xffffffff
			if u != v {
				bucket[atomic.AddUint64(&fill[u], 1)-1] = uint32(v)
				bucket[atomic.AddUint64(&fill[v], 1)-1] = uint32(u)
			}
		}
	})
	s, fill = nil, nil
	runtime.GC() // the samples' 8 bytes each go before the graph's arrays come

	// 4. Sort and deduplicate each bucket by its key.
	edgeLabelled := opts.EdgeLabels > 1
	keep := make([]uint64, n)
	nruns := make([]uint32, n)
	ranges := graph.CSRRanges(off, rmatChunk)
	workers := par.Workers(len(ranges)-1, 0, 1)
	scratch := make([][]uint64, workers)
	par.Ranges(len(ranges)-1, workers, 1, func(w, lo, hi int) bool {
		keys := scratch[w]
		for v := ranges[lo]; v < ranges[hi]; v++ {
			list := bucket[off[v]:off[v+1]]
			keys = keys[:0]
			for _, x := range list {
				k := uint64(labels[x])<<vshift | uint64(x)
				if edgeLabelled {
					k |= uint64(edgeLabel(opts, uint64(v), uint64(x))) << eshift
				}
				keys = append(keys, k)
			}
			slices.Sort(keys)
			kept, runs := 0, uint32(0)
			for i, k := range keys {
				if i > 0 && k == keys[i-1] {
					continue
				}
				if i == 0 || k>>eshift != keys[i-1]>>eshift {
					runs++
				}
				list[kept] = uint32(k & idMask)
				kept++
			}
			keep[v], nruns[v] = uint64(kept), runs
		}
		scratch[w] = keys
		return true
	})
	scratch = nil

	// 5. Number the vertices, fill the lists and runs.
	order, newID := graph.DegreeOrder(keep)
	raw := graph.Raw{
		VertexLabels: make([]uint32, n),
		Offsets:      make([]uint64, n+1),
		RunOffsets:   make([]uint64, n+1),
		OriginalIDs:  make([]int64, n),
	}
	identity := true
	for i, v := range order {
		raw.Offsets[i+1] = raw.Offsets[i] + keep[v]
		raw.RunOffsets[i+1] = raw.RunOffsets[i] + uint64(nruns[v])
		raw.VertexLabels[i] = labels[v]
		raw.OriginalIDs[i] = int64(v)
		identity = identity && int(v) == i
	}
	if identity {
		raw.OriginalIDs = nil
	}
	keep, nruns = nil, nil
	raw.Neighbors = huge.Make[uint32](int(raw.Offsets[n]))
	raw.Runs = huge.Make[graph.Run](int(raw.RunOffsets[n]))
	if edgeLabelled {
		raw.EdgeLabels = huge.Make[uint32](int(raw.Offsets[n]))
	}
	out := graph.CSRRanges(raw.Offsets, rmatChunk)
	par.For(len(out)-1, 0, func(r int) {
		for i := out[r]; i < out[r+1]; i++ {
			v := order[i]
			base := raw.Offsets[i]
			dst := raw.Neighbors[base:raw.Offsets[i+1]]
			src := bucket[off[v] : off[v]+uint64(len(dst))]
			k := raw.RunOffsets[i]
			start := 0
			var vl, el uint32
			for j, x := range src {
				xl := labels[x]
				var xe uint32
				if edgeLabelled {
					xe = edgeLabel(opts, uint64(v), uint64(x))
					raw.EdgeLabels[base+uint64(j)] = xe
				}
				if j == 0 || xl != vl || xe != el {
					slices.Sort(dst[start:j])
					raw.Runs[k] = graph.Run{VertexLabel: xl, EdgeLabel: xe, Start: base + uint64(j)}
					k++
					start, vl, el = j, xl, xe
				}
				dst[j] = newID[x]
			}
			slices.Sort(dst[start:])
		}
	})
	if edgeLabelled && !slices.ContainsFunc(raw.EdgeLabels, func(l uint32) bool { return l != 0 }) {
		raw.EdgeLabels = nil // as the builder keeps no labels when all are 0
	}
	return graph.FromRawTrusted(raw)
}

// permutation returns the relabelling of vertex ids drawn from the seed (Fisher-Yates):
// permutation[v] is the id vertex v of the raw R-MAT gets.
func permutation(n uint64, opts RMATOptions) []uint32 {
	p := make([]uint32, n)
	for i := range p {
		p[i] = uint32(i)
	}
	rng := rand.New(rand.NewPCG(rmatMix(opts.Seed^0x5bd1e9955bd1e995), 0xda942042e4dd58b5))
	rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}
