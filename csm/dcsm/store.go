package dcsm

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"

	"github.com/submatch/submatch/graph/dynamic"
)

// The multi-version graph. Every vertex owns one block of a pool of entries (a power of two of
// them), its neighbours sorted by key (the neighbour's vertex label << 32 | its dense id), then by
// creation time. An entry is one version of an edge: its edge label and the interval [c, d) of
// update timestamps in which it exists (update t sees G_t, the graph after updates 1..t; the
// initial graph's entries have c = 0, an edge not deleted has d = inf). An update at t reads
// G_t (the matches it creates) and G_{t-1} (those it destroys), so an entry is visible to a read
// at τ when c <= τ < d.
//
// Updates are applied in waves (every update that has arrived, up to a bound). The updater
// rewrites each vertex the wave touches into a new block, merging its live entries with the
// wave's insertions (deletions set d in place), so every update of the wave finds its own
// version; the executor then matches every update of the wave at its own timestamp. The collector:
// an entry deleted in a wave is invisible to every later update (they read at τ >= the wave's last
// timestamp), so the next wave rewrites its vertex without it (a rewrite with no insertion when
// nothing else touches the vertex), and the blocks a wave leaves are reused from the wave after
// (the wave's own updater still reads them). The pool holds the live edges twice, the current
// wave's deletions, and the rounding of blocks to powers of two.
//
// This file is the host's side: block allocation and the bookkeeping of what each vertex holds.
// The pool itself lives in the backend (GPU memory, or Go slices for the emulation).

const inf = ^uint32(0)

// minClass is the smallest block: 1<<minClass entries.
const minClass = 2

type block struct {
	off   uint64
	class uint8
}

// store is the host's view of the pool: where each vertex's block is and what it holds.
type store struct {
	off     []uint64 // per vertex: its block
	class   []uint8  // its block's class (noBlock: none)
	ln      []uint32 // entries stored
	dead    []uint32 // entries deleted (in the last wave that touched the vertex)
	free    [][]uint64
	pending []block // blocks left by the current wave: free from the next one
	top     uint64  // the pool's used prefix (entries)
	compact []uint32
	live    uint64 // entries in blocks (stored)
}

const noBlock = 0xff

func (s *store) grow(n int) {
	for len(s.off) < n {
		s.off = append(s.off, 0)
		s.class = append(s.class, noBlock)
		s.ln = append(s.ln, 0)
		s.dead = append(s.dead, 0)
	}
}

func classOf(n uint32) uint8 {
	if n <= 1<<minClass {
		return minClass
	}
	return uint8(bits.Len32(n - 1))
}

func (s *store) alloc(n uint32) block {
	c := classOf(n)
	for int(c) >= len(s.free) {
		s.free = append(s.free, nil)
	}
	if k := len(s.free[c]); k > 0 {
		off := s.free[c][k-1]
		s.free[c] = s.free[c][:k-1]
		return block{off, c}
	}
	b := block{s.top, c}
	s.top += 1 << c
	return b
}

// release makes the blocks the last wave left available.
func (s *store) release() {
	for _, b := range s.pending {
		s.free[b.class] = append(s.free[b.class], b.off)
	}
	s.pending = s.pending[:0]
}

// initial is the pool's first content: every vertex's entries of g.
type initial struct {
	keys []uint64
	el   []uint32
}

// load lays out g's adjacency lists in blocks, the edges relevant admits only (see
// table.relevant).
func (s *store) load(g *dynamic.Graph, relevant func(l0, l1 uint32) bool) (initial, error) {
	n := g.IDBound()
	s.grow(n)
	var in initial
	type ent struct {
		key uint64
		el  uint32
	}
	var tmp []ent
	for v := range uint32(n) {
		if !g.Alive(v) || g.Degree(v) == 0 {
			continue
		}
		tmp = tmp[:0]
		lv := g.Label(v)
		for _, r := range g.Runs(v) {
			if !relevant(lv, r.VertexLabel) {
				continue
			}
			for _, w := range r.Neighbors {
				tmp = append(tmp, ent{uint64(r.VertexLabel)<<32 | uint64(w), r.EdgeLabel})
			}
		}
		if len(tmp) == 0 {
			continue
		}
		slices.SortFunc(tmp, func(a, b ent) int { return cmp.Compare(a.key, b.key) })
		if len(tmp) >= 1<<31 {
			return in, fmt.Errorf("dcsm: vertex %d has %d edges", g.OriginalID(v), len(tmp))
		}
		b := s.alloc(uint32(len(tmp)))
		s.off[v], s.class[v], s.ln[v] = b.off, b.class, uint32(len(tmp))
		s.live += uint64(len(tmp))
		for need := b.off + 1<<b.class; uint64(len(in.keys)) < need; {
			in.keys = append(in.keys, 0)
			in.el = append(in.el, 0)
		}
		for i, e := range tmp {
			in.keys[b.off+uint64(i)], in.el[b.off+uint64(i)] = e.key, e.el
		}
	}
	return in, nil
}
