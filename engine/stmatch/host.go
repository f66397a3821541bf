package stmatch

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// Layout of the per-level metadata words (the M_* defines of kernels/stmatch.cu).
const (
	maxLevels  = 32
	metaStride = 44
	mBack      = 0
	mCollide   = 1
	mLower     = 2
	mUpper     = 3
	mNonAdj    = 4
	mNeedIdx   = 5
	mCandOff   = 6
	mCandLen   = 7
	mBufOff    = 8
	mFlags     = 9 // v2 kernel only (v1 ignores it; flatten leaves it 0 without reuse)
	mEBase     = 10
	mCap       = 42 // the level's buffer capacity
	mBackAll   = 43 // every backward level, when the reused level may be in pieces

	fOrdered = 1 << 24 // leaf group: symmetry orders it (binomial instead of falling factorial)
	fClassN  = 25      // leaf group: at bits 25..27 of a class's first group, its number of groups
	fGroupK  = 16      // leaf group: its vertex count at bits 16..23

	fReuse     = 0xff   // reused level + 1
	fReused    = 0x100  // a later level reuses this level's set
	fNarrow    = 0x200  // NarrowShared
	fCheckCand = 0x400  // test membership in the level's candidate list
	fGraph     = 0x800  // the level's lists are the data graph's adjacency lists (no candidate space)
	fPieces    = 0x1000 // the level's set may exceed its buffer: the kernel computes it in pieces

	// minPieceCap is the smallest bound on a level's buffer: a warp pass over a source adds up
	// to 32 candidates, and every piece must take at least one pass.
	minPieceCap = 32
	// defaultPieceCap bounds a level's buffer by default (256 KiB a level and warp): longer sets
	// (on graphs with degrees above it) are computed in pieces instead of shrinking the grid.
	defaultPieceCap = 1 << 16
)

// flatPlan is a plan in the arrays the kernel reads.
type flatPlan struct {
	L int
	// Meta holds metaStride words per level: masks of backward, collide, lower, upper and
	// non-adjacent levels, whether a later level needs the level's candidate index, the level's
	// candidate list (offset and length in Cands), its buffer offset in a warp's slice, and for
	// each backward level j the start in Offsets of the edge index (level j -> level i).
	Meta []uint64
	// Offsets: the offsets of every edge index of the candidate space, concatenated and shifted to
	// point into the concatenation of ValueParts (the indexes' values, in the same order, not
	// copied; values() concatenates them for host-side use). Offsets has at least one entry.
	Offsets      []uint64
	ValueParts   [][]uint32
	concatenated []uint32
	// Cands: the candidate list of every level's vertex, concatenated (at least one entry).
	Cands []uint32
	// Cap is the capacity reserved per warp for each level's set (0 for the root and last levels),
	// at most the pieceCap of flatOptions: a level with fPieces may need more, in pieces.
	Cap []uint64
	// Stride is the buffer size of one warp in uint32 words (at least 1).
	Stride uint64
	// NonAdjacent is set when some level must test non-adjacency (induced semantics).
	NonAdjacent bool
	NumRoots    uint64
	// Graph is set when the plan has no candidate space (it would exceed plan.DefaultSpaceLimit):
	// every level's lists are then the data graph's adjacency lists of its parents' vertices
	// (fGraph), and Offsets and ValueParts are empty. The kernel needs the sorted CSR for them.
	Graph bool
	data  *graph.Graph // with Graph: the data graph (host side only, for the roots' weights)
	// EdgeLabels (graph mode) lists the edge labels that some backward edge requires: the k-th
	// one's adjacency (the neighbours through edges of that label, sorted by id) follows the
	// whole CSR in the arrays sortedCSR returns, its offsets at (k+1)(n+1); the level's
	// mEBase+j word holds that start (0, the whole CSR, for an edge of any label).
	EdgeLabels []uint32

	// The data graph's CSR sorted by id, for the devices' uploads (sortedCSR method).
	csrOnce    sync.Once
	csrOffsets []uint64
	csrAdj     []uint32
	// prebuilt holds the hub bitmaps built before the devices were open (prebuildHubs).
	prebuilt *prebuiltHubs
	// The roots' weights for splitting them into work units (rootWeights method).
	weightsOnce sync.Once
	weights     rootWeights

	// While flattening: the edge indexes queued for Offsets/ValueParts (each once, found by its
	// offsets array in queued) and their total sizes.
	pending           []edgeIndex
	queued            map[*uint64]uint64
	nOffsets, nValues uint64
	// G is the number of postponed leaf groups counted by the v2 kernel (0: the last level is
	// counted); their records follow the levels' in Meta (metaStride words each: mBack the
	// parents' levels, mEBase their lists, mFlags the group's size and fOrdered).
	G int
}

// flatOptions say how flattenOn lays a plan out for the kernel.
type flatOptions struct {
	// reuse: a level with plan Reuse j starts from level j's stored set and intersects the lists
	// of its Extra edges only (v2 kernel); else every level intersects all its backward lists (v1).
	reuse bool
	// storeLast gives the last level a buffer too (listing writes out its stored set).
	storeLast bool
	// pieceCap bounds every level's buffer (candidates; raised to minPieceCap); a level whose set
	// could be longer gets fPieces and, when a later level reuses it, that level gets mBackAll to
	// fall back on. 0: no bound (the v1 kernel has no pieces).
	pieceCap uint64
}

// flatten turns a plan with a candidate space into the kernel's arrays, without pieces.
func flatten(pl *plan.Plan, reuse, storeLast bool) (*flatPlan, error) {
	return flattenOn(nil, pl, flatOptions{reuse: reuse, storeLast: storeLast})
}

// flattenOn is flatten for a plan on data graph g, with options o. A plan without a candidate
// space (too large for plan.DefaultSpaceLimit, or built without one) runs on g's adjacency instead
// (fp.Graph): a level's set is the intersection of its parents' neighbour lists (through edges of
// the pattern edge's label: fp.EdgeLabels), tested for membership in the level's candidate list
// where a vertex label could fail. That needs a plan without leaf groups (Enumerate).
func flattenOn(g *graph.Graph, pl *plan.Plan, o flatOptions) (*flatPlan, error) {
	reuse := o.reuse
	if o.pieceCap > 0 {
		o.pieceCap = max(o.pieceCap, minPieceCap)
	}
	L := len(pl.Levels)
	if L == 0 {
		return nil, fmt.Errorf("stmatch: the plan has no levels")
	}
	if L > maxLevels {
		return nil, fmt.Errorf("stmatch: %d levels, at most %d supported", L, maxLevels)
	}
	if pl.Space == nil {
		if g == nil || !graphMode(g, pl) {
			return nil, errSpaceTooLarge
		}
	}
	fp := &flatPlan{L: L, Meta: make([]uint64, L*metaStride), Cap: make([]uint64, L), Graph: pl.Space == nil}
	ncands := 0
	for _, lvl := range pl.Levels {
		ncands += len(pl.Candidates[lvl.Vertex])
	}
	fp.Cands = make([]uint32, 0, max(1, ncands))
	var maxDegree uint64
	var bounds *setBounds
	if fp.Graph {
		fp.data = g
		bounds = newSetBounds(g)
		maxDegree = bounds.maxDegree
	}
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
		// In graph mode a level whose label no vertex can fail keeps every neighbour its
		// adjacency runs give (its candidate list only prunes, fCheckCand below), so its set is
		// bounded by the degree, not by its candidate list.
		checkCand := fp.Graph && i > 0 && labelMayFail(g, pl.Pattern.VertexLabel(lvl.Vertex))
		capacity := uint64(len(cands))
		if fp.Graph && !checkCand && len(lvl.Backward) > 0 {
			capacity = maxDegree // a level with no backward edge iterates its candidate list
		}
		edges := lvl.Backward
		// fallback: the reused level may be in pieces, and then this level intersects all its
		// backward lists (mBackAll) instead of its stored set and Extra lists.
		fallback := false
		if reuse && lvl.Reuse >= 0 {
			if lvl.Reuse >= i || lvl.Reuse == 0 {
				return nil, fmt.Errorf("stmatch: level %d reuses level %d", i, lvl.Reuse)
			}
			edges = lvl.Extra
			meta[mFlags] |= uint64(lvl.Reuse + 1)
			fp.Meta[lvl.Reuse*metaStride+mFlags] |= fReused
			fallback = fp.Meta[lvl.Reuse*metaStride+mFlags]&fPieces != 0
			if len(edges) == 0 {
				meta[mFlags] |= fCheckCand
			}
		}
		// Every backward list bounds the level's set (a reused set is a subset of each of them
		// too), whether or not the kernel intersects it.
		for _, be := range lvl.Backward {
			if be.Level >= i {
				return nil, fmt.Errorf("stmatch: level %d has a backward edge to level %d", i, be.Level)
			}
			intersected := slices.Contains(edges, be)
			if intersected {
				meta[mBack] |= 1 << be.Level
			}
			if fallback {
				meta[mBackAll] |= 1 << be.Level
			}
			if fp.Graph {
				// The set holds neighbours of level be.Level's vertex (of its label) of this
				// level's label through edges of be's label (setBounds).
				parent := pl.Pattern.VertexLabel(pl.Levels[be.Level].Vertex)
				capacity = min(capacity, bounds.bound(parent, pl.Pattern.VertexLabel(lvl.Vertex), be.EdgeLabel))
				meta[mFlags] |= fGraph
				if !be.EdgeLabel.Any && (g.HasEdgeLabels() || be.EdgeLabel.Value != 0) {
					k := slices.Index(fp.EdgeLabels, be.EdgeLabel.Value)
					if k < 0 {
						k = len(fp.EdgeLabels)
						fp.EdgeLabels = append(fp.EdgeLabels, be.EdgeLabel.Value)
					}
					meta[mEBase+be.Level] = uint64(k+1) * uint64(g.NumVertices()+1)
				}
				continue
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
			var longest uint64
			for k := 1; k < len(off); k++ {
				longest = max(longest, off[k]-off[k-1])
			}
			capacity = min(capacity, longest)
			if !intersected && !fallback {
				continue
			}
			meta[mEBase+be.Level] = fp.addIndex(off, vals)
			fp.Meta[be.Level*metaStride+mNeedIdx] = 1
		}
		if i > 0 && (i < L-1 || len(pl.Groups) > 0 || o.storeLast) {
			fp.Cap[i] = capacity
			if o.pieceCap > 0 && capacity > o.pieceCap {
				fp.Cap[i] = o.pieceCap
				meta[mFlags] |= fPieces
			}
			meta[mCap] = fp.Cap[i]
		}
		if reuse && lvl.NarrowShared {
			meta[mFlags] |= fNarrow
		}
		if checkCand {
			meta[mFlags] |= fCheckCand
		}
	}
	for i := range pl.Levels {
		fp.Meta[i*metaStride+mBufOff] = fp.Stride
		fp.Stride += fp.Cap[i]
	}
	fp.NumRoots = fp.Meta[mCandLen]
	if err := fp.addGroups(pl); err != nil {
		return nil, err
	}
	fp.concatIndexes()
	if fp.Stride == 0 {
		fp.Stride = 1
	}
	if len(fp.Offsets) == 0 {
		fp.Offsets = []uint64{0}
	}
	if len(fp.Cands) == 0 {
		fp.Cands = []uint32{0}
	}
	return fp, nil
}

// edgeIndex is an edge index of the candidate space waiting to be concatenated into Offsets
// and ValueParts.
type edgeIndex struct {
	off  []uint64
	vals []uint32
}

// addIndex queues an edge index for concatenation and returns where its offsets will start in
// Offsets. The indexes are copied once, by concatIndexes, into arrays allocated at their final
// size: appending them entry by entry spent 30 s of a 35 s flatten on R-MAT scale 22 growing
// slices of 10^8-10^9 entries (2 cores).
//
// An index that several levels use (a clique's, say) is queued once.
func (fp *flatPlan) addIndex(off []uint64, vals []uint32) uint64 {
	if ebase, ok := fp.queued[&off[0]]; ok {
		return ebase
	}
	if fp.queued == nil {
		fp.queued = map[*uint64]uint64{}
	}
	ebase := fp.nOffsets
	fp.queued[&off[0]] = ebase
	fp.nOffsets += uint64(len(off))
	fp.nValues += uint64(len(vals))
	fp.pending = append(fp.pending, edgeIndex{off, vals})
	return ebase
}

// concatIndexes fills Offsets from the queued indexes (shifted to point into the concatenated
// values) and keeps their value arrays as ValueParts: the device upload copies each part to its
// place, so the host never holds a second copy of the space (a 2 GB copy was most of what was
// left of flatten's time on R-MAT scale 22).
func (fp *flatPlan) concatIndexes() {
	fp.Offsets = make([]uint64, 0, max(1, fp.nOffsets))
	var base uint64
	for _, ix := range fp.pending {
		for _, o := range ix.off {
			fp.Offsets = append(fp.Offsets, base+o)
		}
		fp.ValueParts = append(fp.ValueParts, ix.vals)
		base += uint64(len(ix.vals))
	}
	fp.pending, fp.queued = nil, nil
}

// values returns the concatenated values (host-side uses: tests and the emulation), built on
// first use.
func (fp *flatPlan) values() []uint32 {
	if fp.concatenated == nil {
		fp.concatenated = make([]uint32, 0, max(1, fp.nValues))
		for _, part := range fp.ValueParts {
			fp.concatenated = append(fp.concatenated, part...)
		}
		if len(fp.concatenated) == 0 {
			fp.concatenated = append(fp.concatenated, 0)
		}
	}
	return fp.concatenated
}

// graphMode reports whether the plan can run on g's adjacency lists: no leaf groups (their
// counts need the candidate space's filtered lists). Edge labels are met by adjacency lists
// filtered by label (flatPlan.EdgeLabels).
func graphMode(g *graph.Graph, pl *plan.Plan) bool {
	return g != nil && len(pl.Groups) == 0
}

// labelMayFail reports whether some vertex of g has a label that l rejects (then a vertex's
// membership in a level's candidate list must be tested; else the candidate list only prunes).
func labelMayFail(g *graph.Graph, l pattern.Label) bool {
	if l.Any || g.NumVertices() == 0 {
		return false
	}
	label, uniform := g.UniformVertexLabel()
	return !uniform || label != l.Value
}

// Limits of the kernel's class counting (the MAX_CLASS* defines of kernels/stmatch.cu).
const (
	maxClassGroups = 4
	maxClassLists  = 16
	maxClassStates = 64
)

// leafCountable reports whether the v2 kernel counts the plan's postponed leaf groups: the plan
// keeps a level (the root), and a class of several groups has at most maxClassGroups groups,
// maxClassLists lists (its groups' parent lists, and the candidate list of an isolated group,
// which has no parents) and maxClassStates states of its distribution (the product of its
// groups' sizes plus one).
func leafCountable(pl *plan.Plan) bool {
	if len(pl.Levels) == 0 || len(pl.Levels)+len(pl.Groups) > maxLevels { // the kernel needs a root level
		return false
	}
	for _, g := range pl.Groups {
		if len(g.Vertices) > 0xff {
			return false
		}
	}
	for _, c := range pl.Classes {
		if len(c.Groups) == 1 {
			continue
		}
		lists, states := 0, 1
		for _, gi := range c.Groups {
			lists += max(1, len(pl.Groups[gi].Parents))
			states *= len(pl.Groups[gi].Vertices) + 1
		}
		if len(c.Groups) > maxClassGroups || lists > maxClassLists || states > maxClassStates {
			return false
		}
	}
	return true
}

// unrollsLeaves reports whether the kernel unrolls the leaf products of a plan under o
// (optUnrollLeaves: a lane a product): by default when every collision class of its leaf groups
// is a single group (single), with UnrollClasses for every plan, never with NoUnrollLeaves. The
// launch and the prediction (leafParents) both ask it.
func (o Options) unrollsLeaves(single bool) bool {
	return !o.NoUnrollLeaves && (o.UnrollClasses || single)
}

// singleGroupClasses reports whether every collision class of the plan's leaf groups is a single
// group: leaf products are unrolled by default only then (Options.UnrollClasses for the others).
func (fp *flatPlan) singleGroupClasses() bool {
	for g := 0; g < fp.G; g++ {
		if fp.Meta[(fp.L+g)*metaStride+mFlags]>>fClassN&7 > 1 {
			return false
		}
	}
	return true
}

// addGroups appends a record per leaf group to Meta: its parents' levels and lists, size, order.
func (fp *flatPlan) addGroups(pl *plan.Plan) error {
	if len(pl.Groups) == 0 {
		return nil
	}
	if !leafCountable(pl) {
		return fmt.Errorf("stmatch: the plan's leaf groups are not countable by the kernel")
	}
	fp.G = len(pl.Groups)
	// The records go class by class; a class's first record holds its number of groups.
	var order []int
	first := map[int]int{}
	for _, c := range pl.Classes {
		first[c.Groups[0]] = len(c.Groups)
		order = append(order, c.Groups...)
	}
	if len(order) != len(pl.Groups) {
		return fmt.Errorf("stmatch: the plan's %d leaf classes cover %d of its %d groups", len(pl.Classes), len(order), len(pl.Groups))
	}
	for _, gi := range order {
		lg := pl.Groups[gi]
		meta := make([]uint64, metaStride)
		meta[mFlags] = uint64(len(lg.Vertices)) << fGroupK
		if lg.Ordered {
			meta[mFlags] |= fOrdered
		}
		meta[mFlags] |= uint64(first[gi]) << fClassN
		child := lg.Vertices[0]
		cands := pl.Candidates[child]
		meta[mCandOff] = uint64(len(fp.Cands))
		meta[mCandLen] = uint64(len(cands))
		fp.Cands = append(fp.Cands, cands...)
		for _, pe := range lg.Parents {
			parent := pl.Levels[pe.Level].Vertex
			idx := pl.Space[[2]int{parent, child}]
			if idx == nil {
				return fmt.Errorf("stmatch: candidate space has no index for leaf edge %d->%d", parent, child)
			}
			off, vals := idx.Arrays()
			if len(off) != len(pl.Candidates[parent])+1 {
				return fmt.Errorf("stmatch: edge index %d->%d has %d offsets for %d candidates", parent, child, len(off), len(pl.Candidates[parent]))
			}
			meta[mBack] |= 1 << pe.Level
			meta[mEBase+pe.Level] = fp.addIndex(off, vals)
			fp.Meta[pe.Level*metaStride+mNeedIdx] = 1
		}
		fp.Meta = append(fp.Meta, meta...)
	}
	return nil
}

// makeUnits returns the work units of the v2 kernel: root index r (bits 0..31), k (32..47) and K
// (48..63): the subtree of root r over the level-1 candidates at positions k, k+K, ... of its
// level-1 set. Without split every root is one unit, in order (as v1). With split, a root whose
// level-1 set may hold w candidates (the length of its level-1 list, or level 1's candidate count
// when level 1 has no backward edge) gets K = ceil(w/T) units, T chosen for about 16 units per
// warp overall, and the units go heaviest root first so the long subtrees start early.
func (fp *flatPlan) makeUnits(warps int, split bool) []uint64 {
	return fp.cutUnits(warps, split, 16, 0xffff)
}

// cutUnits is makeUnits with about perWarp units a warp overall, and at most maxK a root.
func (fp *flatPlan) cutUnits(warps int, split bool, perWarp, maxK uint64) []uint64 {
	n := fp.NumRoots
	if !split || !fp.splitsRoots() {
		u := make([]uint64, n)
		for r := range u {
			u[r] = uint64(r) | 1<<48
		}
		return u
	}
	rw := fp.rootWeights()
	t := max(1, (rw.sum+uint64(warps)*perWarp-1)/(uint64(warps)*perWarp))
	var units []uint64
	for _, r := range rw.order {
		K := min(maxK, max(1, (rw.weight[r]+t-1)/t))
		for k := uint64(0); k < K; k++ {
			units = append(units, uint64(r)|k<<32|K<<48)
		}
	}
	return units
}

// splitsRoots reports whether makeUnits may split fp's roots: plans of two levels or more whose
// level 1 does not reuse a stored set, except two-level plans without leaf groups.
func (fp *flatPlan) splitsRoots() bool {
	return fp.L >= 2 && (fp.L != 2 || fp.G != 0) && fp.Meta[metaStride+mFlags]&fReused == 0
}

// rootWeights is what makeUnits splits the roots by: each root's weight (the length of its
// level-1 list, or level 1's candidate count when level 1 has no backward edge), their sum, and
// the roots heaviest first (ties in root order).
type rootWeights struct {
	weight []uint64
	sum    uint64
	order  []uint32
}

// rootWeights computes fp's root weights once (the devices' grids, which makeUnits needs too,
// are known only once the devices are open; the weights can be ready before).
func (fp *flatPlan) rootWeights() *rootWeights {
	fp.weightsOnce.Do(func() {
		n := fp.NumRoots
		rw := &fp.weights
		rw.weight = make([]uint64, n)
		m1 := fp.Meta[metaStride : 2*metaStride]
		for r := range rw.weight {
			w := m1[mCandLen]
			switch {
			case m1[mBack]&1 != 0 && fp.Graph:
				w = uint64(fp.data.Degree(fp.Cands[fp.Meta[mCandOff]+uint64(r)]))
			case m1[mBack]&1 != 0:
				w = fp.listLen(m1[mEBase], uint64(r))
			}
			rw.weight[r] = w
			rw.sum += w
		}
		rw.order = make([]uint32, n)
		for r := range rw.order {
			rw.order[r] = uint32(r)
		}
		slices.SortStableFunc(rw.order, func(a, b uint32) int { return cmp.Compare(rw.weight[b], rw.weight[a]) })
	})
	return &fp.weights
}

// listLen returns the length of the k-th list of the edge index whose offsets start at ebase,
// from the offsets alone (list would concatenate every value on the host first).
func (fp *flatPlan) listLen(ebase, k uint64) uint64 {
	return fp.Offsets[ebase+k+1] - fp.Offsets[ebase+k]
}

// list returns the k-th list of the edge index whose offsets start at ebase (as the kernel reads it).
func (fp *flatPlan) list(ebase, k uint64) []uint32 {
	return fp.values()[fp.Offsets[ebase+k]:fp.Offsets[ebase+k+1]]
}

// levelCands returns the candidate list of level i's vertex.
func (fp *flatPlan) levelCands(i int) []uint32 {
	m := fp.Meta[i*metaStride:]
	return fp.Cands[m[mCandOff] : m[mCandOff]+m[mCandLen]]
}

// sortedCSR returns the data graph's adjacency with every list sorted by id (package graph sorts
// by labels first), for the kernel's adjacency tests.
// When every list is sorted by id already (one vertex label, or the labels happen to follow
// ids), the graph's own arrays are returned, not copied.
func sortedCSR(g *graph.Graph) ([]uint64, []uint32) {
	raw := g.Raw()
	if idSorted(raw.Neighbors, raw.Offsets) {
		return raw.Offsets, raw.Neighbors
	}
	nbrs := make([]uint32, len(raw.Neighbors))
	copy(nbrs, raw.Neighbors)
	for u := 0; u+1 < len(raw.Offsets); u++ {
		s := nbrs[raw.Offsets[u]:raw.Offsets[u+1]]
		slices.Sort(s)
	}
	return raw.Offsets, nbrs
}

// sortedCSR is sortedCSR(g) computed once per flat plan, so that the devices of a multi-GPU
// count share it, followed (graph mode) by the adjacency filtered by each of fp.EdgeLabels: n+1
// offsets each (pointing into the concatenated neighbours), the neighbours sorted by id.
func (fp *flatPlan) sortedCSR(g *graph.Graph) ([]uint64, []uint32) {
	fp.csrOnce.Do(func() {
		fp.csrOffsets, fp.csrAdj = sortedCSR(g)
		if len(fp.EdgeLabels) > 0 {
			fp.csrOffsets, fp.csrAdj = labelledCSR(g, fp.csrOffsets, fp.csrAdj, fp.EdgeLabels)
		}
	})
	return fp.csrOffsets, fp.csrAdj
}

// labelledCSR appends to the sorted CSR (offs, adj) of g one CSR per edge label of labels: the
// neighbours of each vertex through edges of that label, sorted by id (a graph without edge
// labels has label 0 on every edge). The arrays are new; offs and adj are not changed.
func labelledCSR(g *graph.Graph, offs []uint64, adj []uint32, labels []uint32) ([]uint64, []uint32) {
	n := g.NumVertices()
	has := func(v uint32, k int, l uint32) bool {
		if !g.HasEdgeLabels() {
			return l == 0
		}
		return g.NeighborEdgeLabels(v)[k] == l
	}
	var extra uint64
	for _, l := range labels {
		for v := range uint32(n) {
			for k := range g.Degree(v) {
				if has(v, k, l) {
					extra++
				}
			}
		}
	}
	outOff := make([]uint64, len(offs), len(offs)+len(labels)*(n+1))
	copy(outOff, offs)
	outAdj := make([]uint32, len(adj), uint64(len(adj))+extra)
	copy(outAdj, adj)
	for _, l := range labels {
		for v := range uint32(n) {
			outOff = append(outOff, uint64(len(outAdj)))
			start := len(outAdj)
			for k, u := range g.Neighbors(v) {
				if has(v, k, l) {
					outAdj = append(outAdj, u)
				}
			}
			slices.Sort(outAdj[start:])
		}
		outOff = append(outOff, uint64(len(outAdj)))
	}
	return outOff, outAdj
}

// idSorted reports whether every adjacency list nbrs[offs[u]:offs[u+1]] is increasing.
func idSorted(nbrs []uint32, offs []uint64) bool {
	for u := 0; u+1 < len(offs); u++ {
		for k := offs[u] + 1; k < offs[u+1]; k++ {
			if nbrs[k-1] >= nbrs[k] {
				return false
			}
		}
	}
	return true
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
