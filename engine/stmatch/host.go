package stmatch

import (
	"fmt"
	"slices"

	"submatch/graph"
	"submatch/plan"
)

// Layout of the per-level metadata words (the M_* defines of kernels/stmatch.cu).
const (
	maxLevels  = 32
	metaStride = 42
	mBack      = 0
	mCollide   = 1
	mLower     = 2
	mUpper     = 3
	mNonAdj    = 4
	mNeedIdx   = 5
	mCandOff   = 6
	mCandLen   = 7
	mBufOff    = 8
	mEBase     = 10
)

// flatPlan is a plan in the arrays the kernel reads.
type flatPlan struct {
	L int
	// Meta holds metaStride words per level: masks of backward, collide, lower, upper and
	// non-adjacent levels, whether a later level needs the level's candidate index, the level's
	// candidate list (offset and length in Cands), its buffer offset in a warp's slice, and for
	// each backward level j the start in Offsets of the edge index (level j -> level i).
	Meta []uint64
	// Offsets and Values: every edge index of the candidate space, concatenated; the offsets of
	// each index are shifted to point into the concatenated Values. Both have at least one entry.
	Offsets []uint64
	Values  []uint32
	// Cands: the candidate list of every level's vertex, concatenated (at least one entry).
	Cands []uint32
	// Cap is the capacity reserved per warp for each level's set (0 for the root and last levels).
	Cap []uint64
	// Stride is the buffer size of one warp in uint32 words (at least 1).
	Stride uint64
	// NonAdjacent is set when some level must test non-adjacency (induced semantics).
	NonAdjacent bool
	NumRoots    uint64
}

// flatten turns a plan with a candidate space into the kernel's arrays. Every level intersects the
// lists of all its backward edges (Reuse and Extra are not used).
func flatten(pl *plan.Plan) (*flatPlan, error) {
	L := len(pl.Levels)
	if L == 0 {
		return nil, fmt.Errorf("stmatch: the plan has no levels")
	}
	if L > maxLevels {
		return nil, fmt.Errorf("stmatch: %d levels, at most %d supported", L, maxLevels)
	}
	if pl.Space == nil {
		return nil, errSpaceTooLarge
	}
	fp := &flatPlan{L: L, Meta: make([]uint64, L*metaStride), Cap: make([]uint64, L)}
	levelOff := make([]uint64, L)
	for i, lvl := range pl.Levels {
		cands := pl.Candidates[lvl.Vertex]
		levelOff[i] = uint64(len(fp.Cands))
		meta := fp.Meta[i*metaStride : (i+1)*metaStride]
		meta[mCandOff] = uint64(len(fp.Cands))
		meta[mCandLen] = uint64(len(cands))
		fp.Cands = append(fp.Cands, cands...)
		for _, j := range lvl.Collide {
			meta[mCollide] |= 1 << j
		}
		for _, j := range lvl.Lower {
			meta[mLower] |= 1 << j
		}
		for _, j := range lvl.Upper {
			meta[mUpper] |= 1 << j
		}
		for _, j := range lvl.NonAdjacent {
			meta[mNonAdj] |= 1 << j
			fp.NonAdjacent = true
		}
		capacity := uint64(len(cands))
		for _, be := range lvl.Backward {
			if be.Level >= i {
				return nil, fmt.Errorf("stmatch: level %d has a backward edge to level %d", i, be.Level)
			}
			parent := pl.Levels[be.Level].Vertex
			idx := pl.Space[[2]int{parent, lvl.Vertex}]
			if idx == nil {
				return nil, fmt.Errorf("stmatch: candidate space has no index for pattern edge %d->%d", parent, lvl.Vertex)
			}
			off, vals := idx.Arrays()
			if len(off) != len(pl.Candidates[parent])+1 {
				return nil, fmt.Errorf("stmatch: edge index %d->%d has %d offsets for %d candidates", parent, lvl.Vertex, len(off), len(pl.Candidates[parent]))
			}
			meta[mBack] |= 1 << be.Level
			meta[mEBase+be.Level] = uint64(len(fp.Offsets))
			fp.Meta[be.Level*metaStride+mNeedIdx] = 1
			base := uint64(len(fp.Values))
			var longest uint64
			for k, o := range off {
				fp.Offsets = append(fp.Offsets, base+o)
				if k > 0 {
					longest = max(longest, o-off[k-1])
				}
			}
			fp.Values = append(fp.Values, vals...)
			capacity = min(capacity, longest)
		}
		if i > 0 && i < L-1 {
			fp.Cap[i] = capacity
		}
	}
	for i := range pl.Levels {
		fp.Meta[i*metaStride+mBufOff] = fp.Stride
		fp.Stride += fp.Cap[i]
	}
	fp.NumRoots = fp.Meta[mCandLen]
	if fp.Stride == 0 {
		fp.Stride = 1
	}
	if len(fp.Offsets) == 0 {
		fp.Offsets = []uint64{0}
	}
	if len(fp.Values) == 0 {
		fp.Values = []uint32{0}
	}
	if len(fp.Cands) == 0 {
		fp.Cands = []uint32{0}
	}
	return fp, nil
}

// list returns the k-th list of the edge index whose offsets start at ebase (as the kernel reads it).
func (fp *flatPlan) list(ebase, k uint64) []uint32 {
	return fp.Values[fp.Offsets[ebase+k]:fp.Offsets[ebase+k+1]]
}

// levelCands returns the candidate list of level i's vertex.
func (fp *flatPlan) levelCands(i int) []uint32 {
	m := fp.Meta[i*metaStride:]
	return fp.Cands[m[mCandOff] : m[mCandOff]+m[mCandLen]]
}

// sortedCSR returns the data graph's adjacency with every list sorted by id (package graph sorts
// by labels first), for the kernel's adjacency tests.
func sortedCSR(g *graph.Graph) ([]uint64, []uint32) {
	raw := g.Raw()
	nbrs := make([]uint32, len(raw.Neighbors))
	copy(nbrs, raw.Neighbors)
	for u := 0; u+1 < len(raw.Offsets); u++ {
		s := nbrs[raw.Offsets[u]:raw.Offsets[u+1]]
		slices.Sort(s)
	}
	return raw.Offsets, nbrs
}

// chooseBlocks returns how many thread blocks of warpsPerBlock warps fit in avail bytes when each
// warp needs perWarp bytes, at most want and at least 1 (the allocation then reports the budget
// error when even one block does not fit).
func chooseBlocks(want, warpsPerBlock int, perWarp, avail uint64) int {
	if want < 1 {
		want = 1
	}
	perBlock := perWarp * uint64(warpsPerBlock)
	if perBlock == 0 {
		return want
	}
	fit := avail / perBlock
	if fit < 1 {
		return 1
	}
	if fit < uint64(want) {
		return int(fit)
	}
	return want
}
