package sgsi

import (
	"runtime"
	"slices"
	"sync"

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

// labelGraph is the data graph's edges of one edge label (or of every label: the key anyEdge),
// as a CSR whose neighbour lists are sorted by id: SGSI's edge-label-partitioned graph P(G,l),
// stored without its labels. It lives in host memory; the device sees segments of it.
type labelGraph struct {
	offsets []uint64 // |V|+1
	nbrs    []uint32
}

func (lg *labelGraph) degree(v uint32) uint64 { return lg.offsets[v+1] - lg.offsets[v] }
func (lg *labelGraph) list(v uint32) []uint32 { return lg.nbrs[lg.offsets[v]:lg.offsets[v+1]] }

// anyEdge keys the label graph of every edge (wildcard edge labels, induced non-adjacency).
const anyEdge = uint64(1) << 32

// store is what sgsi keeps of one data graph in host memory: the column-first signature table and
// the label graphs built so far. It is built once per graph and shared by the counts on it.
type store struct {
	g    *graph.Graph
	sigs []uint32 // column-first: word j of vertex v at j*|V|+v

	mu     sync.Mutex
	labels map[uint64]*labelGraph
}

func newStore(g *graph.Graph) *store {
	n := g.NumVertices()
	s := &store{g: g, sigs: make([]uint32, sigWords*n), labels: map[uint64]*labelGraph{}}
	// Ranges of consecutive vertices a thread: threads taking every workers-th vertex (as before)
	// wrote neighbouring words of one cache line from every core.
	par.Ranges(n, 0, 4096, func(_, lo, hi int) bool {
		var sig [sigWords]uint32
		for v := lo; v < hi; v++ {
			sig = [sigWords]uint32{labelBit(g.VertexLabel(uint32(v)))}
			nb := g.Neighbors(uint32(v))
			el := g.NeighborEdgeLabels(uint32(v))
			for i, x := range nb {
				l := uint32(0)
				if el != nil {
					l = el[i]
				}
				addPair(sig[:], pairGroup(l, g.VertexLabel(x)))
			}
			for j := range sigWords {
				s.sigs[j*n+v] = sig[j]
			}
		}
		return true
	})
	return s
}

// label returns the label graph of key (an edge label, or anyEdge), building it on first use.
func (s *store) label(key uint64) *labelGraph {
	s.mu.Lock()
	defer s.mu.Unlock()
	if lg := s.labels[key]; lg != nil {
		return lg
	}
	g := s.g
	n := g.NumVertices()
	keep := func(v uint32, i int) bool { return true }
	if key != anyEdge {
		keep = func(v uint32, i int) bool {
			el := g.NeighborEdgeLabels(v)
			l := uint32(0)
			if el != nil {
				l = el[i]
			}
			return uint64(l) == key
		}
	}
	lg := &labelGraph{offsets: make([]uint64, n+1)}
	deg := make([]uint64, n)
	workers := runtime.GOMAXPROCS(0)
	par.For(n, workers, func(v int) {
		c := uint64(0)
		for i := range g.Neighbors(uint32(v)) {
			if keep(uint32(v), i) {
				c++
			}
		}
		deg[v] = c
	})
	for v := range n {
		lg.offsets[v+1] = lg.offsets[v] + deg[v]
	}
	lg.nbrs = make([]uint32, lg.offsets[n])
	par.For(n, workers, func(v int) {
		out := lg.nbrs[lg.offsets[v]:lg.offsets[v]:lg.offsets[v+1]]
		for i, x := range g.Neighbors(uint32(v)) {
			if keep(uint32(v), i) {
				out = append(out, x)
			}
		}
		slices.Sort(out)
	})
	s.labels[key] = lg
	return lg
}

// has reports whether the label graph of key is built.
func (s *store) has(key uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.labels[key] != nil
}

// labelBytes is what the label graph of key takes in host memory (built or not).
func (s *store) labelBytes(key uint64) uint64 {
	g := s.g
	n := g.NumVertices()
	m := uint64(0)
	for v := range n {
		if key == anyEdge || !g.HasEdgeLabels() {
			if key == anyEdge || key == 0 {
				m += uint64(len(g.Neighbors(uint32(v))))
			}
			continue
		}
		for _, l := range g.NeighborEdgeLabels(uint32(v)) {
			if uint64(l) == key {
				m++
			}
		}
	}
	return 8*uint64(n+1) + 4*m
}

// bytes is what the store holds in host memory: the signature table and the label graphs built.
func (s *store) bytes() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := 4 * uint64(len(s.sigs))
	for _, lg := range s.labels {
		b += 8*uint64(len(lg.offsets)) + 4*uint64(len(lg.nbrs))
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
func (sg segment) head() uint64 { return sg.elo - sg.lg.offsets[sg.lo] }

// tail reports whether vertex hi-1's list goes on after the segment.
func (sg segment) tail() bool { return sg.ehi < sg.lg.offsets[sg.hi] }

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
	off := lg.offsets
	n := uint32(len(off) - 1)
	var segs []segment
	lo, elo := uint32(0), off[0]
	for lo < n {
		words := func(hi uint32) uint64 { return uint64(hi-lo) + 1 + off[hi] - elo }
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
		segs = append(segs, segment{lg, lo, hi, elo, off[hi]})
		lo, elo = hi, off[hi]
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
	for v := sg.lo; v <= sg.hi; v++ {
		o := min(max(sg.lg.offsets[v], sg.elo), sg.ehi)
		buf = append(buf, uint32(o-sg.elo))
	}
	return buf
}

func (sg segment) neighbours() []uint32 { return sg.lg.nbrs[sg.elo:sg.ehi] }

// bitsetWords is the length in 32-bit words of a bitset over n vertices.
func bitsetWords(n int) uint64 { return uint64(n+31) / 32 }
