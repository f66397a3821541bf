package gen

import (
	"math/bits"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"sync"

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

// rmatPartBits: rmatCSR buckets the entries by vertex in two passes, first into 2^rmatPartBits
// parts of consecutive vertices (a stream a part per goroutine), then each part by vertex.
const rmatPartBits = 10

// rmatSampleChunk is how many samples a goroutine takes at a time when they are bucketed by part.
const rmatSampleChunk = 1 << 20

// rmatCSR is RMAT laid out straight into the graph's CSR arrays on all cores, without the
// general builder: the same graph as graph.Builder makes of the same samples (vertices numbered
// by ascending degree, ties by id; lists ordered by vertex label, edge label and id), in a few
// passes that each stream an array once, with 64-bit positions throughout.
//
// The lists are built on sort ids: a vertex's sort id is its rank by (label, id), so a list
// sorted by sort id is sorted by (label, id), label runs are ranges of sort ids, and neither the
// sort nor the runs look a label up per entry (a cache miss each at 10^8 vertices).
//
//  1. The samples into one array (block i from its own stream, so in parallel), while another
//     goroutine draws the relabelling; the vertex labels are hashed, the sort ids counted out
//     (graph.OrderByLabel) and composed with the relabelling.
//  2. Map each sample's ends to sort ids in place and count, per chunk of samples, the entries
//     (both directions of each sample, duplicates included) going to each of 1,024 parts of
//     consecutive sort ids.
//  3. Scatter the entries (from, to) by part, each chunk into its own slots (no atomics, a
//     write stream a part); the samples go. Then each part, on its own core, by vertex into
//     the buckets (a counting sort over the part's 2^(Scale-10) vertices): the bucket array has
//     the parts' layout, so a vertex's bucket is where its part's counts put it.
//  4. Each bucket sorted by sort id (with edge labels: by label, edge label, sort id) and
//     deduplicated in place: the true degrees and each list's number of runs.
//  5. The vertices numbered by degree (graph.DegreeOrder), and the final lists filled from the
//     buckets: ids renumbered, each run sorted by the new ids (runs are short: 1,000 labels over
//     a list of 54 make runs of 1-7), the run index written beside.
//
// Memory: 8 bytes a sample for the samples, then 8 bytes an entry (16 a sample) for the
// entries by part beside them, then 4 bytes an entry for the buckets; at the peak (step 5) the
// buckets and the graph's arrays (about 21 bytes an edge with 1,000 zipf labels). Each array is
// handed back to the system once done with (debug.FreeOSMemory), so the process peaks at about
// 30 bytes a sample (measured at scales 20-23, edge factor 27, 1,000 zipf labels:
// docs/benchmarks.md, issue 21, branch frgen). RMATOptions.Memory bounds it from the options;
// a change to the passes' arrays changes that count too.
func rmatCSR(opts RMATOptions, vshift, eshift uint) (*graph.Graph, error) {
	n := 1 << opts.Scale
	ns := opts.EdgeFactor << opts.Scale
	edgeLabelled := opts.EdgeLabels > 1

	// 1. Samples, relabelling, labels and sort ids.
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
	vertexChunks := (n + rmatChunk - 1) / rmatChunk
	par.For(vertexChunks, 0, func(c int) {
		for v := c * rmatChunk; v < min((c+1)*rmatChunk, n); v++ {
			labels[v] = vlabel(uint64(v))
		}
	})
	byLabel := graph.OrderByLabel(labels) // byLabel[sort id] = id
	sortID := make([]uint32, n)
	par.For(vertexChunks, 0, func(c int) {
		for k := c * rmatChunk; k < min((c+1)*rmatChunk, n); k++ {
			sortID[byLabel[k]] = uint32(k)
		}
	})
	runsOf := newLabelBlocks(labels, byLabel)
	wg.Wait()
	toSort := sortID // the raw R-MAT id's sort id
	if perm != nil {
		par.For(vertexChunks, 0, func(c int) {
			for r := c * rmatChunk; r < min((c+1)*rmatChunk, n); r++ {
				perm[r] = sortID[perm[r]]
			}
		})
		toSort = perm
	}

	// 2. Map to sort ids, count each chunk's entries to each part (a range of 2^shift sort ids).
	shift := max(0, opts.Scale-rmatPartBits)
	parts := n >> shift
	chunks := (ns + rmatSampleChunk - 1) / rmatSampleChunk
	counts := make([]uint64, chunks*parts) // counts[c*parts+p], then chunk c's first slot in part p
	par.For(chunks, 0, func(c int) {
		cnt := counts[c*parts : (c+1)*parts]
		for i := c * rmatSampleChunk; i < min((c+1)*rmatSampleChunk, ns); i++ {
			u, v := s[i]>>32, s[i]&0xffffffff
			if u == v {
				continue // a self-loop: dropped (its vertex exists anyway)
			}
			u, v = uint64(toSort[u]), uint64(toSort[v])
			s[i] = u<<32 | v
			cnt[u>>shift]++
			cnt[v>>shift]++
		}
	})
	perm, toSort = nil, nil
	partStart := make([]uint64, parts+1)
	for p := range parts {
		sum := partStart[p]
		for c := range chunks {
			k := counts[c*parts+p]
			counts[c*parts+p] = sum
			sum += k
		}
		partStart[p+1] = sum
	}

	// 3. Scatter the entries (from, to) by part, each chunk into its own slots (no atomics, each
	// chunk's writes in parts streams); the samples go.
	entries := huge.Make[uint64](int(partStart[parts]))
	par.For(chunks, 0, func(c int) {
		pos := counts[c*parts : (c+1)*parts]
		for i := c * rmatSampleChunk; i < min((c+1)*rmatSampleChunk, ns); i++ {
			u, v := s[i]>>32, s[i]&0xffffffff
			if u != v {
				entries[pos[u>>shift]] = u<<32 | v
				pos[u>>shift]++
				entries[pos[v>>shift]] = v<<32 | u
				pos[v>>shift]++
			}
		}
	})
	s, counts = nil, nil
	debug.FreeOSMemory() // the samples go back to the system before the buckets come
	// Then each part's entries into its vertices' buckets, at the same positions (the parts are
	// in vertex order): a counting sort by vertex over one part's range, on all cores.
	off := make([]uint64, n+1) // sort id t's bucket is [off[t], off[t+1])
	bucket := huge.Make[uint32](int(partStart[parts]))
	par.For(parts, 0, func(p int) {
		lo, first := p<<shift, partStart[p]
		part := entries[first:partStart[p+1]]
		local := off[lo+1 : lo+1+1<<shift] // counts, then each vertex's next slot
		for _, e := range part {
			local[e>>32-uint64(lo)]++
		}
		sum := first
		for i, k := range local {
			local[i] = sum
			sum += k
		}
		for _, e := range part {
			t := e>>32 - uint64(lo)
			bucket[local[t]] = uint32(e)
			local[t]++
		}
		// Now local[i] is the end of vertex lo+i's bucket: off[lo+i+1], as wanted.
	})
	entries = nil
	debug.FreeOSMemory() // the entries' 8 bytes each go before the graph's arrays come

	// edgeLabelOf is the label of the edge between the vertices of sort ids t and x.
	edgeLabelOf := func(t, x uint32) uint32 {
		return edgeLabel(opts, uint64(byLabel[t]), uint64(byLabel[x]))
	}
	// 4. Sort and deduplicate each bucket.
	keep := make([]uint64, n) // by id
	nruns := make([]uint32, n)
	ranges := graph.CSRRanges(off, rmatChunk)
	workers := par.Workers(len(ranges)-1, 0, 1)
	scratch := make([][]uint64, workers)
	par.Ranges(len(ranges)-1, workers, 1, func(w, lo, hi int) bool {
		keys := scratch[w]
		for t := ranges[lo]; t < ranges[hi]; t++ {
			list := bucket[off[t]:off[t+1]]
			kept := 0
			if !edgeLabelled {
				slices.Sort(list)
				for i, x := range list {
					if i == 0 || x != list[kept-1] {
						list[kept] = x
						kept++
					}
				}
			} else {
				keys = keys[:0]
				for _, x := range list {
					keys = append(keys, uint64(runsOf.label(x))<<vshift|uint64(edgeLabelOf(uint32(t), x))<<eshift|uint64(x))
				}
				slices.Sort(keys)
				for i, k := range keys {
					if i == 0 || k != keys[i-1] {
						list[kept] = uint32(k & (1<<eshift - 1))
						kept++
					}
				}
			}
			list = list[:kept]
			runs := uint32(0)
			var end, el uint32
			for j, x := range list {
				var xe uint32
				if edgeLabelled {
					xe = edgeLabelOf(uint32(t), x)
				}
				if j == 0 || x >= end || xe != el {
					_, end = runsOf.block(x)
					el = xe
					runs++
				}
			}
			keep[byLabel[t]], nruns[byLabel[t]] = uint64(kept), runs
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
	moved := make([]bool, vertexChunks) // chunk c has a vertex whose new id is not its id
	par.For(vertexChunks, 0, func(c int) {
		for i := c * rmatChunk; i < min((c+1)*rmatChunk, n); i++ {
			v := order[i]
			raw.Offsets[i+1], raw.RunOffsets[i+1] = keep[v], uint64(nruns[v])
			raw.VertexLabels[i], raw.OriginalIDs[i] = labels[v], int64(v)
			moved[c] = moved[c] || int(v) != i
		}
	})
	for i := range n {
		raw.Offsets[i+1] += raw.Offsets[i]
		raw.RunOffsets[i+1] += raw.RunOffsets[i]
	}
	if !slices.Contains(moved, true) {
		raw.OriginalIDs = nil
	}
	keep, nruns, labels = nil, nil, nil
	newBySort := make([]uint32, n) // newBySort[sort id] = new id
	par.For(vertexChunks, 0, func(c int) {
		for k := c * rmatChunk; k < min((c+1)*rmatChunk, n); k++ {
			newBySort[k] = newID[byLabel[k]]
		}
	})
	newID = nil
	raw.Neighbors = huge.Make[uint32](int(raw.Offsets[n]))
	raw.Runs = huge.Make[graph.Run](int(raw.RunOffsets[n]))
	if edgeLabelled {
		raw.EdgeLabels = huge.Make[uint32](int(raw.Offsets[n]))
	}
	out := graph.CSRRanges(raw.Offsets, rmatChunk)
	par.For(len(out)-1, 0, func(r int) {
		for i := out[r]; i < out[r+1]; i++ {
			t := sortID[order[i]]
			base := raw.Offsets[i]
			dst := raw.Neighbors[base:raw.Offsets[i+1]]
			src := bucket[off[t] : off[t]+uint64(len(dst))]
			k := raw.RunOffsets[i]
			start := 0
			var end, el uint32
			for j, x := range src {
				var xe uint32
				if edgeLabelled {
					xe = edgeLabelOf(t, x)
					raw.EdgeLabels[base+uint64(j)] = xe
				}
				if j == 0 || x >= end || xe != el {
					if j-start > 1 {
						slices.Sort(dst[start:j])
					}
					var xl uint32
					xl, end = runsOf.block(x)
					el = xe
					raw.Runs[k] = graph.Run{VertexLabel: xl, EdgeLabel: xe, Start: base + uint64(j)}
					k++
					start = j
				}
				dst[j] = newBySort[x]
			}
			slices.Sort(dst[start:])
		}
	})
	if edgeLabelled && !slices.ContainsFunc(raw.EdgeLabels, func(l uint32) bool { return l != 0 }) {
		raw.EdgeLabels = nil // as the builder keeps no labels when all are 0
	}
	return graph.FromRawTrusted(raw)
}

// labelBlocks finds the label of a sort id: the sort ids of one label form one range, the
// ranges in label order (starts[i] is the first sort id of label labels[i]). first[x>>shift] is
// the block of sort id x>>shift<<shift, with about four entries a block, so that a lookup is a
// table read and a step or two forward (a binary search per run took 11% of the generator).
type labelBlocks struct {
	starts, labels []uint32
	first          []uint32
	shift          uint
	n              uint32
}

// newLabelBlocks returns the blocks of the vertices ordered by label (byLabel, from
// graph.OrderByLabel of labels).
func newLabelBlocks(labels, byLabel []uint32) labelBlocks {
	b := labelBlocks{n: uint32(len(byLabel))}
	top := slices.Max(labels)
	if uint64(top) >= uint64(len(labels))+1<<16 {
		// Sparse labels: read them in sort order (a lookup a vertex).
		for k, v := range byLabel {
			if l := labels[v]; k == 0 || l != b.labels[len(b.labels)-1] {
				b.starts = append(b.starts, uint32(k))
				b.labels = append(b.labels, l)
			}
		}
	} else {
		// Count each label in one streaming pass; the blocks follow in label order.
		count := make([]uint32, uint64(top)+1)
		for _, l := range labels {
			count[l]++
		}
		k := uint32(0)
		for l, c := range count {
			if c > 0 {
				b.starts = append(b.starts, k)
				b.labels = append(b.labels, uint32(l))
				k += c
			}
		}
	}
	for uint64(b.n)>>(b.shift+1) >= 4*uint64(len(b.starts)) {
		b.shift++
	}
	b.first = make([]uint32, uint64(b.n)>>b.shift+1)
	i := 0
	for j := range b.first {
		for x := uint64(j) << b.shift; i+1 < len(b.starts) && uint64(b.starts[i+1]) <= x; {
			i++
		}
		b.first[j] = uint32(i)
	}
	return b
}

// block returns the label of sort id x and the end of its label's range of sort ids.
func (b *labelBlocks) block(x uint32) (label, end uint32) {
	i := int(b.first[x>>b.shift])
	for i+1 < len(b.starts) && b.starts[i+1] <= x {
		i++
	}
	end = b.n
	if i+1 < len(b.starts) {
		end = b.starts[i+1]
	}
	return b.labels[i], end
}

// label returns the label of sort id x.
func (b *labelBlocks) label(x uint32) uint32 {
	l, _ := b.block(x)
	return l
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
